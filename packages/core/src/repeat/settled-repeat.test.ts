// The settled repeat hands out the last plan without actions while its world (objects by uid +
// resourceVersion), configuration and translator are the same and none of its decisions has
// run out, so the plan it gives must be the plan made afresh, byte for byte.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from '../plan/index.js';
import { createSettledRepeat, sameWorld, worldOf } from './settled-repeat.js';
import { sha256Hex } from '../present/sha256.js';
import { applyPlanToSnapshot } from '../test-support/apply-plan.js';
import {
  buildSnapshot,
  plannerInputArb,
  PROPERTY_CONFIG,
  renamingInputArb,
  shuffled,
} from '../test-support/arbitraries.js';
import { CLUSTER_POOL } from '../test-support/arbitraries.js';
import { DAY, HOUR, KEYS, NOW, scenario, settle, testConfig } from '../test-support/fixtures.js';
import type { ObservedSecret, Plan, Snapshot, SourceNamespace } from '../common/types.js';
import type { TranslationResult } from '../common/translation-types.js';
import { translateSecretKey, type Translator } from '../translate/providers.js';

const config = PROPERTY_CONFIG;
const bytes = (value: unknown): string => JSON.stringify(value);

// The API server's contract, which the repeat relies on: another content is another
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

/** `list` with its element at `pick` (modulo its length) replaced by `edit`'s, or dropped. */
function editAt<T>(list: readonly T[], pick: number, edit: (item: T) => T | undefined): T[] {
  if (list.length === 0) return [...list];
  const at = pick % list.length;
  return list.flatMap((item, index) => {
    if (index !== at) return [item];
    const edited = edit(item);
    return edited === undefined ? [] : [edited];
  });
}

/** One watch event's worth of change to a world (its versions are stamped afterwards). */
const SMALL_CHANGES: Readonly<Record<string, (snapshot: Snapshot, pick: number) => Snapshot>> = {
  'nothing (a re-list)': (snapshot) => structuredClone(snapshot),
  'a kubeconfig Secret is deleted': (snapshot, pick) => ({
    ...snapshot,
    candidateSecrets: editAt(snapshot.candidateSecrets, pick, () => undefined),
  }),
  'a kubeconfig Secret moves to another namespace': (snapshot, pick) => ({
    ...snapshot,
    candidateSecrets: editAt(snapshot.candidateSecrets, pick, (secret) => {
      const names = snapshot.namespaces.map((namespace) => namespace.name);
      return { ...secret, namespace: names[(pick + 1) % Math.max(names.length, 1)] ?? 'elsewhere' };
    }),
  }),
  'a namespace is relabelled': (snapshot, pick) => ({
    ...snapshot,
    namespaces: editAt(snapshot.namespaces, pick, (namespace) => ({
      ...namespace,
      labels: {
        ...namespace.labels,
        [KEYS.cluster]: CLUSTER_POOL[pick % CLUSTER_POOL.length] as string,
      },
    })),
  }),
  'a namespace gets a label its registration copies': (snapshot, pick) => ({
    ...snapshot,
    namespaces: editAt(snapshot.namespaces, pick, (namespace) => ({
      ...namespace,
      labels: { ...namespace.labels, [`${KEYS.prefix}team`]: `team-${String(pick % 3)}` },
    })),
  }),
  'a registration gets another owner’s label': (snapshot, pick) => ({
    ...snapshot,
    clusterSecrets: editAt(snapshot.clusterSecrets, pick, (secret) => ({
      ...secret,
      labels: { ...secret.labels, 'example.com/owner': `team-${String(pick % 3)}` },
    })),
  }),
  'a namespace starts terminating': (snapshot, pick) => ({
    ...snapshot,
    namespaces: editAt(snapshot.namespaces, pick, (namespace) => ({
      ...namespace,
      deletionTimestamp: '2026-11-29T17:00:00Z',
    })),
  }),
  'a namespace is deleted': (snapshot, pick) => ({
    ...snapshot,
    namespaces: editAt(snapshot.namespaces, pick, () => undefined),
    sourceLookups: Object.fromEntries(
      snapshot.namespaces.map((namespace, index) => [
        namespace.name,
        index === pick % snapshot.namespaces.length
          ? { state: 'notFound' as const }
          : { state: 'present' as const, uid: namespace.uid, labels: namespace.labels },
      ]),
    ),
  }),
  'a registration is deleted by someone': (snapshot, pick) => ({
    ...snapshot,
    clusterSecrets: editAt(snapshot.clusterSecrets, pick, () => undefined),
  }),
  'a registration is edited by someone': (snapshot, pick) => ({
    ...snapshot,
    clusterSecrets: editAt(snapshot.clusterSecrets, pick, (secret) => ({
      ...secret,
      labels: { ...secret.labels, [KEYS.prune]: 'disabled' },
    })),
  }),
};

