// `status`: what is registered, what is not, and why, for every managed namespace. Read-only:
// one gather and one plan, exactly as a pass makes them, then the plan's outcomes and the
// snapshot rendered as rows (with `--cluster-profiles`, each row's ClusterProfile too); nothing is
// written, no lease is taken, no Event is recorded.
// Exit 0 when every managed namespace shown is served, 2 when one is refused or stale, 1 on
// an error (including an incomplete read: the rows could be wrong).

import {
  planProfiles,
  plan as makePlan,
  STATUS_STATES,
  renderStatusText,
  statusFailing,
  statusRowSource,
  statusRows,
  statusToJson,
  withProfiles,
} from '@argocd-cluster-registrar/core';
import type { Config, Plan, Snapshot, StatusRow } from '@argocd-cluster-registrar/core';
import {
  createGatherer,
  createProfileReader,
  managedNamespaceSelector,
} from '@argocd-cluster-registrar/k8s-adapter';
import type { KubeAccess } from '@argocd-cluster-registrar/k8s-adapter';
import { refuseUnreachable, serverOf } from '../connect.js';
import { leftBehind, leftBehindText } from '../left-behind.js';
import { targetPrefix, type RunTarget } from '../targets.js';
import { EXIT_CHANGES, EXIT_ERROR, EXIT_OK, UsageError } from '../exit-codes.js';
import type { CliOptions } from '../flags.js';
import { colorFor } from '../io.js';
import { didYouMean, managedByValues } from '../managed-by-hint.js';
import type { Io } from '../io.js';
import type { Logger } from '../logging.js';

export async function runStatus(
  io: Io,
  options: CliOptions,
  targets: readonly RunTarget[],
  access: KubeAccess,
  logger: Logger,
  now: () => number = Date.now,
): Promise<number> {
  const states: readonly string[] = STATUS_STATES;
  const unknown = options.statusStates.filter((state) => !states.includes(state));
  if (unknown.length > 0) {
    throw new UsageError(
      `--state ${unknown.map((s) => JSON.stringify(s)).join(', ')}: not a status state; expected one of ${STATUS_STATES.join(', ')}`,
    );
  }
  const [only] = targets;
  if (targets.length === 1 && only !== undefined && only.name === undefined)
    return targetStatus(io, options, only, access, logger, now);
  // Several targets: a section each; one that cannot be read is reported by name, and the
  // others are shown all the same.
  let code = EXIT_OK;
  const sections: string[] = [];
  const documents: unknown[] = [];
  for (const target of targets) {
    let out = '';
    const said: string[] = [];
    const captured: Io = {
      ...io,
      stdout: (text) => {
        out += text;
      },
      stderr: (text) => said.push(text.replace(/^error: /, '').trim()),
    };
    let targetCode: number;
    try {
      targetCode = await targetStatus(captured, options, target, access, logger, now);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      said.push(err.message);
      targetCode = EXIT_ERROR;
    }
    for (const line of said) io.stderr(`error: ${targetPrefix(target)}${line}\n`);
    code =
      targetCode === EXIT_ERROR || code === EXIT_ERROR ? EXIT_ERROR : Math.max(code, targetCode);
    const where = `namespace ${target.config.targetNamespace}${target.remote ? ` of ${serverOf(target.access)}` : ''}`;
    if (options.output === 'json') {
      documents.push({
        target: target.name,
        ...(target.remote ? { server: serverOf(target.access) } : {}),
        ...(out === '' ? {} : (JSON.parse(out) as object)),
        ...(said.length === 0 ? {} : { error: said.join('; ') }),
      });
    } else {
      const body = out === '' ? `error: ${said.join('; ')}\n` : out;
      sections.push(`Target ${JSON.stringify(target.name ?? '')} (${where}):\n${body}`);
    }
  }
  const behind = await leftBehind(access, targets);
  if (options.output === 'json') {
    io.stdout(
      `${JSON.stringify({ targets: documents, ...(behind.length === 0 ? {} : { leftBehind: behind }) }, null, 2)}\n`,
    );
  } else {
    io.stdout(sections.join('\n') + leftBehindText(behind, targets[0]?.config));
  }
  return code;
}

