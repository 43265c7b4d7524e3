#!/usr/bin/env node
// Entry point: flags → config → one pass (--once) or the daemon. One top-level catch maps
// every failure to an exit code and a message that says what to do.

import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import {
  parseConfig,
  plan,
  planToJson,
  renderPlanText,
  snapshotFromJson,
  snapshotToJson,
} from '@argocd-cluster-registrar/core';
import type { Config, Plan } from '@argocd-cluster-registrar/core';
import { applyPlan, createGatherer, loadKubeAccess } from '@argocd-cluster-registrar/k8s-adapter';
import type {
  ActionResult,
  GatherFailure,
  KubeAccess,
} from '@argocd-cluster-registrar/k8s-adapter';
import { Daemon } from './daemon.js';
import { envName, flagForSetting, parseFlags, renderHelp } from './flags.js';
import type { CliOptions } from './flags.js';
import { createLogger, resolveLogFormat } from './logging.js';
import type { Logger } from './logging.js';
import { RegistrarMetrics } from './metrics.js';
import { OutcomeReporter } from './outcome-events.js';
import { runPass } from './reconciler.js';
import { startServers } from './server.js';

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_CHANGES = 2;

/** An expected failure with a message for the user (no stack trace). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface Io {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly stdoutIsTty: boolean;
  readonly stderrIsTty: boolean;
}

export function version(): string {
  try {
    // src/main.ts and dist/main.js both sit one level below the package root.
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Runs the command; resolves to the exit code. Never throws. */
export async function main(io: Io): Promise<number> {
  let logger: Logger | undefined;
  try {
    const parsed = parseFlags(io.argv, io.env);
    if (!parsed.ok) {
      for (const error of parsed.errors) io.stderr(`error: ${error.message}\n`);
      io.stderr('Run with --help for the accepted flags.\n');
      return EXIT_ERROR;
    }
    const options = parsed.options;
    if (options.help) {
      io.stdout(renderHelp(version()));
      return EXIT_OK;
    }
    if (options.version) {
      io.stdout(`argocd-cluster-registrar ${version()}\n`);
      return EXIT_OK;
    }

    const configured = parseConfig(options.config);
    if (!configured.ok) {
      for (const error of configured.errors) {
        const flag = flagForSetting(error.setting);
        const via =
          options.sources[flag] === 'env' ? `${envName(flag)} (for --${flag})` : `--${flag}`;
        io.stderr(`error: ${via} ${JSON.stringify(error.value)}: ${error.message}\n`);
      }
      return EXIT_ERROR;
    }
    const config = configured.config;
    logger = createLogger({
      format: resolveLogFormat(options.logFormat, io.env),
      level: config.debug ? 'debug' : 'info',
      write: io.stderr,
      color: io.stderrIsTty && io.env['NO_COLOR'] === undefined,
    });
    for (const notice of options.notices) logger.warn(notice);
    if (options.fromSnapshot !== undefined) return replaySnapshot(io, options, config);

    const access = connect(options);
    logger.debug('using kubeconfig', { source: access.source, server: serverOf(access) });
    return options.once
      ? await runOnce(io, options, config, access, logger)
      : await runDaemon(options, config, access, logger);
  } catch (err) {
    return reportFatal(err, io, logger);
  }
}

