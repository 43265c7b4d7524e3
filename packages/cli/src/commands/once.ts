// `--once`: one pass, the plan on stdout, an exit code that says how it went.

import { createSettledRepeat, snapshotToJson, summarisePlan } from '@argocd-cluster-registrar/core';
import {
  createApplier,
  createDryRunWriter,
  createGatherer,
  createProfileReader,
} from '@argocd-cluster-registrar/k8s-adapter';
import type { KubeAccess, PlanWriter } from '@argocd-cluster-registrar/k8s-adapter';
import { refuseUnreachable, serverOf } from '../connect.js';
import { EXIT_CHANGES, EXIT_ERROR, EXIT_OK, EXIT_REJECTED, UsageError } from '../exit-codes.js';
import type { CliOptions } from '../flags.js';
import type { Io } from '../io.js';
import type { Logger } from '../logging.js';
import { writeOwnerOnlyFile } from '../owner-only-file.js';
import { RegistrarMetrics } from '../metrics.js';
import { OutcomeReporter } from '../outcome-events.js';
import { anyRejected, printRun, printTargetRuns, type TargetRun } from '../print-plan.js';
import { runRounds, type RoundsReport } from '../rounds.js';
import type { RunTarget } from '../targets.js';

export async function runOnce(
  io: Io,
  options: CliOptions,
  targets: readonly RunTarget[],
  access: KubeAccess,
  logger: Logger,
): Promise<number> {
  const [only] = targets;
  if (targets.length === 1 && only !== undefined && only.name === undefined)
    return runTarget(io, options, only, access, logger, (run) => {
      printRun(io, options, run);
    });
  // Several targets: each runs on its own, and one that fails never stops the others.
  const runs: TargetRun[] = [];
  let code = EXIT_OK;
  for (const target of targets) {
    const name = target.name ?? '';
    const heading = {
      name,
      namespace: target.config.targetNamespace,
      ...(target.remote ? { server: serverOf(target.access) } : {}),
    };
    const errors: string[] = [];
    const quiet: Io = { ...io, stderr: (text) => errors.push(text.replace(/^error: /, '').trim()) };
    let run: RoundsReport | undefined;
    let targetCode: number;
    try {
      targetCode = await runTarget(quiet, options, target, access, logger, (done) => {
        run = done;
      });
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      errors.push(err.message);
      targetCode = EXIT_ERROR;
    }
    if (errors.length > 0) logger.error(`target ${name}: ${errors.join('; ')}`);
    runs.push({
      ...heading,
      ...(run === undefined ? {} : { run }),
      ...(errors.length === 0 ? {} : { error: errors.join('; ') }),
    });
    code = worse(code, targetCode);
  }
  printTargetRuns(io, options, runs);
  return code;
}

/** Of two exit codes, the one that says more is wrong: error, rejected, changes, ok. */
function worse(a: number, b: number): number {
  const rank = [EXIT_OK, EXIT_CHANGES, EXIT_REJECTED, EXIT_ERROR];
  return rank.indexOf(a) >= rank.indexOf(b) ? a : b;
}

async function runTarget(
  io: Io,
  options: CliOptions,
  target: RunTarget,
  access: KubeAccess,
  logger: Logger,
  print: (run: RoundsReport) => void,
): Promise<number> {
  const { config } = target;
  // A dry run still asks the API server to validate each write (server-side dry run), so
  // the preview also shows what would be rejected, and exits EXIT_REJECTED when anything
  // would be. A write it could not validate (forbidden to these credentials) is not a rejection.
  // Sources are read, and a deletion's proof re-read, on this host; the registrations where
  // the target is.
  const writer: PlanWriter = options.dryRun
    ? createDryRunWriter({ validateWith: target.access, labelPrefix: config.labelPrefix })
    : createApplier(target.access, config, access);
  // One run, as many rounds as it takes to end converged (rounds.ts); a dry run writes
  // nothing, so it has one round, and its plan names what a real run would follow up with.
  const run = await runRounds(
    {
      config,
      writer,
      gatherer: createGatherer(access, config, target.access),
      repeat: createSettledRepeat(),
      logger,
      metrics: new RegistrarMetrics(),
      now: Date.now,
      ...(config.clusterProfiles
        ? {
            profiles: {
              stage: {
                reader: createProfileReader(access, {
                  namespace: config.clusterProfileNamespace,
                  mode: 'list',
                  rediscoverMs: config.intervalMs,
                }),
              },
              access,
            },
          }
        : {}),
    },
    { scope: { full: true }, apply: true },
  );
  const { rounds } = run;
  const firstRound = rounds[0];
  const report = rounds[rounds.length - 1];
  if (firstRound === undefined || report === undefined)
    throw new Error('a run has at least one round');
  refuseUnreachable(report.gatherFailures, target.remote ? target.access : access);
  const reporter = new OutcomeReporter(
    access,
    config.targetNamespace,
    logger,
    undefined,
    target.access,
  );
  // Logs each namespace's outcome and records its Events as a daemon's first pass would
  // (Registered for each write, Refused and why, Stale), so the command the docs give
  // (`kubectl events -n <namespace>`) shows why a namespace was refused. A dry run records
  // nothing. A one-shot run has no memory, so each run records current refusals again;
  // one reporter for all rounds records each once.
  reporter.reportRounds(rounds);
  await reporter.eventsSent();

  if (options.saveSnapshot !== undefined) {
    // What the first round planned from, so `replay` shows the plan this run started with.
    // The snapshot holds the kubeconfig Secrets as gathered: owner-only, like a kubeconfig.
    writeOwnerOnlyFile(options.saveSnapshot, snapshotToJson(firstRound.snapshot));
    logger.info('snapshot saved; it contains credentials', { file: options.saveSnapshot });
  }
  // Each plan the run made, in order (print-plan.ts).
  print(run);
  const results = rounds.flatMap((round) => round.results);

  if (report.gatherFailures.length > 0) {
    const first = report.gatherFailures[0];
    // Counted from the plan: the planner decided what the failed reads withhold.
    const withheld = summarisePlan(report.plan).withheld;
    io.stderr(
      `error: the pass was incomplete: ${report.gatherFailures.length} read(s) failed (first: ${first?.scope}: ${first?.failure.message})${withheld > 0 ? `; ${withheld} verdict(s) withheld until it can be read (see the plan)` : ''}\n`,
    );
    return EXIT_ERROR;
  }
  if (report.applied && results.some((r) => r.status !== 'applied')) return EXIT_ERROR;
  // A profile that could not be read or written is an error too (a missing CRD is not: it
  // was said, and registrations are unaffected).
  for (const round of rounds) {
    const profiles = round.profiles;
    if (profiles?.state === 'unknown') return EXIT_ERROR;
    if (profiles?.state === 'planned' && profiles.results.some((r) => r.status !== 'applied'))
      return EXIT_ERROR;
  }
  if (anyRejected(firstRound.previewed)) return EXIT_REJECTED;
  if (options.detailedExitcode && rounds.some((round) => round.plan.actions.length > 0))
    return EXIT_CHANGES;
  return EXIT_OK;
}
