// The configuration's vocabulary: the raw settings, parseConfig's errors and result, and the
// defaults and forms its messages quote; apart, so the validators need not import the parser.

import type { Config } from '../common/types.js';

/** The raw settings (defaults in CONFIG_DEFAULTS); Config's fields say what each does. */
export interface ConfigInput {
  targetNamespace?: string;
  labelPrefix?: string;
  managedBy?: string;
  /** Legacy: one provider's Secret-name glob. Cannot be combined with `providers`. */
  secretNamePattern?: string;
  /** Legacy: the key inside the Secret. Cannot be combined with `providers`. */
  secretKey?: string;
  /** In precedence order: a preset, or `custom:<glob>=<key>[,<key>...][;exec]`. */
  providers?: readonly string[];
  interval?: string;
  demotedTTL?: string;
  credentialRefreshWindow?: string;
  execCredentials?: boolean;
  /** The lists of Config's `execPolicy`. */
  execAllowedServers?: readonly string[];
  execAksServerIds?: readonly string[];
  execEksClusterNames?: readonly string[];
  execEksRoleArns?: readonly string[];
  drainOnTerminate?: boolean;
  /** Off, the registrar needs no access to Cluster API objects. */
  capiClusters?: boolean;
  /** `namespace-name` (the default): Clusters of two namespaces never contend for a name. */
  capiClusterNames?: string;
  capiClusterNameLabel?: boolean;
  probeChildren?: boolean;
  probeFailures?: string | number;
  probeInterval?: string;
  kamajiSleep?: boolean;
  vclusterSleep?: boolean;
  referenceMode?: string;
  secretreaderPath?: string;
  clusterProfiles?: boolean;
  /** Empty: the target namespace. */
  clusterProfileNamespace?: string;
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
  clusterProfileNamespace: '',
  clusterManager: 'argocd-cluster-registrar',
} as const satisfies Required<Omit<ConfigInput, 'secretNamePattern' | 'secretKey'>>;

/** The legacy pair's half that is not given, when the other is (the k3k preset's). */
export const LEGACY_DEFAULTS = {
  secretNamePattern: 'k3k-*-kubeconfig',
  secretKey: 'kubeconfig.yaml',
} as const;

export const PROVIDER_FORM =
  'one of k3k, vcluster, kamaji, kamaji-generated, capi, capa-eks, capz-aks, gke, or custom:<glob>=<key>[,<key>...][;exec] (for example custom:*-kubeconfig=value)';

export const CUSTOM_FORM = 'custom:<glob>=<key>[,<key>...][;exec]';

/** Records one problem with one setting; the parser collects them all. */
export type Fail = (setting: string, value: unknown, message: string) => void;
