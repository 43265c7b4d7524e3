import { describe, expect, it } from 'vitest';
import { encodeBase64Text } from '../base64.js';
import { plan } from './index.js';
import { describeChanges } from '../render-diff.js';
import {
  clusterSecretOf,
  configOf,
  dataOf,
  DAY,
  foreignClusterSecret,
  HOUR,
  KEYS,
  MINUTE,
  NOW,
  outcomeOf,
  PEM,
  scenario,
  serverOf,
  settle,
  TARGET,
  testConfig,
} from '../test-support/fixtures.js';
import { applyPlanToSnapshot } from '../test-support/apply-plan.js';
import type { Action, Plan, Snapshot } from '../types.js';

const SECRET_TYPE = 'argocd.argoproj.io/secret-type';

function only<K extends Action['kind']>(result: Plan, kind: K): Extract<Action, { kind: K }> {
  const actions = result.actions.filter(
    (action): action is Extract<Action, { kind: K }> => action.kind === kind,
  );
  expect(
    actions,
    `exactly one ${kind} in ${JSON.stringify(result.actions.map((a) => `${a.kind} ${a.cluster}`))}`,
  ).toHaveLength(1);
  return actions[0] as Extract<Action, { kind: K }>;
}

function kinds(result: Plan): string[] {
  return result.actions.map((action) => `${action.kind} ${action.cluster}`);
}

/** team-a registered as alpha, the way a running registrar left it. */
function registeredAlpha(): Snapshot {
  return settle(scenario().child('team-a', { cluster: 'alpha' }).build());
}

