// `status`: what is registered, what is not, and why, for every managed namespace. Read-only:
// one gather and one plan, exactly as a pass makes them, then the plan's outcomes and the
// snapshot rendered as rows; nothing is written, no lease is taken, no Event is recorded.
// Exit 0 when every managed namespace shown is served, 2 when one is refused or stale, 1 on
// an error (including an incomplete read: the rows could be wrong).

import {
  plan as makePlan,
  renderStatusText,
  statusFailing,
  statusRows,
  statusToJson,
} from '@argocd-cluster-registrar/core';
import type { Config, StatusRow, StatusState } from '@argocd-cluster-registrar/core';
import { createGatherer } from '@argocd-cluster-registrar/k8s-adapter';
import type { KubeAccess } from '@argocd-cluster-registrar/k8s-adapter';
import { refuseUnreachable } from '../connect.js';
import { EXIT_CHANGES, EXIT_ERROR, EXIT_OK, UsageError } from '../exit-codes.js';
import type { CliOptions } from '../flags.js';
import { colorFor } from '../io.js';
import type { Io } from '../io.js';
import type { Logger } from '../logging.js';

// A Record, so a new state fails to compile until --state accepts it.
const STATES: Readonly<Record<StatusState, true>> = {
  registered: true,
  unchanged: true,
  waiting: true,
  refused: true,
  stale: true,
  skipped: true,
  drained: true,
  demoted: true,
  'source-gone': true,
  pinned: true,
  foreign: true,
};

export async function runStatus(
  io: Io,
  options: CliOptions,
  config: Config,
  access: KubeAccess,
  logger: Logger,
  now: () => number = Date.now,
): Promise<number> {
  const unknown = options.statusStates.filter((state) => !Object.hasOwn(STATES, state));
  if (unknown.length > 0) {
    throw new UsageError(
      `--state ${unknown.map((s) => JSON.stringify(s)).join(', ')}: not a status state; expected one of ${Object.keys(STATES).join(', ')}`,
    );
  }
  const gathered = await createGatherer(access, config).full();
  refuseUnreachable(gathered.failures, access);
  const at = now();
  const planned = makePlan(gathered.snapshot, config, at);
  const rows = statusRows(planned, gathered.snapshot, config).filter((row) => shown(row, options));

  if (options.output === 'json') {
    io.stdout(`${JSON.stringify(statusToJson(rows, config.targetNamespace, at), null, 2)}\n`);
  } else {
    io.stdout(renderStatusText(rows, { now: at, color: colorFor(io, io.stdoutIsTty) }));
  }
  for (const notice of gathered.notices ?? []) logger.warn(notice);
  if (gathered.failures.length > 0) {
    for (const failure of gathered.failures)
      logger.warn('gather failed', { scope: failure.scope, error: failure.failure.message });
    io.stderr(
      `error: ${gathered.failures.length} read(s) failed, so the status may be incomplete (first: ${gathered.failures[0]?.scope ?? ''}: ${gathered.failures[0]?.failure.message ?? ''})\n`,
    );
    return EXIT_ERROR;
  }
  return statusFailing(rows) ? EXIT_CHANGES : EXIT_OK;
}

function shown(row: StatusRow, options: CliOptions): boolean {
  if (
    options.statusNamespaces.length > 0 &&
    !options.statusNamespaces.includes(row.namespace ?? '')
  )
    return false;
  return options.statusStates.length === 0 || options.statusStates.includes(row.state);
}
