import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { kubeconfigText, testChildPlane, uniqueName } from '@argocd-cluster-registrar/testkit';
import { createSettledRepeat, plan } from '@argocd-cluster-registrar/core';
import type { Config, Plan } from '@argocd-cluster-registrar/core';
import { createApplier } from '../write/plan-writer.js';
import { createGatherer } from './listed-world.js';
import { kubeClusterFromText } from '../connection/kube-config.js';
import { createWatchGatherer } from './watched-world.js';
import type { WatchGatherer } from './watched-world.js';
import type { WorldChange } from './world-cache.js';
import {
  MANAGED_BY_KEY,
  PREFIX,
  createNamespace,
  host,
  opaque,
  restrictedAccess,
  testConfig,
} from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

const ARGO = 'argocd.argoproj.io/secret-type';
const NOW = Date.parse('2026-12-01T00:00:00Z');

let h: Host;
let childCa: string;
let gatherer: WatchGatherer | undefined;
beforeAll(async () => {
  h = await host();
  childCa = (await testChildPlane()).caPem;
});
afterEach(() => {
  gatherer?.stop();
  gatherer = undefined;
});

function kubeconfig(server: string, caPem: string): string {
  return kubeconfigText({
    server,
    cluster: [`certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`],
    user: ['token: not-a-real-token'],
  });
}

/** Managed namespaces with kubeconfigs (one with a server override), and cluster Secrets. */
async function arrange(config: Config) {
  const managed = { [MANAGED_BY_KEY]: config.managedBy };
  const a = uniqueName('k3k-a');
  const b = uniqueName('vc-b');
  const target = config.targetNamespace;
  await createNamespace(h.core, a, { ...managed, [`${PREFIX}cluster`]: 'a' });
  await createNamespace(h.core, b, { ...managed, [`${PREFIX}cluster`]: 'b' });
  await h.core.patchNamespace({
    name: b,
    body: [
      {
        op: 'add',
        path: '/metadata/annotations',
        value: { [`${PREFIX}server`]: 'https://b.example.test' },
      },
    ],
  });
  await createNamespace(h.core, target);
  await h.core.createNamespacedSecret({
    namespace: a,
    body: opaque(
      'k3k-a-kubeconfig',
      {},
      { 'kubeconfig.yaml': kubeconfig('https://a.example.test:6443', childCa) },
    ),
  });
  await h.core.createNamespacedSecret({ namespace: a, body: opaque('unrelated', {}, { x: 'y' }) });
  await h.core.createNamespacedSecret({
    namespace: b,
    body: opaque('vc-b', {}, { config: kubeconfig('https://127.0.0.1:1', h.plane.caPem) }),
  });
  const owned = (source: string) => ({ ...managed, [`${PREFIX}source-namespace`]: source });
  await h.core.createNamespacedSecret({
    namespace: target,
    body: opaque('cluster-foreign', { [ARGO]: 'cluster' }, { name: 'foreign' }),
  });
  await h.core.createNamespacedSecret({
    namespace: target,
    body: opaque(
      'cluster-gone',
      { ...owned(uniqueName('gone')), [ARGO]: 'cluster' },
      { name: 'gone' },
    ),
  });
  return { a, b, target };
}

function watching(config: Config, changes: WorldChange[] = []): WatchGatherer {
  gatherer = createWatchGatherer(h.access, config, {
    onChange: (change) => changes.push(change),
    onError: () => undefined,
    resyncPeriodMs: 0,
  });
  return gatherer;
}

