// PlanOptions.describeChanges only drops the descriptions: a daemon that plans without them
// writes exactly what a preview would show.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPlanMemo, plan } from './index.js';
import { buildSnapshot, plannerInputArb, PROPERTY_CONFIG } from '../test-support/arbitraries.js';
import { NOW } from '../test-support/fixtures.js';
import type { Plan } from '../types.js';

const withoutChanges = (p: Plan): unknown => ({
  ...p,
  actions: p.actions.map((action) => ('changes' in action ? { ...action, changes: [] } : action)),
});

describe('describeChanges', () => {
  it('a plan without change descriptions is the described plan with its changes emptied', () => {
    let described = 0;
    fc.assert(
      fc.property(plannerInputArb, (input) => {
        const snapshot = buildSnapshot(input);
        const full = plan(snapshot, PROPERTY_CONFIG, NOW);
        const memo = createPlanMemo();
        for (let pass = 0; pass < 2; pass++) {
          const bare = plan(snapshot, PROPERTY_CONFIG, NOW, { memo, describeChanges: false });
          expect(JSON.stringify(bare)).toBe(JSON.stringify(withoutChanges(full)));
          for (const action of bare.actions)
            if ('changes' in action) expect(action.changes).toEqual([]);
        }
        if (full.actions.some((action) => 'changes' in action && action.changes.length > 0))
          described += 1;
      }),
      { numRuns: 120 },
    );
    // The interesting case occurs: plans whose writes did carry descriptions.
    expect(described).toBeGreaterThan(20);
  });
});
