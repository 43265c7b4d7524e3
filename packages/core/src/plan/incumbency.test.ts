import { describe, expect, it } from 'vitest';
import { plan } from './index.js';
import {
  KEYS,
  NOW,
  outcomeOf,
  registeredAlpha,
  scenario,
  settle,
  testConfig,
} from '../test-support/fixtures.js';
import { only } from '../test-support/plan-assertions.js';

describe('the message to the claimant that lost a contested name', () => {
  it('names the holder, says it still claims the name, and suggests renaming this namespace', () => {
    const registered = settle(scenario().child('team-a', { cluster: 'alpha' }).build());
    const snapshot = scenario(registered)
      .child('team-b', { cluster: 'alpha', created: '2020-01-01T00:00:00Z' })
      .build();
    const result = plan(snapshot, testConfig(), NOW);

    expect(result.actions).toEqual([]);
    const outcome = outcomeOf(result, 'team-b');
    expect(outcome).toMatchObject({ state: 'refused', reason: { code: 'name-claimed' } });
    expect(outcome.reason?.message).toBe(
      `cluster-alpha is the registration of namespace team-a, which still claims cluster name "alpha"; to register namespace team-b, change its ${KEYS.cluster} label to another name`,
    );
    expect(outcome.reason?.message).not.toContain('no longer');
    expect(outcome.reason?.message).not.toContain('delete');
  });

  it('says the same when the holder also vetoes pruning (removing the veto would not help)', () => {
    const registered = settle(scenario().child('team-a', { cluster: 'alpha' }).build());
    const snapshot = scenario(registered)
      .labelSecret('cluster-alpha', KEYS.prune, 'disabled')
      .child('team-b', { cluster: 'alpha' })
      .build();
    const message = outcomeOf(plan(snapshot, testConfig(), NOW), 'team-b').reason?.message;
    expect(message).toContain('namespace team-a, which still claims cluster name "alpha"');
    expect(message).not.toContain('delete');
  });

  it('still tells a claimant when the holder no longer claims a valid name', () => {
    const registered = settle(scenario().child('team-a', { cluster: 'alpha' }).build());
    const snapshot = scenario(registered)
      .label('team-a', KEYS.cluster, 'Not_Valid')
      .child('team-b', { cluster: 'alpha' })
      .build();
    const message = outcomeOf(plan(snapshot, testConfig(), NOW), 'team-b').reason?.message;
    expect(message).toContain('namespace team-a, which no longer claims a valid cluster name');
  });
});

describe('contested names', () => {
  it('gives a contested name to the oldest claimant and refuses the other', () => {
    const snapshot = scenario()
      .child('young', { cluster: 'alpha', created: '2026-06-01T00:00:00Z' })
      .child('old', { cluster: 'alpha', created: '2026-01-01T00:00:00Z' })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(only(result, 'create').reason.namespace).toBe('old');
    expect(outcomeOf(result, 'young')).toMatchObject({
      state: 'refused',
      reason: { code: 'name-claimed' },
    });
    expect(outcomeOf(result, 'young').reason?.message).toContain('namespace old');
  });

  it('breaks an age tie by namespace name', () => {
    const snapshot = scenario()
      .child('b-team', { cluster: 'alpha' })
      .child('a-team', { cluster: 'alpha' })
      .build();
    expect(only(plan(snapshot, testConfig(), NOW), 'create').reason.namespace).toBe('a-team');
  });

  it('does not let an older claimant that cannot register block a younger healthy one', () => {
    const snapshot = scenario()
      .namespace('old', { cluster: 'alpha', created: '2026-01-01T00:00:00Z' })
      .kubeconfig('old', { credentials: { exec: 'aws' } })
      .child('young', { cluster: 'alpha', created: '2026-06-01T00:00:00Z' })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(only(result, 'create').reason.namespace).toBe('young');
    expect(outcomeOf(result, 'old')).toMatchObject({
      state: 'refused',
      reason: { code: 'name-claimed' },
    });
  });

  it('keeps the name with the namespace that holds the registration, even against an older one', () => {
    const snapshot = scenario(registeredAlpha())
      .child('older', { cluster: 'alpha', created: '2020-01-01T00:00:00Z' })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a').state).toBe('unchanged');
    expect(outcomeOf(result, 'older')).toMatchObject({
      state: 'refused',
      reason: { code: 'name-claimed' },
    });
  });
});

describe('the Event message of a claimant refused for another source’s name', () => {
  const eventOf = (reason: { message: string; sourceMessage?: string } | undefined) =>
    reason?.sourceMessage;

  it('does not name the holder, which the status and logs still do', () => {
    const registered = settle(scenario().child('team-a', { cluster: 'alpha' }).build());
    const snapshot = scenario(registered).child('team-b', { cluster: 'alpha' }).build();
    const reason = outcomeOf(plan(snapshot, testConfig(), NOW), 'team-b').reason;
    expect(reason?.message).toContain('namespace team-a');
    expect(eventOf(reason)).toBe(
      `cluster name "alpha" is already registered for another source; change the ${KEYS.cluster} label of this namespace to another name, or ask the registrar’s operator (argocd-cluster-registrar status names the holder)`,
    );
  });

  it('does not name the older claimant that won the name this pass', () => {
    const snapshot = scenario()
      .child('young', { cluster: 'alpha', created: '2026-06-01T00:00:00Z' })
      .child('old', { cluster: 'alpha', created: '2026-01-01T00:00:00Z' })
      .build();
    const reason = outcomeOf(plan(snapshot, testConfig(), NOW), 'young').reason;
    expect(reason?.message).toContain('namespace old');
    expect(eventOf(reason)).toBe(
      `cluster name "alpha" is also claimed by another source, which registers it; change the ${KEYS.cluster} label of this namespace to another name, or ask the registrar’s operator (argocd-cluster-registrar status names the holder)`,
    );
  });

  it('does not name the holder that is being renamed away', () => {
    const registered = settle(scenario().child('team-a', { cluster: 'alpha' }).build());
    const snapshot = scenario(registered)
      .label('team-a', KEYS.cluster, 'alpha-2')
      .child('team-b', { cluster: 'alpha' })
      .build();
    const reason = outcomeOf(plan(snapshot, testConfig(), NOW), 'team-b').reason;
    expect(reason?.message).toContain('namespace team-a');
    expect(eventOf(reason)).not.toContain('team-a');
    expect(eventOf(reason)).not.toContain('alpha-2');
  });
});
