// One pass: gather → plan → apply. Shared by --once and the daemon. The plan is always made
// over the whole (cached) world, so a partial refresh still yields a complete, level-based
// decision; the scope only says what to re-read. The plan is written as it is: what a failed
// read withholds is decided by the planner from the snapshot (which records what could not
// be read), so the preview and the apply never differ.

import { plan as makePlan } from '@argocd-cluster-registrar/core';
import type { Action, Config, Plan, SettledRepeat, Snapshot } from '@argocd-cluster-registrar/core';
import type {
  ActionResult,
  GatherFailure,
  Gatherer,
  KubeAccess,
  PlanWriter,
} from '@argocd-cluster-registrar/k8s-adapter';
import { sourceLogFields, type Logger } from './logging.js';
import type { RegistrarMetrics } from './metrics.js';
import { runProfilePass } from './profile-pass.js';
import type { ProfilePassReport, ProfileStage } from './profile-pass.js';

export type PassScope =
  { readonly full: true } | { readonly full: false; readonly namespaces: readonly string[] };

export interface PassReport {
  readonly scope: 'full' | 'partial';
  readonly snapshot: Snapshot;
  readonly plan: Plan;
  /** Results of the actions written (empty when nothing was applied). */
  readonly results: readonly ActionResult[];
  /** What a dry-run writer reported each action would meet; nothing was written. */
  readonly previewed: readonly ActionResult[];
  readonly gatherFailures: readonly GatherFailure[];
  /** True when the plan was written (false in dry run and on a standby). */
  readonly applied: boolean;
  readonly requests: number;
  readonly durationMs: number;
  /** The `cluster.x-k8s.io` version the gather found served (Events name Clusters by it). */
  readonly clusterApiVersion?: string;
  /** With `--cluster-profiles`: what the inventory step read, planned and wrote. */
  readonly profiles?: ProfilePassReport;
}

export interface PassOptions {
  readonly scope: PassScope;
  /** Hand the plan to the writer (false: plan only, for standbys). */
  readonly apply: boolean;
}

export interface ReconcilerDeps {
  readonly config: Config;
  /** The applier, or a dry-run writer that never writes. */
  readonly writer: PlanWriter;
  readonly gatherer: Gatherer;
  /**
   * The planner's last settled plan, owned by whoever owns the gatherer and kept as long as
   * it is: a pass over an unchanged world then repeats it (docs/behaviour.md#budgets).
   */
  readonly repeat: SettledRepeat;
  readonly logger: Logger;
  readonly metrics: RegistrarMetrics;
  /** Epoch ms; injected so the planner's notion of time is the caller's. */
  readonly now: () => number;
  /**
   * With `--cluster-profiles`: the inventory step and the access its writes go through
   * (fenced like the writer's); owned, like the gatherer, by whoever runs the passes.
   */
  readonly profiles?: { readonly stage: ProfileStage; readonly access: KubeAccess };
}

