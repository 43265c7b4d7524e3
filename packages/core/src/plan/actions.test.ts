// A write carries the Secret it was planned against as its before: the renderers diff the
// write against exactly what was read (render-diff.ts), never against a copy the planner made.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPlanMemo, plan } from './index.js';
import { buildSnapshot, PROPERTY_CONFIG, renamingInputArb } from '../test-support/arbitraries.js';
import {
  clusterSecretOf,
  NOW,
  PEM,
  scenario,
  settle,
  testConfig,
} from '../test-support/fixtures.js';
import { only } from '../test-support/plan-assertions.js';

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
        const memo = createPlanMemo();
        for (let pass = 0; pass < 2; pass++) {
          for (const action of plan(snapshot, PROPERTY_CONFIG, NOW, { memo }).actions) {
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
