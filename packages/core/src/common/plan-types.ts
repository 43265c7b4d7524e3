// What the planner decides: a Plan of actions (create, update, demote, delete, each with
// its typed reason and the exact object it was planned against), one outcome per namespace,
// and the warnings. Like a Terraform plan, a write carries its before (the Secret as read) and
// after (the Secret to write); the renderers compute the field-level diff from the two.

import type { ChildProbe, Labels, ObservedSecret, Timestamp } from './snapshot-types.js';
import type { CandidateRef, CredentialKind, Refusal, Warning } from './translation-types.js';

/** The registration Secret we want to exist. `data` values are base64. */
export interface DesiredSecret {
  readonly namespace: string;
  readonly name: string;
  readonly type: 'Opaque';
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly data: Readonly<Record<string, string>>;
}

/** Identifies the exact object an update, demotion or deletion was planned against. */
export interface ObservedRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
}

/** One changed field of a registration, as the renderers show it. Sensitive values are fingerprints. */
export interface FieldChange {
  readonly field: string;
  readonly before?: string;
  readonly after?: string;
  readonly sensitive: boolean;
}

export type CreateReason =
  | { readonly code: 'new-registration'; readonly namespace: string }
  | { readonly code: 'restored'; readonly namespace: string };

export type UpdateReason =
  | { readonly code: 'credentials-changed'; readonly namespace: string }
  | { readonly code: 'server-changed'; readonly namespace: string }
  | { readonly code: 'ca-changed'; readonly namespace: string }
  | { readonly code: 'metadata-changed'; readonly namespace: string }
  | { readonly code: 'restored-from-demotion'; readonly namespace: string }
  /** A claimant takes over a registration its previous namespace gave up (renamed, gone, demoted). */
  | { readonly code: 'taken-over'; readonly namespace: string; readonly previousNamespace: string }
  /** Its namespace is terminating: the copied labels go, so generators drop its Applications. */
  | { readonly code: 'drained'; readonly namespace: string; readonly labels: readonly string[] };

export type DemoteReason = {
  readonly code: 'renamed';
  readonly namespace: string;
  readonly supersededBy: string;
};

/**
 * Why a registration goes. `namespace` is the source key, as in every reason: a namespace's
 * name, or `<namespace>/<name>` for the `source-cluster-*` codes, whose source is a Cluster.
 */
export type DeleteReason =
  | {
      readonly code: 'source-namespace-not-found' | 'source-cluster-not-found';
      readonly namespace: string;
    }
  | {
      readonly code: 'source-namespace-replaced' | 'source-cluster-replaced';
      readonly namespace: string;
      readonly recordedUid: string;
      readonly observedUid: string;
    }
  | {
      readonly code: 'demotion-expired';
      readonly namespace: string;
      readonly staleSince: Timestamp;
    };

export type Action =
  | {
      readonly kind: 'create';
      readonly cluster: string;
      readonly secret: DesiredSecret;
      readonly reason: CreateReason;
    }
  | {
      readonly kind: 'update';
      readonly cluster: string;
      readonly target: ObservedRef;
      /** The Secret as read, that `target` names: what the write changes. */
      readonly before: ObservedSecret;
      readonly secret: DesiredSecret;
      readonly reason: UpdateReason;
    }
  | {
      readonly kind: 'demote';
      readonly cluster: string;
      readonly target: ObservedRef;
      /** The Secret as read, that `target` names: what the write changes. */
      readonly before: ObservedSecret;
      readonly secret: DesiredSecret;
      readonly reason: DemoteReason;
    }
  | {
      readonly kind: 'delete';
      readonly cluster: string;
      readonly target: ObservedRef;
      readonly reason: DeleteReason;
    };

export type ActionKind = Action['kind'];

export type OutcomeState =
  | 'registered'
  | 'unchanged'
  | 'waiting'
  | 'refused'
  | 'stale'
  | 'skipped'
  /** Terminating, with drain on: registered without its copied labels until it is gone. */
  | 'drained';

export interface NamespaceOutcome {
  readonly namespace: string;
  /** The cluster name the namespace claims, when it claims one. */
  readonly cluster?: string;
  readonly state: OutcomeState;
  /** Why: absent for a plain `registered`/`unchanged`. */
  readonly reason?:
    | Refusal
    | {
        readonly code:
          | 'waiting-for-kubeconfig'
          | 'credential-refresh-deferred'
          | 'terminating'
          | 'drained'
          | 'cluster-label-missing'
          /** Part of the input this namespace's verdict rests on could not be read. */
          | 'input-incomplete';
        readonly message: string;
      };
  /** The kubeconfig in use, when one translated. */
  readonly source?: CandidateRef;
  /** Candidates that were tried and failed, with why. */
  readonly rejected: readonly { readonly candidate: CandidateRef; readonly refusal: Refusal }[];
  /** Client certificate expiry of the registered credential, when known. */
  readonly credentialNotAfter?: Timestamp;
  /**
   * The registered credential's form, when a kubeconfig translated (`exec` forms never have
   * a `credentialNotAfter`: ArgoCD fetches short-lived tokens itself).
   */
  readonly credential?: CredentialKind;
  /** Why its registration is paused in ArgoCD (skip-reconcile), while it is. */
  readonly paused?: PauseReason;
  /** What the last probes of its child found, when it is probed. */
  readonly probe?: ChildProbe;
}

/**
 * What a further round of planning will do once a write of this plan is observed: the earlier
 * registration of a renamed source is demoted only then (rename.ts), never in the plan that
 * writes its successor.
 */
export interface FollowUp {
  readonly kind: 'demote';
  /** The earlier registration: the cluster name it registers and its Secret. */
  readonly cluster: string;
  readonly secret: string;
  /** The source key of the source that was renamed away from it. */
  readonly source: string;
  /** The write of this plan that must be observed first. */
  readonly after: {
    readonly kind: 'create' | 'update';
    readonly cluster: string;
    readonly secret: string;
  };
}

/**
 * Why a registration is paused: its source says so (`<prefix>paused`), its provisioner says
 * the child sleeps (Kamaji's TenantControlPlane status `Sleeping`, vcluster's paused or
 * sleep-mode mark), or its child failed `probeFailures` probes in a row and has not answered
 * one since.
 */
export type PauseReason = 'paused' | 'kamaji-sleeping' | 'vcluster-sleeping' | 'unreachable';

export interface Plan {
  readonly actions: readonly Action[];
  readonly outcomes: readonly NamespaceOutcome[];
  readonly warnings: readonly Warning[];
  /**
   * Present when a further round is needed: planning again after this plan's writes are
   * observed takes these steps (a run that applies this plan ends converged only then).
   */
  readonly followUps?: readonly FollowUp[];
}