async function targetStatus(
  io: Io,
  options: CliOptions,
  target: RunTarget,
  access: KubeAccess,
  logger: Logger,
  now: () => number,
): Promise<number> {
  const { config } = target;
  const gatherer = createGatherer(access, config, target.access);
  const gathered = await gatherer.full();
  refuseUnreachable(gathered.failures, target.remote ? target.access : access);
  const at = now();
  // The gatherer's translator, as a pass uses: refusals name the real `<prefix>server`.
  const planned = makePlan(gathered.snapshot, config, at, { translate: gatherer.translate });
  const planRows = statusRows(planned, gathered.snapshot, config);
  const all = config.clusterProfiles
    ? await withProfileRows(planRows, access, config, planned, gathered.snapshot, at, logger)
    : planRows;
  const rows = all.filter((row) => shown(row, options));
  // A filter that matches nothing says so, and why: a namespace that is not managed is not
  // "all well", and nothing managed at all usually means a mistyped --managed-by.
  const unmatched = options.statusNamespaces.filter((name) => !all.some((row) => names(row, name)));
  if (unmatched.length > 0) {
    io.stderr(
      `error: --namespace ${unmatched.join(', ')}: no managed namespace or registration of that name (managed namespaces carry the label ${managedNamespaceSelector(config)})\n`,
    );
    return EXIT_ERROR;
  }
  if (all.length === 0 && options.output !== 'json') {
    io.stdout(await nothingManaged(access, config, target.remote ? target.access : access));
    return EXIT_OK;
  }

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

/**
 * Each row's ClusterProfile, planned from the same plan as a pass plans it. Profiles that
 * cannot be read leave the rows as they are, and say why (registrations are unaffected).
 */
async function withProfileRows(
  rows: readonly StatusRow[],
  access: KubeAccess,
  config: Config,
  planned: Plan,
  snapshot: Snapshot,
  at: number,
  logger: Logger,
): Promise<readonly StatusRow[]> {
  const reader = createProfileReader(access, {
    namespace: config.clusterProfileNamespace,
    mode: 'list',
    rediscoverMs: config.intervalMs,
  });
  const read = await reader.read(at);
  if (read.state !== 'read') {
    logger.warn(`ClusterProfiles are not shown: ${read.why}`, {
      namespace: config.clusterProfileNamespace,
    });
    return rows;
  }
  const profilePlan = planProfiles({
    snapshot,
    plan: planned,
    profiles: read.snapshot,
    settings: { namespace: config.clusterProfileNamespace, manager: config.clusterManager },
    config,
    now: at,
  });
  return withProfiles(rows, profilePlan, read.snapshot);
}

function shown(row: StatusRow, options: CliOptions): boolean {
  if (
    options.statusNamespaces.length > 0 &&
    !options.statusNamespaces.some((name) => names(row, name))
  )
    return false;
  return options.statusStates.length === 0 || options.statusStates.includes(row.state);
}

/** `--namespace fleet` shows every source in fleet; `--namespace fleet/alpha` one Cluster. */
function names(row: StatusRow, name: string): boolean {
  return row.namespace === name || statusRowSource(row) === name;
}

/** What an empty status says: the selector it used, and the values other namespaces carry. */
async function nothingManaged(
  access: KubeAccess,
  config: Config,
  targetAccess: KubeAccess,
): Promise<string> {
  const where = targetAccess === access ? '' : ` of ${serverOf(targetAccess)}`;
  const head = `No namespace is labelled ${managedNamespaceSelector(config)}, and no registration in ${config.targetNamespace}${where} carries that label.`;
  const values = await managedByValues(access, config);
  const { key, others, near } = values;
  if (others.length === 0) return `${head}\n`;
  if (near !== undefined) return `${head}\n${capitalised(didYouMean(values, near))}\n`;
  const shown = others.slice(0, 5).map((value) => JSON.stringify(value));
  return `${head}\nNamespaces carry ${key} with ${others.length === 1 ? 'the value' : 'the values'} ${shown.join(', ')}${others.length > shown.length ? ', …' : ''}.\n`;
}

const capitalised = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
