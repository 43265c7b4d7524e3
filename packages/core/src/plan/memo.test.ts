// The plan memo only remembers pure functions of inputs that uid + resourceVersion identify,
// so a plan made with a warm memo must be the plan made without one, byte for byte.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPlanMemo, plan } from './index.js';
import { sha256Hex } from '../sha256.js';
import { applyPlanToSnapshot } from '../test-support/apply-plan.js';
import {
  buildSnapshot,
  plannerInputArb,
  PROPERTY_CONFIG,
  shuffled,
} from '../test-support/arbitraries.js';
import { DAY, HOUR, NOW, testConfig } from '../test-support/fixtures.js';
import type { ObservedSecret, Snapshot, SourceNamespace } from '../types.js';

const config = PROPERTY_CONFIG;
const bytes = (value: unknown): string => JSON.stringify(value);

// The API server's contract, which the memo relies on: another content is another
// resourceVersion. Generated inputs reuse versions freely, so stamp them from the content.
const versionOf = (content: object): string =>
  sha256Hex(bytes({ ...content, resourceVersion: undefined })).slice(0, 16);

function stampSecret(secret: ObservedSecret): ObservedSecret {
  return { ...secret, resourceVersion: versionOf(secret) };
}

function stampNamespace(namespace: SourceNamespace): SourceNamespace {
  return { ...namespace, resourceVersion: versionOf(namespace) };
}

function versioned(snapshot: Snapshot): Snapshot {
  return {
    ...snapshot,
    namespaces: snapshot.namespaces.map(stampNamespace),
    candidateSecrets: snapshot.candidateSecrets.map(stampSecret),
    clusterSecrets: snapshot.clusterSecrets.map(stampSecret),
  };
}

const nowArb = fc.constantFrom(NOW, NOW + 30_000, NOW + HOUR, NOW + 8 * DAY);

describe('plan memo', () => {
  it('a plan with a warm memo equals the plan without one (one memo across many worlds)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(plannerInputArb, nowArb, fc.nat()), { minLength: 1, maxLength: 4 }),
        (steps) => {
          const memo = createPlanMemo();
          for (const [input, now, seed] of steps) {
            const snapshot = versioned(buildSnapshot(input));
            const expected = bytes(plan(snapshot, config, now));
            expect(bytes(plan(snapshot, config, now, { memo }))).toBe(expected);
            // Warm now: the same world again, in another order.
            const reordered: Snapshot = {
              ...snapshot,
              namespaces: shuffled(snapshot.namespaces, seed),
              candidateSecrets: shuffled(snapshot.candidateSecrets, seed + 1),
              clusterSecrets: shuffled(snapshot.clusterSecrets, seed + 2),
            };
            expect(bytes(plan(reordered, config, now, { memo }))).toBe(expected);
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  it('a plan with a warm memo equals the plan without one while its actions are applied', () => {
    fc.assert(
      fc.property(plannerInputArb, nowArb, (input, now) => {
        // Namespaces without a resourceVersion: the memo may only trust the same objects.
        let snapshot = buildSnapshot(input);
        const memo = createPlanMemo();
        for (let pass = 0; pass < 3; pass++) {
          const expected = plan(snapshot, config, now);
          expect(bytes(plan(snapshot, config, now, { memo }))).toBe(bytes(expected));
          expect(bytes(plan(snapshot, config, now, { memo }))).toBe(bytes(expected));
          snapshot = applyPlanToSnapshot(snapshot, expected);
        }
      }),
      { numRuns: 80 },
    );
  });

  it('starts over when the configuration changes', () => {
    fc.assert(
      fc.property(plannerInputArb, (input) => {
        const snapshot = versioned(buildSnapshot(input));
        const memo = createPlanMemo();
        plan(snapshot, config, NOW, { memo });
        const other = testConfig({ managedBy: 'someone-else' });
        expect(bytes(plan(snapshot, other, NOW, { memo }))).toBe(bytes(plan(snapshot, other, NOW)));
      }),
      { numRuns: 40 },
    );
  });
});
