// What is emitted, and in what order (actions.ts). A write carries the Secret it was planned
// against as its before: the renderers diff the write against exactly what was read
// (render-diff.ts), never against a copy the planner made.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from './index.js';
import { createSettledRepeat } from '../repeat/settled-repeat.js';
import { buildSnapshot, PROPERTY_CONFIG, renamingInputArb } from '../test-support/arbitraries.js';
import {
  clusterSecretOf,
  KEYS,
  NOW,
  PEM,
  scenario,
  serverOf,
  settle,
  testConfig,
} from '../test-support/fixtures.js';
import { kinds, only } from '../test-support/plan-assertions.js';
import type { Snapshot } from '../common/types.js';

describe('before and after', () => {
  it("an update's before is the registration Secret as the snapshot holds it", () => {
    const registered = settle(scenario().child('team-a', { cluster: 'alpha' }).build());
    const moved = scenario(registered)
      .kubeconfig('team-a', { server: 'https://moved.example.com', credentials: PEM.client2 })
      .build();
    const update = only(plan(moved, testConfig(), NOW + 1000), 'update');
    expect(update.before).toBe(clusterSecretOf(moved, 'cluster-alpha'));
  });

  it("every update's or demotion's before is the very Secret of the snapshot its target names", () => {
    fc.assert(
      fc.property(renamingInputArb, (input) => {
        const snapshot = buildSnapshot(input);
        const repeat = createSettledRepeat();
        for (let pass = 0; pass < 2; pass++) {
          for (const action of plan(snapshot, PROPERTY_CONFIG, NOW, { repeat }).actions) {
            if (action.kind !== 'update' && action.kind !== 'demote') continue;
            expect(snapshot.clusterSecrets).toContain(action.before);
            const { namespace, name, uid, resourceVersion } = action.before;
            expect(action.target).toEqual({ namespace, name, uid, resourceVersion });
          }
        }
      }),
      { numRuns: 120 },
    );
  });
});

describe('determinism', () => {
  it('gives the same plan, byte for byte, for inputs in another order', () => {
    const built = scenario()
      .child('team-a', { cluster: 'alpha' })
      .child('team-b', { cluster: 'alpha', created: '2026-01-01T00:00:00Z' })
      .child('team-c', { cluster: 'gamma', server: serverOf('team-a') })
      .namespace('team-d', { cluster: null })
      .foreign('vcluster-x', { server: serverOf('team-c') })
      .build();
    const reversed: Snapshot = {
      namespaces: [...built.namespaces].reverse(),
      candidateSecrets: [...built.candidateSecrets].reverse(),
      clusterSecrets: [...built.clusterSecrets].reverse(),
      sourceLookups: built.sourceLookups,
    };
    expect(JSON.stringify(plan(reversed, testConfig(), NOW))).toBe(
      JSON.stringify(plan(built, testConfig(), NOW)),
    );
  });

  it('orders actions by kind, then cluster', () => {
    const before = settle(
      scenario().child('team-a', { cluster: 'alpha' }).child('team-b', { cluster: 'beta' }).build(),
    );
    const snapshot = scenario(before)
      .removeNamespace('team-b')
      .label('team-a', KEYS.cluster, 'zulu')
      .child('team-c', { cluster: 'charlie' })
      .build();
    expect(kinds(plan(snapshot, testConfig(), NOW))).toEqual([
      'create charlie',
      'create zulu',
      'delete beta',
    ]);
    const renamed = scenario(settle(before))
      .removeNamespace('team-b')
      .label('team-a', KEYS.cluster, 'zulu')
      .child('team-c', { cluster: 'charlie' })
      .clusterSecret(
        clusterSecretOf(
          settle(scenario(before).label('team-a', KEYS.cluster, 'zulu').build()),
          'cluster-zulu',
        ),
      )
      .build();
    expect(kinds(plan(renamed, testConfig(), NOW))).toEqual([
      'create charlie',
      'demote alpha',
      'delete beta',
    ]);
  });
});