describe('registering a namespace', () => {
  it('creates cluster-<name> with the labels, data and config ArgoCD needs', () => {
    const result = plan(
      scenario().child('team-a', { cluster: 'alpha' }).build(),
      testConfig(),
      NOW,
    );

    const create = only(result, 'create');
    expect(create.reason).toEqual({ code: 'new-registration', namespace: 'team-a' });
    expect(create.secret.name).toBe('cluster-alpha');
    expect(create.secret.namespace).toBe(TARGET);
    expect(create.secret.type).toBe('Opaque');
    expect(create.secret.labels).toEqual({
      [SECRET_TYPE]: 'cluster',
      [KEYS.managedBy]: 'cluster-registrar',
      [KEYS.cluster]: 'alpha',
      [KEYS.sourceNamespace]: 'team-a',
      [KEYS.sourceNamespaceUid]: 'uid-team-a',
      [KEYS.provider]: 'k3k',
    });
    expect(create.secret.annotations).toEqual({
      [KEYS.credentialsUpdatedAt]: '2026-11-30T12:00:00Z',
    });
    expect(dataOf(create.secret, 'name')).toBe('alpha');
    expect(dataOf(create.secret, 'server')).toBe(serverOf('team-a'));
    expect(Object.keys(configOf(create.secret))).toEqual(['tlsClientConfig']);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'registered',
      cluster: 'alpha',
      source: {
        namespace: 'team-a',
        secret: 'k3k-team-a-kubeconfig',
        key: 'kubeconfig.yaml',
        provider: 'k3k',
      },
      credentialNotAfter: '2027-11-29T17:57:37Z',
    });
  });

  it('copies every other prefixed namespace label, but neither reserved nor unprefixed ones', () => {
    const snapshot = scenario()
      .child('team-a', {
        cluster: 'alpha',
        labels: {
          [`${KEYS.prefix}team`]: 'payments',
          [`${KEYS.prefix}env`]: 'prod',
          [KEYS.prune]: 'disabled',
          [KEYS.supersededBy]: 'spoofed',
          'argocd.argoproj.io/instance': 'platform',
          team: 'payments',
        },
      })
      .build();

    const labels = only(plan(snapshot, testConfig(), NOW), 'create').secret.labels;
    expect(labels[`${KEYS.prefix}team`]).toBe('payments');
    expect(labels[`${KEYS.prefix}env`]).toBe('prod');
    expect(labels).not.toHaveProperty([KEYS.prune]);
    expect(labels).not.toHaveProperty([KEYS.supersededBy]);
    expect(labels).not.toHaveProperty(['argocd.argoproj.io/instance']);
    expect(labels).not.toHaveProperty(['team']);
  });

  it('copies prefixed annotations within the limits and reports, never truncates, the rest', () => {
    const big = 'x'.repeat(4097);
    const many = Object.fromEntries(
      Array.from({ length: 33 }, (_, i) => [
        `${KEYS.prefix}note-${String(i).padStart(2, '0')}`,
        'v',
      ]),
    );
    const snapshot = scenario()
      .child('team-a', {
        cluster: 'alpha',
        annotations: { ...many, [`${KEYS.prefix}big`]: big, owner: 'someone' },
      })
      .build();

    const result = plan(snapshot, testConfig(), NOW);
    const annotations = only(result, 'create').secret.annotations;
    expect(annotations).not.toHaveProperty([`${KEYS.prefix}big`]);
    expect(annotations).not.toHaveProperty(['owner']);
    expect(Object.keys(annotations).filter((key) => key.includes('note-'))).toHaveLength(32);
    expect(annotations).not.toHaveProperty([`${KEYS.prefix}note-32`]);
    expect(result.warnings.map((warning) => warning.code)).toEqual([
      'annotation-too-large',
      'annotations-over-limit',
    ]);
    expect(result.warnings[1]?.message).toContain(`${KEYS.prefix}note-32`);
  });

  it('caps copied annotations at 32 KiB in total', () => {
    const value = 'y'.repeat(4000);
    const annotations = Object.fromEntries(
      Array.from({ length: 9 }, (_, i) => [`${KEYS.prefix}blob-${i}`, value]),
    );
    const result = plan(scenario().child('team-a', { annotations }).build(), testConfig(), NOW);
    const copied = Object.keys(only(result, 'create').secret.annotations).filter((key) =>
      key.includes('blob-'),
    );
    expect(copied).toHaveLength(8);
    expect(result.warnings).toMatchObject([
      { code: 'annotations-over-limit', namespace: 'team-a' },
    ]);
  });

  it('writes project, namespaces and clusterResources when the namespace asks for them', () => {
    const snapshot = scenario()
      .child('team-a', {
        cluster: 'alpha',
        labels: { [KEYS.project]: 'payments', [KEYS.clusterResources]: 'true' },
        annotations: { [KEYS.namespaces]: 'web, api,,jobs' },
      })
      .build();

    const secret = only(plan(snapshot, testConfig(), NOW), 'create').secret;
    expect(dataOf(secret, 'project')).toBe('payments');
    expect(dataOf(secret, 'namespaces')).toBe('web,api,jobs');
    expect(dataOf(secret, 'clusterResources')).toBe('true');
    expect(secret.labels).not.toHaveProperty([KEYS.project]);
    expect(secret.annotations).not.toHaveProperty([KEYS.namespaces]);
  });

  it('lets a namespace override the server address and TLS server name', () => {
    const snapshot = scenario()
      .child('team-a', {
        annotations: {
          [KEYS.server]: 'https://10.0.0.7:6443/',
          [KEYS.tlsServerName]: 'api.team-a.internal',
        },
      })
      .build();

    const secret = only(plan(snapshot, testConfig(), NOW), 'create').secret;
    expect(dataOf(secret, 'server')).toBe('https://10.0.0.7:6443');
    expect(configOf(secret)['tlsClientConfig']).toMatchObject({
      serverName: 'api.team-a.internal',
    });
  });

  it.each([
    ['an in-cluster address', 'https://kubernetes.default.svc'],
    ['a loopback address', 'https://127.0.0.1:6443'],
    ['not a URL', 'team-a:6443'],
  ])('refuses a server override that is %s', (_, override) => {
    const result = plan(
      scenario()
        .child('team-a', { annotations: { [KEYS.server]: override } })
        .build(),
      testConfig(),
      NOW,
    );
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'refused',
      reason: { code: 'server-override-invalid' },
    });
  });

  it('refuses a TLS server name override that is not a DNS name', () => {
    const snapshot = scenario()
      .child('team-a', { annotations: { [KEYS.tlsServerName]: 'not a name' } })
      .build();
    expect(outcomeOf(plan(snapshot, testConfig(), NOW), 'team-a').reason?.code).toBe(
      'server-override-invalid',
    );
  });
});

