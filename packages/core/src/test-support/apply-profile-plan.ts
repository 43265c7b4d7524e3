// A pure model of the profile writer, for tests: the next list of profiles once a profile
// plan's actions are applied with the writer's preconditions (create fails if the name exists;
// patches and deletes only while uid and resourceVersion still match). A patch sets our labels
// and removes the keys it names, keeping every other label and annotation.

import type {
  ObservedProfile,
  ObservedProfileStatus,
  ProfilePlan,
  ProfileSnapshot,
  ProfileStatus,
} from '../common/types.js';
import { profileStatusText } from '../plan/profiles.js';

export function applyProfilePlan(before: ProfileSnapshot, result: ProfilePlan): ProfileSnapshot {
  const byName = new Map(before.profiles.map((p) => [p.name, p]));
  // As the reader keeps a served status: the conditions, and the rest by its digest.
  const digest = before.digest ?? ((text: string) => text);
  const served = (status: ProfileStatus): ObservedProfileStatus => ({
    ...(status.conditions === undefined ? {} : { conditions: status.conditions }),
    digest: digest(profileStatusText(status)),
  });
  for (const action of result.actions) {
    const current = byName.get(action.cluster);
    if (action.kind === 'create') {
      if (current !== undefined) continue;
      byName.set(action.cluster, {
        ...action.profile,
        status: served(action.profile.status),
        uid: `uid-profile-${action.cluster}`,
        resourceVersion: '1',
        annotations: {},
      });
      continue;
    }
    if (
      current === undefined ||
      current.uid !== action.target.uid ||
      current.resourceVersion !== action.target.resourceVersion
    )
      continue;
    const next = String(Number(current.resourceVersion) + 1);
    if (action.kind === 'delete') {
      byName.delete(action.cluster);
    } else if (action.kind === 'status') {
      byName.set(action.cluster, {
        ...current,
        status: served(action.profile.status),
        resourceVersion: next,
      });
    } else {
      const removed = new Set(action.removeLabels);
      const labels = Object.fromEntries(
        Object.entries({ ...current.labels, ...action.profile.labels }).filter(
          ([key]) => !removed.has(key),
        ),
      );
      const updated: ObservedProfile = {
        ...current,
        labels,
        spec: action.profile.spec,
        status: served(action.profile.status),
        resourceVersion: next,
      };
      byName.set(action.cluster, updated);
    }
  }
  return { ...before, profiles: [...byName.values()] };
}
