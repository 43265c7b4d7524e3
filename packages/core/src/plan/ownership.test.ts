// Which Secrets are ours to write (ownership.ts): never one without our managed-by label.

import { describe, expect, it } from 'vitest';
import {
  foreignClusterSecret,
  KEYS,
  NOW,
  outcomeOf,
  scenario,
  testConfig,
} from '../test-support/fixtures.js';
import { plan } from './index.js';

describe('ownership', () => {
  it('refuses to write over a cluster-<name> Secret it does not own', () => {
    const snapshot = scenario()
      .child('team-a', { cluster: 'alpha' })
      .foreign('cluster-alpha', { server: 'https://other.example.com' })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'refused',
      reason: { code: 'target-foreign' },
    });
  });

  it('never touches a Secret without our managed-by label, whatever its other labels say', () => {
    const lookalike = foreignClusterSecret('cluster-ghost', {
      server: 'https://ghost.example.com',
    });
    const snapshot = scenario()
      .clusterSecret({
        ...lookalike,
        labels: {
          ...lookalike.labels,
          [KEYS.managedBy]: 'someone-else',
          [KEYS.sourceNamespace]: 'ghost',
          [KEYS.sourceNamespaceUid]: 'uid-ghost',
        },
      })
      .lookup('ghost', { state: 'notFound' })
      .build();
    expect(plan(snapshot, testConfig(), NOW).actions).toEqual([]);
  });
});
