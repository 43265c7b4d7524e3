// The outcome names the registered credential's form (metrics count registrations by it,
// `status` shows it), from the claim's translation: on a write, on a no-op, and while a
// credential-only change is deferred.

import { describe, expect, it } from 'vitest';
import { plan } from './index.js';
import { createSettledRepeat } from '../repeat/settled-repeat.js';
import { parseConfig } from '../config/config.js';
import {
  MINUTE,
  NOW,
  outcomeOf,
  PEM,
  scenario,
  serverOf,
  settle,
  testConfig,
} from '../test-support/fixtures.js';
import { capaUserKubeconfig } from '../test-fixtures/cloud-kubeconfigs.js';
import type { Credentials } from '../test-support/fixtures.js';

describe('NamespaceOutcome.credential', () => {
  it.each<[string, Credentials]>([
    ['client-certificate', PEM.client],
    ['bearer-token', { token: 'not-a-real-token' }],
    ['basic-auth', { username: 'admin', password: 'not-a-real-password' }],
  ])('is %s for a registration with that credential', (credential, credentials) => {
    const world = scenario().child('team-a', { credentials }).build();
    const written = plan(world, testConfig(), NOW);
    expect(outcomeOf(written, 'team-a')).toMatchObject({ state: 'registered', credential });
    const settled = settle(world, testConfig(), NOW);
    expect(outcomeOf(plan(settled, testConfig(), NOW + MINUTE), 'team-a')).toMatchObject({
      state: 'unchanged',
      credential,
    });
  });

  it('is exec for a translated exec kubeconfig, which has no certificate expiry', () => {
    const parsed = parseConfig({
      providers: ['capa-eks'],
      execCredentials: true,
      execEksClusterNames: ['prod'],
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const world = scenario()
      .namespace('team-a', { cluster: 'prod-eks' })
      .kubeconfig('team-a', {
        name: 'prod-user-kubeconfig',
        key: 'value',
        type: 'cluster.x-k8s.io/secret',
        text: capaUserKubeconfig('prod'),
      })
      .build();
    const outcome = outcomeOf(plan(world, parsed.config, NOW), 'team-a');
    expect(outcome.credential).toBe('exec');
    expect(outcome.credentialNotAfter).toBeUndefined();
  });

  it('is kept on the deferral outcome of a credential-only change', () => {
    const registered = settle(scenario().child('team-a').build(), testConfig(), NOW);
    const reminted = scenario(registered)
      .kubeconfig('team-a', { server: serverOf('team-a'), credentials: PEM.client2 })
      .build();
    expect(outcomeOf(plan(reminted, testConfig(), NOW + 30_000), 'team-a')).toMatchObject({
      reason: { code: 'credential-refresh-deferred' },
      credential: 'client-certificate',
    });
  });

  it('carries the registered certificate expiry on a stale outcome, read from the existing registration', () => {
    const registered = settle(scenario().child('team-a').build(), testConfig(), NOW);
    const gone = scenario(registered).removeKubeconfig('team-a').build();
    expect(outcomeOf(plan(gone, testConfig(), NOW + MINUTE), 'team-a')).toMatchObject({
      state: 'stale',
      credentialNotAfter: '2027-11-29T17:57:37Z',
    });
    const unusable = scenario(registered).kubeconfig('team-a', { text: 'not: [valid' }).build();
    expect(outcomeOf(plan(unusable, testConfig(), NOW + MINUTE), 'team-a')).toMatchObject({
      state: 'stale',
      credentialNotAfter: '2027-11-29T17:57:37Z',
    });
  });

  it('has no expiry on a stale outcome whose registration holds no client certificate', () => {
    const withToken = scenario()
      .child('team-a', { credentials: { token: 'not-a-real-token' } })
      .build();
    const registered = settle(withToken, testConfig(), NOW);
    const gone = scenario(registered).removeKubeconfig('team-a').build();
    const outcome = outcomeOf(plan(gone, testConfig(), NOW + MINUTE), 'team-a');
    expect(outcome.state).toBe('stale');
    expect(outcome.credentialNotAfter).toBeUndefined();
  });

  it('follows a change of form after a settled plan was repeated', () => {
    const repeat = createSettledRepeat();
    const withToken = scenario()
      .child('team-a', { credentials: { token: 'not-a-real-token' } })
      .build();
    const settled = settle(withToken, testConfig(), NOW);
    expect(outcomeOf(plan(settled, testConfig(), NOW, { repeat }), 'team-a').credential).toBe(
      'bearer-token',
    );
    const withCert = scenario(settled)
      .kubeconfig('team-a', {
        server: serverOf('team-a'),
        credentials: PEM.client,
        resourceVersion: '2',
      })
      .build();
    const switched = plan(settle(withCert, testConfig(), NOW), testConfig(), NOW, { repeat });
    expect(outcomeOf(switched, 'team-a').credential).toBe('client-certificate');
  });
});
