// A renamed namespace's old registration: demoted, restored or expired (rename.ts).

import { describe, expect, it } from 'vitest';
import { ARGOCD_SECRET_TYPE_LABEL as SECRET_TYPE } from '../config/label-keys.js';
import { applyPlanToSnapshot } from '../test-support/apply-plan.js';
import {
  clusterSecretOf,
  dataOf,
  DAY,
  HOUR,
  KEYS,
  NOW,
  outcomeOf,
  registeredAlpha,
  scenario,
  serverOf,
  settle,
  testConfig,
} from '../test-support/fixtures.js';
import { kinds, only } from '../test-support/plan-assertions.js';
import type { Snapshot } from '../common/types.js';
import { plan } from './index.js';

describe('rename', () => {
  function renamed(): Snapshot {
    return scenario(registeredAlpha()).label('team-a', KEYS.cluster, 'bravo').build();
  }

  it('registers the new name first, and demotes the old one only once the new one is observed', () => {
    const first = plan(renamed(), testConfig(), NOW);
    // Never in one plan: if the create failed and the demotion succeeded, ArgoCD would lose
    // the cluster.
    expect(kinds(first)).toEqual(['create bravo']);
    expect(outcomeOf(first, 'team-a')).toMatchObject({ state: 'registered', cluster: 'bravo' });
    // The plan says what a further round does once its create is observed.
    expect(first.followUps).toEqual([
      {
        kind: 'demote',
        cluster: 'alpha',
        secret: 'cluster-alpha',
        source: 'team-a',
        after: { kind: 'create', cluster: 'bravo', secret: 'cluster-bravo' },
      },
    ]);

    const created = applyPlanToSnapshot(renamed(), first);
    const result = plan(created, testConfig(), NOW);
    expect(kinds(result)).toEqual(['demote alpha']);
    expect(result.followUps).toBeUndefined();
    const demote = only(result, 'demote');
    expect(demote.reason).toEqual({ code: 'renamed', namespace: 'team-a', supersededBy: 'bravo' });
    expect(demote.secret.labels).not.toHaveProperty([SECRET_TYPE]);
    expect(demote.secret.labels[KEYS.orphanedSecretType]).toBe('cluster');
    expect(demote.secret.labels[KEYS.supersededBy]).toBe('bravo');
    expect(demote.secret.annotations[KEYS.staleSince]).toBe('2026-11-30T12:00:00Z');
    expect(demote.secret.data).toEqual(clusterSecretOf(renamed(), 'cluster-alpha').data);
    expect(outcomeOf(result, 'team-a')).toMatchObject({ state: 'unchanged', cluster: 'bravo' });
  });

  it("hands a renamed namespace's old name to another only once its new name is observed", () => {
    const before = settle(
      scenario().child('team-a', { cluster: 'alpha' }).child('team-b', { cluster: 'beta' }).build(),
    );
    // team-b moves on to gamma, team-a moves to beta, which team-b still holds.
    const moved = scenario(before)
      .label('team-b', KEYS.cluster, 'gamma')
      .label('team-a', KEYS.cluster, 'beta')
      .build();
    const first = plan(moved, testConfig(), NOW);
    expect(kinds(first)).toEqual(['create gamma']);
    expect(outcomeOf(first, 'team-a')).toMatchObject({
      state: 'refused',
      reason: { code: 'name-claimed' },
    });
    expect(outcomeOf(first, 'team-a').reason?.message).toContain('once gamma is registered');

    const second = plan(applyPlanToSnapshot(moved, first), testConfig(), NOW);
    expect(kinds(second)).toEqual(['update beta']);
    expect(only(second, 'update').reason).toEqual({
      code: 'taken-over',
      namespace: 'team-a',
      previousNamespace: 'team-b',
    });
    const third = plan(
      applyPlanToSnapshot(applyPlanToSnapshot(moved, first), second),
      testConfig(),
      NOW,
    );
    expect(kinds(third)).toEqual(['demote alpha']);
  });

  it('restores the demoted registration intact when the label is reverted', () => {
    const original = clusterSecretOf(registeredAlpha(), 'cluster-alpha');
    const afterRename = settle(renamed());
    const reverted = scenario(afterRename).label('team-a', KEYS.cluster, 'alpha').build();

    const result = plan(reverted, testConfig(), NOW + HOUR);
    expect(kinds(result)).toEqual(['update alpha']);
    const restore = only(result, 'update');
    expect(restore.reason).toEqual({ code: 'restored-from-demotion', namespace: 'team-a' });
    expect(restore.secret.labels).toEqual(original.labels);
    expect(restore.secret.annotations).toEqual(original.annotations);
    expect(restore.secret.data).toEqual(original.data);
    // bravo is demoted once the restored alpha is observed, as after any rename.
    expect(kinds(plan(applyPlanToSnapshot(reverted, result), testConfig(), NOW + HOUR))).toEqual([
      'demote bravo',
    ]);
  });

  it('keeps the old registration while the new name cannot be registered', () => {
    const snapshot = scenario(renamed()).foreign('cluster-bravo').build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(result.followUps).toBeUndefined();
    expect(outcomeOf(result, 'team-a').reason?.message).toContain('cluster-alpha stays registered');
  });

  it('lets prune: disabled veto the demotion, with a warning', () => {
    const snapshot = scenario(renamed())
      .labelSecret('cluster-alpha', KEYS.prune, 'disabled')
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions.filter((action) => action.kind === 'demote')).toEqual([]);
    // Vetoed: no further round would demote it either.
    expect(result.followUps).toBeUndefined();
    expect(result.warnings.map((warning) => warning.code)).toContain('prune-disabled');
  });

  it('deletes a demoted registration once it is older than the demoted TTL, not before', () => {
    const demoted = settle(renamed());
    expect(plan(demoted, testConfig(), NOW + DAY).actions).toEqual([]);
    expect(only(plan(demoted, testConfig(), NOW + DAY + 1000), 'delete').reason).toEqual({
      code: 'demotion-expired',
      namespace: 'team-a',
      staleSince: '2026-11-30T12:00:00Z',
    });
  });

  it('keeps an expired demotion while its source cannot be read, as its write proof would', () => {
    // The deletion is withheld only while the source claims the name again, which an
    // unreadable source can neither show nor rule out: no proof, no deletion.
    const unread = { state: 'unknown', reason: 'the API server timed out' } as const;
    const demoted = scenario(settle(renamed())).removeNamespace('team-a', unread).build();
    const result = plan(demoted, testConfig(), NOW + DAY + 1000);
    expect(result.actions).toEqual([]);
    expect(result.warnings.map((warning) => warning.code)).toContain('source-unknown');
    // Once the source reads as gone, both registrations go with it.
    const gone = scenario(demoted).lookup('team-a', { state: 'notFound' }).build();
    const deletes = plan(gone, testConfig(), NOW + DAY + 1000).actions;
    expect(
      deletes.map((action) => `${action.kind} ${action.cluster} ${action.reason.code}`),
    ).toEqual([
      'delete alpha source-namespace-not-found',
      'delete bravo source-namespace-not-found',
    ]);
  });

  it('lets another namespace take over a demoted registration', () => {
    const snapshot = scenario(settle(renamed())).child('team-z', { cluster: 'alpha' }).build();
    const update = only(plan(snapshot, testConfig(), NOW), 'update');
    expect(update.reason).toEqual({
      code: 'taken-over',
      namespace: 'team-z',
      previousNamespace: 'team-a',
    });
    expect(update.secret.labels[SECRET_TYPE]).toBe('cluster');
    expect(update.secret.labels).not.toHaveProperty([KEYS.orphanedSecretType]);
  });

  it('does not swap two names: every order of the two writes would drop a cluster meanwhile', () => {
    const before = settle(
      scenario().child('team-a', { cluster: 'alpha' }).child('team-b', { cluster: 'beta' }).build(),
    );
    const swapped = scenario(before)
      .label('team-a', KEYS.cluster, 'beta')
      .label('team-b', KEYS.cluster, 'alpha')
      .build();
    const result = plan(swapped, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    for (const namespace of ['team-a', 'team-b']) {
      const outcome = outcomeOf(result, namespace);
      expect(outcome).toMatchObject({ state: 'refused', reason: { code: 'name-claimed' } });
      expect(outcome.reason?.message).toContain('rename one of them to a third name first');
    }
    // Through a third name, it converges without ever dropping either cluster.
    const viaThird = settle(scenario(swapped).label('team-a', KEYS.cluster, 'gamma').build());
    const done = settle(scenario(viaThird).label('team-a', KEYS.cluster, 'beta').build());
    expect(dataOf(clusterSecretOf(done, 'cluster-alpha'), 'server')).toBe(serverOf('team-b'));
    expect(dataOf(clusterSecretOf(done, 'cluster-beta'), 'server')).toBe(serverOf('team-a'));
  });
});
