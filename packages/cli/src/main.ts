#!/usr/bin/env node
// Entry point: flags → config → the command (status, replay, once or daemon). One top-level
// catch maps every failure to an exit code and a message that says what to do.

import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import {
  execCredentialsWarning,
  execPolicyWarning,
  parseConfig,
  targetSelectorWarning,
} from '@argocd-cluster-registrar/core';
import { targetNamespaceState } from '@argocd-cluster-registrar/k8s-adapter';
import { runDaemon } from './commands/daemon.js';
import { runOnce } from './commands/once.js';
import { replaySnapshot } from './commands/replay.js';
import { runStatus } from './commands/status.js';
import { connect, serverOf } from './connect.js';
import { EXIT_ERROR, EXIT_OK, UsageError } from './exit-codes.js';
import { parseFlags } from './flags.js';
import type { CliOptions } from './flags.js';
import { renderHelp } from './help.js';
import { colorFor, version } from './io.js';
import type { Io } from './io.js';
import { createLogger, resolveLogFormat } from './logging.js';
import type { Logger } from './logging.js';
import { managedByWarning } from './managed-by-hint.js';
import { ListenError } from './server.js';
import type { ServerRole } from './server.js';
import { describeSource, flagForSetting } from './settings.js';
import { hostIdentity, loadTargets } from './targets.js';

export { EXIT_CHANGES, EXIT_ERROR, EXIT_OK, UsageError } from './exit-codes.js';
export { version } from './io.js';
export type { Io } from './io.js';

const HELP_HINT = 'Run with --help for the accepted flags.\n';

/** Runs the command; resolves to the exit code. Never throws. */
export async function main(io: Io): Promise<number> {
  let logger: Logger | undefined;
  let options: CliOptions | undefined;
  try {
    const parsed = parseFlags(io.argv, io.env);
    if (!parsed.ok) {
      for (const error of parsed.errors) io.stderr(`error: ${error.message}\n`);
      io.stderr(HELP_HINT);
      return EXIT_ERROR;
    }
    options = parsed.options;
    if (options.help) {
      io.stdout(renderHelp(version()));
      return EXIT_OK;
    }
    if (options.version) {
      io.stdout(`argocd-cluster-registrar ${version()}\n`);
      return EXIT_OK;
    }

    const given = options;
    const via = (setting: string): string => {
      const flag = flagForSetting(setting);
      const source = given.sources[flag];
      return describeSource(flag, source === 'default' ? undefined : source);
    };
    const configured = parseConfig(options.config, { nameOf: via });
    if (!configured.ok) {
      for (const error of configured.errors)
        io.stderr(
          `error: ${via(error.setting)} ${JSON.stringify(error.value)}: ${error.message}\n`,
        );
      io.stderr(HELP_HINT);
      return EXIT_ERROR;
    }
    const config = configured.config;
    logger = createLogger({
      format: resolveLogFormat(options.logFormat, io.env),
      level: options.debug ? 'debug' : 'info',
      write: io.stderr,
      color: colorFor(io, io.stderrIsTty),
    });
    // One exec gate without the other still refuses exec kubeconfigs: rarely what was meant.
    const execWarning = execCredentialsWarning(config);
    if (execWarning !== undefined) logger.warn(execWarning);
    const policyWarning = execPolicyWarning(config);
    if (policyWarning !== undefined) logger.warn(policyWarning);
    if (options.fromSnapshot !== undefined)
      return replaySnapshot(
        io,
        options,
        options.hostId === undefined ? config : { ...config, hostId: options.hostId },
      );

    const access = connect(options);
    logger.debug('using kubeconfig', { source: access.source, server: serverOf(access) });
    // Read before anything else may fail on it: a bad targets file is the operator's to fix.
    const unchecked = loadTargets(options, config, access);
    for (const target of unchecked) {
      const selectorWarning = targetSelectorWarning(target.config);
      if (selectorWarning !== undefined) logger.warn(selectorWarning);
    }
    for (const target of unchecked) {
      // A target elsewhere may be unreachable now: that is a fault to report, not a start-up error.
      if (target.remote) continue;
      const namespace = target.config.targetNamespace;
      if ((await targetNamespaceState(access, namespace)) !== 'missing') continue;
      const flag =
        target.name === undefined
          ? `${via('targetNamespace')} ${JSON.stringify(namespace)}`
          : `--targets-file ${JSON.stringify(options.targetsFile)}: target ${JSON.stringify(target.name)}`;
      const fix =
        target.name === undefined
          ? `point ${via('targetNamespace')} at the namespace ArgoCD runs in`
          : 'point its namespace at the namespace ArgoCD runs in';
      io.stderr(
        `error: ${flag}: namespace ${namespace} does not exist on ${serverOf(access)}; ${fix}, or create it (kubectl create namespace ${namespace})\n`,
      );
      return EXIT_ERROR;
    }
    // Every registration records this host; ownership needs both managed-by and host.
    const hostId = await hostIdentity(options, access);
    logger.debug('host identity', { hostId });
    const targets = unchecked.map((target) => ({
      ...target,
      config: { ...target.config, hostId },
    }));
    const hosted = { ...config, hostId };
    if (options.command === 'status') return await runStatus(io, options, targets, access, logger);
    const typo = await managedByWarning(access, hosted, via('managedBy'));
    if (typo !== undefined) logger.warn(typo);
    return options.once
      ? await runOnce(io, options, targets, access, logger)
      : await runDaemon(options, hosted, targets, access, logger);
  } catch (err) {
    return reportFatal(err, io, logger, options);
  }
}

function reportFatal(
  err: unknown,
  io: Io,
  logger: Logger | undefined,
  options: CliOptions | undefined,
): number {
  if (err instanceof UsageError) {
    io.stderr(`error: ${err.message}\n`);
    return EXIT_ERROR;
  }
  if (err instanceof ListenError) {
    io.stderr(`error: ${listenMessage(err, options)}\n`);
    return EXIT_ERROR;
  }
  const message = err instanceof Error ? err.message : String(err);
  if (logger !== undefined) logger.error('fatal error', { error: message });
  else io.stderr(`error: ${message}\n`);
  if (options?.trace === true && err instanceof Error && err.stack !== undefined)
    io.stderr(`${err.stack}\n`);
  return EXIT_ERROR;
}

const ROLE_FLAG: Readonly<Record<ServerRole, string>> = {
  health: 'health-addr',
  metrics: 'metrics-addr',
};

// Names the setting that chose the address, in the form it was given (flag or variable).
function listenMessage(err: ListenError, options: CliOptions | undefined): string {
  const names = err.roles.map((role) => {
    const flag = ROLE_FLAG[role];
    const source = options?.sources[flag];
    return describeSource(flag, source === 'env' ? 'env' : 'flag');
  });
  const fix =
    err.code === 'EADDRINUSE'
      ? `another process listens there: pick a free address with ${names.join(' and ')}, or '' to disable`
      : `pick another address with ${names.join(' and ')}`;
  return `${names.join(' and ')} ${JSON.stringify(err.address)}: ${err.message}; ${fix}`;
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
