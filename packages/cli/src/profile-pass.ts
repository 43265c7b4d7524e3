// The cluster inventory's step of a pass (`--cluster-profiles`): after the registrations are
// planned (and written), the ClusterProfiles are read, planned from that plan and written
// behind the same fence. A missing CRD is said once and changes nothing else; a failed read
// plans nothing (no deletion rests on missing data). A dry run writes no profile. What is
// news of the inventory (notices, Events) is reported with a pass's outcomes
// (profile-events.ts).

import { planProfiles } from '@argocd-cluster-registrar/core';
import type { Config, Plan, ProfilePlan, Snapshot } from '@argocd-cluster-registrar/core';
import { writeProfiles } from '@argocd-cluster-registrar/k8s-adapter';
import type {
  KubeAccess,
  ProfileReader,
  ProfileResult,
} from '@argocd-cluster-registrar/k8s-adapter';
import type { Logger } from './logging.js';
import type { RegistrarMetrics } from './metrics.js';

export interface ProfileStage {
  readonly reader: ProfileReader;
  /**
   * Profile writes a pass sends at most (the daemon's; its next pass follows at once while
   * some are left): publishing 10,000 holds a batch in memory, not all. A preview and a
   * one-shot run plan them all.
   */
  readonly maxWrites?: number;
  /** What a said-once notice was last about, so a steady absence is not logged every pass. */
  said?: string | undefined;
  /** The last profile plan that had nothing to write, and what it was made from. */
  settled?: Settled | undefined;
}

interface Settled {
  readonly plan: Plan;
  readonly changes: number;
  readonly unread: string | undefined;
  readonly profilePlan: ProfilePlan;
}

export type ProfilePassReport =
  | {
      readonly state: 'planned';
      readonly plan: ProfilePlan;
      /** Written results (empty in a dry run or on a standby). */
      readonly results: readonly ProfileResult[];
    }
  | { readonly state: 'absent' | 'unknown'; readonly why: string };

export async function runProfilePass(
  stage: ProfileStage,
  input: {
    readonly snapshot: Snapshot;
    readonly plan: Plan;
    readonly config: Config;
    readonly now: number;
    /** The access writes go through (fenced), or undefined when nothing may be written. */
    readonly writeWith: KubeAccess | undefined;
    readonly logger: Logger;
    readonly metrics: RegistrarMetrics;
    /** The pass wrote registrations: plan only deletions (reconciler.ts). */
    readonly deletionsOnly?: boolean;
  },
): Promise<ProfilePassReport> {
  const { config, logger } = input;
  const read = await stage.reader.read(input.now);
  if (read.state !== 'read') {
    const message =
      read.state === 'absent'
        ? `ClusterProfiles are not written: ${read.why}; registrations are unaffected (install the ClusterProfile CRD or turn --cluster-profiles off)`
        : `ClusterProfiles are not planned this pass: ${read.why}`;
    if (stage.said !== message) logger.warn(message, { namespace: config.clusterProfileNamespace });
    stage.said = message;
    return { state: read.state, why: read.why };
  }
  if (stage.said !== undefined) {
    logger.info('ClusterProfiles are read again', { namespace: config.clusterProfileNamespace });
    stage.said = undefined;
  }
  // A settled pass repeats its plan (core's settled repeat hands out the same Plan object) and
  // the profiles did not change since a profile plan that had nothing to write: that one
  // holds as it is. The profile planner reads nothing else that changes (its clock only dates
  // a condition that changes, and conditions come from the snapshot the plan was made from).
  // Without it a steady daemon would plan every profile again each pass (0.4 s at 10,000).
  const changes = stage.reader.changes();
  const unread = read.snapshot.unread;
  const settled = stage.settled;
  const plan =
    settled !== undefined &&
    input.deletionsOnly !== true &&
    settled.plan === input.plan &&
    settled.changes === changes &&
    settled.unread === unread
      ? settled.profilePlan
      : planProfiles({
          snapshot: input.snapshot,
          plan: input.plan,
          profiles: read.snapshot,
          settings: { namespace: config.clusterProfileNamespace, manager: config.clusterManager },
          config,
          now: input.now,
          ...(input.deletionsOnly === true ? { deletionsOnly: true } : {}),
          ...(input.writeWith === undefined || stage.maxWrites === undefined
            ? {}
            : { maxWrites: stage.maxWrites }),
        });
  stage.settled =
    plan.actions.length === 0 && plan.deferred === 0 && input.deletionsOnly !== true
      ? { plan: input.plan, changes, unread, profilePlan: plan }
      : undefined;
  const results =
    input.writeWith === undefined || plan.actions.length === 0
      ? []
      : await writeProfiles(input.writeWith, plan);
  const report: ProfilePassReport = { state: 'planned', plan, results };
  input.metrics.profiles.set({}, publishedAfter(report));
  for (const result of results) {
    const { action } = result;
    input.metrics.profileActions.inc({ kind: action.kind, status: result.status });
    const fields = {
      action: action.kind,
      cluster: action.cluster,
      profile: `${plan.namespace}/${action.cluster}`,
      ...(action.kind === 'delete' ? { reason: action.reason.code } : { source: action.source }),
    };
    if (result.status === 'applied')
      logger.info(`${pastTense(action.kind)} cluster profile`, fields);
    else
      logger.warn(`cluster profile ${action.kind} not applied`, {
        ...fields,
        status: result.status,
        error: result.failure?.message,
      });
  }
  return report;
}

/** Profiles of ours for registered sources once the pass's writes are done: as read, and created. */
export function publishedAfter(report: Extract<ProfilePassReport, { state: 'planned' }>): number {
  const created = report.results.filter(
    (r) => r.action.kind === 'create' && r.status === 'applied',
  ).length;
  return report.plan.published + created;
}

function pastTense(kind: ProfilePlan['actions'][number]['kind']): string {
  switch (kind) {
    case 'create':
      return 'created';
    case 'update':
      return 'updated';
    case 'status':
      return 'updated the status of';
    case 'delete':
      return 'deleted';
  }
}
