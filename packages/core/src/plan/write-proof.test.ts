// The proof rules a demote or delete is re-checked against right before it is sent: one
// test per rule, and properties tying them to the planner (a plan's own snapshot still
// proves every demotion and deletion it planned; a failed lookup proves none).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from './index.js';
import { applyPlanToSnapshot } from '../test-support/apply-plan.js';
import {
  buildSnapshot,
  PROPERTY_CONFIG,
  plannerInputArb,
  renamingInputArb,
} from '../test-support/arbitraries.js';
import { KEYS, NOW, testConfig } from '../test-support/fixtures.js';
import { proofSource, writeProof } from './write-proof.js';
import { isClusterKey } from '../config/sources.js';
import type { ProvenAction } from './write-proof.js';
import type { Action, ObservedSecret, Plan, Snapshot, SourceLookup } from '../common/types.js';

const CONFIG = testConfig();
const TARGET = {
  namespace: 'argocd',
  name: 'cluster-alpha',
  uid: 'uid-secret',
  resourceVersion: '7',
};

function registration(labels: Record<string, string>): ObservedSecret {
  return { ...TARGET, type: 'Opaque', labels, annotations: {}, data: {} };
}

/** The registration of namespace `team-a` (uid `uid-a`), cluster alpha. */
const OF_TEAM_A = registration({
  [KEYS.cluster]: 'alpha',
  [KEYS.sourceNamespace]: 'team-a',
  [KEYS.sourceNamespaceUid]: 'uid-a',
});

const present = (uid: string, cluster?: string): SourceLookup => ({
  state: 'present',
  uid,
  labels: cluster === undefined ? {} : { [KEYS.cluster]: cluster },
});
const NOT_FOUND: SourceLookup = { state: 'notFound' };
const UNKNOWN: SourceLookup = { state: 'unknown', reason: 'the API server answered 503' };

const demote = (namespace = 'team-a'): ProvenAction => ({
  kind: 'demote',
  cluster: 'alpha',
  target: TARGET,
  before: OF_TEAM_A,
  secret: { ...TARGET, type: 'Opaque', labels: {}, annotations: {}, data: {} },
  reason: { code: 'renamed', namespace, supersededBy: 'beta' },
});
const deleteFor = (reason: Extract<ProvenAction, { kind: 'delete' }>['reason']): ProvenAction => ({
  kind: 'delete',
  cluster: 'alpha',
  target: TARGET,
  reason,
});
const NOT_FOUND_DELETE = deleteFor({ code: 'source-namespace-not-found', namespace: 'team-a' });
const REPLACED_DELETE = deleteFor({
  code: 'source-namespace-replaced',
  namespace: 'team-a',
  recordedUid: 'uid-a',
  observedUid: 'uid-a2',
});
const EXPIRED_DELETE = deleteFor({
  code: 'demotion-expired',
  namespace: 'team-a',
  staleSince: '2026-11-01T00:00:00Z',
});

const lapse = (action: ProvenAction, now: SourceLookup, secret = OF_TEAM_A) => {
  const proof = writeProof(action, secret, now, CONFIG);
  return proof.holds ? 'holds' : proof.lapse;
};

describe('which source a write rests on', () => {
  it('is the reason’s source for a demote or delete, none for a create or update', () => {
    expect(proofSource(demote())).toBe('team-a');
    expect(proofSource(NOT_FOUND_DELETE)).toBe('team-a');
    const create: Action = {
      kind: 'create',
      cluster: 'alpha',
      secret: { ...TARGET, type: 'Opaque', labels: {}, annotations: {}, data: {} },
      reason: { code: 'new-registration', namespace: 'team-a' },
    };
    expect(proofSource(create)).toBeUndefined();
    // An expired demotion that records no source: nothing could reclaim it.
    expect(
      proofSource(
        deleteFor({ code: 'demotion-expired', namespace: '', staleSince: '2026-11-01T00:00:00Z' }),
      ),
    ).toBeUndefined();
  });
});

