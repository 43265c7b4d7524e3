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
} from '../connection/cluster-profile-api.js';
import type { KubeAccess } from '../connection/kube-access.js';
import type { RequestGuard } from '../connection/request-guard.js';
import { OPEN_FENCE, isLeadershipLost } from '../connection/write-fence.js';
import { LEADERSHIP_LOST, statusOf, type ActionStatus } from './secret-writer.js';

export interface ProfileResult {
  readonly action: ProfileAction;
  readonly status: ActionStatus;
  readonly failure?: ApiFailure;
}

const FIELD_MANAGER = 'argocd-cluster-registrar';

export async function writeProfiles(
  access: KubeAccess,
  plan: ProfilePlan,
  options: { readonly dryRun?: boolean } = {},
): Promise<ProfileResult[]> {
  const fence = options.dryRun === true ? OPEN_FENCE : (access.writeFence ?? OPEN_FENCE);
  const dryRun = options.dryRun === true;
  const query = { fieldManager: FIELD_MANAGER, dryRun };
  const guard: RequestGuard = {
    beforeSend: () => {
      fence.check();
    },
  };
  const { apiVersion: version, namespace } = plan;
  const results: ProfileResult[] = [];
  let lost = false;
  for (const action of plan.actions) {
    if (lost || !fence.holds()) {
      lost = true;
      results.push({ action, status: 'not-attempted', failure: LEADERSHIP_LOST });
      continue;
    }
    try {
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
          if (!dryRun && rv !== undefined && uid !== undefined) {
            await patchClusterProfile(
              access,
              version,
              namespace,
              action.profile.name,
              statusPatch(action.profile, uid, rv),
              { ...query, subresource: 'status' },
              guard,
            );
          }
          break;
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
            await patchClusterProfile(
              access,
              version,
              namespace,
              target.name,
              statusPatch(action.profile, target.uid, rv),
              { ...query, subresource: 'status' },
              guard,
            );
          }
          break;
        }
        case 'status': {
          const { target } = action;
          await patchClusterProfile(
            access,
            version,
            namespace,
            target.name,
            statusPatch(action.profile, target.uid, target.resourceVersion),
            { ...query, subresource: 'status' },
            guard,
          );
          break;
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
          break;
        }
      }
      results.push({ action, status: dryRun ? 'dry-run' : 'applied' });
    } catch (err) {
      if (isLeadershipLost(err)) {
        lost = true;
        results.push({ action, status: 'not-attempted', failure: LEADERSHIP_LOST });
        continue;
      }
      const failure = classifyApiError(err);
      results.push({ action, status: dryRun ? 'dry-run' : statusOf(failure), failure });
    }
  }
  return results;
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
