// What the planner reads: a Snapshot of source namespaces, their candidate Secrets, the
// cluster Secrets of the target namespace and what could not be read. Plain readonly data,
// JSON-serialisable, so a snapshot can be saved and replayed byte for byte.

export type Labels = Readonly<Record<string, string>>;

/** An RFC 3339 timestamp as the API server writes it (`2026-11-29T17:00:00Z`). */
export type Timestamp = string;

/** A namespace selected by `<prefix>managed-by: <managedBy>`. */
export interface SourceNamespace {
  readonly name: string;
  readonly uid: string;
  /**
   * As served. Optional: a snapshot with a namespace without one is always planned afresh,
   * never repeated by a settled repeat (plan/settled-repeat.ts).
   */
  readonly resourceVersion?: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly creationTimestamp: Timestamp;
  /** Set while the namespace is terminating. */
  readonly deletionTimestamp?: Timestamp;
}

/**
 * A Cluster API `Cluster` selected by `<prefix>managed-by: <managedBy>` (metadata only): a
 * source registered from its own kubeconfig Secret in its namespace. The same metadata as a
 * namespace's; `deletionTimestamp` is set while the Cluster is being deleted (CAPI tears the
 * cluster down first).
 */
export interface SourceCluster extends SourceNamespace {
  readonly namespace: string;
}

/** A Secret as the API returns it. `data` values are base64, exactly as served. */
export interface ObservedSecret {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly type: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly data: Readonly<Record<string, string>>;
  readonly creationTimestamp?: Timestamp;
  /** As served; absent when there are none (provisioners' marks, config/provider-marks.ts). */
  readonly ownerReferences?: readonly OwnerReference[];
}

/** The fields of an ownerReference that say who controls an object. */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly controller?: boolean;
}

/**
 * The result of looking up, by name, the source (namespace or Cluster) of an owned
 * registration whose source is not among the managed ones. Only `notFound` (or a different
 * uid) is proof.
 */
export type SourceLookup =
  | {
      readonly state: 'present';
      readonly uid: string;
      readonly labels: Labels;
      readonly deletionTimestamp?: Timestamp;
    }
  | { readonly state: 'notFound' }
  | { readonly state: 'unknown'; readonly reason: string };

export interface Snapshot {
  /** Namespaces carrying `<prefix>managed-by: <managedBy>`. */
  readonly namespaces: readonly SourceNamespace[];
  /**
   * Cluster API Clusters carrying `<prefix>managed-by: <managedBy>` (absent: none, as when
   * Cluster sources are off).
   */
  readonly clusters?: readonly SourceCluster[];
  /**
   * Secrets in managed namespaces, and in the namespaces of managed Clusters, whose names
   * match a provider glob (more is harmless).
   */
  readonly candidateSecrets: readonly ObservedSecret[];
  /**
   * Every Secret in the target namespace labelled `argocd.argoproj.io/secret-type: cluster`
   * (owned or not), plus owned Secrets carrying `<prefix>orphaned-secret-type` (demoted).
   */
  readonly clusterSecrets: readonly ObservedSecret[];
  /**
   * Keyed by source (a namespace name, or `<namespace>/<name>` of a Cluster, see sources.ts):
   * lookups for owned registrations whose source is not managed.
   */
  readonly sourceLookups: Readonly<Record<string, SourceLookup>>;
  /**
   * Namespaces (managed, or holding managed Clusters) whose Secrets could not be listed: their candidates are unknown, not
   * absent. Absent (older snapshots) means every managed namespace was read.
   */
  readonly unreadNamespaces?: readonly UnreadNamespace[];
  /**
   * Why the cluster Secrets of the target namespace could not be listed completely; absent
   * when they were. `clusterSecrets` then holds what was read, which may be nothing.
   */
  readonly clusterSecretsUnread?: string;
  /**
   * What `/version` probes of registered children found (`--probe-children`), keyed by
   * source: absent when probing is off, and a source without an entry was not probed yet.
   */
  readonly children?: Readonly<Record<string, ChildProbe>>;
  /**
   * The objects that run children, read for their provisioner's sleep mark, by signal
   * (`--kamaji-sleep`, `--vcluster-sleep`): a signal is absent when it is off or could not be
   * read this pass, and an empty list when nothing of it exists (its CRD absent included).
   */
  readonly provisioners?: Readonly<Partial<Record<SleepSignal, readonly ProvisionerObject[]>>>;
  // -- near misses (messages only) ----------------------------------------------------
  /**
   * In managed namespaces without a candidate: Secrets that almost are one (see
   * near-misses.ts), so "no kubeconfig Secret" can name them. Optional: older snapshots and
   * fixtures have none, and the planner never decides anything from them.
   */
  readonly nearMisses?: readonly NearMissSecret[];
  // -- end near misses ------------------------------------------------------------------
}

/** A child API server as its registration's credentials reach it (`GET /version`). */
export interface ChildProbe {
  /**
   * Consecutive failed probes, 0 once one succeeds. The daemon counts no further than
   * `probeFailures`: nothing is decided by the count beyond it.
   */
  readonly failures: number;
  /** `gitVersion` of the last successful probe, when one succeeded. */
  readonly version?: string;
  /** Why the last probe failed (never a credential). */
  readonly error?: string;
  /** When the current run of failures began. */
  readonly failingSince?: Timestamp;
}

/** A provisioner whose own mark says its child sleeps. */
export type SleepSignal = 'kamaji' | 'vcluster';

/**
 * What runs a child in the host cluster, as far as its sleep goes: a Kamaji
 * `TenantControlPlane` (its name, and `status.kubernetesResources.version.status`), or a
 * vcluster's StatefulSet or Deployment (labelled `app=vcluster`; metadata only).
 */
export interface ProvisionerObject {
  readonly kind: 'TenantControlPlane' | 'StatefulSet' | 'Deployment';
  readonly namespace: string;
  readonly name: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  /** A TenantControlPlane's `status.kubernetesResources.version.status`, when set. */
  readonly versionStatus?: string;
}

/** A Secret that is almost a kubeconfig candidate: its name and key names, never values. */
export interface NearMissSecret {
  readonly namespace: string;
  readonly name: string;
  readonly keys: readonly string[];
}

/** A managed namespace whose Secret list failed, and why. */
export interface UnreadNamespace {
  readonly name: string;
  readonly reason: string;
}
