// plan(snapshot, config, now): every decision of a pass, as data. Pure: no I/O, no clock, no
// randomness. This file only runs the steps in order; each step's file is named for the
// decision it makes (see "Module map" in docs/architecture.md):
//
//   1. names.ts             read each managed namespace: its cluster name, if it may claim one
//                           (input-completeness.ts: and whether its Secrets were read);
//   2. ownership.ts         read each Secret we own: whose it is (source-proof.ts: is that
//                           namespace provably gone?) and which servers are held (server-ledger.ts);
//   3. kubeconfig-choice.ts pick each namespace's kubeconfig;
//   4. claims.ts            turn namespaces into claims on `cluster-<name>` (none for a name an
//                           older namespace with unread Secrets may win: input-completeness.ts);
//   5. incumbency.ts        settle them, incumbents first and then oldest first;
//   6. actions.ts           emit creates/updates for won claims (compare.ts, credential-churn.ts),
//                           demotions for renames (rename.ts) and deletions only on proof,
//                           withholding what incomplete input rules out (input-completeness.ts);
//   7. outcomes.ts          one outcome per namespace; sort everything once.

import { translateSecretKey, type Translator } from '../translate/providers.js';
import type { Config, Plan, Snapshot } from '../shared/types.js';
import {
  compareActions,
  compareWarnings,
  emitClaimActions,
  emitRegistrationActions,
} from './actions.js';
import { buildClaims } from './claims.js';
import { settle } from './incumbency.js';
import { readUnreadNamespaces, withholdContestedClaims } from './input-completeness.js';
import { selectKubeconfigs } from './kubeconfig-choice.js';
import { PlanMemo } from './memo.js';
import { readNamespaces } from './names.js';
import { outcome } from './outcomes.js';
import { readClusterSecrets } from './ownership.js';
import { createPassState } from './pass-state.js';
import { followUps } from './rename.js';

export interface PlanOptions {
  /** Kubeconfig translator; inject a caching one so a steady-state pass re-parses nothing. */
  readonly translate?: Translator;
  /**
   * What earlier passes worked out, keyed by uid + resourceVersion (see memo.ts): a daemon
   * passes one memo to every pass so a steady-state pass rebuilds nothing. The plan is the
   * same, byte for byte, with or without it.
   */
  readonly memo?: PlanMemo;
}

export { createPlanMemo, PlanMemo } from './memo.js';

export function plan(
  snapshot: Snapshot,
  config: Config,
  now: number,
  options: PlanOptions = {},
): Plan {
  const translate = options.translate ?? translateSecretKey;
  // Without a memo the pass gets a fresh one: one code path, and what a warm memo returns is
  // by construction what a cold one computes.
  const memo = options.memo ?? new PlanMemo();
  const configKey = JSON.stringify(config);
  // Nothing changed since a pass that found nothing to do: its plan, as it was.
  const repeated = memo.repeat(snapshot, configKey, translate, now);
  if (repeated !== undefined) return repeated;
  memo.begin(configKey, translate);
  const state = createPassState(snapshot, config, now, translate, memo);
  readNamespaces(state);
  readUnreadNamespaces(state);
  readClusterSecrets(state);
  selectKubeconfigs(state);
  const claims = withholdContestedClaims(state, buildClaims(state));
  settle(state, claims);
  emitClaimActions(state, claims);
  emitRegistrationActions(state);
  const actions = state.actions.sort(compareActions);
  const next = followUps(state.registrations, actions);
  const result: Plan = {
    actions,
    outcomes: state.subjects.map((subject) => outcome(state, subject)),
    warnings: state.warnings.sort(compareWarnings),
    ...(next.length === 0 ? {} : { followUps: next }),
  };
  memo.sweep();
  // A memo of this pass alone is dropped with it: nothing to remember the world for.
  if (options.memo !== undefined) memo.remember(snapshot, result, now, state.stableUntil);
  return result;
}