const smallChangeArb = fc.tuple(fc.constantFrom(...Object.keys(SMALL_CHANGES)), fc.nat());

/** The world after its plans were applied until one had nothing to do (or three rounds). */
function settledWorld(snapshot: Snapshot, now: number): Snapshot {
  let world = snapshot;
  for (let round = 0; round < 3; round++) {
    const made = plan(world, config, now);
    if (made.actions.length === 0) break;
    world = versioned(applyPlanToSnapshot(world, made));
  }
  return world;
}

describe('settled repeat', () => {
  it('repeat = fresh: after random small changes to a settled world, pass after pass', () => {
    // Counted: passes handed the remembered plan (the repeat was exercised, not bypassed).
    let repeated = 0;
    fc.assert(
      fc.property(
        plannerInputArb,
        nowArb,
        fc.array(fc.tuple(smallChangeArb, fc.boolean()), { minLength: 1, maxLength: 5 }),
        (input, now, changes) => {
          let world = settledWorld(versioned(buildSnapshot(input)), now);
          const repeat = createSettledRepeat();
          let last: Plan = plan(world, config, now, { repeat });
          for (const [[change, pick], apply] of changes) {
            const changed = SMALL_CHANGES[change];
            if (changed === undefined) throw new Error(`unknown change ${change}`);
            world = versioned(changed(world, pick));
            for (let pass = 0; pass < 2; pass++) {
              const made = plan(world, config, now, { repeat });
              if (made === last) repeated += 1;
              expect(bytes(made)).toBe(bytes(plan(world, config, now)));
              last = made;
            }
            // Sometimes the writes land before the next change, as in a daemon.
            if (apply) world = versioned(applyPlanToSnapshot(world, last));
          }
        },
      ),
      { numRuns: 100 },
    );
    expect(repeated, 'passes that repeated the remembered plan').toBeGreaterThan(0);
  });

  it('memoised = fresh: with the daemon’s kind of translator, after random changes, pass after pass', () => {
    // A translator like the daemon's: one translation per Secret uid, resourceVersion, key and
    // options, so the registrations the seam remembers are found again.
    const daemonTranslator = (): Translator => {
      const translations = new Map<string, TranslationResult>();
      return (secret, key, provider, options) => {
        const at = bytes([secret.uid, secret.resourceVersion, key, provider, options ?? {}]);
        let result = translations.get(at);
        if (result === undefined) {
          result = translateSecretKey(secret, key, provider, options);
          translations.set(at, result);
        }
        return result;
      };
    };
    // Counted: registrations a pass planned in full was handed from an earlier one.
    let reused = 0;
    fc.assert(
      fc.property(
        plannerInputArb,
        nowArb,
        fc.array(fc.tuple(smallChangeArb, fc.boolean()), { minLength: 1, maxLength: 6 }),
        (input, now, changes) => {
          const translate = daemonTranslator();
          let world = versioned(buildSnapshot(input));
          const repeat = createSettledRepeat();
          let last: Plan = plan(world, config, now, { translate, repeat });
          expect(bytes(last)).toBe(bytes(plan(world, config, now)));
          for (const [[change, pick], apply] of changes) {
            const changed = SMALL_CHANGES[change];
            if (changed === undefined) throw new Error(`unknown change ${change}`);
            world = versioned(changed(world, pick));
            for (let pass = 0; pass < 2; pass++) {
              const made = plan(world, config, now, { translate, repeat });
              expect(bytes(made)).toBe(bytes(plan(world, config, now)));
              last = made;
            }
            if (apply) world = versioned(applyPlanToSnapshot(world, last));
          }
          reused += repeat.reused;
        },
      ),
      { numRuns: 100 },
    );
    expect(reused, 'registrations handed out again by the seam').toBeGreaterThan(0);
  });

  it('repeat = fresh across many worlds, each also re-listed in another order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(plannerInputArb, nowArb, fc.nat()), { minLength: 1, maxLength: 4 }),
        (steps) => {
          const repeat = createSettledRepeat();
          for (const [input, now, seed] of steps) {
            const snapshot = versioned(buildSnapshot(input));
            const expected = bytes(plan(snapshot, config, now));
            expect(bytes(plan(snapshot, config, now, { repeat }))).toBe(expected);
            // Warm now: the same world again, in another order.
            const reordered: Snapshot = {
              ...snapshot,
              namespaces: shuffled(snapshot.namespaces, seed),
              candidateSecrets: shuffled(snapshot.candidateSecrets, seed + 1),
              clusterSecrets: shuffled(snapshot.clusterSecrets, seed + 2),
            };
            expect(bytes(plan(reordered, config, now, { repeat }))).toBe(expected);
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  it('repeat = fresh while its actions are applied', () => {
    fc.assert(
      fc.property(plannerInputArb, nowArb, (input, now) => {
        // Objects without a resourceVersion: never recognised again.
        let snapshot = buildSnapshot(input);
        const repeat = createSettledRepeat();
        for (let pass = 0; pass < 3; pass++) {
          const expected = plan(snapshot, config, now);
          expect(bytes(plan(snapshot, config, now, { repeat }))).toBe(bytes(expected));
          expect(bytes(plan(snapshot, config, now, { repeat }))).toBe(bytes(expected));
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
    // a certificate's expiry). Counted: passes on the world of a remembered plan without actions
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
          const repeat = createSettledRepeat();
          let previous: string | undefined;
          for (const now of instants) {
            const expected = bytes(plan(snapshot, config, now));
            if (previous !== undefined && previous !== expected) ranOut += 1;
            const made = plan(snapshot, config, now, { repeat });
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
        const repeat = createSettledRepeat();
        plan(snapshot, config, NOW, { repeat });
        const other = testConfig({ managedBy: 'someone-else' });
        expect(bytes(plan(snapshot, other, NOW, { repeat }))).toBe(
          bytes(plan(snapshot, other, NOW)),
        );
      }),
      { numRuns: 40 },
    );
  });

  it('repeats a settled plan for the same world, also re-listed as new objects', () => {
    const snapshot = world();
    const repeat = createSettledRepeat();
    const first = plan(snapshot, testConfig(), NOW, { repeat });
    expect(first.actions).toEqual([]);
    expect(plan(structuredClone(snapshot), testConfig(), NOW, { repeat })).toBe(first);
  });

  it('keeps a registration only beside one that exists: a create’s is never asked for again', () => {
    // team-c waits for its create; the memo is only consulted on passes planned in full.
    const snapshot = stamped(scenario(world()).child('team-c').build());
    const translations = new Map<string, TranslationResult>();
    const translate: Translator = (secret, key, provider, options) => {
      const at = bytes([secret.uid, secret.resourceVersion, key, provider.name]);
      const result = translations.get(at) ?? translateSecretKey(secret, key, provider, options);
      translations.set(at, result);
      return result;
    };
    const repeat = createSettledRepeat();
    const first = plan(snapshot, testConfig(), NOW, { translate, repeat });
    expect(first.actions.map((action) => action.kind)).toEqual(['create']);
    expect(bytes(plan(snapshot, testConfig(), NOW, { translate, repeat }))).toBe(bytes(first));
    // team-a's and team-b's registrations are handed out again; team-c's is built anew.
    expect(repeat.reused).toBe(2);
  });
});

/** Two registered namespaces, every object with a resourceVersion, as a gather returns them. */
function world(): Snapshot {
  return stamped(settle(scenario().child('team-a').child('team-b').build(), testConfig(), NOW));
}

/** Every object with a resourceVersion, as a gather returns them. */
function stamped(snapshot: Snapshot): Snapshot {
  return {
    ...snapshot,
    namespaces: snapshot.namespaces.map((namespace) => ({ ...namespace, resourceVersion: '7' })),
    candidateSecrets: snapshot.candidateSecrets.map((secret) => ({
      ...secret,
      resourceVersion: '8',
    })),
    clusterSecrets: snapshot.clusterSecrets.map((secret) => ({ ...secret, resourceVersion: '9' })),
  };
}

/** The world `snapshot` shows; every object of the test worlds has a version. */
function worldOfVersioned(snapshot: Snapshot): NonNullable<ReturnType<typeof worldOf>> {
  const seen = worldOf(snapshot);
  if (seen === undefined) throw new Error('an object without a resourceVersion');
  return seen;
}

describe('world of a snapshot', () => {
  it('knows the same world, also re-listed as new objects of the same versions', () => {
    const snapshot = world();
    const seen = worldOfVersioned(snapshot);
    expect(sameWorld(seen, snapshot)).toBe(true);
    expect(sameWorld(seen, structuredClone(snapshot))).toBe(true);
  });

  it('tells a world with one object at another resourceVersion', () => {
    const snapshot = world();
    const seen = worldOfVersioned(snapshot);
    const [first, ...rest] = snapshot.candidateSecrets;
    if (first === undefined) throw new Error('no candidate Secret');
    const changed = { ...first, resourceVersion: '10' };
    expect(sameWorld(seen, { ...snapshot, candidateSecrets: [changed, ...rest] })).toBe(false);
  });

  it('tells the same objects in another order, or one fewer', () => {
    const snapshot = world();
    const seen = worldOfVersioned(snapshot);
    const reversed = { ...snapshot, namespaces: [...snapshot.namespaces].reverse() };
    expect(sameWorld(seen, reversed)).toBe(false);
    const fewer = { ...snapshot, clusterSecrets: snapshot.clusterSecrets.slice(1) };
    expect(sameWorld(seen, fewer)).toBe(false);
  });

  it('is not taken from a world with an object without a resourceVersion', () => {
    // Hand-made input: nothing tells a changed object from the same one.
    const snapshot = world();
    const unversioned: Snapshot = {
      ...snapshot,
      namespaces: snapshot.namespaces.map((namespace) => {
        const copy = { ...namespace };
        Reflect.deleteProperty(copy, 'resourceVersion');
        return copy;
      }),
    };
    expect(worldOf(unversioned)).toBeUndefined();
    const repeat = createSettledRepeat();
    const first = plan(unversioned, testConfig(), NOW, { repeat });
    expect(plan(unversioned, testConfig(), NOW, { repeat })).not.toBe(first);
  });

  it('compares the rest of the snapshot as data: lookups, unread lists, near misses', () => {
    const snapshot = world();
    const seen = worldOfVersioned(snapshot);
    expect(sameWorld(seen, { ...snapshot, sourceLookups: { gone: { state: 'notFound' } } })).toBe(
      false,
    );
    expect(
      sameWorld(seen, {
        ...snapshot,
        unreadNamespaces: [{ name: 'team-a', reason: 'the API server timed out' }],
      }),
    ).toBe(false);
    expect(sameWorld(seen, { ...snapshot, clusterSecretsUnread: 'forbidden' })).toBe(false);
    expect(
      sameWorld(seen, {
        ...snapshot,
        nearMisses: [{ namespace: 'team-a', name: 'kubeconfig', keys: ['config'] }],
      }),
    ).toBe(false);
  });
});
