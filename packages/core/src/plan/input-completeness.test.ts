// What incomplete input withholds (input-completeness.ts).

import { describe, expect, it } from 'vitest';
import { applyPlanToSnapshot } from '../test-support/apply-plan.js';
import {
  clusterSecretOf,
  HOUR,
  KEYS,
  NOW,
  outcomeOf,
  PEM,
  registeredAlpha,
  scenario,
  serverOf,
  settle,
  TARGET,
  testConfig,
} from '../test-support/fixtures.js';
import { kinds, only } from '../test-support/plan-assertions.js';
import type { Snapshot } from '../common/types.js';
import { plan } from './index.js';

describe('incomplete input', () => {
  const FAILED = 'the API server answered 503 Service Unavailable';

  /** What a gather reports when the Secret list of `name` failed: no candidates, and why. */
  function unread(snapshot: Snapshot, name: string): Snapshot {
    return {
      ...scenario(snapshot).removeKubeconfig(name).build(),
      unreadNamespaces: [{ name, reason: FAILED }],
    };
  }

  it('keeps a registered namespace whose Secrets could not be listed unchanged, not stale', () => {
    const result = plan(unread(registeredAlpha(), 'team-a'), testConfig(), NOW);
    expect(result.actions).toEqual([]);
    const outcome = outcomeOf(result, 'team-a');
    expect(outcome).toMatchObject({
      state: 'unchanged',
      cluster: 'alpha',
      reason: { code: 'input-incomplete' },
    });
    expect(outcome.reason?.message).toBe(
      `the Secrets of namespace team-a could not be listed (${FAILED}); cluster-alpha is kept as it is until they can be read`,
    );
  });

  it('does not call a new namespace whose Secrets could not be listed waiting', () => {
    const result = plan(
      unread(scenario().namespace('team-a').build(), 'team-a'),
      testConfig(),
      NOW,
    );
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'unchanged',
      reason: { code: 'input-incomplete' },
    });
  });

  it('does not give a younger newcomer a name an older namespace with unread Secrets claims', () => {
    const snapshot = unread(
      scenario()
        .child('team-old', { cluster: 'alpha', created: '2026-01-01T00:00:00Z' })
        .child('team-new', { cluster: 'alpha', created: '2026-06-01T00:00:00Z' })
        .build(),
      'team-old',
    );
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-new')).toMatchObject({
      state: 'unchanged',
      reason: { code: 'input-incomplete' },
    });
    expect(outcomeOf(result, 'team-new').reason?.message).toContain('team-old is older');
  });

  it('creates nothing while the cluster Secrets of the target namespace could not be listed', () => {
    // A hand-made Secret of the same server, hidden by the failed list, must not get a twin.
    const snapshot: Snapshot = {
      ...scenario().child('team-a', { cluster: 'alpha' }).build(),
      clusterSecretsUnread: FAILED,
    };
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'unchanged',
      reason: { code: 'input-incomplete' },
    });
    expect(outcomeOf(result, 'team-a').reason?.message).toBe(
      `the cluster Secrets of ${TARGET} could not be listed (${FAILED}), and one of them may already use this name or server; cluster-alpha is not created until they can be read`,
    );
  });

  it('still updates the credentials of an observed registration, but not its server', () => {
    const rotated = scenario(registeredAlpha())
      .kubeconfig('team-a', { server: serverOf('team-a'), credentials: PEM.other })
      .build();
    const credentials = plan(
      { ...rotated, clusterSecretsUnread: FAILED },
      testConfig(),
      NOW + HOUR,
    );
    expect(kinds(credentials)).toEqual(['update alpha']);
    expect(only(credentials, 'update').target.resourceVersion).toBe(
      clusterSecretOf(rotated, 'cluster-alpha').resourceVersion,
    );

    const moved = scenario(registeredAlpha())
      .kubeconfig('team-a', { server: 'https://moved.example.com' })
      .build();
    const server = plan({ ...moved, clusterSecretsUnread: FAILED }, testConfig(), NOW + HOUR);
    expect(server.actions).toEqual([]);
    expect(outcomeOf(server, 'team-a').reason?.code).toBe('input-incomplete');
  });

  it('withholds deletions and demotions while the cluster Secrets could not be listed, and says so', () => {
    const renamed = scenario(registeredAlpha()).label('team-a', KEYS.cluster, 'bravo').build();
    const renamedAndObserved = applyPlanToSnapshot(renamed, plan(renamed, testConfig(), NOW));
    expect(kinds(plan(renamedAndObserved, testConfig(), NOW))).toEqual(['demote alpha']);
    const gone = scenario(settle(scenario().child('team-b', { cluster: 'beta' }).build()))
      .removeNamespace('team-b')
      .build();
    expect(kinds(plan(gone, testConfig(), NOW))).toEqual(['delete beta']);

    for (const snapshot of [renamedAndObserved, gone]) {
      const result = plan({ ...snapshot, clusterSecretsUnread: FAILED }, testConfig(), NOW);
      expect(result.actions).toEqual([]);
      expect(result.warnings.filter((warning) => warning.code === 'input-incomplete')).toHaveLength(
        1,
      );
    }
  });
});
