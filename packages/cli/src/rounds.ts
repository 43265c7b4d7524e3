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
// its own writes come back through its watches and trigger the next pass.

import { describeSource, labelKeys, recordedSourceKey } from '@argocd-cluster-registrar/core';
import type {
  Action,
  Config,
  NamespaceOutcome,
  Plan,
  Snapshot,
} from '@argocd-cluster-registrar/core';
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
  if (last !== undefined && !converged && wroteEverything(last)) {
    deps.logger.warn('the run ended before it could confirm convergence; the next run goes on', {
      rounds: rounds.length,
    });
  }
  return { rounds, converged };
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

/** One action of a dry run that a real run would follow with another round, and why. */
export interface FollowUp {
  readonly action: Action;
  readonly next: string;
}

/**
 * The actions of `plan` whose effect must be observed before another decision can be taken:
 * a registration written for a namespace whose earlier name is still active here. Only the
 * next round can tell whether that write went through, so a dry run names the step, not
 * its outcome.
 */
export function followUps(
  plan: Plan,
  snapshot: Snapshot,
  config: Pick<Config, 'labelPrefix' | 'managedBy'>,
): FollowUp[] {
  const keys = labelKeys(config.labelPrefix);
  const found: FollowUp[] = [];
  for (const action of plan.actions) {
    if (action.kind !== 'create' && action.kind !== 'update') continue;
    const source = action.reason.namespace;
    // By the source key the labels record: a Cluster's registration also carries its
    // namespace in <prefix>source-namespace, and is not that namespace's.
    const earlier = snapshot.clusterSecrets.filter(
      (secret) =>
        secret.labels[keys.managedBy] === config.managedBy &&
        recordedSourceKey(secret.labels, keys) === source &&
        secret.labels[keys.cluster] !== action.cluster &&
        secret.labels[keys.orphanedSecretType] === undefined &&
        secret.name !== action.secret.name,
    );
    for (const secret of earlier) {
      found.push({
        action,
        next: `once ${action.secret.name} is observed, a second round demotes ${secret.name} (${describeSource(source)} was renamed away from it)`,
      });
    }
  }
  return found;
}

function roundLine(round: PassReport, index: number): string {
  const written = round.results.filter((r) => r.status === 'applied').length;
  const failed = round.results.length - written;
  if (round.plan.actions.length === 0) return `round ${index + 1} found nothing left to do`;
  return `round ${index + 1} wrote ${written} change(s)${failed > 0 ? ` (${failed} not applied)` : ''}`;
}

/**
 * The text after the plan: silent for a run whose writes needed no further decision (one
 * round, or a second that found nothing left); otherwise every round, and how it ended.
 */
export function roundsText(
  rounds: readonly PassReport[],
  converged: boolean,
  pending: readonly FollowUp[],
): string {
  const lines: string[] = [];
  const later = rounds.slice(1).some((round) => round.plan.actions.length > 0);
  const last = rounds[rounds.length - 1];
  if (later) lines.push(`Rounds: ${rounds.map(roundLine).join('; ')}.`);
  if (!converged && last !== undefined && wroteEverything(last))
    lines.push(`Not confirmed converged after ${rounds.length} rounds; the next run goes on.`);
  if (pending.length > 0) {
    lines.push('A real run would need a second round for:');
    for (const item of pending)
      lines.push(`  ${item.action.kind} ${item.action.cluster}: ${item.next}`);
  }
  return lines.length === 0 ? '' : `\n${lines.join('\n')}\n`;
}

/**
 * Each source's outcome for the whole run: what its last round that did more than confirm
 * said. A source registered in round 1 is `unchanged` in the confirming round, and the run
 * must still report that it was registered.
 */
export function runOutcomes(rounds: readonly PassReport[]): readonly NamespaceOutcome[] {
  const last = rounds[rounds.length - 1];
  if (last === undefined) return [];
  const told = new Map<string, NamespaceOutcome>();
  for (const round of rounds)
    for (const outcome of round.plan.outcomes)
      if (outcome.state !== 'unchanged' || !told.has(outcome.namespace))
        told.set(outcome.namespace, outcome);
  return last.plan.outcomes.map((outcome) => told.get(outcome.namespace) ?? outcome);
}

/** The same in the JSON document (added fields: formatVersion stays "1"). */
export function roundsDocument(
  rounds: readonly PassReport[],
  converged: boolean,
  pending: readonly FollowUp[],
): Record<string, unknown> {
  return {
    rounds: rounds.map((round, index) => ({
      round: index + 1,
      actions: round.plan.actions.length,
      applied: round.results.filter((r) => r.status === 'applied').length,
      failed: round.results.filter((r) => r.status !== 'applied').length,
      readFailures: round.gatherFailures.length,
    })),
    converged,
    ...(pending.length > 0
      ? {
          secondRound: pending.map((item) => ({
            kind: item.action.kind,
            cluster: item.action.cluster,
            next: item.next,
          })),
        }
      : {}),
  };
}
