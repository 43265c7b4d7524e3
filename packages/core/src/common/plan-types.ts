// What the planner decides: actions with their typed reasons, one outcome per source, and the
// warnings. Like a Terraform plan, a write carries its before (the Secret as read) and after;
// the renderers compute the field-level diff from the two.

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

/** One changed field, as the renderers show it; sensitive values as fingerprints. */
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
  /** A claimant takes over a registration its previous source gave up (renamed, gone, demoted). */
  | { readonly code: 'taken-over'; readonly namespace: string; readonly previousNamespace: string }
  /** Its namespace is terminating: the copied labels go, so generators drop its Applications. */
  | { readonly code: 'drained'; readonly namespace: string; readonly labels: readonly string[] };

export type DemoteReason = {
  readonly code: 'renamed';
  readonly namespace: string;
  readonly supersededBy: string;
};

/** `namespace` is the source key, as in every reason (`<namespace>/<name>` for a Cluster). */
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
      /** The Secret `target` names, as read. */
      readonly before: ObservedSecret;
      readonly secret: DesiredSecret;
      readonly reason: UpdateReason;
    }
  | {
      readonly kind: 'demote';
      readonly cluster: string;
      readonly target: ObservedRef;
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
  /** Absent for a plain `registered`/`unchanged`. */
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
  readonly rejected: readonly { readonly candidate: CandidateRef; readonly refusal: Refusal }[];
  /** Client certificate expiry of the registered credential, when known. */
  readonly credentialNotAfter?: Timestamp;
  readonly credential?: CredentialKind;
  /** While its registration is paused in ArgoCD (skip-reconcile). */
  readonly paused?: PauseReason;
  readonly probe?: ChildProbe;
}

/**
 * What a further round does once a write of this plan is observed: a renamed source's earlier
 * registration is demoted only then (rename.ts), never in the plan that writes its successor.
 */
export interface FollowUp {
  readonly kind: 'demote';
  /** The earlier registration. */
  readonly cluster: string;
  readonly secret: string;
  /** The source renamed away from it. */
  readonly source: string;
  /** The write of this plan that must be observed first. */
  readonly after: {
    readonly kind: 'create' | 'update';
    readonly cluster: string;
    readonly secret: string;
  };
}

/**
 * Its source says so (`<prefix>paused`), its provisioner says the child sleeps, or its child
 * failed `probeFailures` probes in a row and has not answered one since.
 */
export type PauseReason = 'paused' | 'kamaji-sleeping' | 'vcluster-sleeping' | 'unreachable';

export interface Plan {
  readonly actions: readonly Action[];
  readonly outcomes: readonly NamespaceOutcome[];
  readonly warnings: readonly Warning[];
  /** Steps a further round takes once this plan's writes are observed. */
  readonly followUps?: readonly FollowUp[];
}
