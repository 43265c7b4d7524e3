// Drain before deregistration (drain.ts): with drainOnTerminate, a terminating namespace's
// registration loses only the labels it copied from the namespace, stays until the namespace
// is provably gone, and is then deleted as without drain.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from './index.js';
import { describeChanges } from '../present/render-diff.js';
import { renderPlanText } from '../present/render-text.js';
import { applyPlanToSnapshot } from '../test-support/apply-plan.js';
import {
  buildSnapshot,
  NAMESPACE_POOL,
  plannerInputArb,
  PROPERTY_CONFIG,
} from '../test-support/arbitraries.js';
import {
  clusterSecretOf,
  KEYS,
  NOW,
  outcomeOf,
  scenario,
  settle,
  testConfig,
} from '../test-support/fixtures.js';
import type { Action, Config, ObservedSecret, Snapshot } from '../common/types.js';

const SECRET_TYPE = 'argocd.argoproj.io/secret-type';
const DRAIN = testConfig({ drainOnTerminate: true });
const TEAM = `${KEYS.prefix}team`;
const ENV = `${KEYS.prefix}env`;

/** team-a registered with two copied labels, a label of another owner and an annotation. */
function registered(config: Config = DRAIN): Snapshot {
  const world = scenario()
    .child('team-a', {
      cluster: 'alpha',
      labels: { [TEAM]: 'payments', [ENV]: 'prod' },
      annotations: { [`${KEYS.prefix}owner`]: 'payments@example.com' },
    })
    .build();
  const settled = settle(world, config, NOW);
  return scenario(settled).labelSecret('cluster-alpha', 'example.com/other-owner', 'kept').build();
}

function terminating(snapshot: Snapshot): Snapshot {
  return scenario(snapshot)
    .editNamespace('team-a', (ns) => ({ ...ns, deletionTimestamp: '2026-11-30T12:30:00Z' }))
    .build();
}

