// `status` with `--cluster-profiles`: each row's ClusterProfile, read from the profile plan
// made from the same plan and the profiles as read (nothing is decided here): `published`
// (ours, and nothing to write), `pending` (the next pass writes it: what it does),
// `not-published` (a notice says why).

import type { ProfilePlan, ProfileSnapshot } from '../common/types.js';
import type { RowProfile, StatusRow } from './status-rows.js';

export function withProfiles(
  rows: readonly StatusRow[],
  plan: ProfilePlan,
  profiles: ProfileSnapshot,
): StatusRow[] {
  const notices = new Map(plan.notices.map((notice) => [notice.cluster, notice]));
  const next = new Map(plan.actions.map((action) => [action.cluster, action.kind]));
  const observed = new Set(profiles.profiles.map((profile) => profile.name));
  return rows.map((row) => {
    const cluster = row.cluster;
    if (row.kind === 'foreign' || cluster === undefined) return row;
    const name = `${plan.namespace}/${cluster}`;
    const notice = notices.get(cluster);
    const kind = next.get(cluster);
    const profile: RowProfile | undefined =
      notice !== undefined
        ? { state: 'not-published', name, why: notice.message }
        : kind !== undefined
          ? { state: 'pending', name, next: kind }
          : observed.has(cluster) && (row.state === 'registered' || row.state === 'unchanged')
            ? { state: 'published', name }
            : undefined;
    return profile === undefined ? row : { ...row, profile };
  });
}