describe('createWatchGatherer', () => {
  it('plans exactly as a full read does, holding no kubeconfig data', async () => {
    const config = testConfig();
    await arrange(config);
    const read = await createGatherer(h.access, config).full();
    const watched = watching(config);
    const cached = await watched.full();

    expect(cached.failures).toEqual([]);
    const listed = createGatherer(h.access, config);
    const fromRead = plan(read.snapshot, config, NOW, { translate: listed.translate });
    const fromWatch = plan(cached.snapshot, config, NOW, { translate: watched.translate });
    expect(JSON.stringify(fromWatch)).toBe(JSON.stringify(fromRead));
    expect(fromWatch.actions.map((action) => action.kind).sort()).toEqual([
      'create',
      'create',
      'delete',
    ]);
    expect(cached.snapshot.namespaces).toEqual(read.snapshot.namespaces);
    expect(cached.snapshot.clusterSecrets).toEqual(read.snapshot.clusterSecrets);
    expect(cached.snapshot.sourceLookups).toEqual(read.snapshot.sourceLookups);
    for (const secret of cached.snapshot.candidateSecrets)
      for (const value of Object.values(secret.data)) expect(value).toBe('');
    expect(watched.stats().translationMisses).toBe(0);
  });

  it('costs no request when nothing changed; reads a changed candidate once, and never one outside the globs', async () => {
    const config = testConfig();
    const { a } = await arrange(config);
    const changes: WorldChange[] = [];
    const watched = watching(config, changes);
    const first = await watched.full();
    // Two candidates read, one lookup (the gone source namespace).
    expect(first.requests).toBe(3);
    expect(watched.stats().secretReads).toBe(2);
    const again = await watched.full();
    expect(again.requests).toBe(0);
    expect(await watched.refresh()).toMatchObject({ requests: 0 });

    // Secrets no glob matches: changed, created, in managed and other namespaces alike.
    await h.core.patchNamespacedSecret({
      namespace: a,
      name: 'unrelated',
      body: [{ op: 'add', path: '/data/x', value: Buffer.from('z').toString('base64') }],
    });
    await h.core.createNamespacedSecret({
      namespace: a,
      body: opaque('also-unrelated', {}, { y: 'z' }),
    });
    // Then the CA of a's kubeconfig rotates.
    const replaced = await h.core.replaceNamespacedSecret({
      namespace: a,
      name: 'k3k-a-kubeconfig',
      body: opaque(
        'k3k-a-kubeconfig',
        {},
        { 'kubeconfig.yaml': kubeconfig('https://a.example.test:6443', h.plane.caPem) },
      ),
    });
    // The unrelated Secrets' events name namespace a too (its near misses may have changed),
    // so wait for the rotation itself: refresh until the candidate's new version is read.
    // A refresh that finds nothing new costs no request, so the sum counts the one read.
    let requests = 0;
    let rotated = await watched.refresh();
    requests += rotated.requests;
    await vi.waitFor(
      async () => {
        const seen = rotated.snapshot.candidateSecrets.find(
          (secret) => secret.namespace === a && secret.name === 'k3k-a-kubeconfig',
        );
        if (seen?.resourceVersion !== replaced.metadata?.resourceVersion) {
          rotated = await watched.refresh();
          requests += rotated.requests;
        }
        expect(
          rotated.snapshot.candidateSecrets.find(
            (secret) => secret.namespace === a && secret.name === 'k3k-a-kubeconfig',
          )?.resourceVersion,
        ).toBe(replaced.metadata?.resourceVersion);
      },
      { timeout: 10_000 },
    );
    expect(changes.flatMap((c) => c.namespaces)).toContain(a);
    expect(requests).toBe(1);
    expect(watched.stats().secretReads).toBe(3);
    const outcome = plan(rotated.snapshot, config, NOW, { translate: watched.translate });
    const create = outcome.actions.find(
      (action) => action.kind === 'create' && action.reason.namespace === a,
    );
    const configJson = JSON.parse(
      Buffer.from(
        create?.kind === 'create' ? (create.secret.data['config'] ?? '') : '',
        'base64',
      ).toString(),
    ) as { tlsClientConfig: { caData?: string } };
    expect(configJson.tlsClientConfig.caData).toBe(Buffer.from(h.plane.caPem).toString('base64'));
    expect((await watched.full()).requests).toBe(0);
    expect(watched.stats().translationMisses).toBe(0);
  });

  it('gives the same world again when nothing changed, so the planner repeats a settled plan', async () => {
    // The daemon's cycle over the real plane: gather, plan, write; gather until the plan finds
    // nothing to do; then a pass over the unchanged cache is that plan again (the planner
    // checks every object's uid and resourceVersion), and a changed namespace is planned anew.
    const config = testConfig();
    const { a } = await arrange(config);
    const watched = watching(config);
    const repeat = createSettledRepeat();
    const writer = createApplier(h.access, config);
    let settled: Plan | undefined;
    await vi.waitFor(
      async () => {
        const gathered = await watched.full();
        const next = plan(gathered.snapshot, config, NOW, { translate: watched.translate, repeat });
        if (next.actions.length > 0) await writer.write(next, gathered.snapshot.clusterSecrets);
        expect(gathered.failures).toEqual([]);
        expect(next.actions).toEqual([]);
        settled = next;
      },
      { timeout: 15_000, interval: 100 },
    );
    const again = await watched.full();
    expect(plan(again.snapshot, config, NOW + 1000, { translate: watched.translate, repeat })).toBe(
      settled,
    );

    await h.core.patchNamespace({
      name: a,
      body: [
        { op: 'add', path: `/metadata/labels/${PREFIX.replace('/', '~1')}team`, value: 'blue' },
      ],
    });
    await vi.waitFor(
      async () => {
        const changed = await watched.full();
        const replanned = plan(changed.snapshot, config, NOW + 2000, {
          translate: watched.translate,
          repeat,
        });
        expect(replanned).not.toBe(settled);
        expect(replanned.actions.map((action) => action.kind)).toEqual(['update']);
      },
      { timeout: 10_000, interval: 100 },
    );
  });

  it('holds each registration whole once, and keeps its data through demotion and promotion', async () => {
    const config = testConfig();
    const { target } = await arrange(config);
    const watched = watching(config);
    const first = await watched.full();
    // cluster-gone carries ArgoCD's label and ours: both watches see it, one holds it whole.
    const held = first.snapshot.clusterSecrets.length;
    expect(held).toBe(2);
    expect(watched.stats().clusterSecretCopies).toBe(held);

    const relabel = async (value: string | null) => {
      const path = `/metadata/labels/${ARGO.replace('/', '~1')}`;
      await h.core.patchNamespacedSecret({
        namespace: target,
        name: 'cluster-gone',
        body: [value === null ? { op: 'remove', path } : { op: 'add', path, value }],
      });
    };
    const dataOf = async () => {
      for (;;) {
        const result = await watched.full();
        const gone = result.snapshot.clusterSecrets.find((s) => s.name === 'cluster-gone');
        if (result.failures.length === 0 && gone !== undefined) return gone;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    // Demoted: only our watch selects it now, and holds it whole.
    await relabel(null);
    await vi.waitFor(async () => {
      expect((await dataOf()).labels[ARGO]).toBeUndefined();
    });
    expect((await dataOf()).data['name']).toBe(Buffer.from('gone').toString('base64'));
    expect(watched.stats().clusterSecretCopies).toBe(held);
    // Promoted again: ArgoCD's label watch holds it, ours a shadow.
    await relabel('cluster');
    await vi.waitFor(async () => {
      expect((await dataOf()).labels[ARGO]).toBe('cluster');
    });
    expect((await dataOf()).data['name']).toBe(Buffer.from('gone').toString('base64'));
    expect(watched.stats().clusterSecretCopies).toBe(held);
  });

  it('ends a pass still waiting for the first lists when stopped, as incomplete', async () => {
    // Accepts connections and never answers, not even the TLS handshake.
    const held: Socket[] = [];
    const silent = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const cluster = kubeClusterFromText(
      JSON.stringify({
        clusters: [
          {
            name: 'silent',
            cluster: {
              server: `https://127.0.0.1:${(silent.address() as AddressInfo).port}`,
              'insecure-skip-tls-verify': true,
            },
          },
        ],
        users: [{ name: 'u', user: { token: 'x' } }],
        contexts: [{ name: 'c', context: { cluster: 'silent', user: 'u' } }],
        'current-context': 'c',
      }),
    );
    const stalled = createWatchGatherer({ cluster, source: 'silent' }, testConfig(), {
      onChange: () => undefined,
      onError: () => undefined,
      resyncPeriodMs: 0,
    });
    const pending = stalled.full();
    stalled.stop();
    const result = await pending;
    expect(result.failures.map((f) => f.scope).sort()).toEqual([
      'watch cluster secrets',
      'watch namespaces',
      'watch owned secrets',
      'watch secret metadata',
    ]);
    expect(result.requests).toBe(0);
    for (const socket of held) socket.destroy();
    await new Promise<void>((resolve) =>
      silent.close(() => {
        resolve();
      }),
    );
  });

  it('reports a watch it may not open as a failure, and proves nothing from what it lacks', async () => {
    const config = testConfig();
    await arrange(config);
    // Everything but watching Secrets.
    const access = await restrictedAccess(h, config.targetNamespace, [
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] },
    ]);
    const refused = new Set<string>();
    gatherer = createWatchGatherer(access, config, {
      onChange: () => undefined,
      onError: (watch) => refused.add(watch),
      resyncPeriodMs: 0,
    });
    // The lists are allowed and complete; each watch is refused right after its list.
    await vi.waitFor(
      () => {
        expect(refused.size).toBe(3);
      },
      { timeout: 20_000 },
    );
    const result = await gatherer.full();
    const failed = result.failures.map((f) => `${f.scope}: ${f.failure.kind}`).sort();
    expect(failed).toEqual([
      'watch cluster secrets: forbidden',
      'watch owned secrets: forbidden',
      'watch secret metadata: forbidden',
    ]);
    // The gone source namespace is not looked up, so nothing can be proven gone.
    for (const lookup of Object.values(result.snapshot.sourceLookups))
      expect(lookup.state).toBe('unknown');
    // The snapshot says what it lacks, so the planner withholds what rests on it.
    expect(result.snapshot.clusterSecretsUnread).toMatch(/watch is not in sync/);
    const managed = result.snapshot.namespaces.map((n) => n.name).sort();
    expect(managed.length).toBeGreaterThan(0);
    expect((result.snapshot.unreadNamespaces ?? []).map((u) => u.name)).toEqual(managed);
  });
});
