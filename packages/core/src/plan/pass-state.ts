// Everything one pass of plan() accumulates, in one object handed to each step: what it was
// given, what it has read, and what it has decided so far. The steps are functions of this
// state; nothing else is shared between them.

import { labelKeys, type LabelKeys } from '../config/label-keys.js';
import type { Translator } from '../translate/providers.js';
import {
  buildRegistration,
  formatTimestamp,
  type RegistrationInput,
  type RegistrationResult,
} from '../translate/registration.js';
import type {
  Action,
  Config,
  ObservedSecret,
  PauseReason,
  Snapshot,
  Timestamp,
  Warning,
} from '../common/types.js';
import type { Deferral, NearMiss, Registration, Subject, TargetSecret, Winner } from './model.js';
import { ServerLedger } from './server-ledger.js';

/**
 * What a pass computes from one source and the objects it names, as functions of their
 * arguments only. A pass calls them through its state, so whoever runs the pass may hand
 * equivalent ones (repeat/); the steps neither know nor care which.
 */
export interface PerObject {
  readonly buildRegistration: (input: RegistrationInput) => RegistrationResult;
}

export class PassState {
  readonly keys: LabelKeys;
  /** `now` as the credentials stamp writes it (formatted once per pass, not per write). */
  readonly stamp: Timestamp;
  readonly warnings: Warning[] = [];
  readonly actions: Action[] = [];
  /** Managed sources (namespaces and Clusters), in source-key order. */
  readonly subjects: Subject[] = [];
  /** The same subjects by source key. */
  readonly sources = new Map<string, Subject>();
  /** Secrets of the target namespace, by name. */
  readonly targetSecrets = new Map<string, TargetSecret>();
  /** Secrets we own in the target namespace, in name order. */
  readonly registrations: Registration[] = [];
  /** ArgoCD cluster name → the foreign Secret that already uses it. */
  readonly foreignNames = new Map<string, ObservedSecret>();
  readonly servers = new ServerLedger();
  /** Cluster name → the namespace that holds or won it this pass. */
  readonly nameWinners = new Map<string, Winner>();
  /** Namespaces whose credential-only update waits, and why. */
  readonly deferred = new Map<Subject, Deferral>();
  /** Namespaces whose registration an update rewrites this pass. */
  readonly written = new Set<Subject>();
  /** Namespaces whose write incomplete input withholds, and why (input-completeness.ts). */
  readonly withheld = new Map<Subject, string>();
  /** Sources without a claim whose kept registration is paused, and why (pause.ts). */
  readonly keptPaused = new Map<Subject, PauseReason>();
  /** Near misses by namespace, for waiting and stale messages (built on first need). */
  nearMisses: ReadonlyMap<string, readonly NearMiss[]> | undefined;
  /**
   * The first instant (epoch ms) at which a decision this pass took from `now` turns out
   * otherwise (a deferral runs out, a demotion expires); `Infinity` while none would. A
   * settled plan is repeated for an unchanged world only before it (repeat/).
   */
  stableUntil = Number.POSITIVE_INFINITY;

  constructor(
    readonly snapshot: Snapshot,
    readonly config: Config,
    readonly now: number,
    readonly translate: Translator,
    readonly perObject: PerObject = { buildRegistration },
  ) {
    this.keys = labelKeys(config.labelPrefix);
    this.stamp = formatTimestamp(now);
  }
}

export const createPassState = (...args: ConstructorParameters<typeof PassState>): PassState =>
  new PassState(...args);

/**
 * Records that a decision taken from `now` changes once the clock reaches `instant`: a test
 * `now < instant` (or `instant <= now`). Instants already reached change nothing later.
 */
export function changesAt(state: PassState, instant: number): void {
  const at = Math.ceil(instant);
  if (at > state.now && at < state.stableUntil) state.stableUntil = at;
}

/** As changesAt, for a test `now <= instant`: it changes once the clock passes `instant`. */
export function changesAfter(state: PassState, instant: number): void {
  changesAt(state, Math.floor(instant) + 1);
}

export function warn(
  state: PassState,
  code: Warning['code'],
  message: string,
  namespace?: string,
  secret?: string,
): void {
  state.warnings.push({
    code,
    ...(namespace === undefined ? {} : { namespace }),
    ...(secret === undefined ? {} : { secret }),
    message,
  });
}