describe('drain on terminate', () => {
  it('is off by default: a terminating namespace keeps its registration as it is', () => {
    const result = plan(terminating(registered(testConfig())), testConfig(), NOW + 60_000);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'unchanged',
      reason: { code: 'terminating' },
    });
  });

  it('removes only the copied labels once the namespace is terminating', () => {
    const before = registered();
    const existing = clusterSecretOf(before, 'cluster-alpha');
    const result = plan(terminating(before), DRAIN, NOW + 60_000);
    expect(result.actions).toHaveLength(1);
    const [update] = result.actions;
    if (update?.kind !== 'update') throw new Error(`expected an update, got ${update?.kind}`);
    expect(update.reason).toEqual({ code: 'drained', namespace: 'team-a', labels: [ENV, TEAM] });
    expect(update.target).toMatchObject({ uid: existing.uid });
    expect(update.secret.labels).toEqual({
      [SECRET_TYPE]: 'cluster',
      [KEYS.managedBy]: 'cluster-registrar',
      [KEYS.cluster]: 'alpha',
      [KEYS.sourceNamespace]: 'team-a',
      [KEYS.sourceNamespaceUid]: 'uid-team-a',
      [KEYS.provider]: 'k3k',
      'example.com/other-owner': 'kept',
    });
    expect(update.secret.annotations).toEqual(existing.annotations);
    expect(update.secret.data).toEqual(existing.data);
    expect(describeChanges(update).map((change) => change.field)).toEqual([
      `labels.${ENV}`,
      `labels.${TEAM}`,
    ]);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'drained',
      cluster: 'alpha',
      reason: { code: 'drained' },
    });
    expect(outcomeOf(result, 'team-a').reason?.message).toBe(
      'namespace team-a is terminating; cluster-alpha stays registered without the labels copied from the namespace, so ApplicationSet generators that select on them remove its Applications while ArgoCD can still reach the cluster; it is deleted once the namespace is gone',
    );
  });

  it('writes once: the drained registration stays drained, with nothing more to write', () => {
    const once = terminating(registered());
    const drained = applyPlanToSnapshot(once, plan(once, DRAIN, NOW + 60_000));
    const again = plan(drained, DRAIN, NOW + 120_000);
    expect(again.actions).toEqual([]);
    expect(outcomeOf(again, 'team-a').state).toBe('drained');
  });

  it('deletes the drained registration only once the namespace is not found', () => {
    const once = terminating(registered());
    const drained = applyPlanToSnapshot(once, plan(once, DRAIN, NOW + 60_000));
    const unknown = scenario(drained)
      .removeNamespace('team-a', { state: 'unknown', reason: 'timeout' })
      .build();
    expect(plan(unknown, DRAIN, NOW + 120_000).actions).toEqual([]);
    const gone = scenario(drained).removeNamespace('team-a').build();
    expect(plan(gone, DRAIN, NOW + 120_000).actions.map((a) => [a.kind, a.reason.code])).toEqual([
      ['delete', 'source-namespace-not-found'],
    ]);
  });

  it('reports a registration without copied labels as drained, writing nothing', () => {
    const plain = settle(scenario().child('team-a', { cluster: 'alpha' }).build(), DRAIN, NOW);
    const result = plan(terminating(plain), DRAIN, NOW + 60_000);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a').state).toBe('drained');
  });

  it('leaves a prune-disabled registration as it is, and says so', () => {
    const pinned = scenario(registered()).labelSecret('cluster-alpha', KEYS.prune, 'disabled');
    const result = plan(terminating(pinned.build()), DRAIN, NOW + 60_000);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a').reason?.code).toBe('terminating');
    expect(result.warnings.map((w) => w.message)).toContain(
      `cluster-alpha is not drained although namespace team-a is terminating: it carries ${KEYS.prune}=disabled`,
    );
  });

  it('says in the preview which labels go and why', () => {
    const text = renderPlanText(plan(terminating(registered()), DRAIN, NOW + 60_000));
    expect(text).toContain(
      `namespace team-a is terminating: the copied labels (${ENV}, ${TEAM}) are removed so ApplicationSet generators drop its Applications while ArgoCD can still reach the cluster; the registration is deleted once the namespace is gone`,
    );
  });

  it('changes nothing for a namespace that is not terminating', () => {
    expect(plan(registered(), DRAIN, NOW + 60_000).actions).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------
// Properties, over the planner's generated worlds (terminating namespaces included)

const DRAIN_PROPERTY: Config = { ...PROPERTY_CONFIG, drainOnTerminate: true };
const isDrain = (action: Action): boolean =>
  action.kind === 'update' && action.reason.code === 'drained';

function targetOf(snapshot: Snapshot, action: Action): ObservedSecret | undefined {
  if (action.kind === 'create') return undefined;
  return snapshot.clusterSecrets.find(
    (s) => s.name === action.target.name && s.namespace === action.target.namespace,
  );
}

/** Owned active registrations whose managed source namespace (same uid) is terminating. */
function terminatingRegistrations(snapshot: Snapshot, config: Config): ObservedSecret[] {
  return snapshot.clusterSecrets.filter((secret) => {
    if (secret.labels[KEYS.managedBy] !== config.managedBy) return false;
    if (secret.labels[SECRET_TYPE] !== 'cluster') return false;
    const source = snapshot.namespaces.find(
      (ns) => ns.name === secret.labels[KEYS.sourceNamespace],
    );
    return (
      source?.deletionTimestamp !== undefined &&
      source.uid === secret.labels[KEYS.sourceNamespaceUid]
    );
  });
}

/** The snapshot with the named namespaces (those present) terminating. */
function terminate(snapshot: Snapshot, doomed: readonly string[]): Snapshot {
  return {
    ...snapshot,
    namespaces: snapshot.namespaces.map((ns) =>
      doomed.includes(ns.name) && ns.deletionTimestamp === undefined
        ? { ...ns, deletionTimestamp: '2026-11-30T12:00:00Z' }
        : ns,
    ),
  };
}

describe('drain properties', () => {
  it('drain never deletes or demotes: it only adds updates that remove copied labels', () => {
    let drains = 0;
    fc.assert(
      fc.property(plannerInputArb, fc.subarray([...NAMESPACE_POOL]), (input, doomed) => {
        const snapshot = terminate(buildSnapshot(input), doomed);
        const off = plan(snapshot, PROPERTY_CONFIG, NOW).actions;
        const on = plan(snapshot, DRAIN_PROPERTY, NOW).actions;
        // Everything else is planned exactly as without drain.
        expect(JSON.stringify(on.filter((action) => !isDrain(action)))).toBe(JSON.stringify(off));
        for (const action of on) {
          if (!isDrain(action) || action.kind !== 'update') continue;
          drains++;
          const target = targetOf(snapshot, action);
          if (target === undefined) throw new Error(`drain of a missing ${action.target.name}`);
          const removed = Object.keys(target.labels).filter(
            (key) => !(key in action.secret.labels),
          );
          expect(removed.length).toBeGreaterThan(0);
          for (const key of removed) {
            expect(key.startsWith(KEYS.prefix)).toBe(true);
            expect(KEYS.reserved.has(key)).toBe(false);
          }
          for (const [key, value] of Object.entries(action.secret.labels))
            expect(target.labels[key]).toBe(value);
          expect(action.secret.labels[SECRET_TYPE]).toBe('cluster');
          expect(action.secret.annotations).toEqual(target.annotations);
          expect(action.secret.data).toEqual(target.data);
        }
      }),
      { numRuns: 150 },
    );
    console.info(`drain: ${drains} drain updates planned over 150 generated worlds`);
    expect(drains).toBeGreaterThan(0);
  });

  it('a drained registration survives every pass until its namespace is not found', () => {
    let survivors = 0;
    fc.assert(
      fc.property(plannerInputArb, fc.subarray([...NAMESPACE_POOL]), (input, doomed) => {
        // A registered world, then some of its namespaces start terminating.
        const registered = settle(buildSnapshot(input), PROPERTY_CONFIG, NOW);
        const snapshot = settle(terminate(registered, doomed), DRAIN_PROPERTY, NOW);
        const draining = terminatingRegistrations(snapshot, DRAIN_PROPERTY);
        for (const secret of draining) {
          survivors++;
          // Still there after settling, drained unless the prune veto keeps it as it was.
          if (secret.labels[KEYS.prune] !== 'disabled') {
            for (const key of Object.keys(secret.labels))
              expect(key.startsWith(KEYS.prefix) && !KEYS.reserved.has(key), key).toBe(false);
          }
        }
        // Namespaces that vanish without proof keep their registrations; proof deletes them.
        for (const proof of ['unknown', 'notFound'] as const) {
          let gone = scenario(snapshot);
          for (const ns of snapshot.namespaces.filter((n) => n.deletionTimestamp !== undefined))
            gone = gone.removeNamespace(
              ns.name,
              proof === 'unknown' ? { state: 'unknown', reason: 'timeout' } : { state: 'notFound' },
            );
          // Released: deleted, or taken over by another namespace claiming the same name.
          const released = plan(gone.build(), DRAIN_PROPERTY, NOW)
            .actions.filter(
              (action) =>
                action.kind === 'delete' ||
                (action.kind === 'update' && action.reason.code === 'taken-over'),
            )
            .map((action) => (action.kind === 'create' ? '' : action.target.name));
          for (const secret of draining) {
            const expected = proof === 'notFound' && secret.labels[KEYS.prune] !== 'disabled';
            expect(released.includes(secret.name), `${proof}: ${secret.name}`).toBe(expected);
          }
        }
      }),
      { numRuns: 150 },
    );
    console.info(`drain: ${survivors} terminating registrations followed until released`);
    expect(survivors).toBeGreaterThan(0);
  });
});