describe('no-op', () => {
  it('writes nothing when the registration already says what the namespace asks for', () => {
    const result = plan(registeredAlpha(), testConfig(), NOW + HOUR);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a')).toEqual({
      namespace: 'team-a',
      cluster: 'alpha',
      state: 'unchanged',
      source: {
        namespace: 'team-a',
        secret: 'k3k-team-a-kubeconfig',
        key: 'kubeconfig.yaml',
        provider: 'k3k',
      },
      rejected: [],
      credentialNotAfter: '2027-11-29T17:57:37Z',
      credential: 'client-certificate',
    });
  });

  it('does not rewrite a config that only differs in key order', () => {
    const reordered = scenario(registeredAlpha())
      .editClusterSecret('cluster-alpha', (secret) => {
        const config = configOf(secret);
        const reversed = Object.fromEntries(Object.entries(config).reverse());
        return {
          ...secret,
          data: { ...secret.data, config: encodeBase64Text(JSON.stringify(reversed)) },
        };
      })
      .build();
    expect(plan(reordered, testConfig(), NOW).actions).toEqual([]);
  });

  it('removes a prefixed key the namespace dropped and keeps other owners keys', () => {
    const before = settle(
      scenario()
        .child('team-a', { labels: { [`${KEYS.prefix}team`]: 'payments' } })
        .build(),
    );
    const after = scenario(before)
      .label('team-a', `${KEYS.prefix}team`, null)
      .labelSecret('cluster-team-a', 'backup.example.com/tier', 'gold')
      .editClusterSecret('cluster-team-a', (secret) => ({
        ...secret,
        data: { ...secret.data, shard: encodeBase64Text('2') },
      }))
      .build();

    const update = only(plan(after, testConfig(), NOW), 'update');
    expect(update.reason.code).toBe('metadata-changed');
    expect(update.secret.labels).not.toHaveProperty([`${KEYS.prefix}team`]);
    expect(update.secret.labels['backup.example.com/tier']).toBe('gold');
    expect(dataOf(update.secret, 'shard')).toBe('2');
    expect(describeChanges(update)).toEqual([
      { field: `labels.${KEYS.prefix}team`, before: 'payments', sensitive: false },
    ]);
  });
});

describe('ownership', () => {
  it('refuses to write over a cluster-<name> Secret it does not own', () => {
    const snapshot = scenario()
      .child('team-a', { cluster: 'alpha' })
      .foreign('cluster-alpha', { server: 'https://other.example.com' })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'refused',
      reason: { code: 'target-foreign' },
    });
  });

  it('never touches a Secret without our managed-by label, whatever its other labels say', () => {
    const lookalike = foreignClusterSecret('cluster-ghost', {
      server: 'https://ghost.example.com',
    });
    const snapshot = scenario()
      .clusterSecret({
        ...lookalike,
        labels: {
          ...lookalike.labels,
          [KEYS.managedBy]: 'someone-else',
          [KEYS.sourceNamespace]: 'ghost',
          [KEYS.sourceNamespaceUid]: 'uid-ghost',
        },
      })
      .lookup('ghost', { state: 'notFound' })
      .build();
    expect(plan(snapshot, testConfig(), NOW).actions).toEqual([]);
  });
});

describe('names', () => {
  it('skips a namespace without a cluster label, with a warning, and keeps its registration', () => {
    const snapshot = scenario(registeredAlpha()).label('team-a', KEYS.cluster, null).build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'skipped',
      reason: { code: 'cluster-label-missing' },
    });
    expect(result.warnings).toMatchObject([{ code: 'cluster-label-missing', namespace: 'team-a' }]);
  });

  it('refuses an empty cluster label', () => {
    const result = plan(scenario().child('team-a', { cluster: '' }).build(), testConfig(), NOW);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'refused',
      reason: { code: 'name-missing' },
    });
  });

  it.each([['Alpha'], ['under_score'], ['trailing-'], ['x'.repeat(250)]])(
    'refuses %s, which makes no valid Secret name',
    (cluster) => {
      const result = plan(scenario().child('team-a', { cluster }).build(), testConfig(), NOW);
      expect(result.actions).toEqual([]);
      expect(outcomeOf(result, 'team-a')).toMatchObject({
        state: 'refused',
        reason: { code: 'name-invalid' },
      });
    },
  );

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

  it('refuses a name that a foreign cluster Secret already uses as data.name', () => {
    const snapshot = scenario()
      .child('team-a', { cluster: 'alpha' })
      .foreign('hand-made', { clusterName: 'alpha' })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'refused',
      reason: { code: 'name-foreign' },
    });
  });
});

