// Every request is bounded, proven through the fault proxy in front of the
// real host plane: a server that accepts and never answers, and list bodies cut short of
// their Content-Length, end as failures, never as a hang; the watches and the
// leader's renewal both recover once the server answers again.

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFaultProxy, uniqueName } from '@argocd-cluster-registrar/testkit';
import type { FaultProxy } from '@argocd-cluster-registrar/testkit';
import { createGatherer } from '../gather/listed-world.js';
import type { KubeAccess } from './kube-access.js';
import { createLeaderElector } from '../lease/leader-election.js';
import { createWatchGatherer } from '../gather/watched-world.js';
import {
  MANAGED_BY_KEY,
  accessFromText,
  createNamespace,
  host,
  testConfig,
} from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

let h: Host;
let proxy: FaultProxy;
let access: KubeAccess;

beforeAll(async () => {
  h = await host();
  proxy = await startFaultProxy(h.plane, { seed: 11 });
  access = { ...accessFromText(proxy.kubeConfig, 'fault proxy'), requestTimeoutMs: 1500 };
});

afterAll(async () => {
  await proxy.close();
});

describe('bounded requests', () => {
  it('a gather against a server that never answers ends with failures', async () => {
    const config = testConfig();
    await createNamespace(h.core, config.targetNamespace);
    proxy.hangAll(true);
    try {
      const result = await createGatherer(access, config).full();
      expect(result.failures.length).toBeGreaterThan(0);
      expect(result.failures[0]?.failure).toMatchObject({ kind: 'transient', retryable: true });
    } finally {
      proxy.hangAll(false);
    }
  });

  it('a gather whose list bodies are cut short ends with failures', async () => {
    const config = testConfig();
    await createNamespace(h.core, config.targetNamespace);
    await createNamespace(h.core, uniqueName('src'), { [MANAGED_BY_KEY]: config.managedBy });
    proxy.setFaults({ rate: 1, kinds: ['truncate'] });
    try {
      const result = await createGatherer(access, config).full();
      expect(result.failures.length).toBeGreaterThan(0);
    } finally {
      proxy.setFaults({ rate: 0 });
    }
    // And with the faults off, the same gather completes.
    expect((await createGatherer(access, config).full()).failures).toEqual([]);
  });

  it('the watches re-open after a server that never answered recovers', async () => {
    const config = testConfig();
    const changes: string[] = [];
    proxy.hangAll(true);
    const gatherer = createWatchGatherer(access, config, {
      onChange: (change) => changes.push(...change.namespaces),
      onError: () => undefined,
      resyncPeriodMs: 0,
    });
    try {
      // Long enough for the watches' first requests to be stuck in the hang.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      proxy.hangAll(false);
      const name = uniqueName('late');
      await createNamespace(h.core, name, { [MANAGED_BY_KEY]: config.managedBy });
      await vi.waitFor(
        async () => {
          await h.core.patchNamespace({
            name,
            body: [{ op: 'add', path: '/metadata/annotations', value: { t: String(Date.now()) } }],
          });
          expect(changes).toContain(name);
        },
        { timeout: 60_000, interval: 500 },
      );
    } finally {
      gatherer.stop();
      proxy.hangAll(false);
    }
  });

  it('watches dropped into a hang say when the server answers again, with nothing to report', async () => {
    const config = testConfig();
    await createNamespace(h.core, config.targetNamespace);
    const failed = new Set<string>();
    const recovered = new Set<string>();
    const gatherer = createWatchGatherer(access, config, {
      onChange: () => undefined,
      onError: (watch) => failed.add(watch),
      onRecovered: (watch) => recovered.add(watch),
      resyncPeriodMs: 0,
      timing: { requestTimeoutMs: 1000, backoffMaxMs: 250 },
    });
    try {
      expect((await gatherer.full()).failures).toEqual([]);
      // A loaded machine can fail a first request past its 1 s bound, and it recovers before
      // the snapshot above: that is not what this test is about.
      failed.clear();
      recovered.clear();
      // The server restarts and hangs: open watches are dropped, and every re-open hangs.
      proxy.hangAll(true);
      proxy.dropConnections();
      await vi.waitFor(
        () => {
          expect(failed.size).toBe(4);
        },
        { timeout: 20_000, interval: 100 },
      );
      expect(recovered.size).toBe(0);
      proxy.hangAll(false);
      // Nothing changed meanwhile, so no event says so: each watch tells it answers again.
      await vi.waitFor(
        () => {
          expect([...recovered].sort()).toEqual([...failed].sort());
        },
        { timeout: 20_000, interval: 100 },
      );
      expect((await gatherer.full()).failures).toEqual([]);
    } finally {
      gatherer.stop();
      proxy.hangAll(false);
    }
  });

  it('a leader whose renewals hang steps down, and stops within its budget', async () => {
    const config = testConfig();
    await createNamespace(h.core, config.targetNamespace);
    const changes: boolean[] = [];
    const elector = createLeaderElector(access, config, {
      identity: 'hung-leader',
      leaseDurationSeconds: 3,
      onChange: (leader) => changes.push(leader),
    });
    elector.start();
    try {
      await vi.waitFor(
        () => {
          expect(changes).toEqual([true]);
        },
        { timeout: 20_000 },
      );
      proxy.hangAll(true);
      // Its renewals hang: it must notice on its own and stop acting as leader.
      await vi.waitFor(
        () => {
          expect(changes).toEqual([true, false]);
        },
        { timeout: 20_000 },
      );
      expect(elector.holds()).toBe(false);
    } finally {
      await elector.stop();
      proxy.hangAll(false);
    }
  });
});
