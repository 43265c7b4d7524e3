// Child probes: GET /version with the registered credentials against a real child API
// server, a child nobody answers for, and the failure counting the planner reads.
import { describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { encodeBase64Text, type ObservedSecret } from '@argocd-cluster-registrar/core';
import { freePort, testChildPlane } from '@argocd-cluster-registrar/testkit';
import { probeChild, type ProbeAnswer } from '../connection/child-probe.js';
import { testConfig } from '../test-support/host.js';
import { ChildProbes } from './child-probes.js';

const PREFIX = 'argocd-cluster-registrar/';

function registration(
  source: string,
  server: string,
  config: Record<string, unknown>,
): ObservedSecret {
  return {
    namespace: 'argocd',
    name: `cluster-${source}`,
    uid: `uid-${source}`,
    resourceVersion: '1',
    type: 'Opaque',
    labels: {
      'argocd.argoproj.io/secret-type': 'cluster',
      [`${PREFIX}managed-by`]: 'cluster-registrar',
      [`${PREFIX}source-namespace`]: source,
    },
    annotations: {},
    data: {
      name: encodeBase64Text(source),
      server: encodeBase64Text(server),
      config: encodeBase64Text(JSON.stringify(config)),
    },
  };
}

/** The child plane's admin credentials, as a registration holds them. */
async function childRegistration(source: string): Promise<ObservedSecret> {
  const child = await testChildPlane();
  const kc = new KubeConfig();
  kc.loadFromString(child.kubeConfig);
  const user = kc.getCurrentUser();
  return registration(source, child.server, {
    tlsClientConfig: {
      insecure: false,
      caData: Buffer.from(child.caPem).toString('base64'),
      certData: user?.certData ?? '',
      keyData: user?.keyData ?? '',
    },
  });
}

describe('probeChild', () => {
  it('reads the version of a child that answers, with the registered credentials', async () => {
    const answer = await probeChild(await childRegistration('team-a'), 5000);
    expect(answer.kind).toBe('answered');
    if (answer.kind === 'answered') expect(answer.version).toMatch(/^v1\./);
  });

  it('fails on a child nobody answers for, naming the server and never a credential', async () => {
    const live = await childRegistration('team-a');
    const port = await freePort(); // nothing listens there
    const dead = {
      ...live,
      data: { ...live.data, server: encodeBase64Text(`https://127.0.0.1:${port}`) },
    };
    const answer = await probeChild(dead, 2000);
    expect(answer.kind).toBe('failed');
    if (answer.kind !== 'failed') return;
    expect(answer.error).toContain(`https://127.0.0.1:${port}/version`);
    expect(answer.error).not.toContain('BEGIN');
  });

  it('fails on a server whose certificate the registered CA does not sign', async () => {
    const live = await childRegistration('team-a');
    const wrongCa = registration('team-a', (await testChildPlane()).server, {
      tlsClientConfig: { insecure: false, caData: encodeBase64Text('not a CA') },
    });
    expect((await probeChild(wrongCa, 2000)).kind).toBe('failed');
    expect((await probeChild(live, 2000)).kind).toBe('answered');
  });

  it('does not probe an exec registration: ArgoCD mints its credentials', async () => {
    const exec = registration('team-a', 'https://example.invalid', {
      tlsClientConfig: { insecure: false },
      execProviderConfig: { command: 'argocd-k8s-auth', args: ['gcp'], apiVersion: 'v1' },
    });
    expect((await probeChild(exec, 2000)).kind).toBe('skipped');
  });
});

describe('ChildProbes', () => {
  function scripted(answers: ProbeAnswer[]) {
    let clock = 0;
    const probes = new ChildProbes(
      testConfig({ probeChildren: true, probeFailures: 2, managedBy: 'cluster-registrar' }),
      {
        mode: 'in-pass',
        now: () => clock,
        random: () => 0,
        probe: () => Promise.resolve(answers.shift() ?? { kind: 'answered', version: 'v1.31.0' }),
      },
    );
    const advance = (ms: number): void => {
      clock += ms;
    };
    return { probes, advance };
  }
  const down: ProbeAnswer = { kind: 'failed', error: 'GET https://x/version: ECONNREFUSED' };

  it('counts consecutive failures, says when they matter, and resets at the first success', async () => {
    const { probes, advance } = scripted([
      down,
      down,
      down,
      { kind: 'answered', version: 'v1.31.0' },
    ]);
    probes.track([registration('team-a', 'https://x', {})]);
    expect(await probes.probeDue()).toEqual(['team-a']); // first news: failing
    expect(probes.observed()['team-a']).toMatchObject({
      failures: 1,
      failingSince: '1970-01-01T00:00:00Z',
    });
    // At most one probe an interval.
    expect(await probes.probeDue()).toEqual([]);
    expect(probes.sent).toBe(1);
    advance(60_000);
    expect(await probes.probeDue()).toEqual(['team-a']); // reached probeFailures
    advance(60_000);
    expect(await probes.probeDue()).toEqual([]); // a third failure changes no decision
    expect(probes.observed()['team-a']).toMatchObject({
      failures: 3,
      failingSince: '1970-01-01T00:00:00Z',
    });
    advance(60_000);
    expect(await probes.probeDue()).toEqual(['team-a']);
    expect(probes.observed()['team-a']).toEqual({ failures: 0, version: 'v1.31.0' });
  });

  it('hands out the same object while nothing changed, and forgets a registration that went', async () => {
    const { probes, advance } = scripted([]);
    probes.track([registration('team-a', 'https://x', {})]);
    await probes.probeDue();
    const first = probes.observed();
    advance(60_000);
    await probes.probeDue();
    expect(probes.observed()).toBe(first);
    probes.track([]);
    expect(probes.observed()).toEqual({});
  });

  it('tracks only active registrations it owns', () => {
    const { probes } = scripted([]);
    const foreign = registration('team-b', 'https://y', {});
    const demoted = registration('team-c', 'https://z', {});
    probes.track([
      { ...foreign, labels: { ...foreign.labels, [`${PREFIX}managed-by`]: 'someone-else' } },
      {
        ...demoted,
        labels: {
          [`${PREFIX}managed-by`]: 'cluster-registrar',
          [`${PREFIX}source-namespace`]: 'team-c',
        },
      },
    ]);
    expect(probes.nextDueAt()).toBeUndefined();
  });
});