describe('a demotion (renamed) rests on its source existing as recorded and claiming another name', () => {
  it('holds while the namespace claims another name', () => {
    expect(lapse(demote(), present('uid-a', 'beta'))).toBe('holds');
  });
  it('lapses when the rename was reverted', () => {
    expect(lapse(demote(), present('uid-a', 'alpha'))).toBe('rename-reverted');
  });
  it("reads the name through the target's template, as the planner does", () => {
    const templated = testConfig({
      target: { name: 'hub', remote: true, nameTemplate: 'a-{name}' },
    });
    const proof = (action: ProvenAction, now: SourceLookup) => {
      const result = writeProof(action, OF_TEAM_A, now, templated);
      return result.holds ? 'holds' : result.lapse;
    };
    // A template added: the source's alpha now registers as a-alpha, so alpha goes aside.
    expect(proof(demote(), present('uid-a', 'alpha'))).toBe('holds');
    expect(proof({ ...demote(), cluster: 'a-alpha' }, present('uid-a', 'alpha'))).toBe(
      'rename-reverted',
    );
  });
  it('lapses when the namespace is gone (that is for a deletion to prove)', () => {
    expect(lapse(demote(), NOT_FOUND)).toBe('source-gone');
  });
  it('lapses when the namespace was re-created', () => {
    expect(lapse(demote(), present('uid-a2', 'beta'))).toBe('source-recreated');
  });
  it('reads a Cluster source by its own uid label and default name', () => {
    const ofCluster = registration({
      [KEYS.sourceKind]: 'Cluster',
      [KEYS.sourceNamespace]: 'fleet',
      [KEYS.sourceCluster]: 'alpha',
      [KEYS.sourceClusterUid]: 'uid-c',
    });
    // Unlabelled, a Cluster claims its own name: alpha, the demoted name.
    expect(lapse(demote('fleet/alpha'), present('uid-c'), ofCluster)).toBe('rename-reverted');
    expect(lapse(demote('fleet/alpha'), present('uid-c', 'beta'), ofCluster)).toBe('holds');
    expect(lapse(demote('fleet/alpha'), present('uid-other', 'beta'), ofCluster)).toBe(
      'source-recreated',
    );
  });
  it('reads a Cluster’s name as the planner does under namespace-name: its label ignored unless allowed', () => {
    const ofCluster = registration({
      [KEYS.sourceKind]: 'Cluster',
      [KEYS.sourceNamespace]: 'fleet',
      [KEYS.sourceCluster]: 'alpha',
      [KEYS.sourceClusterUid]: 'uid-c',
    });
    const renamed = { ...demote('fleet/alpha'), cluster: 'fleet.alpha' };
    const namespaced = testConfig({ capiClusterNames: 'namespace-name' });
    const proof = (config: typeof namespaced) =>
      writeProof(renamed, ofCluster, present('uid-c', 'beta'), config).holds;
    // The ignored label changes nothing: the Cluster still claims fleet.alpha.
    expect(proof(namespaced)).toBe(false);
    expect(proof({ ...namespaced, capiClusterNameLabel: true })).toBe(true);
  });
});

describe('a deletion rests on the proof its reason names', () => {
  it('source-namespace-not-found: holds only while the source is not found', () => {
    expect(lapse(NOT_FOUND_DELETE, NOT_FOUND)).toBe('holds');
    expect(lapse(NOT_FOUND_DELETE, present('uid-a2', 'other'))).toBe('source-exists-again');
  });
  it('source-namespace-replaced: holds while the recorded uid is not back', () => {
    expect(lapse(REPLACED_DELETE, NOT_FOUND)).toBe('holds');
    expect(lapse(REPLACED_DELETE, present('uid-a3', 'alpha'))).toBe('holds');
    expect(lapse(REPLACED_DELETE, present('uid-a', 'alpha'))).toBe('recorded-source-back');
  });
  it('source-cluster-not-found and source-cluster-replaced: the same proofs, of a Cluster by its uid label', () => {
    const ofCluster = registration({
      [KEYS.sourceKind]: 'Cluster',
      [KEYS.sourceNamespace]: 'fleet',
      [KEYS.sourceCluster]: 'alpha',
      [KEYS.sourceClusterUid]: 'uid-c',
    });
    const notFound = deleteFor({ code: 'source-cluster-not-found', namespace: 'fleet/alpha' });
    expect(proofSource(notFound)).toBe('fleet/alpha');
    expect(lapse(notFound, NOT_FOUND, ofCluster)).toBe('holds');
    expect(lapse(notFound, present('uid-c2', 'other'), ofCluster)).toBe('source-exists-again');
    const replaced = deleteFor({
      code: 'source-cluster-replaced',
      namespace: 'fleet/alpha',
      recordedUid: 'uid-c',
      observedUid: 'uid-c2',
    });
    expect(lapse(replaced, present('uid-c3', 'alpha'), ofCluster)).toBe('holds');
    expect(lapse(replaced, present('uid-c', 'alpha'), ofCluster)).toBe('recorded-source-back');
  });
  it('demotion-expired: holds unless the recorded source claims the name again', () => {
    expect(lapse(EXPIRED_DELETE, NOT_FOUND)).toBe('holds');
    expect(lapse(EXPIRED_DELETE, present('uid-a', 'beta'))).toBe('holds');
    expect(lapse(EXPIRED_DELETE, present('uid-a2', 'alpha'))).toBe('holds');
    expect(lapse(EXPIRED_DELETE, present('uid-a', 'alpha'))).toBe('claimed-again');
  });
  it('a failed lookup proves nothing, for every reason', () => {
    for (const action of [demote(), NOT_FOUND_DELETE, REPLACED_DELETE, EXPIRED_DELETE])
      expect(lapse(action, UNKNOWN)).toBe('source-unreadable');
  });
});

