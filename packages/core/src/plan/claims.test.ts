// What a won claim registers (claims.ts, with registration.ts): the labels, data and config
// ArgoCD needs, the labels and annotations copied from the namespace, and its overrides.

import { describe, expect, it } from 'vitest';
import { ARGOCD_SECRET_TYPE_LABEL as SECRET_TYPE } from '../config/label-keys.js';
import {
  configOf,
  dataOf,
  KEYS,
  NOW,
  outcomeOf,
  scenario,
  serverOf,
  TARGET,
  testConfig,
} from '../test-support/fixtures.js';
import { only } from '../test-support/plan-assertions.js';
import { plan } from './index.js';

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

  it('warns about a server override that is plain HTTP, naming the annotation', () => {
    const result = plan(
      scenario()
        .child('team-a', { annotations: { [KEYS.server]: 'http://10.0.0.7:8080' } })
        .build(),
      testConfig(),
      NOW,
    );
    expect(dataOf(only(result, 'create').secret, 'server')).toBe('http://10.0.0.7:8080');
    expect(result.warnings).toEqual([
      {
        code: 'server-plain-http',
        namespace: 'team-a',
        message: `annotation ${KEYS.server} of namespace team-a sets server http://10.0.0.7:8080, plain HTTP: ArgoCD will send the credentials and everything it deploys unencrypted, readable and alterable on the way`,
      },
    ]);
  });

  it.each([
    ['server', KEYS.server],
    ['TLS server name', KEYS.tlsServerName],
  ])('quotes a hostile %s override bounded and escaped in its refusal', (_, key) => {
    // Whoever may annotate the source writes this text; it reaches logs, Events and terminals.
    const hostile = `x\u009b2J\u001b]0;owned\u0007${'y'.repeat(10_000)}`;
    const snapshot = scenario()
      .child('team-a', { annotations: { [key]: hostile } })
      .build();
    const message = outcomeOf(plan(snapshot, testConfig(), NOW), 'team-a').reason?.message ?? '';
    expect(message).toContain(key);
    expect(message.length).toBeLessThan(1_000);
    const controls = [...message].filter(
      (c) => c.charCodeAt(0) < 0x20 || (c >= '\u007f' && c <= '\u009f'),
    );
    expect(controls).toEqual([]);
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
