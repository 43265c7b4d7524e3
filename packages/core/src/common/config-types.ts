// The validated configuration the planner runs with; parseConfig (config/config.ts) makes it.

export type ProviderName =
  | 'k3k'
  | 'vcluster'
  | 'kamaji'
  | 'kamaji-generated'
  | 'capi'
  | 'capa-eks'
  | 'capz-aks'
  | 'gke'
  | 'custom';

/** The cloud exec plugins the registrar can translate into ArgoCD's own forms. */
export type ExecCloud = 'aws' | 'azure' | 'gcp';

export interface Provider {
  /** Preset name, or `custom` (legacy flags or a `custom:<glob>=<key>[,<key>]` entry). */
  readonly name: ProviderName;
  /** Glob over Secret names: `*` any run, `?` one character, `[...]` a class. */
  readonly secretNamePattern: string;
  /** Keys tried in order inside a matching Secret. */
  readonly keys: readonly string[];
  /** Secret type preferred among candidates of this provider (CAPI). */
  readonly preferredSecretType?: string;
  /** Loopback servers are rewritten to the provider's in-cluster Service (vcluster only). */
  readonly loopbackRewrite: boolean;
  /** What the provisioner writes on its kubeconfig Secrets: a candidate whatever its name. */
  readonly marks?: ProviderMarks;
  /** The provider's exec gate: the clouds whose exec plugins it may translate. Absent: none. */
  readonly execClouds?: readonly ExecCloud[];
  /** The global gate, copied here: a Translator sees only the provider; both gates must be on. */
  readonly execCredentials?: boolean;
  /** The operator's exec allow-lists (`Config.execPolicy`), copied like `execCredentials`. */
  readonly execPolicy?: ExecPolicy;
}

/** A label a provisioner writes: with `value`, exactly that value; without, any value. */
export interface LabelMark {
  readonly key: string;
  readonly value?: string;
}

export interface ProviderMarks {
  /** Every one of these labels. */
  readonly labels?: readonly LabelMark[];
  /** A controller ownerReference to an object of this API group and kind. */
  readonly controller?: { readonly group: string; readonly kind: string };
  /** Only the marks make a candidate: the name pattern alone says nothing (`<tcp>-<generator>`). */
  readonly only?: true;
}

/** What an exec registration may name besides its cloud's own forms (config/exec-policy.ts). */
export interface ExecPolicy {
  /**
   * Servers beyond the EKS and AKS endpoint forms (the only ones for GKE), lower-case: CIDRs or
   * addresses, host names (matched exactly) and `.`-led domain suffixes (subdomains only).
   */
  readonly allowedServers: readonly string[];
  /** AKS `--server-id` values (token audiences) accepted besides the AKS server application. */
  readonly aksServerIds: readonly string[];
  /** Globs over the EKS cluster names a token may be minted for. */
  readonly eksClusterNames: readonly string[];
  /** IAM role ARNs ArgoCD may assume for an EKS token (`-r`, `--role-arn`), exactly. */
  readonly eksRoleArns: readonly string[];
}

/**
 * `off` copies credentials; `on` registers by reference to the kubeconfig Secret and refuses
 * what the plugin cannot read; `on-or-copy` copies that instead.
 */
export type ReferenceMode = 'off' | 'on' | 'on-or-copy';

/** One of several targets (`--targets-file`) a plan is made for. */
export interface TargetScope {
  readonly name: string;
  /** Reached through a kubeconfig: an address that resolves only inside this host is refused. */
  readonly remote: boolean;
  /** Sources whose labels match every requirement; absent: all. */
  readonly selector?: LabelSelector;
  /** `{name}` is replaced by the cluster name the source asks for. */
  readonly nameTemplate?: string;
}

/** A Kubernetes label selector, parsed (config/label-selector.ts): every requirement must hold. */
export type LabelSelector = readonly LabelRequirement[];

export interface LabelRequirement {
  readonly key: string;
  readonly operator: 'in' | 'notin' | 'exists' | 'doesnotexist';
  /** For `in` and `notin` (`=`, `==` and `!=` are one-value forms of them). */
  readonly values: readonly string[];
}

export interface Config {
  readonly targetNamespace: string;
  /**
   * Recorded on every registration: one is ours only when its managed-by and host are ours.
   * Absent (a plan without a host, as in tests): managed-by alone decides.
   */
  readonly hostId?: string;
  /** Absent: the one local target of `targetNamespace`. */
  readonly target?: TargetScope;
  /** Ends in `/` or is a bare DNS prefix; labels are `${labelPrefix}managed-by`. */
  readonly labelPrefix: string;
  readonly managedBy: string;
  readonly providers: readonly Provider[];
  /** Milliseconds between full passes. Also the minimum gap between credential-only writes. */
  readonly intervalMs: number;
  /** Demoted registrations older than this are deleted. */
  readonly demotedTtlMs: number;
  /** Credential-only writes wait while the certificate outlives this (0: one per interval). */
  readonly credentialRefreshWindowMs: number;
  /** The global exec gate: exec kubeconfigs of providers that allow it are translated. */
  readonly execCredentials: boolean;
  readonly execPolicy: ExecPolicy;
  /** A terminating namespace's registration loses its copied labels until the namespace is gone. */
  readonly drainOnTerminate: boolean;
  /** Cluster API `Cluster`s labelled `<prefix>managed-by` are sources too. */
  readonly capiClusters: boolean;
  /** A Cluster's cluster name: its name (or `<prefix>cluster` label), or `<namespace>.<name>`. */
  readonly capiClusterNames: 'name' | 'namespace-name';
  /**
   * Under `namespace-name`, a Cluster's `<prefix>cluster` label may choose its cluster name.
   * Off by default: whoever labels a Cluster could claim any name, another namespace's too.
   */
  readonly capiClusterNameLabel: boolean;
  /** Probe children (`GET /version`); `probeFailures` in a row pause one until it answers. */
  readonly probeChildren: boolean;
  /** At least 1. */
  readonly probeFailures: number;
  /** Between probes of a child that answers (a failing one: the shorter of this and interval). */
  readonly probeIntervalMs: number;
  /** A Kamaji TenantControlPlane whose status says `Sleeping` pauses its child in ArgoCD. */
  readonly kamajiSleep: boolean;
  /** A vcluster whose StatefulSet or Deployment is marked paused or asleep pauses its child. */
  readonly vclusterSleep: boolean;
  readonly referenceMode: ReferenceMode;
  /** The kubeconfig-secretreader plugin's path (or name on PATH) in ArgoCD's controller. */
  readonly secretreaderPath: string;
  /** Each registered source is also published as a ClusterProfile (plan/profiles.ts). */
  readonly clusterProfiles: boolean;
  /** The inventory namespace (the target namespace unless set). */
  readonly clusterProfileNamespace: string;
  /** `spec.clusterManager.name` and the `x-k8s.io/cluster-manager` label of our profiles. */
  readonly clusterManager: string;
}
