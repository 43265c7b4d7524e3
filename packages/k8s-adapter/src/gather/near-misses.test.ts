import { beforeAll, describe, expect, it, vi } from 'vitest';
import { uniqueName } from '@argocd-cluster-registrar/testkit';
import { plan, PROVIDER_PRESETS, snapshotToJson } from '@argocd-cluster-registrar/core';
import { createGatherer } from './listed-world.js';
import { createWatchGatherer } from './watched-world.js';
import {
  MANAGED_BY_KEY,
  PREFIX,
  createNamespace,
  host,
  opaque,
  testConfig,
} from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

const NOW = Date.parse('2026-12-01T00:00:00Z');

/** The daemon's gatherer, without its callbacks or periodic resync: passes run when asked. */
const watchGatherer = (config: ReturnType<typeof testConfig>) =>
  createWatchGatherer(h.access, config, {
    onChange: () => undefined,
    onError: () => undefined,
    resyncPeriodMs: 0,
  });

let h: Host;
beforeAll(async () => {
  h = await host();
});

describe('near misses in a gathered snapshot', () => {
  it('records names and key names (never values) only where no candidate exists', async () => {
    const config = testConfig({ providers: [PROVIDER_PRESETS.k3k] });
    const labels = { [MANAGED_BY_KEY]: config.managedBy, [`${PREFIX}cluster`]: 'x' };
    const vcluster = uniqueName('vc-ns');
    const k3k = uniqueName('k3k-ns');
    await createNamespace(h.core, vcluster, labels);
    await createNamespace(h.core, k3k, labels);
    await createNamespace(h.core, config.targetNamespace);
    const create = (namespace: string, name: string, data: Record<string, string>) =>
      h.core.createNamespacedSecret({ namespace, body: opaque(name, {}, data) });
    // What vcluster writes: the kubeconfig Secret and its config Secret, plus an unrelated one.
    await create(vcluster, 'vc-x', { config: 'secret-kubeconfig-text', certificate: 'c' });
    await create(vcluster, 'vc-config-x', { 'config.yaml': 'values' });
    await create(vcluster, 'unrelated', { password: 'hunter2' });
    // A namespace with a real candidate records nothing, however much looks alike.
    await create(k3k, 'k3k-x-kubeconfig', { 'kubeconfig.yaml': 'k' });
    await create(k3k, 'vc-y', { config: 'c' });

    const { snapshot } = await createGatherer(h.access, config).full();
    expect(snapshot.candidateSecrets.map((s) => `${s.namespace}/${s.name}`)).toEqual([
      `${k3k}/k3k-x-kubeconfig`,
    ]);
    expect(snapshot.nearMisses).toEqual([
      { namespace: vcluster, name: 'vc-config-x', keys: ['config.yaml'] },
      { namespace: vcluster, name: 'vc-x', keys: ['certificate', 'config'] },
    ]);
    const saved = snapshotToJson(snapshot);
    for (const value of ['secret-kubeconfig-text', 'hunter2', 'values'])
      expect(saved).not.toContain(Buffer.from(value).toString('base64'));
  });
});

