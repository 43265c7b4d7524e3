// The write fence (issue 8, item 3) on the real host plane, counted at the fault proxy: a
// leader whose last renewal is older than the lease duration on its monotonic clock (as
// after a SIGSTOP) sends no Secret write and no Event, and the pass reports every action as
// not attempted.

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFaultProxy, uniqueName } from '@argocd-cluster-registrar/testkit';
import type { FaultProxy } from '@argocd-cluster-registrar/testkit';
import type { Action, DesiredSecret, Plan } from '@argocd-cluster-registrar/core';
import { applyPlan } from '../write/apply.js';
import { recordNamespaceEvent } from '../write/events.js';
import type { KubeAccess } from './kube-access.js';
import { createLeaderElector } from '../lease/leader-election.js';
import { accessFromText, createNamespace, host, testConfig } from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

let h: Host;
let proxy: FaultProxy;
let access: KubeAccess;

beforeAll(async () => {
  h = await host();
  proxy = await startFaultProxy(h.plane, { seed: 3 });
  access = { ...accessFromText(proxy.kubeConfig, 'fault proxy') };
});

afterAll(async () => {
  await proxy.close();
});

const b64 = (text: string) => Buffer.from(text).toString('base64');

function createOf(namespace: string, name: string): Action {
  const secret: DesiredSecret = {
    namespace,
    name,
    type: 'Opaque',
    labels: { 'argocd.argoproj.io/secret-type': 'cluster' },
    annotations: {},
    data: { name: b64(name), server: b64('https://x.example') },
  };
  return {
    kind: 'create',
    cluster: name,
    secret,
    changes: [],
    reason: { code: 'new-registration', namespace: 'src' },
  };
}

const secretWrites = (since: number) =>
  proxy.log
    .slice(since)
    .filter((e) => e.method !== 'GET' && !e.path.includes('/leases') && e.forwarded);

describe('the write fence', () => {
  it('shuts at the renew deadline, before the lease runs out, so a write on its way has time to land', async () => {
    const config = testConfig();
    await createNamespace(h.core, config.targetNamespace);
    let clock = 0;
    const elector = createLeaderElector(access, config, {
      identity: 'slow-network-leader',
      leaseDurationSeconds: 6,
      onChange: () => undefined,
      monotonicNow: () => performance.now() + clock,
    });
    elector.start();
    try {
      await vi.waitFor(
        () => {
          expect(elector.holds()).toBe(true);
        },
        { timeout: 20_000 },
      );
      // Renewals stop getting through; 4.5 s pass on our clock: past the renew deadline (4 s),
      // inside the lease (6 s), so no standby may hold it yet.
      proxy.hangAll(true);
      clock = 4500;
      expect(elector.holds()).toBe(false);
    } finally {
      proxy.hangAll(false);
      await elector.stop();
    }
  });

  it('a leader past its lease on the monotonic clock writes nothing, and says so', async () => {
    const config = testConfig();
    const uid = await createNamespace(h.core, config.targetNamespace);
    let clock = 0;
    const elector = createLeaderElector(access, config, {
      identity: 'paused-leader',
      leaseDurationSeconds: 5,
      onChange: () => undefined,
      monotonicNow: () => performance.now() + clock,
    });
    elector.start();
    const fenced: KubeAccess = { ...access, writeFence: elector };
    try {
      await vi.waitFor(
        () => {
          expect(elector.holds()).toBe(true);
        },
        { timeout: 20_000 },
      );
      // While held: writes go out.
      const first = proxy.log.length;
      const okPlan: Plan = {
        actions: [createOf(config.targetNamespace, uniqueName('cluster'))],
        outcomes: [],
        warnings: [],
      };
      const applied = await applyPlan(fenced, okPlan, {
        dryRun: false,
        labelPrefix: config.labelPrefix,
        observed: [],
      });
      expect(applied.map((r) => r.status)).toEqual(['applied']);
      expect(secretWrites(first)).toHaveLength(1);

      // "Paused" past the lease: the process's monotonic clock has moved on, renewals have not.
      await elector.stop();
      clock = 6000;
      const before = proxy.log.length;
      const plan: Plan = {
        actions: [1, 2, 3].map(() => createOf(config.targetNamespace, uniqueName('cluster'))),
        outcomes: [],
        warnings: [],
      };
      const results = await applyPlan(fenced, plan, {
        dryRun: false,
        labelPrefix: config.labelPrefix,
        observed: [],
      });
      expect(results.map((r) => r.status)).toEqual([
        'not-attempted',
        'not-attempted',
        'not-attempted',
      ]);
      const event = await recordNamespaceEvent(
        fenced,
        { name: config.targetNamespace, uid },
        { type: 'Normal', reason: 'Registered', message: 'must not be sent' },
        'test',
      );
      expect(event?.message).toContain('leadership');
      expect(secretWrites(before)).toEqual([]);
    } finally {
      await elector.stop();
    }
  });
});
