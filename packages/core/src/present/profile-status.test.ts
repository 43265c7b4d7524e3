// `status` with profiles: each row says what its ClusterProfile is, from the profile plan and
// the profiles as read, and the table shows a PROFILE column only then.

import { describe, expect, it } from 'vitest';
import type { ProfilePlan, ProfileSnapshot } from '../common/types.js';
import { withProfiles } from './profile-status.js';
import { renderStatusText } from './render-status.js';
import type { StatusRow } from './status-rows.js';

const rows: StatusRow[] = [
  { kind: 'namespace', namespace: 'team-a', cluster: 'alpha', state: 'unchanged' },
  { kind: 'namespace', namespace: 'team-b', cluster: 'beta', state: 'unchanged' },
  { kind: 'namespace', namespace: 'team-c', cluster: 'gamma', state: 'registered' },
  { kind: 'registration', namespace: 'team-d', cluster: 'delta', state: 'source-gone' },
  { kind: 'namespace', namespace: 'team-e', state: 'waiting' },
];

const observed = (name: string) => ({
  namespace: 'inventory',
  name,
  uid: `uid-${name}`,
  resourceVersion: '1',
  labels: {},
  annotations: {},
  spec: {},
});
const profiles: ProfileSnapshot = {
  apiVersion: 'v1alpha1',
  profiles: [observed('alpha'), observed('beta'), observed('delta')],
};
const plan: ProfilePlan = {
  namespace: 'inventory',
  apiVersion: 'v1alpha1',
  published: 2,
  deferred: 0,
  actions: [
    {
      kind: 'create',
      cluster: 'gamma',
      source: 'team-c',
      profile: {
        namespace: 'inventory',
        name: 'gamma',
        labels: {},
        spec: { displayName: 'gamma', clusterManager: { name: 'registrar' } },
        status: {},
      },
    },
    {
      kind: 'delete',
      cluster: 'delta',
      target: { namespace: 'inventory', name: 'delta', uid: 'uid-delta', resourceVersion: '1' },
      reason: { code: 'source-gone', source: 'team-d', proof: 'not found' },
    },
  ],
  notices: [
    {
      cluster: 'beta',
      source: 'team-b',
      code: 'profile-name-foreign',
      message: 'ClusterProfile inventory/beta belongs to fleet-manager, not to registrar',
    },
  ],
};

describe('withProfiles', () => {
  it('says of each row whether its profile is published, pending or not published, and why', () => {
    expect(withProfiles(rows, plan, profiles).map((row) => [row.cluster, row.profile])).toEqual([
      ['alpha', { state: 'published', name: 'inventory/alpha' }],
      [
        'beta',
        {
          state: 'not-published',
          name: 'inventory/beta',
          why: 'ClusterProfile inventory/beta belongs to fleet-manager, not to registrar',
        },
      ],
      ['gamma', { state: 'pending', name: 'inventory/gamma', next: 'create' }],
      ['delta', { state: 'pending', name: 'inventory/delta', next: 'delete' }],
      [undefined, undefined],
    ]);
  });

  it('adds a PROFILE column and the reason a profile is not published', () => {
    const text = renderStatusText(withProfiles(rows, plan, profiles), { now: 0 });
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^NAMESPACE +CLUSTER +STATE +PROFILE +CREDENTIAL/);
    expect(lines[2]).toMatch(/^team-b +beta +unchanged +not published +-/);
    expect(lines[3]).toMatch(/^team-c +gamma +registered +pending \(create\)/);
    expect(text).toContain(
      '  namespace team-b: unchanged\n    not published: ClusterProfile inventory/beta belongs to fleet-manager, not to registrar\n',
    );
    expect(renderStatusText(rows, { now: 0 })).not.toContain('PROFILE');
  });
});