describe('a pinned Secret that no provider reads', () => {
  it('is recorded beside a candidate, by the full read and the watch alike, and refused by name', async () => {
    const config = testConfig({ providers: [PROVIDER_PRESETS.k3k] });
    const pinned = uniqueName('pinned');
    await h.core.createNamespace({
      body: {
        metadata: {
          name: pinned,
          labels: { [MANAGED_BY_KEY]: config.managedBy, [`${PREFIX}cluster`]: 'p' },
          annotations: { [`${PREFIX}kubeconfig-secret`]: 'ci-token' },
        },
      },
    });
    await createNamespace(h.core, config.targetNamespace);
    const create = (name: string, data: Record<string, string>) =>
      h.core.createNamespacedSecret({ namespace: pinned, body: opaque(name, {}, data) });
    await create('k3k-p-kubeconfig', { 'kubeconfig.yaml': 'k' });
    await create('ci-token', { token: 'secret-token-value' });

    const watched = watchGatherer(config);
    try {
      const read = await createGatherer(h.access, config).full();
      const first = await watched.full();
      expect(read.snapshot.nearMisses).toEqual([
        { namespace: pinned, name: 'ci-token', keys: ['token'] },
      ]);
      expect(first.snapshot.nearMisses).toEqual(read.snapshot.nearMisses);
      expect(snapshotToJson(read.snapshot)).not.toContain(
        Buffer.from('secret-token-value').toString('base64'),
      );
      const outcome = plan(read.snapshot, config, NOW).outcomes.find((o) => o.namespace === pinned);
      expect(outcome).toMatchObject({
        state: 'refused',
        reason: { code: 'kubeconfig-secret-invalid' },
      });
      expect(outcome?.reason?.message).toContain(
        'names Secret ci-token, which no configured provider reads',
      );
      expect((await watched.full()).requests).toBe(0);
    } finally {
      watched.stop();
    }
  });
});

describe("the daemon's near misses", () => {
  it('are those of a full read, kept current by the watch, at no request in steady state', async () => {
    const config = testConfig({ providers: [PROVIDER_PRESETS.k3k] });
    const labels = (cluster: string) => ({
      [MANAGED_BY_KEY]: config.managedBy,
      [`${PREFIX}cluster`]: cluster,
    });
    const wrongKey = uniqueName('wrong-key');
    const vcluster = uniqueName('vc-ns');
    const renamed = uniqueName('renamed');
    for (const [name, cluster] of [
      [wrongKey, 'w'],
      [vcluster, 'v'],
      [renamed, 'r'],
    ] as const)
      await createNamespace(h.core, name, labels(cluster));
    await createNamespace(h.core, config.targetNamespace);
    const create = (namespace: string, name: string, data: Record<string, string>) =>
      h.core.createNamespacedSecret({ namespace, body: opaque(name, {}, data) });
    // A k3k-named Secret under another key; a vcluster Secret; a k3k key under another name.
    await create(wrongKey, 'k3k-w-kubeconfig', { kubeconfig: 'k' });
    await create(vcluster, 'vc-v', { config: 'c' });
    await create(renamed, 'my-kubeconfig', { 'kubeconfig.yaml': 'k' });

    const watched = watchGatherer(config);
    try {
      const read = await createGatherer(h.access, config).full();
      const first = await watched.full();
      expect(first.failures).toEqual([]);
      expect(first.snapshot.nearMisses).toEqual(read.snapshot.nearMisses);
      expect(first.snapshot.nearMisses?.map((n) => n.name).sort()).toEqual([
        'my-kubeconfig',
        'vc-v',
      ]);
      // The candidate-named Secret: its key names, never its values.
      const candidate = first.snapshot.candidateSecrets.find((s) => s.namespace === wrongKey);
      expect(candidate?.data).toEqual({ kubeconfig: '' });
      const fromRead = plan(read.snapshot, config, NOW);
      const fromWatch = plan(first.snapshot, config, NOW, { translate: watched.translate });
      expect(fromWatch.outcomes).toEqual(fromRead.outcomes);
      expect((await watched.full()).requests).toBe(0);

      // A near miss removed and another added: the watch sees both, the next pass lists again.
      await h.core.deleteNamespacedSecret({ namespace: vcluster, name: 'vc-v' });
      await create(renamed, 'vc-other', { config: 'c' });
      await vi.waitFor(
        async () => {
          const now = await watched.refresh();
          expect(now.snapshot.nearMisses).toEqual(
            (await createGatherer(h.access, config).full()).snapshot.nearMisses,
          );
          expect(now.snapshot.nearMisses?.map((n) => n.name).sort()).toEqual([
            'my-kubeconfig',
            'vc-other',
          ]);
        },
        { timeout: 10_000 },
      );
      expect((await watched.refresh()).requests).toBe(0);
    } finally {
      watched.stop();
    }
  });
});
