// The validated configuration the planner runs with: the target namespace, label vocabulary,
// providers (which Secrets hold kubeconfigs, and which exec plugins they may translate) and
// timings. parseConfig (config/config.ts) is the only producer.

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
  /**
   * What the provisioner itself guarantees on its kubeconfig Secrets (presets only): a Secret
   * carrying these marks is a candidate whatever its name (config/provider-marks.ts).
   */
  readonly marks?: ProviderMarks;
  /**
   * The provider's exec gate: the clouds whose exec plugins it may translate (capa-eks: aws,
   * capz-aks: azure, gke: gcp; a custom entry ending in `;exec`: all three). Absent: none.
   */
  readonly execClouds?: readonly ExecCloud[];
  /**
   * The global exec gate (`Config.execCredentials`), copied onto every provider by
   * parseConfig: a Translator sees only the provider, and both gates must be on.
   */
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
  /**
   * The name pattern alone does not make a candidate: it only describes the names the
   * provisioner writes (a KubeconfigGenerator's `<tcp>-<generator>` says nothing by itself).
   */
  readonly only?: true;
}

/**
 * What an exec registration may name besides its cloud's own forms. An exec registration makes
 * ArgoCD mint a token with its own cloud identity and send it to the registration's server,
 * so everything that decides where that token goes and what it opens is the operator's
 * choice, never the kubeconfig's. Every list is empty by default.
 */
export interface ExecPolicy {
  /**
   * Servers accepted beyond the EKS and AKS endpoint forms (and the only ones for GKE):
   * CIDRs or IP addresses, host names (matched exactly) and `.`-led domain suffixes
   * (matched by subdomains only); lower-case, validated by parseConfig.
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
 * Reference-mode registrations: `off` copies credentials; `on` registers every source by a
 * reference to its kubeconfig Secret and refuses a kubeconfig the plugin cannot read;
 * `on-or-copy` copies those instead.
 */
export type ReferenceMode = 'off' | 'on' | 'on-or-copy';

/**
 * The target a plan is made for, when the registrar writes into several (`--targets-file`):
 * its name (for messages), whether it is in another cluster, which sources it admits and how
 * their cluster names are formed there. Absent: the one local target of `targetNamespace`.
 */
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
   * This host's identity (its ClusterProperty id.k8s.io, else the kube-system namespace uid, or
   * `--host-id`), recorded on every registration: a registration is ours only when its
   * managed-by and host identity are both ours. Absent (a plan without a host, as in tests):
   * managed-by alone decides, as before host identities.
   */
  readonly hostId?: string;
  /** Set when planning one of several targets (see {@link TargetScope}). */
  readonly target?: TargetScope;
  /** Ends in `/` or is a bare DNS prefix; labels are `${labelPrefix}managed-by`. */
  readonly labelPrefix: string;
  readonly managedBy: string;
  readonly providers: readonly Provider[];
  /** Milliseconds between full passes. Also the minimum gap between credential-only writes. */
  readonly intervalMs: number;
  /** Demoted registrations older than this are deleted. */
  readonly demotedTtlMs: number;
  /**
   * Credential-only changes are deferred while the registered client certificate stays
   * valid for longer than this. 0 disables deferral (write at most once per interval).
   */
  readonly credentialRefreshWindowMs: number;
  /**
   * The global exec gate (`--exec-credentials`): exec kubeconfigs of providers that allow it
   * are translated into ArgoCD's own forms. Off by default.
   */
  readonly execCredentials: boolean;
  /** The exec allow-lists (`--exec-allowed-servers`, `--exec-aks-server-ids`, …). */
  readonly execPolicy: ExecPolicy;
  /**
   * Drain before deregistration (`--drain-on-terminate`): a terminating source namespace's
   * registration loses the labels it copied from the namespace (what ApplicationSet
   * generators select on) and is deleted once the namespace is gone. Off by default.
   */
  readonly drainOnTerminate: boolean;
  /**
   * Cluster API `Cluster` objects labelled `<prefix>managed-by` are sources too
   * (`--capi-clusters`). The planner plans whatever sources the snapshot holds; the
   * gatherers read Clusters only when this is on. Off by default.
   */
  readonly capiClusters: boolean;
  /**
   * The cluster name of a Cluster source: its own name (or its `<prefix>cluster` label), or
   * `<namespace>.<name>`.
   */
  readonly capiClusterNames: 'name' | 'namespace-name';
  /**
   * Under `namespace-name`, a Cluster's `<prefix>cluster` label may choose its cluster name
   * (`--capi-cluster-name-label`). Off by default: whoever labels a Cluster could otherwise
   * claim any name, another namespace's included.
   */
  readonly capiClusterNameLabel: boolean;
  /**
   * Children are probed (`GET /version` with their registered credentials, by the adapter):
   * one that fails `probeFailures` times in a row is paused in ArgoCD until a probe succeeds.
   * Off by default.
   */
  readonly probeChildren: boolean;
  /** Consecutive failed probes that make a child unreachable (at least 1). */
  readonly probeFailures: number;
  /**
   * Milliseconds between probes of a child that answers. A failing or paused child is probed
   * on the shorter of this and `intervalMs`.
   */
  readonly probeIntervalMs: number;
  /**
   * A Kamaji TenantControlPlane whose status says `Sleeping` pauses its child in ArgoCD (the
   * adapter reads TenantControlPlanes). Off by default.
   */
  readonly kamajiSleep: boolean;
  /**
   * A vcluster whose StatefulSet or Deployment is marked paused or asleep pauses its child in
   * ArgoCD (the adapter reads those workloads' metadata). Off by default.
   */
  readonly vclusterSleep: boolean;
  /** Registrations by reference to the source's kubeconfig Secret (translate/reference-mode.ts). */
  readonly referenceMode: ReferenceMode;
  /** The kubeconfig-secretreader plugin's path (or name on PATH) in ArgoCD's controller. */
  readonly secretreaderPath: string;
  /**
   * Each registered source is also published as a ClusterProfile (`multicluster.x-k8s.io`)
   * in `clusterProfileNamespace`, owned as `clusterManager` (plan/profiles.ts). Off by default.
   */
  readonly clusterProfiles: boolean;
  /** The inventory namespace (the target namespace unless set). */
  readonly clusterProfileNamespace: string;
  /** `spec.clusterManager.name` and the `x-k8s.io/cluster-manager` label of our profiles. */
  readonly clusterManager: string;
}
