// The world cache's resync, through the fault proxy in front of the real host plane: each
// list is answered late, so lists that overlap are seen answered together.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFaultProxy } from '@argocd-cluster-registrar/testkit';
import type { FaultProxy, ProxyLogEntry } from '@argocd-cluster-registrar/testkit';
import { startWorldCache } from './world-cache.js';
import type { WorldChange } from './world-cache.js';
import { accessFromText, createNamespace, host, testConfig } from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

const LATENCY_MS = 400;

let h: Host;
let proxy: FaultProxy;

beforeAll(async () => {
  h = await host();
  // Lists carry a page limit; watches do not.
  proxy = await startFaultProxy(h.plane, {
    faults: {
      rate: 1,
      kinds: ['latency'],
      latencyMs: [LATENCY_MS, LATENCY_MS],
      only: /[?&]limit=/,
    },
  });
});

afterAll(async () => {
  await proxy.close();
});

const lists = (): ProxyLogEntry[] => proxy.log.filter((entry) => /[?&]limit=/.test(entry.path));

describe('startWorldCache', () => {
  it('re-lists its watches one after another at a resync, and reports the round once', async () => {
    const config = testConfig();
    await createNamespace(h.core, config.targetNamespace);
    const changes: WorldChange[] = [];
    const cache = startWorldCache(accessFromText(proxy.kubeConfig, 'fault proxy'), config, {
      onChange: (change) => changes.push(change),
      onError: () => undefined,
    });
    try {
      await cache.settled();
      const before = lists().length;
      changes.length = 0;
      await cache.resync();
      const round = lists().slice(before);
      // At least a page each: namespaces, Secret metadata, the two registration watches.
      expect(round.length).toBeGreaterThanOrEqual(4);
      // Each list was asked for only once the one before it was answered, so answers come
      // at least one injected latency apart; lists sent together are answered together.
      const answered = round.map((entry) => entry.at);
      const gaps = answered.slice(1).map((at, i) => at - (answered[i] ?? at));
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(LATENCY_MS - 50);
      expect(changes.filter((change) => change.all)).toHaveLength(1);
    } finally {
      cache.stop();
    }
  });

  it('goes on with the round past a watch whose list fails, and that watch retries', async () => {
    const config = testConfig();
    await createNamespace(h.core, config.targetNamespace);
    const failing = await startFaultProxy(h.plane);
    const failures: string[] = [];
    const cache = startWorldCache(accessFromText(failing.kubeConfig, 'fault proxy'), config, {
      onChange: () => undefined,
      onError: (watch) => failures.push(watch),
      timing: { backoffInitialMs: 200, backoffMaxMs: 400 },
    });
    try {
      await cache.settled();
      // From now on the namespaces' list, the first of the round, is refused.
      failing.setFaults({
        rate: 1,
        kinds: ['status-500'],
        only: /^GET \/api\/v1\/namespaces\?.*limit=/,
      });
      const before = failing.log.length;
      await cache.resync();
      const lists = failing.log.slice(before).filter((entry) => /[?&]limit=/.test(entry.path));
      expect(failures).toContain('namespaces');
      // The Secret watches listed after it, answered by the real server.
      expect(
        lists.filter((entry) => entry.path.includes('/secrets?') && entry.forwarded).length,
      ).toBeGreaterThanOrEqual(3);
      failing.setFaults({ rate: 0 });
      await vi.waitFor(() => {
        expect(cache.unhealthy()).toEqual([]);
      });
    } finally {
      cache.stop();
      await failing.close();
    }
  });
});
