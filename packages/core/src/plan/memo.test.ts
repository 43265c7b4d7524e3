// The plan memo only remembers pure functions of inputs that uid + resourceVersion identify,
// so a plan made with a warm memo must be the plan made without one, byte for byte.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPlanMemo, plan } from './index.js';
import { sha256Hex } from '../present/sha256.js';
import { applyPlanToSnapshot } from '../test-support/apply-plan.js';
import {
  buildSnapshot,
  plannerInputArb,
  PROPERTY_CONFIG,
  renamingInputArb,
  shuffled,
} from '../test-support/arbitraries.js';
import { DAY, HOUR, KEYS, NOW, testConfig } from '../test-support/fixtures.js';
import type { ObservedSecret, Snapshot, SourceNamespace } from '../shared/types.js';

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

/** The instants at which a decision about `snapshot`'s registrations may change. */
function deadlinesOf(snapshot: Snapshot): number[] {
  const deadlines: number[] = [];
  for (const secret of snapshot.clusterSecrets) {
    const staleSince = Date.parse(secret.annotations[KEYS.staleSince] ?? '');
    if (!Number.isNaN(staleSince)) deadlines.push(staleSince + config.demotedTtlMs);
    const written = Date.parse(secret.annotations[KEYS.credentialsUpdatedAt] ?? '');
    if (!Number.isNaN(written)) deadlines.push(written + config.intervalMs);
  }
  return deadlines;
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

  it('repeats a plan that found nothing to do only while none of its decisions has run out', () => {
    // One world planned again and again as the clock moves (and, in some runs, goes back): a
    // repeated plan must be the plan made afresh at that instant, also when a deferral ran out
    // or a demotion expired in between. The instants are drawn around the world's own
    // deadlines (a demotion's stale-since plus the TTL, a credential write plus the interval,
    // a certificate's expiry). Counted: passes on the world and memo of a plan without actions
    // whose fresh plan differs from it (a decision that ran out).
    let ranOut = 0;
    fc.assert(
      fc.property(
        // Recent writes and renames: deferrals within their interval, and demotions.
        fc
          .tuple(renamingInputArb, fc.constantFrom(0, 30_000, HOUR))
          .map(([input, age]) => ({ ...input, age })),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: -2, max: 2 })), {
          minLength: 2,
          maxLength: 8,
        }),
        fc.boolean(),
        (input, picks, monotonic) => {
          // The world as the writes of its plans at NOW leave it, so that most runs start from
          // a plan without actions (a deferral or a demotion waiting for its time).
          let snapshot = versioned(buildSnapshot(input));
          for (let round = 0; round < 3; round++) {
            const settling = plan(snapshot, config, NOW);
            if (settling.actions.length === 0) break;
            snapshot = versioned(applyPlanToSnapshot(snapshot, settling));
          }
          const deadlines = [NOW, NOW + HOUR, NOW + 8 * DAY, ...deadlinesOf(snapshot)];
          const drawn = picks.map(
            ([index, nudge]) => (deadlines[index % deadlines.length] as number) + nudge,
          );
          const instants = monotonic ? [...drawn].sort((a, b) => a - b) : drawn;
          const memo = createPlanMemo();
          let previous: string | undefined;
          for (const now of instants) {
            const expected = bytes(plan(snapshot, config, now));
            if (previous !== undefined && previous !== expected) ranOut += 1;
            const made = plan(snapshot, config, now, { memo });
            expect(bytes(made)).toBe(expected);
            previous = made.actions.length === 0 ? expected : undefined;
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(ranOut, 'passes whose decisions ran out').toBeGreaterThan(0);
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