export async function runPass(deps: ReconcilerDeps, options: PassOptions): Promise<PassReport> {
  const started = performance.now();
  const gathered = options.scope.full ? await deps.gatherer.full() : await deps.gatherer.refresh();
  for (const failure of gathered.failures) {
    deps.metrics.apiErrors.inc({ kind: failure.failure.kind });
    deps.logger.warn('gather failed', {
      scope: failure.scope,
      kind: failure.failure.kind,
      error: failure.failure.message,
    });
  }
  for (const notice of gathered.notices ?? []) deps.logger.warn(notice);
  for (const news of gathered.news ?? []) deps.logger.info(news);

  const plan = makePlan(gathered.snapshot, deps.config, deps.now(), {
    translate: deps.gatherer.translate,
    repeat: deps.repeat,
  });

  let written: readonly ActionResult[] = [];
  if (options.apply && plan.actions.length > 0)
    written = await deps.writer.write(plan, gathered.snapshot.clusterSecrets);
  // A dry-run result is not a write: it is reported, never counted.
  const results = written.filter((r) => r.status !== 'dry-run');
  const previewed = written.filter((r) => r.status === 'dry-run');
  for (const result of written) logResult(deps.logger, result, deps.config.targetNamespace);
  for (const result of results) {
    deps.metrics.actions.inc({ kind: result.action.kind, status: result.status });
    if (result.failure !== undefined) deps.metrics.apiErrors.inc({ kind: result.failure.kind });
  }
  const applied = options.apply && deps.writer.persists;
  // The profiles follow the registrations as written: a pass that wrote registrations plans
  // only the profiles' deletions (their proof is this plan's) and leaves publishing to the
  // next pass (the daemon's own writes bring it; a one-shot run's next round), which reads
  // the registrations back: a cold start does not hold both sets of writes in one pass.
  const wroteRegistrations = results.some((r) => r.status === 'applied');
  const profiles =
    deps.profiles === undefined
      ? undefined
      : await runProfilePass(deps.profiles.stage, {
          snapshot: gathered.snapshot,
          plan,
          config: deps.config,
          now: deps.now(),
          writeWith: applied ? deps.profiles.access : undefined,
          logger: deps.logger,
          metrics: deps.metrics,
          deletionsOnly: wroteRegistrations,
        });

  const durationMs = performance.now() - started;
  deps.metrics.passDuration.observe(durationMs / 1000);
  deps.metrics.recordOutcomes(plan.outcomes);
  const writeFailures = results.filter((r) => r.failure !== undefined);
  const failed = gathered.failures.length > 0 || writeFailures.length > 0;
  deps.metrics.passes.inc({
    scope: options.scope.full ? 'full' : 'partial',
    result: failed ? 'error' : 'ok',
  });
  deps.metrics.lastPass.set({}, Date.now() / 1000);
  if (!failed) deps.metrics.lastSuccessfulPass.set({}, Date.now() / 1000);
  deps.logger.debug('pass complete', {
    scope: options.scope.full ? 'full' : `partial(${options.scope.namespaces.length})`,
    namespaces: gathered.snapshot.namespaces.length,
    actions: plan.actions.length,
    applied: results.filter((r) => r.status === 'applied').length,
    failures: gathered.failures.length + writeFailures.length,
    requests: gathered.requests,
    ms: Math.round(durationMs),
  });
  return {
    scope: options.scope.full ? 'full' : 'partial',
    snapshot: gathered.snapshot,
    plan,
    results,
    previewed,
    gatherFailures: gathered.failures,
    applied,
    requests: gathered.requests,
    durationMs,
    ...(gathered.clusterApiVersion === undefined
      ? {}
      : { clusterApiVersion: gathered.clusterApiVersion }),
    ...(profiles === undefined ? {} : { profiles }),
  };
}

/** True when the pass failed in a way worth retrying sooner than the next interval. */
export function passNeedsRetry(report: PassReport): boolean {
  const profiles = report.profiles;
  return (
    report.gatherFailures.length > 0 ||
    report.results.some((r) => r.status !== 'applied' && r.status !== 'dry-run') ||
    profiles?.state === 'unknown' ||
    (profiles?.state === 'planned' && profiles.results.some((r) => r.status !== 'applied'))
  );
}

function logResult(logger: Logger, result: ActionResult, targetNamespace: string): void {
  const action = result.action;
  const secret = `${targetNamespace}/cluster-${action.cluster}`;
  const fields = {
    action: action.kind,
    cluster: action.cluster,
    secret,
    reason: action.reason.code,
    ...sourceLogFields(action.reason.namespace),
  };
  if (result.status === 'applied') {
    logger.info(`${pastTense(action.kind)} registration`, fields);
  } else if (result.status === 'dry-run') {
    // A preview cannot be forbidden from failing: only a rejection worth fixing is logged.
    if (result.failure !== undefined && result.failure.kind !== 'forbidden') {
      logger.warn('the API server would reject this change', {
        action: action.kind,
        cluster: action.cluster,
        status: result.status,
        error: result.failure.message,
      });
    }
  } else {
    logger.warn(`${action.kind} not applied`, {
      ...fields,
      status: result.status,
      error: result.failure?.message,
    });
  }
}

function pastTense(kind: Action['kind']): string {
  switch (kind) {
    case 'create':
      return 'created';
    case 'update':
      return 'updated';
    case 'demote':
      return 'demoted';
    case 'delete':
      return 'deleted';
  }
}
