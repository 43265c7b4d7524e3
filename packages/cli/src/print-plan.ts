// Plans on stdout, as text or JSON: one plan (`replay`), or every plan a run made (`--once`),
// each with the write results when its round applied it, or the API server's verdict on each
// write when it was a dry run.
//
// A run's JSON stays one document: its first round's plan at the top (what `--dry-run` shows
// and `replay` of its saved snapshot reproduces), each later round's plan in `laterRounds`, in
// order and in the same shape with its `round` number, and `converged`.

import {
  describeSource,
  PLAN_FORMAT_VERSION,
  planToJson,
  renderPlanText,
} from '@argocd-cluster-registrar/core';
import type { Action, DryRunNote, FollowUp, Plan } from '@argocd-cluster-registrar/core';
import { dryRunVerdict } from '@argocd-cluster-registrar/k8s-adapter';
import type { ActionResult } from '@argocd-cluster-registrar/k8s-adapter';
import type { CliOptions } from './flags.js';
import { colorFor } from './io.js';
import type { Io } from './io.js';
import type { PassReport } from './reconciler.js';
import { publishedAfter } from './profile-pass.js';
import type { ProfilePassReport } from './profile-pass.js';
import type { RoundsReport } from './rounds.js';

/** A plan as shown: with its writes' results, or a dry run's verdicts, when there are any. */
interface Shown {
  readonly plan: Plan;
  /** After an apply: each write's result. */
  readonly results?: readonly ActionResult[];
  /** A dry run's results: what the API server said of each write it validated. */
  readonly previewed: readonly ActionResult[];
  /** Reads of its gather that failed (runs only). */
  readonly readFailures?: number;
  /** With `--cluster-profiles`: the inventory step of the round. */
  readonly profiles?: ProfilePassReport;
}

/** One plan that was not applied (`replay`). */
export function printPlan(io: Io, options: CliOptions, planned: Plan): void {
  const shown: Shown = { plan: planned, previewed: [] };
  if (options.output === 'json') io.stdout(`${JSON.stringify(planDocument(shown), null, 2)}\n`);
  else io.stdout(planText(io, options, shown));
}

/** Every plan of a run, in the order its rounds made them. */
export function printRun(io: Io, options: CliOptions, run: RoundsReport): void {
  if (options.output === 'json') io.stdout(`${JSON.stringify(runDocument(run), null, 2)}\n`);
  else io.stdout(runText(io, options, run));
}

/** A heading and what went wrong, for a target whose run ended in an error before a plan. */
export interface TargetRun {
  /** Its name and namespace, and the server of its cluster when it is elsewhere. */
  readonly name: string;
  readonly namespace: string;
  readonly server?: string;
  readonly run?: RoundsReport;
  readonly error?: string;
}

/**
 * The runs of several targets (`--targets-file`), one section each. JSON: one document,
 * `{formatVersion, targets: [{target, namespace, server?, ...that target's run document}]}`.
 */
export function printTargetRuns(io: Io, options: CliOptions, runs: readonly TargetRun[]): void {
  if (options.output === 'json') {
    const document = {
      formatVersion: PLAN_FORMAT_VERSION,
      targets: runs.map((target) => ({
        target: target.name,
        namespace: target.namespace,
        ...(target.server === undefined ? {} : { server: target.server }),
        ...(target.run === undefined ? {} : runDocument(target.run, false)),
        ...(target.error === undefined ? {} : { error: target.error }),
      })),
    };
    io.stdout(`${JSON.stringify(document, null, 2)}\n`);
    return;
  }
  const sections = runs.map((target) => {
    const where = `namespace ${target.namespace}${target.server === undefined ? '' : ` of ${target.server}`}`;
    const body =
      target.run === undefined
        ? `error: ${target.error ?? 'no plan'}\n`
        : runText(io, options, target.run) +
          (target.error === undefined ? '' : `error: ${target.error}\n`);
    return `Target ${JSON.stringify(target.name)} (${where}):\n${body}`;
  });
  io.stdout(sections.join('\n'));
}

/** `versioned`: a document of its own (one target's run is part of the targets document). */
function runDocument(run: RoundsReport, versioned = true) {
  const [first, ...later] = run.rounds.map(shownRound);
  if (first === undefined) throw new Error('a run has at least one round');
  return {
    ...planDocument(first, versioned),
    laterRounds: later.map((shown, index) => ({
      round: index + 2,
      ...planDocument(shown, false),
    })),
    converged: run.converged,
  };
}

function runText(io: Io, options: CliOptions, run: RoundsReport): string {
  const [first, ...later] = run.rounds.map(shownRound);
  if (first === undefined) throw new Error('a run has at least one round');
  const count = run.rounds.length;
  // An applying run ends with a round that only confirms nothing is left to do; printed, it
  // would repeat the warnings under "No changes". The JSON document keeps it (laterRounds).
  // Unless it wrote the profiles: they follow the registrations a round later.
  const last = run.rounds[count - 1];
  const closing =
    count > 1 &&
    last?.plan.actions.length === 0 &&
    !(last.profiles?.state === 'planned' && last.profiles.plan.actions.length > 0);
  const shown = closing ? [first, ...later].slice(0, -1) : [first, ...later];
  const texts = shown.map((round, index) => {
    const text = planText(io, options, round);
    return shown.length === 1
      ? text
      : `Round ${String(index + 1)} of ${String(shown.length)}:\n${text}`;
  });
  const tail: string[] = [];
  if (run.unconfirmed)
    tail.push(`Not confirmed converged after ${String(count)} rounds; the next run goes on.`);
  const pending = run.rounds[count - 1]?.plan.followUps ?? [];
  if (pending.length > 0) {
    tail.push(
      options.dryRun ? 'A real run would need a second round for:' : 'The next run goes on with:',
    );
    const round = options.dryRun ? 'a second round' : 'a further round';
    for (const next of pending) tail.push(`  ${followUpLine(next, round)}`);
  }
  return texts.join('\n') + (tail.length === 0 ? '' : `\n${tail.join('\n')}\n`);
}