/** What a fresh lookup of `source` would answer in the world `snapshot` describes. */
function lookupIn(snapshot: Snapshot, source: string): SourceLookup {
  const managed = [
    ...snapshot.namespaces,
    ...(snapshot.clusters ?? []).map((c) => ({ ...c, name: `${c.namespace}/${c.name}` })),
  ].find((candidate) => candidate.name === source);
  if (managed !== undefined) return { state: 'present', uid: managed.uid, labels: managed.labels };
  return snapshot.sourceLookups[source] ?? UNKNOWN;
}

function provenActions(result: Plan): { action: ProvenAction; source: string }[] {
  return result.actions.flatMap((action) => {
    const source = proofSource(action);
    return source === undefined || (action.kind !== 'demote' && action.kind !== 'delete')
      ? []
      : [{ action, source }];
  });
}

/** Each pass's snapshot and plan, a few passes on (a demotion waits for a later pass). */
function passes(snapshot: Snapshot, count: number): { snapshot: Snapshot; result: Plan }[] {
  const out: { snapshot: Snapshot; result: Plan }[] = [];
  let current = snapshot;
  for (let pass = 0; pass < count; pass++) {
    const result = plan(current, PROPERTY_CONFIG, NOW);
    out.push({ snapshot: current, result });
    if (result.actions.length === 0) break;
    current = applyPlanToSnapshot(current, result);
  }
  return out;
}

describe('proof rules and the planner', () => {
  it('every demotion and deletion a plan holds is still proven by the world it was planned from', () => {
    const kinds = [
      'renamed of a Cluster',
      'renamed of a namespace',
      'source-cluster-not-found of a Cluster',
      'source-cluster-replaced of a Cluster',
      'source-namespace-not-found of a namespace',
      'source-namespace-replaced of a namespace',
    ];
    const seen = new Set<string>();
    // The property is only as good as the cases it saw. A re-created Cluster comes up in about
    // one generated world of eighty, so 150 runs miss it now and then: fresh rounds of runs
    // follow until every kind was seen (up to ten, which all miss it about once in 10^8).
    // An expired demotion is rare in generated worlds; its rule has its own test above.
    for (let round = 0; round < 10 && !kinds.every((kind) => seen.has(kind)); round++)
      fc.assert(
        fc.property(renamingInputArb, (input) => {
          for (const { snapshot, result } of passes(buildSnapshot(input), 3)) {
            for (const { action, source } of provenActions(result)) {
              const registration = snapshot.clusterSecrets.find((s) => s.uid === action.target.uid);
              const now = lookupIn(snapshot, source);
              expect(
                writeProof(action, registration, now, PROPERTY_CONFIG),
                `${action.kind} ${action.cluster} (${action.reason.code})`,
              ).toEqual({ holds: true });
              seen.add(
                `${action.reason.code} of a ${isClusterKey(source) ? 'Cluster' : 'namespace'}`,
              );
            }
          }
        }),
        { numRuns: 150 },
      );
    expect([...seen].filter((kind) => !kind.startsWith('demotion-expired')).sort()).toEqual(kinds);
  });

  it('a failed lookup never proves a planned demotion or deletion', () => {
    fc.assert(
      fc.property(plannerInputArb, (input) => {
        const snapshot = buildSnapshot(input);
        for (const { action } of provenActions(plan(snapshot, PROPERTY_CONFIG, NOW))) {
          const registration = snapshot.clusterSecrets.find((s) => s.uid === action.target.uid);
          expect(writeProof(action, registration, UNKNOWN, PROPERTY_CONFIG).holds).toBe(false);
        }
      }),
      { numRuns: 60 },
    );
  });
});
