// What the planner reads: the sources, their candidate Secrets, the target's cluster Secrets and
// what could not be read, as JSON-serialisable data, so a snapshot can be replayed byte for byte.

export type Labels = Readonly<Record<string, string>>;

/** An RFC 3339 timestamp as the API server writes it (`2026-11-29T17:00:00Z`). */
export type Timestamp = string;

/** A namespace selected by `<prefix>managed-by: <managedBy>`. */
export interface SourceNamespace {
  readonly name: string;
  readonly uid: string;
  /** Absent: the snapshot is always planned afresh, never a settled repeat. */
  readonly resourceVersion?: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly creationTimestamp: Timestamp;
  /** Set while the namespace is terminating. */
  readonly deletionTimestamp?: Timestamp;
}

/** A Cluster API `Cluster` selected like a namespace (metadata only). */
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
  /** Absent when there are none. */
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
 * The lookup by name of an owned registration's unmanaged source. Only `notFound` (or another
 * uid) is proof that it is gone.
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
  readonly namespaces: readonly SourceNamespace[];
  /** Absent: none, as when Cluster sources are off. */
  readonly clusters?: readonly SourceCluster[];
  /** Secrets of the sources' namespaces that a provider may read (more is harmless). */
  readonly candidateSecrets: readonly ObservedSecret[];
  /** The target namespace's cluster Secrets (owned or not), and our demoted ones. */
  readonly clusterSecrets: readonly ObservedSecret[];
  /** Keyed by source key: lookups for owned registrations whose source is not managed. */
  readonly sourceLookups: Readonly<Record<string, SourceLookup>>;
  /** Sources' namespaces whose Secrets could not be listed: their candidates are unknown. */
  readonly unreadNamespaces?: readonly UnreadNamespace[];
  /** Why `clusterSecrets` is incomplete (it holds what was read, maybe nothing). */
  readonly clusterSecretsUnread?: string;
  /** By source, when probing is on: a source without an entry was not probed yet. */
  readonly children?: Readonly<Record<string, ChildProbe>>;
  /**
   * The objects that run children, by sleep signal: absent when the signal is off or could not
   * be read this pass, empty when nothing of it exists (its CRD absent included).
   */
  readonly provisioners?: Readonly<Partial<Record<SleepSignal, readonly ProvisionerObject[]>>>;
  /**
   * Secrets that almost are a candidate, in namespaces without one, so "no kubeconfig Secret"
   * can name them. Messages only: the planner decides nothing from them.
   */
  readonly nearMisses?: readonly NearMissSecret[];
}

/** A child API server as its registration's credentials reach it (`GET /version`). */
export interface ChildProbe {
  /** Consecutive failed probes, counted up to `probeFailures` only: nothing beyond it decides. */
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

/** What runs a child: a Kamaji TenantControlPlane, or a vcluster's StatefulSet or Deployment. */
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

export interface UnreadNamespace {
  readonly name: string;
  readonly reason: string;
}
