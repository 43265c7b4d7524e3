// The planner's vocabulary for one pass. Types only, so every step can import them without
// importing each other.

import type { KubeconfigSelection } from '../translate/providers.js';
import type {
  CertificateFacts,
  DeleteReason,
  DesiredSecret,
  NamespaceOutcome,
  NearMissSecret,
  ObservedSecret,
  PauseReason,
  SourceNamespace,
  Translation,
} from '../common/types.js';

/**
 * A source as the planner sees it: a managed namespace, or a managed Cluster API Cluster
 * whose `name` is its source key `<namespace>/<name>` (see sources.ts).
 */
export interface Source extends SourceNamespace {
  /** Set for a Cluster: its namespace and its own name. */
  readonly capi?: { readonly namespace: string; readonly name: string };
}

export type OutcomeReason = NonNullable<NamespaceOutcome['reason']>;

/** A managed namespace, as far as this pass is concerned. */
export interface Subject {
  readonly source: Source;
  /** The cluster name it claims, when any (names.ts). */
  readonly cluster: string | undefined;
  /** `cluster-<cluster>`, when the source can claim a name. */
  readonly secretName: string | undefined;
  /** Why the source cannot claim a name at all (label missing, empty or invalid). */
  readonly nameProblem: OutcomeReason | undefined;
  readonly terminating: boolean;
  /** Why its Secrets could not be listed, when they could not (input-completeness.ts). */
  readonly unread: string | undefined;
  /** The kubeconfig it uses, or why none (kubeconfig-choice.ts); none when it makes no choice. */
  readonly selection: KubeconfigSelection | undefined;
  /** Active owned registrations recorded for this source (name + uid). */
  readonly registrations: Registration[];
}

/** The source that holds or won a cluster name this pass, and why (quoted to the losers). */
export interface Winner {
  readonly subject: Subject;
  readonly why: string;
}

/** The source key and uid a registration records, or why it records none usable. */
export interface RecordedSource {
  readonly name: string | undefined;
  readonly uid: string | undefined;
  readonly problem: string | undefined;
}

/** What is read of a source before its kubeconfig is chosen (names.ts). */
export type SubjectBasis = Omit<Subject, 'selection' | 'registrations'>;

/** Whose registration a Secret is, and what is proven about that namespace. */
export type SourceStatus =
  | { readonly kind: 'managed'; readonly subject: Subject }
  | { readonly kind: 'gone'; readonly reason: DeleteReason }
  | { readonly kind: 'present'; readonly terminating: boolean }
  | { readonly kind: 'unknown'; readonly why: string };

/** A Secret of the target namespace, and its registration if ours. */
export interface TargetSecret {
  readonly secret: ObservedSecret;
  readonly registration: Registration | undefined;
}

export interface Registration {
  readonly secret: ObservedSecret;
  readonly cluster: string;
  readonly sourceName: string | undefined;
  readonly active: boolean;
  readonly pruneDisabled: boolean;
  readonly source: SourceStatus;
  /**
   * incumbent: its source namespace claims exactly this name.
   * releasable: its source moved on (renamed, gone) or it is demoted: a claimant may take it.
   * moving: its source was renamed and the new name's registration is not observed yet: it
   *   stays active and nobody else may take it (rename.ts); set once all Secrets are read.
   * pinned: kept as it is (source unknown, label removed, terminating, or prune veto).
   */
  role: 'incumbent' | 'releasable' | 'moving' | 'pinned';
  /** Normalised `data.server`, when readable. */
  readonly server: string | undefined;
}

export interface Claim {
  readonly subject: Subject;
  readonly cluster: string;
  readonly target: Registration | undefined;
  readonly incumbent: boolean;
  readonly desired: DesiredSecret;
  /** Normalised server of `desired`. */
  readonly server: string;
  /** Absent for a restore without a usable kubeconfig (metadata only). */
  readonly translation: Translation | undefined;
  /** Why the desired registration is paused in ArgoCD (pause.ts), if it is. */
  readonly pause: PauseReason | undefined;
}

/** A server in use: by an existing Secret, or by a claim won this pass. */
export interface Holder {
  readonly secret: string;
  readonly server: string;
  readonly foreign: boolean;
  /** Source uid that may reuse this server: the holder is its own registration. */
  readonly ownerUid: string | undefined;
  readonly ownerName: string | undefined;
  /** A claim settled this pass rather than an existing Secret. */
  readonly claimed: boolean;
  /** For a foreign holder with our managed-by: why it is not ours (host-identity.ts). */
  readonly otherHost?: string;
}

/** An existing registration against the desired one (compare.ts). */
export interface Comparison {
  readonly equal: boolean;
  /** The desired Secret, with equal-meaning `config` bytes kept as they are. */
  readonly desired: DesiredSecret;
  readonly credentialsChanged: boolean;
  /** Only credentials changed: same server, CA, TLS settings and client-certificate issuer. */
  readonly credentialsOnly: boolean;
  readonly registeredCertificate: CertificateFacts | undefined;
  readonly reason: 'credentials-changed' | 'server-changed' | 'ca-changed' | 'metadata-changed';
}

/** Why a credential-only update waits (see credential-churn.ts). */
export interface Deferral {
  readonly message: string;
  readonly notAfter: string | undefined;
}

/** A Secret that almost matched: a candidate-named one without the key, or a recorded near miss. */
export type NearMiss = ObservedSecret | NearMissSecret;
