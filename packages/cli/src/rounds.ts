// A one-shot run ends converged: after a round that wrote something it gathers and plans
// again, because some decisions may only be taken once an earlier write is *observed* (the
// old registration of a renamed cluster is demoted only once the new one is read back, so
// ArgoCD never loses the cluster when a create fails). Without this, a CronJob running
// `--once` hourly would leave two active registrations of one server for an hour.
//
// Bounded: a rename takes two writing rounds and a confirming one; a swap chain or a
// takeover one more. A round that failed (a read or a write) ends the run: the next run
// retries, and the exit code says so. A round whose plan repeats the previous one's ends it
// too: writing the same thing again would not get further. The daemon needs none of this:
// its own writes come back through its watches and trigger the next pass. Which step a
// further round takes is the planner's to say (Plan.followUps); printing is print-plan.ts's.

import type { Plan } from '@argocd-cluster-registrar/core';
import type { Logger } from './logging.js';
import { runPass } from './reconciler.js';
import type { PassOptions, PassReport, ReconcilerDeps } from './reconciler.js';

/** At most this many rounds (gather, plan, apply) in one run. */
export const MAX_ROUNDS = 4;

export interface RoundsReport {
  /** Every round, in order; the first is what a dry run shows. */
  readonly rounds: readonly PassReport[];
  /** The last round planned nothing: the run ended converged. */
  readonly converged: boolean;
  /** The last round wrote all it planned, but the round limit ended the run before another. */
  readonly unconfirmed: boolean;
}

export async function runRounds(
  deps: ReconcilerDeps,
  options: PassOptions,
  maxRounds: number = MAX_ROUNDS,
): Promise<RoundsReport> {
  const rounds: PassReport[] = [];
  for (;;) {
    const report = await runPass(deps, options);
    rounds.push(report);
    logRound(deps.logger, rounds.length, report);
    const previous = rounds[rounds.length - 2];
    if (!wroteEverything(report)) break;
    if (previous !== undefined && actionsKey(previous.plan) === actionsKey(report.plan)) break;
    if (rounds.length >= maxRounds) break;
  }
  const last = rounds[rounds.length - 1];
  const converged = last !== undefined && last.plan.actions.length === 0;
  const unconfirmed = last !== undefined && !converged && wroteEverything(last);
  if (unconfirmed) {
    deps.logger.warn('the run ended before it could confirm convergence; the next run goes on', {
      rounds: rounds.length,
    });
  }
  return { rounds, converged, unconfirmed };
}

/** The round wrote at least one change, all of them, after a complete read. */
function wroteEverything(report: PassReport): boolean {
  return (
    report.applied &&
    report.gatherFailures.length === 0 &&
    report.results.length > 0 &&
    report.results.every((r) => r.status === 'applied')
  );
}

function actionsKey(plan: Plan): string {
  return plan.actions.map((a) => `${a.kind}:${a.cluster}:${a.reason.code}`).join('|');
}

function logRound(logger: Logger, round: number, report: PassReport): void {
  // A second round with work is news (a rename completed); a first or a confirming one is not.
  const fields = {
    round,
    actions: report.plan.actions.length,
    applied: report.results.filter((r) => r.status === 'applied').length,
    failed: report.results.filter((r) => r.status !== 'applied').length,
    readFailures: report.gatherFailures.length,
  };
  if (round > 1 && report.plan.actions.length > 0) logger.info('round complete', fields);
  else logger.debug('round complete', fields);
}
