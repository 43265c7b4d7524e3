// When a credential-only change is written (credential-churn.ts), and which changes are
// written at once (compare.ts).

import { describe, expect, it } from 'vitest';
import { encodeBase64Text } from '../common/base64.js';
import { describeChanges } from '../present/render-diff.js';
import {
  DAY,
  HOUR,
  KEYS,
  MINUTE,
  NOW,
  outcomeOf,
  PEM,
  registeredAlpha,
  scenario,
  serverOf,
  settle,
  testConfig,
} from '../test-support/fixtures.js';
import { only } from '../test-support/plan-assertions.js';
import type { Snapshot } from '../common/types.js';
import { plan } from './index.js';
import { createSettledRepeat } from '../repeat/settled-repeat.js';

describe('credential churn', () => {
  /** team-a registered at NOW with client; its kubeconfig then re-minted with client2. */
  function reminted(config = testConfig()): Snapshot {
    const registered = settle(scenario().child('team-a').build(), config, NOW);
    return scenario(registered)
      .kubeconfig('team-a', { server: serverOf('team-a'), credentials: PEM.client2 })
      .build();
  }

  it('writes a credential-only change at most once per interval', () => {
    const soon = plan(reminted(), testConfig(), NOW + 30_000);
    expect(soon.actions).toEqual([]);
    expect(outcomeOf(soon, 'team-a')).toMatchObject({
      state: 'unchanged',
      reason: { code: 'credential-refresh-deferred' },
      credentialNotAfter: '2027-11-29T17:57:37Z',
    });

    const later = plan(reminted(), testConfig(), NOW + MINUTE);
    const update = only(later, 'update');
    expect(update.reason.code).toBe('credentials-changed');
    expect(update.secret.annotations[KEYS.credentialsUpdatedAt]).toBe('2026-11-30T12:01:00Z');
    expect(outcomeOf(later, 'team-a').state).toBe('registered');
  });

  it('shows certificates in the preview only as fingerprints, and keys with no hash at all', () => {
    const update = only(plan(reminted(), testConfig(), NOW + HOUR), 'update');
    const fields = describeChanges(update).map((change) => change.field);
    expect(fields).toEqual([
      'config.tlsClientConfig.certData',
      'config.tlsClientConfig.keyData',
      `annotations.${KEYS.credentialsUpdatedAt}`,
    ]);
    const [cert, key] = describeChanges(update);
    expect(cert?.sensitive).toBe(true);
    expect(cert?.before).toMatch(/^sha256:[0-9a-f]{12}$/);
    expect(cert?.after).toMatch(/^sha256:[0-9a-f]{12}$/);
    expect(cert?.before).not.toBe(cert?.after);
    // A private key's hash would let anyone holding a candidate key confirm it.
    expect(key).toEqual({
      field: 'config.tlsClientConfig.keyData',
      before: '(sensitive value)',
      after: '(sensitive value)',
      sensitive: true,
    });
    expect(JSON.stringify(describeChanges(update))).not.toContain(
      encodeBase64Text(PEM.client2.cert).slice(0, 40),
    );
  });

  it('with a refresh window, waits until the registered certificate nears expiry', () => {
    const config = testConfig({ credentialRefreshWindowMs: 30 * DAY });
    // client is valid until 2027-11-29: far outside a 30-day window a day later.
    expect(plan(reminted(config), config, NOW + DAY).actions).toEqual([]);
    // Within 30 days of its expiry the new certificate is written.
    const nearExpiry = Date.parse('2027-11-10T00:00:00Z');
    expect(only(plan(reminted(config), config, nearExpiry), 'update').reason.code).toBe(
      'credentials-changed',
    );
  });

  it('writes at once when the registered certificate has expired', () => {
    const afterExpiry = Date.parse('2027-12-01T00:00:00Z');
    const registered = settle(
      scenario().child('team-a').build(),
      testConfig(),
      afterExpiry - 10_000,
    );
    const snapshot = scenario(registered)
      .kubeconfig('team-a', { server: serverOf('team-a'), credentials: PEM.client2 })
      .build();
    expect(only(plan(snapshot, testConfig(), afterExpiry), 'update').reason.code).toBe(
      'credentials-changed',
    );
  });

  it('writes a changed issuer at once', () => {
    const snapshot = scenario(registeredAlpha())
      .kubeconfig('team-a', { server: serverOf('team-a'), credentials: PEM.other })
      .build();
    expect(only(plan(snapshot, testConfig(), NOW + 1000), 'update').reason.code).toBe(
      'credentials-changed',
    );
  });

  it('writes a changed CA at once', () => {
    const snapshot = scenario(registeredAlpha())
      .kubeconfig('team-a', {
        server: serverOf('team-a'),
        ca: PEM.otherCa,
        credentials: PEM.client2,
      })
      .build();
    const update = only(plan(snapshot, testConfig(), NOW + 1000), 'update');
    expect(update.reason.code).toBe('ca-changed');
    expect(
      describeChanges(update).find((change) => change.field === 'config.tlsClientConfig.caData'),
    ).toMatchObject({ sensitive: true });
  });

  it('writes a changed server at once', () => {
    const snapshot = scenario(registeredAlpha())
      .kubeconfig('team-a', { server: 'https://moved.example.com', credentials: PEM.client2 })
      .build();
    const update = only(plan(snapshot, testConfig(), NOW + 1000), 'update');
    expect(update.reason.code).toBe('server-changed');
    expect(describeChanges(update)[0]).toEqual({
      field: 'data.server',
      before: serverOf('team-a'),
      after: 'https://moved.example.com',
      sensitive: false,
    });
  });

  // A daemon's settled repeat hands a plan without actions out again while its world is
  // unchanged (settled-repeat.ts): a deferral's deadline must end that, to the millisecond.
  // It recognises a world by resourceVersions, which a gather always has.
  const served = (snapshot: Snapshot): Snapshot => ({
    ...snapshot,
    namespaces: snapshot.namespaces.map((namespace) => ({ ...namespace, resourceVersion: '1' })),
  });

  it('a settled plan repeats a deferred write only until the interval has passed', () => {
    const snapshot = served(reminted());
    const repeat = createSettledRepeat();
    const deferred = plan(snapshot, testConfig(), NOW + 30_000, { repeat });
    expect(deferred.actions).toEqual([]);
    expect(plan(snapshot, testConfig(), NOW + MINUTE - 1, { repeat })).toBe(deferred);
    const due = plan(snapshot, testConfig(), NOW + MINUTE, { repeat });
    expect(only(due, 'update').reason.code).toBe('credentials-changed');
  });

  it('a settled plan repeats a write deferred by the refresh window only until the window opens', () => {
    const config = testConfig({ credentialRefreshWindowMs: 30 * DAY });
    const snapshot = served(reminted(config));
    const repeat = createSettledRepeat();
    const deferred = plan(snapshot, config, NOW + DAY, { repeat });
    expect(deferred.actions).toEqual([]);
    const opens = Date.parse('2027-11-29T17:57:37Z') - 30 * DAY;
    expect(plan(snapshot, config, opens - 1, { repeat })).toBe(deferred);
    expect(only(plan(snapshot, config, opens, { repeat }), 'update').reason.code).toBe(
      'credentials-changed',
    );
  });

  it('a settled plan repeats a deferred write only until the registered certificate expires', () => {
    const expiry = Date.parse('2027-11-29T17:57:37Z');
    const registered = settle(scenario().child('team-a').build(), testConfig(), expiry - 10_000);
    const snapshot = served(
      scenario(registered)
        .kubeconfig('team-a', { server: serverOf('team-a'), credentials: PEM.client2 })
        .build(),
    );
    const repeat = createSettledRepeat();
    const deferred = plan(snapshot, testConfig(), expiry - 5_000, { repeat });
    expect(deferred.actions).toEqual([]);
    expect(plan(snapshot, testConfig(), expiry - 1, { repeat })).toBe(deferred);
    expect(only(plan(snapshot, testConfig(), expiry, { repeat }), 'update').reason.code).toBe(
      'credentials-changed',
    );
  });
});