function shownRound(round: PassReport): Shown {
  return {
    plan: round.plan,
    ...(round.applied ? { results: round.results } : {}),
    previewed: round.previewed,
    readFailures: round.gatherFailures.length,
    ...(round.profiles === undefined ? {} : { profiles: round.profiles }),
  };
}

function followUpLine(next: FollowUp, round: string): string {
  return `${next.after.kind} ${next.after.cluster}: once ${next.after.secret} is observed, ${round} ${next.kind}s ${next.secret} (${describeSource(next.source)} was renamed away from it)`;
}

/** `versioned`: a document of its own (a later round's plan is part of the run's). */
function planDocument(shown: Shown, versioned = true) {
  // One entry per action written or validated. Added fields keep the format version.
  const results =
    shown.results?.map((r) => ({
      kind: r.action.kind,
      cluster: r.action.cluster,
      status: r.status,
      ...(r.failure !== undefined ? { error: r.failure.message } : {}),
    })) ??
    shown.previewed.map((r) => {
      const verdict = dryRunVerdict(r);
      return {
        kind: r.action.kind,
        cluster: r.action.cluster,
        status: r.status,
        verdict: verdict.verdict,
        ...(verdict.verdict === 'accepted' ? {} : { error: verdict.reason }),
      };
    });
  // `results` always present, empty when nothing was written or validated: one shape for
  // every plan.
  const { formatVersion, ...plan } = planToJson(shown.plan);
  return {
    ...(versioned ? { formatVersion } : {}),
    ...plan,
    results,
    ...(shown.readFailures === undefined ? {} : { readFailures: shown.readFailures }),
    ...(shown.profiles === undefined ? {} : { profiles: profilesDocument(shown.profiles) }),
  };
}

/**
 * The inventory step, an added field (the format version stays): its state, and when it
 * planned, the profiles' actions, notices and write results. Never a profile's status
 * (it holds no credential, but the plan shows decisions, not objects).
 */
function profilesDocument(report: ProfilePassReport) {
  if (report.state !== 'planned') return { state: report.state, reason: report.why };
  const { plan } = report;
  return {
    state: report.state,
    namespace: plan.namespace,
    apiVersion: plan.apiVersion,
    published: publishedAfter(report),
    actions: plan.actions.map((a) => ({
      kind: a.kind,
      cluster: a.cluster,
      ...(a.kind === 'delete' ? { reason: a.reason } : { source: a.source }),
      ...(a.kind === 'update' ? { changed: a.changed } : {}),
    })),
    notices: plan.notices,
    results: report.results.map((r) => ({
      kind: r.action.kind,
      cluster: r.action.cluster,
      status: r.status,
      ...(r.failure !== undefined ? { error: r.failure.message } : {}),
    })),
  };
}

/** The inventory step in the text preview: one line per profile action and notice. */
function profilesText(report: ProfilePassReport | undefined): string {
  if (report === undefined) return '';
  if (report.state !== 'planned') return `\nClusterProfiles: not planned (${report.why})\n`;
  const { plan } = report;
  const lines = [
    `\nClusterProfiles in ${plan.namespace} (${plan.apiVersion}): ${String(publishedAfter(report))} published, ${String(plan.actions.length)} to write`,
  ];
  const written = new Map(report.results.map((r) => [r.action, r.status]));
  for (const a of plan.actions) {
    const status = written.get(a);
    const why =
      a.kind === 'delete'
        ? `${a.reason.code}: ${a.reason.source}`
        : a.kind === 'update'
          ? a.changed.join(', ')
          : `from ${describeSource(a.source)}`;
    lines.push(`  ${a.kind} ${a.cluster} (${why})${status === undefined ? '' : ` [${status}]`}`);
  }
  for (const n of plan.notices) lines.push(`  ! ${n.message}`);
  return `${lines.join('\n')}\n`;
}

function planText(io: Io, options: CliOptions, shown: Shown): string {
  const { plan, results } = shown;
  // After an apply the headers say what was done ("was created"), not what will be.
  const resultOf = (action: Action): 'applied' | 'failed' | undefined => {
    const result = results?.find((r) => r.action === action);
    return result === undefined ? undefined : result.status === 'applied' ? 'applied' : 'failed';
  };
  const notes = new Map<Action, DryRunNote>();
  for (const result of shown.previewed) {
    const verdict = dryRunVerdict(result);
    if (verdict.verdict === 'rejected') notes.set(result.action, { rejected: verdict.reason });
    if (verdict.verdict === 'not-validated')
      notes.set(result.action, { notValidated: verdict.reason });
  }
  return (
    renderPlanText(plan, {
      color: colorFor(io, io.stdoutIsTty),
      dryRun: options.dryRun,
      ...(results !== undefined ? { results: resultOf } : {}),
      ...(notes.size > 0 ? { verdicts: (action: Action) => notes.get(action) } : {}),
    }) + profilesText(shown.profiles)
  );
}

/** Whether a dry run's API server would reject any of the writes it validated. */
export function anyRejected(previewed: readonly ActionResult[]): boolean {
  return previewed.some((result) => dryRunVerdict(result).verdict === 'rejected');
}
