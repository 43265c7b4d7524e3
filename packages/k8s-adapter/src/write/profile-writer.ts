// The writer of ClusterProfiles: each action of a profile plan sent as the plan says, behind
// the same write fence as registrations, and its outcome reported as data. A create never
// overwrites; every patch carries the observed uid and resourceVersion (so a profile changed
// or replaced since it was read is a conflict, re-planned next pass, never forced) and only
// our label keys and the spec's display name, so others' labels and annotations survive; the
// status goes through its subresource; a delete carries uid and resourceVersion preconditions.
// A dry run asks the API server's own dry run and stores nothing.

import type { DesiredProfile, ProfileAction, ProfilePlan } from '@argocd-cluster-registrar/core';
import { classifyApiError } from '../connection/api-failure.js';
import type { ApiFailure } from '../connection/api-failure.js';
import {
  INVENTORY_GROUP,
  createClusterProfile,
  deleteClusterProfile,
  patchClusterProfile,
  patchClusterProfileStatus,
} from '../connection/cluster-profile-api.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { mapBounded } from '../concurrency.js';
import type { RequestGuard } from '../connection/request-guard.js';
import { OPEN_FENCE, isLeadershipLost } from '../connection/write-fence.js';
import type { WriteFence } from '../connection/write-fence.js';
import { LEADERSHIP_LOST, statusOf, type ActionStatus } from './secret-writer.js';

export interface ProfileResult {
  readonly action: ProfileAction;
  readonly status: ActionStatus;
  readonly failure?: ApiFailure;
  /** The uid of the profile written (an Event names it by uid); none in a dry run. */
  readonly uid?: string;
}

const FIELD_MANAGER = 'argocd-cluster-registrar';
/** Profile writes in flight at once, as for registrations. */
const WRITE_CONCURRENCY = 8;

export async function writeProfiles(
  access: KubeAccess,
  plan: ProfilePlan,
  options: { readonly dryRun?: boolean } = {},
): Promise<ProfileResult[]> {
  const fence = options.dryRun === true ? OPEN_FENCE : (access.writeFence ?? OPEN_FENCE);
  const dryRun = options.dryRun === true;
  const context: WriteContext = {
    access,
    version: plan.apiVersion,
    namespace: plan.namespace,
    dryRun,
    query: { fieldManager: FIELD_MANAGER, dryRun },
    guard: fenceGuard(fence),
  };
  // Concurrent as registration writes are (write/apply.ts); the actions on one profile name
  // (a delete, then the create that reuses the name) keep their plan order.
  const chains = new Map<string, number[]>();
  plan.actions.forEach((action, index) => {
    const chain = chains.get(action.cluster);
    if (chain === undefined) chains.set(action.cluster, [index]);
    else chain.push(index);
  });
  const results = new Array<ProfileResult>(plan.actions.length);
  let lost = false;
  await mapBounded([...chains.values()], WRITE_CONCURRENCY, async (chain) => {
    for (const index of chain) {
      const action = plan.actions[index] as ProfileAction;
      if (lost || !fence.holds()) {
        lost = true;
        results[index] = { action, status: 'not-attempted', failure: LEADERSHIP_LOST };
        continue;
      }
      try {
        const uid = await writeOne(context, action);
        results[index] = {
          action,
          status: dryRun ? 'dry-run' : 'applied',
          ...(uid === undefined ? {} : { uid }),
        };
      } catch (err) {
        if (isLeadershipLost(err)) {
          lost = true;
          results[index] = { action, status: 'not-attempted', failure: LEADERSHIP_LOST };
          continue;
        }
        const failure = classifyApiError(err);
        results[index] = { action, status: dryRun ? 'dry-run' : statusOf(failure), failure };
      }
    }
  });
  return results;
}

/**
 * Made outside writeProfiles, so its closure holds the fence alone: a closure made in there
 * would hold that call's scope, the whole plan with it, and a kept-alive socket keeps its
 * last request's guard (20 MB after publishing 10,000 profiles, until the socket is reused).
 */
function fenceGuard(fence: WriteFence): RequestGuard {
  return {
    beforeSend: () => {
      fence.check();
    },
  };
}

interface WriteContext {
  readonly access: KubeAccess;
  readonly version: string;
  readonly namespace: string;
  readonly dryRun: boolean;
  readonly query: { readonly fieldManager: string; readonly dryRun: boolean };
  readonly guard: RequestGuard;
}

/** Sends one action; returns the uid of the profile it wrote (undefined in a dry run). */
async function writeOne(context: WriteContext, action: ProfileAction): Promise<string | undefined> {
  const { access, version, namespace, dryRun, query, guard } = context;
  switch (action.kind) {
    case 'create': {
      const created = await createClusterProfile(
        access,
        version,
        namespace,
        {
          apiVersion: `${INVENTORY_GROUP}/${version}`,
          kind: 'ClusterProfile',
          metadata: { name: action.profile.name, namespace, labels: action.profile.labels },
          spec: action.profile.spec,
        },
        query,
        guard,
      );
      // A create does not write the status: the subresource does, once the object exists.
      const rv = created.metadata?.resourceVersion;
      const uid = created.metadata?.uid;
      if (dryRun || rv === undefined || uid === undefined) return undefined;
      await patchClusterProfileStatus(
        access,
        version,
        namespace,
        action.profile.name,
        statusPatch(action.profile, uid, rv),
        query,
        guard,
      );
      return uid;
    }
    case 'update': {
      const { target } = action;
      const labels: Record<string, string | null> = { ...action.profile.labels };
      for (const key of action.removeLabels) labels[key] = null;
      const patched = await patchClusterProfile(
        access,
        version,
        namespace,
        target.name,
        {
          metadata: { uid: target.uid, resourceVersion: target.resourceVersion, labels },
          spec: { displayName: action.profile.spec.displayName },
        },
        query,
        guard,
      );
      const rv = patched.metadata?.resourceVersion;
      if (!dryRun && action.changed.includes('status') && rv !== undefined) {
        await patchClusterProfileStatus(
          access,
          version,
          namespace,
          target.name,
          statusPatch(action.profile, target.uid, rv),
          query,
          guard,
        );
      }
      return dryRun ? undefined : target.uid;
    }
    case 'status': {
      const { target } = action;
      await patchClusterProfileStatus(
        access,
        version,
        namespace,
        target.name,
        statusPatch(action.profile, target.uid, target.resourceVersion),
        query,
        guard,
      );
      return dryRun ? undefined : target.uid;
    }
    case 'delete': {
      const { target } = action;
      await deleteClusterProfile(
        access,
        version,
        namespace,
        target.name,
        { uid: target.uid, resourceVersion: target.resourceVersion },
        query,
        guard,
      );
      return dryRun ? undefined : target.uid;
    }
  }
}

/**
 * The whole status as planned: a merge patch replaces each list it names, and a field we no
 * longer publish is set to null (a merge patch keeps what it does not name). The planner
 * carried others' conditions over, so they are written back as read.
 */
function statusPatch(profile: DesiredProfile, uid: string, resourceVersion: string): unknown {
  const { status } = profile;
  return {
    metadata: { uid, resourceVersion },
    status: {
      conditions: status.conditions ?? [],
      version: status.version ?? null,
      properties: status.properties ?? null,
      accessProviders: status.accessProviders ?? null,
    },
  };
}
