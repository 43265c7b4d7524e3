// The registrar's label and annotation keys, derived once from the configured prefix.

/** ArgoCD's selector label for cluster Secrets; demotion moves its value aside. */
export const ARGOCD_SECRET_TYPE_LABEL = 'argocd.argoproj.io/secret-type';

/** The value ArgoCD looks for under {@link ARGOCD_SECRET_TYPE_LABEL}. */
export const ARGOCD_CLUSTER_SECRET_TYPE = 'cluster';

/** ArgoCD's own cluster, for `destination.name`, only while no cluster Secret takes the name. */
export const ARGOCD_IN_CLUSTER_NAME = 'in-cluster';

/** Set to `"true"`, ArgoCD (3.4+) neither reconciles nor watches the cluster, but lists it. */
export const ARGOCD_SKIP_RECONCILE_ANNOTATION = 'argocd.argoproj.io/skip-reconcile';

/** Each key's suffix after the prefix. */
const SUFFIXES = {
  managedBy: 'managed-by',
  /** With managed-by, what makes a registration ours: hosts sharing an ArgoCD keep apart. */
  hostId: 'host-id',
  cluster: 'cluster',
  sourceNamespace: 'source-namespace',
  sourceNamespaceUid: 'source-namespace-uid',
  /** `Cluster` on the registration of a Cluster API Cluster; absent for a namespace's. */
  sourceKind: 'source-kind',
  /** The source Cluster's name and uid (its namespace is in `sourceNamespace`). */
  sourceCluster: 'source-cluster',
  sourceClusterUid: 'source-cluster-uid',
  provider: 'provider',
  project: 'project',
  namespaces: 'namespaces',
  clusterResources: 'cluster-resources',
  server: 'server',
  tlsServerName: 'tls-server-name',
  prune: 'prune',
  orphanedSecretType: 'orphaned-secret-type',
  supersededBy: 'superseded-by',
  staleSince: 'stale-since',
  credentialsUpdatedAt: 'credentials-updated-at',
  /** A source's annotation naming the Secret to register from, among several candidates. */
  kubeconfigSecret: 'kubeconfig-secret',
  /** `"true"` on a source (label or annotation): its child is paused; read, never copied. */
  paused: 'paused',
  /** Why we set skip-reconcile: its presence proves we did, so only then is it removed. */
  pauseReason: 'pause-reason',
} as const;

type KeyName = keyof typeof SUFFIXES;

export type LabelKeys = { readonly [K in KeyName]: string } & {
  readonly prefix: string;
  /** Keys the registrar reads or writes itself: never copied from a namespace. */
  readonly reserved: ReadonlySet<string>;
};

/** Full keys for `prefix` (`argocd-cluster-registrar/` gives `argocd-cluster-registrar/cluster`). */
export function labelKeys(prefix: string): LabelKeys {
  const keys = Object.fromEntries(
    Object.entries(SUFFIXES).map(([name, suffix]) => [name, `${prefix}${suffix}`]),
  ) as Record<KeyName, string>;
  return { prefix, ...keys, reserved: new Set(Object.values(keys)) };
}

/** True for keys in the registrar's prefix (the ones it copies, owns and removes). */
export function hasPrefix(keys: LabelKeys, key: string): boolean {
  return key.startsWith(keys.prefix);
}
