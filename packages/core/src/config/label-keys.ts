// The registrar's label and annotation keys, derived once from the configured prefix.

/** ArgoCD's selector label for cluster Secrets; demotion moves its value aside. */
export const ARGOCD_SECRET_TYPE_LABEL = 'argocd.argoproj.io/secret-type';

/** The value ArgoCD looks for under {@link ARGOCD_SECRET_TYPE_LABEL}. */
export const ARGOCD_CLUSTER_SECRET_TYPE = 'cluster';

/**
 * The name ArgoCD gives its own cluster: `destination.name: in-cluster` resolves to the
 * cluster ArgoCD runs in only while no cluster Secret carries that name.
 */
export const ARGOCD_IN_CLUSTER_NAME = 'in-cluster';

/**
 * ArgoCD (3.4 and later) neither reconciles nor watches a cluster whose Secret carries this
 * annotation set to `"true"`, and keeps it listed: what a paused registration gets.
 */
export const ARGOCD_SKIP_RECONCILE_ANNOTATION = 'argocd.argoproj.io/skip-reconcile';

export interface LabelKeys {
  readonly prefix: string;
  readonly managedBy: string;
  /**
   * The host a registration came from (config `hostId`): with managed-by, what makes it ours,
   * so registrars on several hosts writing into one ArgoCD never take each other's.
   */
  readonly hostId: string;
  readonly cluster: string;
  readonly sourceNamespace: string;
  readonly sourceNamespaceUid: string;
  /** `Cluster` on the registration of a Cluster API Cluster; absent for a namespace's. */
  readonly sourceKind: string;
  /** The source Cluster's name and uid (its namespace is in `sourceNamespace`). */
  readonly sourceCluster: string;
  readonly sourceClusterUid: string;
  readonly provider: string;
  readonly project: string;
  readonly namespaces: string;
  readonly clusterResources: string;
  readonly server: string;
  readonly tlsServerName: string;
  readonly prune: string;
  readonly orphanedSecretType: string;
  readonly supersededBy: string;
  readonly staleSince: string;
  readonly credentialsUpdatedAt: string;
  /** A source's annotation naming the Secret to register from, among several candidates. */
  readonly kubeconfigSecret: string;
  /** `"true"` on a source (label or annotation): its child is paused; read, never copied. */
  readonly paused: string;
  /**
   * On a registration, why the registrar set ArgoCD's skip-reconcile annotation: its
   * presence is the proof that the registrar set it, so only then is it ever removed.
   */
  readonly pauseReason: string;
  /** Keys the registrar reads or writes itself: never copied from a namespace. */
  readonly reserved: ReadonlySet<string>;
}

const SUFFIXES = {
  managedBy: 'managed-by',
  hostId: 'host-id',
  cluster: 'cluster',
  sourceNamespace: 'source-namespace',
  sourceNamespaceUid: 'source-namespace-uid',
  sourceKind: 'source-kind',
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
  kubeconfigSecret: 'kubeconfig-secret',
  paused: 'paused',
  pauseReason: 'pause-reason',
} as const;

/** Full keys for `prefix` (`argocd-cluster-registrar/` gives `argocd-cluster-registrar/cluster`). */
export function labelKeys(prefix: string): LabelKeys {
  const full = (suffix: string): string => `${prefix}${suffix}`;
  const keys = {
    managedBy: full(SUFFIXES.managedBy),
    hostId: full(SUFFIXES.hostId),
    cluster: full(SUFFIXES.cluster),
    sourceNamespace: full(SUFFIXES.sourceNamespace),
    sourceNamespaceUid: full(SUFFIXES.sourceNamespaceUid),
    sourceKind: full(SUFFIXES.sourceKind),
    sourceCluster: full(SUFFIXES.sourceCluster),
    sourceClusterUid: full(SUFFIXES.sourceClusterUid),
    provider: full(SUFFIXES.provider),
    project: full(SUFFIXES.project),
    namespaces: full(SUFFIXES.namespaces),
    clusterResources: full(SUFFIXES.clusterResources),
    server: full(SUFFIXES.server),
    tlsServerName: full(SUFFIXES.tlsServerName),
    prune: full(SUFFIXES.prune),
    orphanedSecretType: full(SUFFIXES.orphanedSecretType),
    supersededBy: full(SUFFIXES.supersededBy),
    staleSince: full(SUFFIXES.staleSince),
    credentialsUpdatedAt: full(SUFFIXES.credentialsUpdatedAt),
    kubeconfigSecret: full(SUFFIXES.kubeconfigSecret),
    paused: full(SUFFIXES.paused),
    pauseReason: full(SUFFIXES.pauseReason),
  };
  return { prefix, ...keys, reserved: new Set(Object.values(keys)) };
}

/** True for keys in the registrar's prefix (the ones it copies, owns and removes). */
export function hasPrefix(keys: LabelKeys, key: string): boolean {
  return key.startsWith(keys.prefix);
}
