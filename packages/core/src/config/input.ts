// The configuration's vocabulary: the raw settings a caller hands in, the errors and result
// parseConfig hands back, and the defaults and accepted forms its messages quote. Kept apart so
// the provider-list and per-setting validators can share them without importing the parser.

import type { Config } from '../common/types.js';

export interface ConfigInput {
  targetNamespace?: string;
  labelPrefix?: string;
  managedBy?: string;
  /** Legacy (seed) setting: one provider's Secret-name glob. Cannot be combined with `providers`. */
  secretNamePattern?: string;
  /** Legacy (seed) setting: the key inside the Secret. Cannot be combined with `providers`. */
  secretKey?: string;
  /**
   * In precedence order: a preset (`k3k`, `vcluster`, `kamaji`, `capi`, `capa-eks`,
   * `capz-aks`, `gke`) or `custom:<glob>=<key>[,<key>...][;exec]` (`;exec`: the provider
   * allows exec translation, the provider half of the two exec gates).
   */
  providers?: readonly string[];
  interval?: string;
  demotedTTL?: string;
  credentialRefreshWindow?: string;
  /** The global exec gate (`--exec-credentials`, chart `execCredentials`); default false. */
  execCredentials?: boolean;
  /**
   * Servers an exec registration may name beyond its cloud's endpoint forms
   * (`--exec-allowed-servers`): CIDRs or addresses, host names, `.`-led domain suffixes.
   */
  execAllowedServers?: readonly string[];
  /** AKS token audiences accepted besides the AKS server application (`--exec-aks-server-ids`). */
  execAksServerIds?: readonly string[];
  /** Globs over the EKS cluster names exec registrations may name (`--exec-eks-cluster-names`). */
  execEksClusterNames?: readonly string[];
  /** IAM role ARNs an EKS exec registration may assume (`--exec-eks-role-arns`). */
  execEksRoleArns?: readonly string[];
  /** Drain before deregistration (`--drain-on-terminate`, chart `drainOnTerminate`); default false. */
  drainOnTerminate?: boolean;
  /**
   * Cluster API `Cluster` objects as sources (`--capi-clusters`, chart `capiClusters`): a
   * Cluster labelled `<prefix>managed-by` is registered from its own kubeconfig Secret.
   * Default false (the registrar then needs no access to Cluster API objects).
   */
  capiClusters?: boolean;
  /**
   * The cluster name of a Cluster source: `namespace-name` (`<namespace>.<name>`, the default:
   * Clusters of two namespaces never contend for a name) or `name` (the Cluster's own name, or
   * its `<prefix>cluster` label).
   */
  capiClusterNames?: string;
  /**
   * Under `namespace-name`, let a Cluster's `<prefix>cluster` label choose its cluster name
   * (`--capi-cluster-name-label`, chart `capiClusterNameLabel`); default false: the label is
   * ignored, with a warning.
   */
  capiClusterNameLabel?: boolean;
  /**
   * Probe each registered child's `/version` with its registered credentials
   * (`--probe-children`, chart `probeChildren`) and pause an unreachable one in ArgoCD;
   * default false.
   */
  probeChildren?: boolean;
  /** Consecutive failed probes before a child counts as unreachable (`--probe-failures`); default 3. */
  probeFailures?: string | number;
  /** How often a child that answers is probed (`--probe-interval`); default 3m. */
  probeInterval?: string;
  /**
   * Pause a child in ArgoCD while its Kamaji TenantControlPlane says `Sleeping`
   * (`--kamaji-sleep`, chart `kamajiSleep`); default false.
   */
  kamajiSleep?: boolean;
  /**
   * Pause a child in ArgoCD while its vcluster is paused or asleep (`--vcluster-sleep`, chart
   * `vclusterSleep`); default false.
   */
  vclusterSleep?: boolean;
  /**
   * Register by reference to the source's kubeconfig Secret (`--reference-mode`, chart
   * `referenceMode`): `off`, `on` or `on-or-copy`; default off.
   */
  referenceMode?: string;
  /**
   * The kubeconfig-secretreader plugin inside ArgoCD's application controller
   * (`--secretreader-path`, chart `secretreaderPath`): an absolute path or a name on its PATH.
   */
  secretreaderPath?: string;
  /**
   * Publish each registered source as a ClusterProfile of the cluster inventory
   * (`--cluster-profiles`, chart `clusterProfiles.enabled`); default false.
   */
  clusterProfiles?: boolean;
  /** The inventory namespace (`--cluster-profile-namespace`); default: the target namespace. */
  clusterProfileNamespace?: string;
  /** The profiles' cluster manager (`--cluster-manager`); default argocd-cluster-registrar. */
  clusterManager?: string;
}

export interface ConfigError {
  /** The ConfigInput key (the CLI maps it to its flag, env var or chart value). */
  readonly setting: string;
  /** The offending value as given (for `providers`, the one bad entry). */
  readonly value: string;
  /** What is wrong and the accepted form; does not repeat the setting name. */
  readonly message: string;
}

export type ConfigResult =
  | { readonly ok: true; readonly config: Config }
  | { readonly ok: false; readonly errors: readonly ConfigError[] };

export const CONFIG_DEFAULTS = {
  targetNamespace: 'argocd',
  labelPrefix: 'argocd-cluster-registrar/',
  managedBy: 'cluster-registrar',
  providers: ['k3k'],
  interval: '60s',
  // A demoted (renamed-away) registration is kept a week so a reverted label restores it.
  demotedTTL: '168h',
  credentialRefreshWindow: '0s',
  execCredentials: false,
  execAllowedServers: [],
  execAksServerIds: [],
  execEksClusterNames: [],
  execEksRoleArns: [],
  drainOnTerminate: false,
  capiClusters: false,
  capiClusterNames: 'namespace-name',
  capiClusterNameLabel: false,
  probeChildren: false,
  probeFailures: 3,
  // A longer one costs less CPU: at 3m, probing 1,000 children fits the daemon's steady
  // budget (BENCHMARKS.md); a failing child is probed again each interval.
  probeInterval: '3m',
  kamajiSleep: false,
  vclusterSleep: false,
  referenceMode: 'off',
  secretreaderPath: 'kubeconfig-secretreader',
  clusterProfiles: false,
  // Empty: the target namespace (parseConfig resolves it).
  clusterProfileNamespace: '',
  clusterManager: 'argocd-cluster-registrar',
} as const satisfies Required<Omit<ConfigInput, 'secretNamePattern' | 'secretKey'>>;

/**
 * What the legacy pair means when only one of them is given (the seed's defaults, which are
 * also the k3k preset). They are not applied unless one of the two is set: the default
 * provider list is `[k3k]`.
 */
export const LEGACY_DEFAULTS = {
  secretNamePattern: 'k3k-*-kubeconfig',
  secretKey: 'kubeconfig.yaml',
} as const;

export const PROVIDER_FORM =
  'one of k3k, vcluster, kamaji, kamaji-generated, capi, capa-eks, capz-aks, gke, or custom:<glob>=<key>[,<key>...][;exec] (for example custom:*-kubeconfig=value)';

export const CUSTOM_FORM = 'custom:<glob>=<key>[,<key>...][;exec]';

/** Records one problem with one setting; the parser collects them all. */
export type Fail = (setting: string, value: unknown, message: string) => void;
