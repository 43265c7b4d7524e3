import { hostname } from 'node:os';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { CoordinationV1Api } from '@kubernetes/client-node';
import type { Config } from '@argocd-cluster-registrar/core';
import { adminKubeConfig } from '@argocd-cluster-registrar/testkit';
import { createLeaderElector, leaseName } from './leader-election.js';
import type { LeaderElector } from './leader-election.js';
import { createNamespace, host, testConfig } from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

let h: Host;
beforeAll(async () => {
  h = await host();
});

/** Creates the Lease as held by `identity`; returns a reader of its holder. */
async function foreignLease(
  config: Config,
  identity: string,
  leaseDurationSeconds: number,
): Promise<() => Promise<string | undefined>> {
  await createNamespace(h.core, config.targetNamespace);
  const leases = adminKubeConfig(h.plane).makeApiClient(CoordinationV1Api);
  const ref = { namespace: config.targetNamespace, name: leaseName(config) };
  await leases.createNamespacedLease({
    namespace: ref.namespace,
    body: {
      metadata: { name: ref.name },
      spec: { holderIdentity: identity, leaseDurationSeconds },
    },
  });
  return async () => (await leases.readNamespacedLease(ref)).spec?.holderIdentity;
}

/** Waits until exactly one of `electors` leads. */
async function oneLeaderOf(...electors: LeaderElector[]): Promise<void> {
  await vi.waitFor(
    () => {
      expect(electors.filter((e) => e.isLeader())).toHaveLength(1);
    },
    { timeout: 15_000 },
  );
}

describe('leaseName', () => {
  it('derives a DNS-1123 name from the label prefix and managedBy', () => {
    expect(
      leaseName({ labelPrefix: 'argocd-cluster-registrar/', managedBy: 'cluster-registrar' }),
    ).toBe('argocd-cluster-registrar-cluster-registrar');
    expect(leaseName({ labelPrefix: 'Example.COM/', managedBy: 'Team_A' })).toBe(
      'example.com-team-a',
    );
  });
});

describe('createLeaderElector', () => {
  it('elects exactly one leader, hands over when it stops, and releases the Lease', async () => {
    const config = testConfig();
    await createNamespace(h.core, config.targetNamespace);
    const leases = adminKubeConfig(h.plane).makeApiClient(CoordinationV1Api);
    const holder = async () =>
      (
        await leases.readNamespacedLease({
          namespace: config.targetNamespace,
          name: leaseName(config),
        })
      ).spec?.holderIdentity;

    const changes: string[] = [];
    const elector = (identity: string): LeaderElector =>
      createLeaderElector(h.access, config, {
        identity,
        leaseDurationSeconds: 3,
        onChange: (leader) => changes.push(`${identity}:${String(leader)}`),
      });
    const a = elector('replica-a');
    const b = elector('replica-b');
    a.start();
    b.start();
    try {
      await oneLeaderOf(a, b);
      const [leader, standby, standbyName] = a.isLeader()
        ? [a, b, 'replica-b']
        : [b, a, 'replica-a'];
      expect(await holder()).toBe(a.isLeader() ? 'replica-a' : 'replica-b');
      // Several renewals later, still one leader.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(leader.isLeader()).toBe(true);
      expect(standby.isLeader()).toBe(false);

      await leader.stop();
      expect(leader.isLeader()).toBe(false);
      // Released, so the standby takes over within a retry period, not a whole lease.
      await vi.waitFor(
        () => {
          expect(standby.isLeader()).toBe(true);
        },
        { timeout: 10_000 },
      );
      expect(await holder()).toBe(standbyName);

      await standby.stop();
      expect(await holder()).toBe('');
      expect(changes.filter((c) => c.endsWith(':true'))).toHaveLength(2);
      expect(changes.filter((c) => c.endsWith(':false'))).toHaveLength(2);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('stays a standby while another identity holds an unexpired Lease', async () => {
    const config = testConfig();
    const holder = await foreignLease(config, 'elsewhere', 3600);
    const standby = createLeaderElector(h.access, config, {
      identity: 'here',
      leaseDurationSeconds: 1,
      onChange: () => undefined,
    });
    standby.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(standby.isLeader()).toBe(false);
      expect(await holder()).toBe('elsewhere');
    } finally {
      await standby.stop();
    }
  });

  it('does not take over when its wall clock steps forward: expiry is judged on the monotonic clock', async () => {
    const config = testConfig();
    // A leader's Lease for 10 s (the leader is not running: its Lease simply holds).
    const holder = await foreignLease(config, 'leader-elsewhere', 10);
    const standby = createLeaderElector(h.access, config, {
      leaseDurationSeconds: 1,
      onChange: () => undefined,
    });
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      standby.start();
      // The standby sees the Lease once; then its wall clock jumps an hour ahead (NTP, a
      // resumed VM) while only a second passes.
      await new Promise((resolve) => setTimeout(resolve, 300));
      vi.setSystemTime(Date.now() + 3600_000);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(standby.isLeader()).toBe(false);
      expect(await holder()).toBe('leader-elsewhere');
    } finally {
      vi.useRealTimers();
      await standby.stop();
    }
  });

  it('gives each elector of one process its own identity: two never both lead', async () => {
    const config = testConfig();
    await createNamespace(h.core, config.targetNamespace);
    const make = (): LeaderElector =>
      createLeaderElector(h.access, config, { leaseDurationSeconds: 2, onChange: () => undefined });
    const [a, b] = [make(), make()];
    expect(a.identity).not.toBe(b.identity);
    expect(a.identity.startsWith(`${hostname()}_`)).toBe(true);
    a.start();
    b.start();
    try {
      await oneLeaderOf(a, b);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect([a.isLeader(), b.isLeader()].filter(Boolean)).toHaveLength(1);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
