// Deletion only on positive proof that the source is gone (source-proof.ts).

import { describe, expect, it } from 'vitest';
import {
  KEYS,
  NOW,
  outcomeOf,
  registeredAlpha,
  scenario,
  testConfig,
} from '../test-support/fixtures.js';
import { only } from '../test-support/plan-assertions.js';
import type { Snapshot } from '../common/types.js';
import { plan } from './index.js';

describe('deletion requires positive proof', () => {
  it('deletes when the source namespace is definitely not found', () => {
    const result = plan(
      scenario(registeredAlpha()).removeNamespace('team-a', { state: 'notFound' }).build(),
      testConfig(),
      NOW,
    );
    const deletion = only(result, 'delete');
    expect(deletion.reason).toEqual({ code: 'source-namespace-not-found', namespace: 'team-a' });
    expect(deletion.target).toMatchObject({
      name: 'cluster-alpha',
      uid: 'uid-cluster-alpha-created',
    });
  });

  it('deletes when a namespace of that name exists with another uid', () => {
    const snapshot = scenario(registeredAlpha())
      .removeNamespace('team-a', { state: 'present', uid: 'uid-new', labels: {} })
      .build();
    expect(only(plan(snapshot, testConfig(), NOW), 'delete').reason).toEqual({
      code: 'source-namespace-replaced',
      namespace: 'team-a',
      recordedUid: 'uid-team-a',
      observedUid: 'uid-new',
    });
  });

  it('hands the registration to a re-created managed namespace of the same name', () => {
    const snapshot = scenario(registeredAlpha())
      .child('team-a', { cluster: 'alpha', uid: 'uid-new' })
      .build();
    const update = only(plan(snapshot, testConfig(), NOW), 'update');
    expect(update.reason).toEqual({
      code: 'taken-over',
      namespace: 'team-a',
      previousNamespace: 'team-a',
    });
    expect(update.secret.labels[KEYS.sourceNamespaceUid]).toBe('uid-new');
  });

  it.each([
    ['the lookup failed', { state: 'unknown', reason: 'timeout' } as const],
    [
      'the namespace is still there (label removed)',
      { state: 'present', uid: 'uid-team-a', labels: {} } as const,
    ],
    [
      'the namespace is terminating',
      {
        state: 'present',
        uid: 'uid-team-a',
        labels: {},
        deletionTimestamp: '2026-11-30T11:00:00Z',
      } as const,
    ],
  ])('keeps the registration when %s', (_, lookup) => {
    const result = plan(
      scenario(registeredAlpha()).removeNamespace('team-a', lookup).build(),
      testConfig(),
      NOW,
    );
    expect(result.actions).toEqual([]);
  });

  it('keeps the registration and warns when no lookup was made', () => {
    const snapshot = registeredAlpha();
    const withoutNamespace: Snapshot = { ...snapshot, namespaces: [], candidateSecrets: [] };
    const result = plan(withoutNamespace, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(result.warnings).toMatchObject([{ code: 'source-unknown', secret: 'cluster-alpha' }]);
  });

  it('keeps the registration, reported stale, when the kubeconfig disappears', () => {
    const result = plan(
      scenario(registeredAlpha()).removeKubeconfig('team-a').build(),
      testConfig(),
      NOW,
    );
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'stale',
      reason: { code: 'no-candidate' },
    });
  });

  it('keeps the registration, reported stale with the reason, when the kubeconfig becomes unusable', () => {
    const snapshot = scenario(registeredAlpha())
      .kubeconfig('team-a', { text: 'not: [valid' })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    const outcome = outcomeOf(result, 'team-a');
    expect(outcome.state).toBe('stale');
    expect(outcome.reason?.code).toBe(outcome.rejected[0]?.refusal.code);
  });

  it('keeps a terminating namespace registered until it is gone, and does not update it', () => {
    const snapshot = scenario(registeredAlpha())
      .editNamespace('team-a', (ns) => ({ ...ns, deletionTimestamp: '2026-11-30T11:59:00Z' }))
      .kubeconfig('team-a', { server: 'https://moved.example.com' })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'unchanged',
      reason: { code: 'terminating' },
    });
  });

  it('lets prune: disabled veto a proven deletion, with a warning', () => {
    const snapshot = scenario(registeredAlpha())
      .labelSecret('cluster-alpha', KEYS.prune, 'disabled')
      .removeNamespace('team-a', { state: 'notFound' })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(result.warnings).toMatchObject([{ code: 'prune-disabled', secret: 'cluster-alpha' }]);
  });
});
