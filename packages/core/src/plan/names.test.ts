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
import { PROVIDER_PRESETS } from '../config/provider-presets.js';
import { plan } from './index.js';

const CAPI = testConfig({ providers: [PROVIDER_PRESETS.capi], capiClusters: true });

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
      reason: {
        code: 'name-foreign',
        sourceMessage: `ArgoCD cluster name "alpha" is already used by a cluster Secret this registrar does not manage; change the ${KEYS.cluster} label of this namespace to another name, or ask the registrar’s operator`,
      },
    });
  });

  it('refuses the cluster name in-cluster, which ArgoCD resolves to its own cluster while no Secret claims it', () => {
    const snapshot = scenario()
      .child('team-a', { cluster: 'in-cluster' })
      .child('team-b', { cluster: 'beta' })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions.map((action) => `${action.kind} ${action.cluster}`)).toEqual([
      'create beta',
    ]);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'refused',
      reason: {
        code: 'name-reserved',
        message: `cluster name "in-cluster" of namespace team-a is reserved: ArgoCD sends every Application whose destination.name is in-cluster to its own cluster only while no cluster Secret carries that name, so registering it would send them to this cluster instead; change the ${KEYS.cluster} label to another name`,
      },
    });
  });

  it.each([
    ['a <prefix>cluster label', { cluster: 'in-cluster' }, 'alpha', 'name'],
    ['its own name', {}, 'in-cluster', 'name'],
  ] as const)(
    'refuses a Cluster claiming in-cluster through %s',
    (_how, options, name, capiClusterNames) => {
      const snapshot = scenario().capiChild('fleet', name, options).build();
      const result = plan(snapshot, { ...CAPI, capiClusterNames }, NOW);
      expect(result.actions).toEqual([]);
      const outcome = outcomeOf(result, `fleet/${name}`);
      expect(outcome).toMatchObject({ state: 'refused', reason: { code: 'name-reserved' } });
      expect(outcome.reason?.message).toContain(`Cluster fleet/${name} is reserved`);
    },
  );

  it('refuses a Cluster whose name a foreign cluster Secret already uses as data.name', () => {
    const snapshot = scenario()
      .capiChild('fleet', 'alpha')
      .foreign('hand-made', { clusterName: 'alpha' })
      .build();
    const result = plan(snapshot, { ...CAPI, capiClusterNames: 'name' }, NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'fleet/alpha')).toMatchObject({
      state: 'refused',
      reason: { code: 'name-foreign' },
    });
  });
});
