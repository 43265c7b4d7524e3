// The cluster inventory: the SIG-Multicluster ClusterProfiles (`multicluster.x-k8s.io`) the
// registrar publishes, one per registered source, as the profile planner reads and decides them.

import type { Labels, Timestamp } from './snapshot-types.js';
import type { ObservedRef } from './plan-types.js';

export interface ProfileSettings {
  /** The inventory namespace. */
  readonly namespace: string;
  /** `spec.clusterManager.name` and the `x-k8s.io/cluster-manager` label of our profiles. */
  readonly manager: string;
}

/** One entry of `status.accessProviders`: how a consumer reaches the child (never a credential). */
export interface ProfileAccessProvider {
  readonly name: string;
  readonly cluster: {
    readonly server: string;
    readonly 'certificate-authority-data'?: string;
    readonly 'tls-server-name'?: string;
    readonly 'insecure-skip-tls-verify'?: boolean;
    readonly 'proxy-url'?: string;
    readonly extensions?: readonly {
      readonly name: string;
      readonly extension: Readonly<Record<string, string>>;
    }[];
  };
}

/** A `metav1.Condition` as the CRD holds it. */
export interface ProfileCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: Timestamp;
  readonly observedGeneration?: number;
}

export interface ProfileStatus {
  readonly conditions?: readonly ProfileCondition[];
  readonly version?: { readonly kubernetes?: string };
  readonly properties?: readonly { readonly name: string; readonly value: string }[];
  readonly accessProviders?: readonly ProfileAccessProvider[];
}

/** A ClusterProfile as served (what the planner needs of it). */
export interface ObservedProfile {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly spec: {
    readonly displayName?: string;
    readonly clusterManager?: { readonly name?: string };
  };
  readonly status?: ObservedProfileStatus;
}

/**
 * The conditions whole (others' are carried over, ours keeps its time while it holds), the rest
 * as a digest of `profileStatusText`: it is only compared, and whole it is the larger part of a
 * profile (a CA each): 25 MB at 10,000 profiles.
 */
export interface ObservedProfileStatus {
  readonly conditions?: readonly ProfileCondition[];
  readonly digest: string;
}

/** What the inventory namespace held, as read. */
export interface ProfileSnapshot {
  /** The served version written (`v1alpha1`, or `v1alpha2` when it alone is served). */
  readonly apiVersion: string;
  readonly profiles: readonly ObservedProfile[];
  /** Why the profiles could not be listed (completely): nothing is deleted then. */
  readonly unread?: string;
  /** The reader's hash of statuses, used for the desired one too; absent: the text itself. */
  readonly digest?: (text: string) => string;
}

export interface DesiredProfile {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Labels;
  readonly spec: {
    readonly displayName: string;
    readonly clusterManager: { readonly name: string };
  };
  readonly status: ProfileStatus;
}

export type ProfileRef = ObservedRef;

export type ProfileDeleteReason =
  /** The registration of this cluster is deleted on the plan's proof (its reason). */
  | { readonly code: 'registration-deleted'; readonly source: string; readonly proof: string }
  /** The source now registers under another name, and the old registration is demoted. */
  | { readonly code: 'renamed'; readonly source: string; readonly supersededBy: string }
  /** No registration is left and the profile's recorded source is provably gone. */
  | { readonly code: 'source-gone'; readonly source: string; readonly proof: string };

export type ProfileAction =
  | {
      readonly kind: 'create';
      readonly cluster: string;
      readonly source: string;
      readonly profile: DesiredProfile;
    }
  | {
      /** Labels and spec changed (a merge patch: others' labels and annotations survive). */
      readonly kind: 'update';
      readonly cluster: string;
      readonly source: string;
      readonly target: ProfileRef;
      readonly profile: DesiredProfile;
      /** The label keys of ours the patch removes (no longer copied from the source). */
      readonly removeLabels: readonly string[];
      /** What changed, by field path (`metadata.labels`, `spec.displayName`, `status`). */
      readonly changed: readonly string[];
    }
  | {
      /** Only the status changed: written through the `/status` subresource. */
      readonly kind: 'status';
      readonly cluster: string;
      readonly source: string;
      readonly target: ProfileRef;
      readonly profile: DesiredProfile;
    }
  | {
      readonly kind: 'delete';
      readonly cluster: string;
      readonly target: ProfileRef;
      readonly reason: ProfileDeleteReason;
    };

/** A profile we do not write, and why (a name held by another manager, an invalid name, …). */
export interface ProfileNotice {
  readonly cluster: string;
  readonly source?: string;
  readonly code: 'profile-name-foreign' | 'profile-name-invalid' | 'profiles-unread';
  readonly message: string;
}

export interface ProfilePlan {
  readonly namespace: string;
  readonly apiVersion: string;
  readonly actions: readonly ProfileAction[];
  /** Profiles of ours that exist, as read, for registered sources (before this plan's writes). */
  readonly published: number;
  /** Writes left for a later pass by the input's `maxWrites`. */
  readonly deferred: number;
  readonly notices: readonly ProfileNotice[];
}