function connect(options: CliOptions): KubeAccess {
  try {
    return loadKubeAccess({
      ...(options.kubeconfig !== undefined ? { kubeconfig: options.kubeconfig } : {}),
      ...(options.context !== undefined ? { context: options.context } : {}),
    });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

async function runOnce(
  io: Io,
  options: CliOptions,
  config: Config,
  access: KubeAccess,
  logger: Logger,
): Promise<number> {
  const metrics = new RegistrarMetrics();
  const gatherer = createGatherer(access, config);
  const report = await runPass(
    { access, config, gatherer, logger, metrics, now: Date.now },
    { scope: { full: true }, apply: true },
  );
  unreachable(report.gatherFailures, access);
  if (report.applied) {
    // Logs each namespace's outcome once, and records Events for the registrations written.
    await new OutcomeReporter(access, config.targetNamespace, logger, { onlyWrites: true }).report(
      report,
      true,
    );
  }

  // A dry run still asks the API server to validate each write (server-side dry run), so
  // the preview also catches what would be rejected; that check never fails the preview.
  let previewChecks: readonly ActionResult[] = [];
  if (config.dryRun && report.plan.actions.length > 0) {
    previewChecks = await applyPlan(access, report.plan, {
      dryRun: true,
      labelPrefix: config.labelPrefix,
      observed: report.snapshot.clusterSecrets,
    });
    for (const check of previewChecks) {
      if (check.failure !== undefined && check.failure.kind !== 'forbidden') {
        logger.warn('the API server would reject this change', {
          action: check.action.kind,
          cluster: check.action.cluster,
          status: check.status,
          error: check.failure.message,
        });
      }
    }
  }

  if (options.saveSnapshot !== undefined) {
    // The snapshot holds the kubeconfig Secrets as gathered: owner-only, like a kubeconfig.
    writeFileSync(options.saveSnapshot, snapshotToJson(report.snapshot), { mode: 0o600 });
    logger.info('snapshot saved; it contains credentials', { file: options.saveSnapshot });
  }
  printPlan(io, options, config, report.plan, report.applied ? report.results : undefined);

  if (report.gatherFailures.length > 0) {
    io.stderr(
      `error: the pass was incomplete: ${report.gatherFailures.length} read(s) failed (first: ${report.gatherFailures[0]?.scope}: ${report.gatherFailures[0]?.failure.message})${report.withheld.length > 0 ? `; ${report.withheld.length} deletion(s) withheld` : ''}\n`,
    );
    return EXIT_ERROR;
  }
  if (report.results.some((r) => r.status !== 'applied')) return EXIT_ERROR;
  if (options.detailedExitcode && report.plan.actions.length > 0) return EXIT_CHANGES;
  return EXIT_OK;
}

/** Plans from a snapshot saved by --save-snapshot: no cluster, no writes. */
function replaySnapshot(io: Io, options: CliOptions, config: Config): number {
  const file = options.fromSnapshot ?? '';
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `cannot read the snapshot ${file}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const loaded = snapshotFromJson(text);
  if (!loaded.ok) {
    throw new UsageError(`${file} is not a snapshot saved by --save-snapshot: ${loaded.error}`);
  }
  const replayed = plan(loaded.snapshot, config, Date.now());
  printPlan(io, options, config, replayed, undefined);
  return options.detailedExitcode && replayed.actions.length > 0 ? EXIT_CHANGES : EXIT_OK;
}

/** The plan on stdout, as text or JSON; `results` when the pass applied it. */
function printPlan(
  io: Io,
  options: CliOptions,
  config: Config,
  planned: Plan,
  results: readonly ActionResult[] | undefined,
): void {
  if (options.output === 'json') {
    const document = planToJson(planned);
    const outcomes = results?.map((r) => ({
      kind: r.action.kind,
      cluster: r.action.cluster,
      status: r.status,
      ...(r.failure !== undefined ? { error: r.failure.message } : {}),
    }));
    io.stdout(
      `${JSON.stringify(outcomes !== undefined ? { ...document, results: outcomes } : document, null, 2)}\n`,
    );
    return;
  }
  io.stdout(
    renderPlanText(planned, {
      color: io.stdoutIsTty && io.env['NO_COLOR'] === undefined,
      dryRun: config.dryRun,
    }),
  );
  if (results !== undefined && results.length > 0) {
    const failed = results.filter((r) => r.status !== 'applied');
    io.stdout(
      `\nApplied ${results.length - failed.length} of ${results.length} change(s).${failed.length > 0 ? ` ${failed.length} not applied; see the log.` : ''}\n`,
    );
  }
}

/** SIGTERM to exit, at most: Kubernetes' grace period is 30 s, our promise is 10. */
const SHUTDOWN_LIMIT_MS = 9500;

async function runDaemon(
  options: CliOptions,
  config: Config,
  access: KubeAccess,
  logger: Logger,
): Promise<number> {
  const metrics = new RegistrarMetrics();
  const daemon = new Daemon({ access, config, logger, metrics, leaderElect: options.leaderElect });
  const servers = await startServers({
    healthAddr: options.healthAddr,
    metricsAddr: options.metricsAddr,
    endpoints: {
      healthz: () => daemon.healthz(),
      readyz: () => daemon.readyz(),
      metrics: () => metrics.render(),
    },
    logger,
  });
  logger.info('starting', {
    version: version(),
    source: access.source,
    server: serverOf(access),
    targetNamespace: config.targetNamespace,
    selector: `${config.labelPrefix}managed-by=${config.managedBy}`,
    providers: config.providers.map((p) => p.name).join(','),
    interval: `${config.intervalMs / 1000}s`,
    dryRun: config.dryRun,
    leaderElect: options.leaderElect,
  });

  const stopped = new Promise<string>((resolve) => {
    process.once('SIGTERM', () => {
      resolve('SIGTERM');
    });
    process.once('SIGINT', () => {
      resolve('SIGINT');
    });
  });
  daemon.start();
  const signal = await stopped;
  logger.info('shutting down', { signal });
  // A second signal while draining exits at once.
  const force = (): void => {
    process.exit(EXIT_ERROR);
  };
  process.once('SIGTERM', force);
  process.once('SIGINT', force);
  // Backstop (issue 8, item 4): whatever is still in flight, exit within 10 s of the signal.
  setTimeout(force, SHUTDOWN_LIMIT_MS).unref();
  await daemon.stop();
  await servers.close();
  logger.info('stopped');
  return EXIT_OK;
}

function serverOf(access: KubeAccess): string {
  return access.kubeConfig.getCurrentCluster()?.server ?? '(unknown server)';
}

// A pass where every read failed for lack of a connection is better reported as one clear
// error than as a list of failed reads.
function unreachable(failures: readonly GatherFailure[], access: KubeAccess): void {
  const first = failures[0];
  if (first === undefined) return;
  const kinds = new Set(failures.map((f) => f.failure.kind));
  const hint =
    access.source === 'in-cluster' ? '' : '; check --kubeconfig/--context (or $KUBECONFIG)';
  if (
    kinds.size === 1 &&
    kinds.has('transient') &&
    /connection|timed out/.test(first.failure.message)
  ) {
    throw new UsageError(
      `cannot reach the API server ${serverOf(access)} (kubeconfig ${access.source}): ${first.failure.message}${hint}`,
    );
  }
  if (kinds.size === 1 && kinds.has('unauthorized')) {
    throw new UsageError(
      `the API server ${serverOf(access)} rejected the credentials of ${access.source} (401 Unauthorized)${hint}`,
    );
  }
  if (
    kinds.size === 1 &&
    kinds.has('unknown') &&
    failures.every((f) => /request failed|unexpected error/.test(f.failure.message))
  ) {
    throw new UsageError(
      `cannot talk to the API server ${serverOf(access)} (kubeconfig ${access.source}): ${first.failure.message}${hint}`,
    );
  }
}

function reportFatal(err: unknown, io: Io, logger: Logger | undefined): number {
  if (err instanceof UsageError) {
    io.stderr(`error: ${err.message}\n`);
    return EXIT_ERROR;
  }
  const message = err instanceof Error ? err.message : String(err);
  if (logger !== undefined) logger.error('fatal error', { error: message });
  else io.stderr(`error: ${message}\n`);
  if (io.env['ACR_TRACE'] !== undefined && err instanceof Error && err.stack !== undefined)
    io.stderr(`${err.stack}\n`);
  return EXIT_ERROR;
}

// Run when executed directly (bin, `node dist/main.js`, `node --import tsx src/main.ts`),
// not when imported by tests.
const invokedAs = process.argv[1];
if (invokedAs !== undefined && import.meta.url === pathToFileURL(realPath(invokedAs)).href) {
  void main({
    argv: process.argv.slice(2),
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdoutIsTty: process.stdout.isTTY,
    stderrIsTty: process.stderr.isTTY,
  }).then((code) => {
    // Flush stdout (a pipe may be slow), then exit: keep-alive sockets must not hold us up.
    process.stdout.write('', () => process.exit(code));
  });
}

function realPath(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}
