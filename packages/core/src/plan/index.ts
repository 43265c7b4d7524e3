// plan(snapshot, config, now): every decision of a pass, as data. Pure: no I/O, no clock, no
// randomness. This file only runs the steps in order; each step's file is named for the
// decision it makes (see "Module map" in docs/architecture.md). Each step reads the pass's
// input and what the steps before it decided, and nothing of an earlier pass:
//
//   1. names.ts             read each managed namespace: its cluster name, if it may claim one,
//                           whether its Secrets were read, and the kubeconfig it registers
//                           from (kubeconfig-choice.ts);
//   2. ownership.ts         read each Secret we own: whose it is (source-proof.ts: is that
//                           namespace provably gone?) and which servers are held (server-ledger.ts);
//   3. claims.ts            turn namespaces into claims on `cluster-<name>` (none for a name an
//                           older namespace with unread Secrets may win: input-completeness.ts);
//   4. incumbency.ts        settle them, incumbents first and then oldest first;
//   5. actions.ts           emit creates/updates for won claims (compare.ts, credential-churn.ts),
//                           demotions for renames (rename.ts) and deletions only on proof,
//                           withholding what incomplete input rules out (input-completeness.ts);
//   6. outcomes.ts          one outcome per namespace; sort everything once.
//
// Nothing is kept between passes here: what is (the last plan, while it still holds) lives
// outside plan/, behind PlanOptions.repeat (repeat/), and may also hand a pass its own
// per-object functions (PerObject) that give what the plain ones would.

import {
  configuredTranslator,
  translateSecretKey,
  type Translator,
} from '../translate/providers.js';
import type { Config, Plan, Snapshot } from '../common/types.js';
import {
  compareActions,
  compareWarnings,
  emitClaimActions,
  emitRegistrationActions,
} from './actions.js';
import { buildClaims } from './claims.js';
import { settle } from './incumbency.js';
import { withholdContestedClaims } from './input-completeness.js';
import { readNamespaces } from './names.js';
import { outcome } from './outcomes.js';
import { readClusterSecrets } from './ownership.js';
import { createPassState, type PerObject } from './pass-state.js';
import { recordingHost } from './host-identity.js';
import { followUps } from './rename.js';
import { scopeSnapshot } from './target-scope.js';

export interface PlanOptions {
  /** Kubeconfig translator; inject a caching one so a steady-state pass re-parses nothing. */
  readonly translate?: Translator;
  /**
   * What may hand out an earlier plan instead of planning (`createSettledRepeat()`): a daemon
   * passes one to every pass. The plan is the same, byte for byte, with or without it.
   */
  readonly repeat?: PlanRepeat;
}

/** A fresh plan and the first instant at which one of its decisions changes. */
export interface Decided {
  readonly plan: Plan;
  readonly stableUntil: number;
}

/** Gives a plan for a pass: an earlier one that still holds, or `decide()`'s. */
export interface PlanRepeat {
  planOrRepeat(
    snapshot: Snapshot,
    config: Config,
    now: number,
    translate: Translator,
    decide: (perObject: PerObject) => Decided,
  ): Plan;
}

export function plan(
  snapshot: Snapshot,
  config: Config,
  now: number,
  options: PlanOptions = {},
): Plan {
  const translate = options.translate ?? defaultTranslator(config);
  snapshot = scopeSnapshot(snapshot, config);
  const decide = (perObject?: PerObject): Decided =>
    planPass(snapshot, config, now, translate, perObject);
  return options.repeat === undefined
    ? decide().plan
    : options.repeat.planOrRepeat(snapshot, config, now, translate, decide);
}

/** One translator per configuration, so a settled plan can repeat (it keys on the translator). */
const referenceTranslators = new WeakMap<Config, Translator>();

function defaultTranslator(config: Config): Translator {
  if (config.referenceMode === 'off') return translateSecretKey;
  let translate = referenceTranslators.get(config);
  if (translate === undefined) {
    translate = configuredTranslator(config);
    referenceTranslators.set(config, translate);
  }
  return translate;
}

function planPass(
  snapshot: Snapshot,
  config: Config,
  now: number,
  translate: Translator,
  perObject: PerObject | undefined,
): Decided {
  const state = createPassState(snapshot, config, now, translate, perObject);
  readNamespaces(state);
  readClusterSecrets(state);
  const built = buildClaims(state);
  const settled = settle(state, withholdContestedClaims(state, built), built.refused);
  emitClaimActions(state, settled.won);
  emitRegistrationActions(state, settled.won);
  const actions = state.actions
    .map((action) => recordingHost(action, config, state.keys))
    .sort(compareActions);
  const next = followUps(state.registrations, actions);
  const plan: Plan = {
    actions,
    outcomes: state.subjects.map((subject) => outcome(state, subject, settled)),
    warnings: state.warnings.sort(compareWarnings),
    ...(next.length === 0 ? {} : { followUps: next }),
  };
  return { plan, stableUntil: state.stableUntil };
}
