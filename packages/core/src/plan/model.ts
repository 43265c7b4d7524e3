// The planner's own vocabulary: what one pass knows about a namespace (Subject), a Secret we
// own (Registration), a claim on a cluster name (Claim) and a server in use (Holder), and the
// entries the memo keeps of them between passes. Types only (and one shared empty list), so
// every step and the memo can import them without importing each other.

import type { KubeconfigSelection } from '../providers.js';
import type { RegistrationResult } from '../registration.js';
import type {
  CandidateRef,
  CertificateFacts,
  DeleteReason,
  DesiredSecret,
  NamespaceOutcome,
  NearMissSecret,
  ObservedSecret,
  PauseReason,
  ProviderName,
  Refusal,
  SourceCluster,
  SourceNamespace,
  Translation,
  Warning,
} from '../types.js';

/**
 * A source as the planner sees it: a managed namespace, or a managed Cluster API Cluster
 * whose `name` is its source key `<namespace>/<name>` (see sources.ts).
 */
export interface Source extends SourceNamespace {
  /** Set for a Cluster: its namespace and its own name. */
  readonly capi?: { readonly namespace: string; readonly name: string };
}

/** The kubeconfig a namespace uses (or why none), without the Secret objects themselves. */
export interface Selection {
  readonly chosen?: { readonly candidate: CandidateRef; readonly translation: Translation };
  readonly rejected: KubeconfigSelection['rejected'];
}

export type OutcomeReason = NonNullable<NamespaceOutcome['reason']>;

/** What a namespace's labels say about its claim; remembered per namespace version. */
export interface NamespaceFacts {
  readonly namespaceVersion: string | undefined;
  readonly namespaceObject: Source | undefined;
  readonly cluster: string | undefined;
  readonly secretName: string | undefined;
  readonly nameProblem: OutcomeReason | undefined;
  readonly warning: Warning | undefined;
}

export const NO_REGISTRATIONS: readonly Registration[] = [];

/** A managed namespace, as far as this pass is concerned. */
export interface Subject {
  /** The source (a namespace or a Cluster); `namespace.name` is its source key. */
  readonly namespace: Source;
  /** The `<prefix>cluster` label, when present. */
  readonly cluster: string | undefined;
  /** `cluster-<cluster>`, when the namespace can claim a name. */
  readonly secretName: string | undefined;
  /** Set when the namespace cannot claim a name at all (label missing, empty or invalid). */
  readonly nameProblem: OutcomeReason | undefined;
  readonly terminating: boolean;
  /** Why its Secrets could not be listed, when they could not (input-completeness.ts). */
  unread: string | undefined;
  selection: Selection | undefined;
  /** This namespace's memo entry. */
  readonly memo: NamespaceMemo;
  /** Active owned registrations recorded for this namespace (name + uid). */
  registrations: readonly Registration[];
  claim: Claim | undefined;
  /** Set when the namespace's claim was refused before settling. */
  refusal: Refusal | undefined;
  /** Why it holds or won its cluster name, once it does. */
  why: string | undefined;
  /** Candidate Secrets seen this pass that matched the remembered ones, in order. */
  matched: number;
  /** False once a candidate Secret differs from the remembered ones. */
  candidatesSame: boolean;
}

/** The source key and uid a registration records, or why it records none usable. */
export interface RecordedSource {
  readonly name: string | undefined;
  readonly uid: string | undefined;
  readonly problem: string | undefined;
}

/** Whose registration a Secret is, and what is proven about that namespace. */
export type SourceStatus =
  | { readonly kind: 'managed'; readonly subject: Subject }
  | { readonly kind: 'gone'; readonly reason: DeleteReason }
  | { readonly kind: 'present'; readonly terminating: boolean }
  | { readonly kind: 'unknown'; readonly why: string };

/** A Secret we own in the target namespace. */
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
  /** Written by a won claim: nothing else may happen to it this pass. */
  targeted: boolean;
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
  /** Where the desired registration (and its comparison) is remembered across passes. */
  readonly memo: BuildMemo | undefined;
  won: boolean;
  refusal: Refusal | undefined;
}

/** A server in use: by an existing Secret, or by a claim won this pass. */
export interface Holder {
  readonly secret: string;
  readonly server: string;
  readonly foreign: boolean;
  /** Namespace uid that may reuse this server: the holder is its own registration. */
  readonly ownerUid: string | undefined;
  readonly ownerName: string | undefined;
  /** True while the holder is a claim settled this pass rather than an existing Secret. */
  readonly claimed: boolean;
}

/** An existing registration against the desired one (see compare.ts). */
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

// -----------------------------------------------------------------------------------------
// Memo entries (see memo.ts)

/**
 * A Secret of the target namespace, by name: facts valid for one uid + resourceVersion, and
 * (for the pass that saw it last) the Secret itself and its registration when it is ours.
 */
export interface SecretMemo {
  readonly uid: string;
  readonly resourceVersion: string;
  seen: number;
  secret: ObservedSecret | undefined;
  registration: Registration | undefined;
  /** Normalised `data.server`; `undefined` when absent or unreadable. */
  readonly server: string | undefined;
  /** Decoded `data.name`; `null` until first needed (only foreign Secrets need it). */
  dataName: string | undefined | null;
  /** The entry of the source namespace its labels name, when found (see sourceSubject). */
  source: NamespaceMemo | undefined;
}

/** The kubeconfig choice of one namespace, valid while its candidates and override flag are. */
export interface SelectionMemo {
  /** uid and resourceVersion of each candidate Secret, in snapshot order. */
  readonly uids: readonly string[];
  readonly resourceVersions: readonly string[];
  readonly serverOverridden: boolean;
  readonly selection: Selection;
}

/** The desired registration of one namespace and its comparison with the existing one. */
export interface BuildMemo {
  /** The namespace's resourceVersion; without one, the namespace object itself is the key. */
  readonly namespaceVersion: string | undefined;
  readonly namespaceObject: Source | undefined;
  readonly cluster: string;
  readonly provider: ProviderName;
  readonly translation: Translation;
  readonly existingUid: string | undefined;
  readonly existingVersion: string | undefined;
  readonly pause: PauseReason | undefined;
  /**
   * When the registration is up to date this holds the existing Secret's own `data` (equal
   * by definition), so the memo does not keep a second copy of every encoded config.
   */
  result: RegistrationResult;
  /**
   * The desired Secret of `result` once it points at an existing Secret's labels,
   * annotations and data (see compareClaim): the memo's own object, repointed in place.
   */
  repointed: { -readonly [K in keyof DesiredSecret]: DesiredSecret[K] } | undefined;
  /** Normalised server of the desired registration. */
  readonly server: string | undefined;
  /** Computed on first use (incumbent claims only). */
  comparison: Comparison | undefined;
}

/** A managed namespace, by name, while its uid stays the same. */
export interface NamespaceMemo {
  readonly uid: string;
  seen: number;
  facts: NamespaceFacts | undefined;
  selection: SelectionMemo | undefined;
  build: BuildMemo | undefined;
  /** Last pass's outcome, handed out again when nothing in it changed. */
  outcome: NamespaceOutcome | undefined;
  /** The pass's subject (valid while `seen` is the current pass). */
  subject: Subject | undefined;
  /** The target-namespace Secret of its registration name, when found (see secretNamedFor). */
  held: SecretMemo | undefined;
  /** A Cluster's planner view, kept while the snapshot hands in the same object. */
  converted: { readonly from: SourceCluster; readonly source: Source } | undefined;
}
