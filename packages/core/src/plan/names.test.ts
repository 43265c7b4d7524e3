// Each namespace's cluster name, and the names it may not claim (names.ts).

import { describe, expect, it } from 'vitest';
import {
  KEYS,
  NOW,
  outcomeOf,
  registeredAlpha,
  scenario,
  testConfig,
} from '../test-support/fixtures.js';
import { plan } from './index.js';

describe('names', () => {
  it('skips a namespace without a cluster label, with a warning, and keeps its registration', () => {
    const snapshot = scenario(registeredAlpha()).label('team-a', KEYS.cluster, null).build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'skipped',
      reason: { code: 'cluster-label-missing' },
    });
    expect(result.warnings).toMatchObject([{ code: 'cluster-label-missing', namespace: 'team-a' }]);
  });

  it('refuses an empty cluster label', () => {
    const result = plan(scenario().child('team-a', { cluster: '' }).build(), testConfig(), NOW);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'refused',
      reason: { code: 'name-missing' },
    });
  });

  it.each([['Alpha'], ['under_score'], ['trailing-'], ['x'.repeat(250)]])(
    'refuses %s, which makes no valid Secret name',
    (cluster) => {
      const result = plan(scenario().child('team-a', { cluster }).build(), testConfig(), NOW);
      expect(result.actions).toEqual([]);
      expect(outcomeOf(result, 'team-a')).toMatchObject({
        state: 'refused',
        reason: { code: 'name-invalid' },
      });
    },
  );

  it('refuses a name that a foreign cluster Secret already uses as data.name', () => {
    const snapshot = scenario()
      .child('team-a', { cluster: 'alpha' })
      .foreign('hand-made', { clusterName: 'alpha' })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'refused',
      reason: { code: 'name-foreign' },
    });
  });
});
