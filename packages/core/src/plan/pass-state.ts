// Everything one pass of plan() accumulates, in one object handed to each step: what it was
// given, what it has read, and what it has decided so far. The steps are functions of this
// state; nothing else is shared between them.

import { labelKeys, type LabelKeys } from '../label-keys.js';
import type { Translator } from '../providers.js';
import { formatTimestamp } from '../registration.js';
import type { Action, Config, ObservedSecret, Snapshot, Timestamp, Warning } from '../types.js';
import type { PlanMemo } from './memo.js';
import type { Claim, Deferral, Registration, Subject } from './model.js';
import { ServerLedger } from './server-ledger.js';

export interface PassState {
  /** Replaced by an empty snapshot when the pass retires. */
  snapshot: Snapshot;
  readonly config: Config;
  readonly keys: LabelKeys;
  readonly now: number;
  /** `now` as the credentials stamp writes it (formatted once per pass, not per write). */
  readonly stamp: Timestamp;
  readonly translate: Translator;
  readonly memo: PlanMemo;
  /** The memo's pass number. */
  readonly pass: number;
  readonly warnings: Warning[];
  readonly actions: Action[];
  /** Managed sources (namespaces and Clusters), by source key. */
  readonly subjects: Subject[];
  /** Namespace → Cluster name → its subject: the managed Clusters of each namespace. */
  readonly clustersByNamespace: Map<string, Map<string, Subject>>;
  /** Secrets we own in the target namespace, by name. */
  readonly registrations: Registration[];
  /** ArgoCD cluster name → the foreign Secret that already uses it. */
  readonly foreignNames: Map<string, ObservedSecret>;
  /** Servers in use. */
  readonly servers: ServerLedger;
  /** Cluster name → the namespace that holds or won it this pass. */
  readonly nameWinners: Map<string, Subject>;
  /** Namespaces whose credential-only update waits, and why. */
  readonly deferred: Map<Subject, Deferral>;
  /** Namespaces whose registration an update rewrites this pass. */
  readonly written: Set<Subject>;
  /** Namespaces whose write incomplete input withholds, and why (input-completeness.ts). */
  readonly withheld: Map<Subject, string>;
  /** See {@link retirePass}. */
  readonly exemplars: object[];
}

const NO_SNAPSHOT: Snapshot = {
  namespaces: [],
  candidateSecrets: [],
  clusterSecrets: [],
  sourceLookups: {},
};

export function createPassState(
  snapshot: Snapshot,
  config: Config,
  now: number,
  translate: Translator,
  memo: PlanMemo,
): PassState {
  return {
    snapshot,
    config,
    keys: labelKeys(config.labelPrefix),
    now,
    stamp: formatTimestamp(now),
    translate,
    memo,
    pass: memo.pass,
    warnings: [],
    actions: [],
    subjects: [],
    clustersByNamespace: new Map(),
    registrations: [],
    foreignNames: new Map(),
    servers: new ServerLedger(),
    nameWinners: new Map(),
    deferred: new Map(),
    written: new Set(),
    withheld: new Map(),
    exemplars: [],
  };
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

/**
 * V8 forgets the hidden classes no live object uses any more at a full GC, and throws away
 * the optimised code built on them, so a pass after an idle spell would start cold (2–3×
 * slower at 10,000 namespaces). The memo keeps this state until the next pass begins,
 * holding one object of each kind the pass built and nothing else of it.
 */
export function retirePass(state: PassState, claims: readonly Claim[]): void {
  state.subjects.length = Math.min(state.subjects.length, 1);
  state.registrations.length = Math.min(state.registrations.length, 1);
  const holder = state.servers.exemplar();
  if (holder !== undefined) state.exemplars.push(holder);
  if (claims[0] !== undefined) state.exemplars.push(claims[0]);
  state.servers.clear();
  state.clustersByNamespace.clear();
  state.foreignNames.clear();
  state.nameWinners.clear();
  state.deferred.clear();
  state.written.clear();
  state.withheld.clear();
  state.snapshot = NO_SNAPSHOT;
  state.memo.retired = state;
}