describe('servers', () => {
  it('refuses a server a foreign Secret holds and says a 0.1.x leftover can be deleted', () => {
    const snapshot = scenario()
      .child('team-a', { cluster: 'alpha' })
      .foreign('vcluster-legacy', { server: serverOf('team-a') })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    const outcome = outcomeOf(result, 'team-a');
    expect(outcome).toMatchObject({ state: 'refused', reason: { code: 'server-collision' } });
    expect(outcome.reason?.message).toContain('vcluster-legacy');
    expect(outcome.reason?.message).toContain('0.1.x');
    expect(outcome.reason?.message).toContain('delete');
  });

  it('compares normalised addresses: case, default port and trailing slash do not matter', () => {
    const snapshot = scenario()
      .child('team-a', { cluster: 'alpha', server: 'https://API.Example.com:443/' })
      .foreign('by-hand', { server: 'https://api.example.com' })
      .build();
    expect(outcomeOf(plan(snapshot, testConfig(), NOW), 'team-a').reason?.code).toBe(
      'server-collision',
    );
  });

  it('keeps the server with the incumbent and refuses the newcomer', () => {
    const snapshot = scenario(registeredAlpha())
      .child('team-b', { cluster: 'beta', server: serverOf('team-a') })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-b')).toMatchObject({
      state: 'refused',
      reason: { code: 'server-collision' },
    });
    expect(outcomeOf(result, 'team-b').reason?.message).toContain('cluster-alpha');
  });

  it('refuses the younger of two newcomers with one server', () => {
    const snapshot = scenario()
      .child('old', { cluster: 'alpha', server: 'https://shared.example.com' })
      .child('young', {
        cluster: 'beta',
        server: 'https://shared.example.com',
        created: '2026-05-01T00:00:00Z',
      })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(kinds(result)).toEqual(['create alpha']);
    expect(outcomeOf(result, 'young').reason?.code).toBe('server-collision');
  });

  it('releases the server of an owned registration whose source is proven gone', () => {
    const snapshot = scenario(registeredAlpha())
      .removeNamespace('team-a', { state: 'notFound' })
      .child('team-b', { cluster: 'beta', server: serverOf('team-a') })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(kinds(result)).toEqual(['create beta', 'delete alpha']);
  });
});

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
});

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

    const created = applyPlanToSnapshot(renamed(), first);
    const result = plan(created, testConfig(), NOW);
    expect(kinds(result)).toEqual(['demote alpha']);
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
    expect(outcomeOf(result, 'team-a').reason?.message).toContain('cluster-alpha stays registered');
  });

  it('lets prune: disabled veto the demotion, with a warning', () => {
    const snapshot = scenario(renamed())
      .labelSecret('cluster-alpha', KEYS.prune, 'disabled')
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions.filter((action) => action.kind === 'demote')).toEqual([]);
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

describe('waiting', () => {
  it('reports a namespace without a kubeconfig as waiting, not as an error', () => {
    const result = plan(scenario().namespace('team-a').build(), testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'waiting',
      reason: { code: 'waiting-for-kubeconfig' },
    });
  });

  it('refuses a new namespace whose only kubeconfig is unusable, with the candidate reasons', () => {
    const result = plan(
      scenario()
        .namespace('team-a')
        .kubeconfig('team-a', { credentials: { exec: 'gke-gcloud-auth-plugin' } })
        .build(),
      testConfig(),
      NOW,
    );
    const outcome = outcomeOf(result, 'team-a');
    expect(outcome).toMatchObject({ state: 'refused', reason: { code: 'exec-plugin' } });
    expect(outcome.rejected).toHaveLength(1);
  });
});

describe('determinism', () => {
  it('gives the same plan, byte for byte, for inputs in another order', () => {
    const built = scenario()
      .child('team-a', { cluster: 'alpha' })
      .child('team-b', { cluster: 'alpha', created: '2026-01-01T00:00:00Z' })
      .child('team-c', { cluster: 'gamma', server: serverOf('team-a') })
      .namespace('team-d', { cluster: null })
      .foreign('vcluster-x', { server: serverOf('team-c') })
      .build();
    const reversed: Snapshot = {
      namespaces: [...built.namespaces].reverse(),
      candidateSecrets: [...built.candidateSecrets].reverse(),
      clusterSecrets: [...built.clusterSecrets].reverse(),
      sourceLookups: built.sourceLookups,
    };
    expect(JSON.stringify(plan(reversed, testConfig(), NOW))).toBe(
      JSON.stringify(plan(built, testConfig(), NOW)),
    );
  });

  it('orders actions by kind, then cluster', () => {
    const before = settle(
      scenario().child('team-a', { cluster: 'alpha' }).child('team-b', { cluster: 'beta' }).build(),
    );
    const snapshot = scenario(before)
      .removeNamespace('team-b')
      .label('team-a', KEYS.cluster, 'zulu')
      .child('team-c', { cluster: 'charlie' })
      .build();
    expect(kinds(plan(snapshot, testConfig(), NOW))).toEqual([
      'create charlie',
      'create zulu',
      'delete beta',
    ]);
    const renamed = scenario(settle(before))
      .removeNamespace('team-b')
      .label('team-a', KEYS.cluster, 'zulu')
      .child('team-c', { cluster: 'charlie' })
      .clusterSecret(
        clusterSecretOf(
          settle(scenario(before).label('team-a', KEYS.cluster, 'zulu').build()),
          'cluster-zulu',
        ),
      )
      .build();
    expect(kinds(plan(renamed, testConfig(), NOW))).toEqual([
      'create charlie',
      'demote alpha',
      'delete beta',
    ]);
  });
});
