import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFaultProxy, uniqueName } from '@argocd-cluster-registrar/testkit';
import type { ApiFailure } from '../connection/api-failure.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { kubeClusterFromText } from '../connection/kube-config.js';
import { startListWatch } from './list-watch.js';
import type { ListWatch, WatchedObject } from './list-watch.js';
import { startCutProxy } from '../test-support/cut-proxy.js';
import { compactEtcd } from '../test-support/etcd-compaction.js';
import type { CutProxy } from '../test-support/cut-proxy.js';
import { createNamespace, host, opaque } from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

interface Kept {
  readonly name: string;
  readonly resourceVersion: string;
  readonly fields: readonly string[];
}

let h: Host;
let watch: ListWatch<Kept> | undefined;
let proxy: CutProxy | undefined;
beforeAll(async () => {
  h = await host();
});
afterEach(async () => {
  watch?.stop();
  watch = undefined;
  await proxy?.close();
  proxy = undefined;
});

// What arrives, kept whole enough to check that metadata-only means no data.
const project = (object: WatchedObject): Kept | undefined => {
  const name = object.metadata?.name ?? '';
  if (!name.startsWith('k3k-')) return undefined;
  return {
    name,
    resourceVersion: object.metadata?.resourceVersion ?? '',
    fields: Object.keys(object),
  };
};

function secretsIn(namespace: string, access = h.access, resumeFrom?: string) {
  const errors: ApiFailure[] = [];
  const upserts: string[] = [];
  const started = startListWatch<Kept>(access, {
    name: 'secret metadata',
    path: `/api/v1/namespaces/${namespace}/secrets`,
    metadataOnly: true,
    project,
    ...(resumeFrom !== undefined ? { resumeFrom } : {}),
    handlers: {
      onUpsert: (key) => upserts.push(key),
      onDelete: () => undefined,
      onError: (failure) => errors.push(failure),
    },
  });
  return { started, errors, upserts };
}

async function secret(namespace: string, name: string, value = 'v'): Promise<void> {
  await h.core.createNamespacedSecret({ namespace, body: opaque(name, {}, { value }) });
}

/** Waits until `count` watches have been opened (a list, then a watch, per session). */
async function watchesOpened(started: ListWatch<Kept>, count: number): Promise<void> {
  await vi.waitFor(
    () => {
      expect(started.stats().watches).toBe(count);
    },
    { timeout: 20_000 },
  );
}

/** The fault proxy in front of the real API server, replacing one watch line (see testkit). */
async function startCorruptingProxy(
  needle: string,
  mode: 'undecodable' | 'endless' = 'undecodable',
): Promise<{ readonly access: KubeAccess; corrupted(): number; close(): Promise<void> }> {
  const proxied = await startFaultProxy(h.plane, { corruptWatchLine: { needle, mode } });
  return {
    access: { cluster: kubeClusterFromText(proxied.kubeConfig), source: 'corrupting proxy' },
    corrupted: () => proxied.corruptedLines(),
    close: () => proxied.close(),
  };
}

describe('startListWatch', () => {
  it('lists then watches metadata only, keeping only what the projection accepts', async () => {
    const namespace = uniqueName('lw');
    await createNamespace(h.core, namespace);
    await secret(namespace, 'k3k-a-kubeconfig');
    await secret(namespace, 'unrelated');
    const { started, errors } = secretsIn(namespace);
    watch = started;
    await vi.waitFor(
      () => {
        expect(started.synced()).toBe(true);
      },
      { timeout: 20_000 },
    );
    await secret(namespace, 'k3k-b-kubeconfig');
    await secret(namespace, 'other');
    await vi.waitFor(
      () => {
        expect(started.store.size).toBe(2);
      },
      { timeout: 10_000 },
    );
    for (const kept of started.store.values()) {
      expect(kept.fields).not.toContain('data');
      expect(kept.fields).toContain('metadata');
    }
    expect([...started.store.keys()].sort()).toEqual([
      `${namespace}/k3k-a-kubeconfig`,
      `${namespace}/k3k-b-kubeconfig`,
    ]);
    await h.core.deleteNamespacedSecret({ namespace, name: 'k3k-a-kubeconfig' });
    await vi.waitFor(
      () => {
        expect(started.store.size).toBe(1);
      },
      { timeout: 10_000 },
    );
    expect(started.stats().lists).toBe(1);
    expect(errors).toEqual([]);
  });

  it('resumes a watch cut mid-stream from its last resourceVersion, without a list', async () => {
    const namespace = uniqueName('lw-cut');
    await createNamespace(h.core, namespace);
    await secret(namespace, 'k3k-a-kubeconfig');
    proxy = await startCutProxy(h.access);
    const { started } = secretsIn(namespace, proxy.access);
    watch = started;
    await watchesOpened(started, 1);
    // An event first, so the watch has moved past the list's version.
    await secret(namespace, 'k3k-b-kubeconfig');
    await vi.waitFor(
      () => {
        expect(started.store.size).toBe(2);
      },
      { timeout: 10_000 },
    );

    proxy.cut();
    // Changed while the stream is down: the resumed watch replays it from the version kept.
    await secret(namespace, 'k3k-c-kubeconfig');
    await h.core.deleteNamespacedSecret({ namespace, name: 'k3k-a-kubeconfig' });
    await vi.waitFor(
      () => {
        expect([...started.store.keys()].sort()).toEqual([
          `${namespace}/k3k-b-kubeconfig`,
          `${namespace}/k3k-c-kubeconfig`,
        ]);
      },
      { timeout: 20_000 },
    );
    const stats = started.stats();
    expect(stats.lists).toBe(1);
    expect(stats.resumes).toBeGreaterThanOrEqual(1);
    expect(stats.expired).toBe(0);
  });

  // A real 410 needs the server's watch cache to have evicted the version (events older than
  // its freshness window in a full cache), which a young test plane does not reach: it
  // replays everything since instead. Either answer must leave the store complete.
  it('resumes from a version older than the server keeps: a 410 means a list; nothing is lost', async () => {
    const namespace = uniqueName('lw-gone');
    await createNamespace(h.core, namespace);
    await secret(namespace, 'k3k-a-kubeconfig');
    await secret(namespace, 'k3k-b-kubeconfig');
    const { started, errors } = secretsIn(namespace, h.access, '1');
    watch = started;
    await vi.waitFor(
      () => {
        expect(started.store.size).toBe(2);
      },
      { timeout: 20_000 },
    );
    const stats = started.stats();
    // Listed exactly when the server said the version was gone.
    expect(stats.lists).toBe(stats.expired);
    await secret(namespace, 'k3k-c-kubeconfig');
    await vi.waitFor(
      () => {
        expect(started.store.size).toBe(3);
      },
      { timeout: 10_000 },
    );
    expect(errors).toEqual([]);
  });

  it('re-lists on resync and reports what changed meanwhile', async () => {
    const namespace = uniqueName('lw-resync');
    await createNamespace(h.core, namespace);
    await secret(namespace, 'k3k-a-kubeconfig');
    const { started } = secretsIn(namespace);
    watch = started;
    await watchesOpened(started, 1);
    void started.resync();
    await watchesOpened(started, 2);
    expect(started.stats().lists).toBe(2);
    expect(started.store.size).toBe(1);
  });

  it('settles a resync once its list has ended, so that re-lists can be taken in turn', async () => {
    const namespace = uniqueName('lw-resync-ended');
    await createNamespace(h.core, namespace);
    await secret(namespace, 'k3k-a-kubeconfig');
    const { started } = secretsIn(namespace);
    watch = started;
    await watchesOpened(started, 1);
    await started.resync();
    expect(started.stats().lists).toBe(2);
    expect(started.store.size).toBe(1);
    started.stop();
    // A stopped watch lists no more: its resync settles at once.
    await started.resync();
    expect(started.stats().lists).toBe(2);
  });

  it('a re-list projects only what changed since the store was filled: an unchanged world costs one page at a time', async () => {
    const namespace = uniqueName('lw-relist');
    await createNamespace(h.core, namespace);
    await secret(namespace, 'k3k-a-kubeconfig');
    await secret(namespace, 'k3k-b-kubeconfig');
    await secret(namespace, 'other');
    const projected: string[] = [];
    const upserts: string[] = [];
    const started = startListWatch<Kept>(h.access, {
      name: 'secret metadata',
      path: `/api/v1/namespaces/${namespace}/secrets`,
      metadataOnly: true,
      project: (object) => {
        projected.push(object.metadata?.name ?? '');
        return project(object);
      },
      handlers: {
        onUpsert: (key) => upserts.push(key),
        onDelete: () => undefined,
        onError: () => undefined,
      },
    });
    watch = started;
    await watchesOpened(started, 1);
    expect(projected.filter((name) => name.startsWith('k3k-')).sort()).toEqual([
      'k3k-a-kubeconfig',
      'k3k-b-kubeconfig',
    ]);
    projected.length = 0;
    upserts.length = 0;
    void started.resync();
    await watchesOpened(started, 2);
    expect(started.stats().lists).toBe(2);
    // Kept ones unchanged are not projected again; one the projection rejects is (it is not
    // kept, so there is no version to compare).
    expect(projected.filter((name) => name.startsWith('k3k-'))).toEqual([]);
    expect(projected).toContain('other');
    expect(upserts).toEqual([]);
    expect([...started.store.keys()].sort()).toEqual([
      `${namespace}/k3k-a-kubeconfig`,
      `${namespace}/k3k-b-kubeconfig`,
    ]);
  });

  // Events are served to watches from etcd, not from the API server's watch cache, so once
  // etcd is compacted past the version a watch resumes from, the server answers 410 Gone:
  // the path a Secret watch takes after a long enough outage.
  it('re-lists on a real 410 Gone after a cut, and loses nothing that happened meanwhile', async () => {
    const namespace = uniqueName('lw-410');
    await createNamespace(h.core, namespace);
    const event = (name: string) =>
      h.core.createNamespacedEvent({
        namespace,
        body: {
          metadata: { name },
          involvedObject: { kind: 'ConfigMap', name: 'subject', namespace, apiVersion: 'v1' },
          reason: 'Test',
          message: 'list-watch 410 test',
        },
      });
    await event('e-kept');
    await event('e-deleted');
    proxy = await startCutProxy(h.access);
    const errors: ApiFailure[] = [];
    const started = startListWatch<Kept>(proxy.access, {
      name: 'events',
      path: `/api/v1/namespaces/${namespace}/events`,
      project: (object) => ({
        name: object.metadata?.name ?? '',
        resourceVersion: object.metadata?.resourceVersion ?? '',
        fields: [],
      }),
      handlers: {
        onUpsert: () => undefined,
        onDelete: () => undefined,
        onError: (failure) => errors.push(failure),
      },
    });
    watch = started;
    await watchesOpened(started, 1);
    await event('e-seen');
    await vi.waitFor(
      () => {
        expect(started.store.size).toBe(3);
      },
      { timeout: 10_000 },
    );

    // The server becomes unreachable; meanwhile one event is added, one removed, and etcd is
    // compacted past the watch's version.
    proxy.hold(true);
    proxy.cut();
    await event('e-added-while-cut');
    await h.core.deleteNamespacedEvent({ namespace, name: 'e-deleted' });
    await compactEtcd(h.plane);
    proxy.hold(false);

    await vi.waitFor(
      () => {
        expect([...started.store.keys()].sort()).toEqual(
          ['e-added-while-cut', 'e-kept', 'e-seen'].map((name) => `${namespace}/${name}`),
        );
      },
      { timeout: 30_000 },
    );
    const stats = started.stats();
    expect(stats.expired).toBe(1);
    expect(stats.lists).toBe(2);
    // Failed reconnects while held are reported; nothing else is.
    expect(errors.every((failure) => failure.kind === 'transient')).toBe(true);
  });

  it('ends a watch on a line that does not decode, and resumes before it: the event is not lost', async () => {
    const namespace = uniqueName('lw');
    await createNamespace(h.core, namespace);
    const corrupting = await startCorruptingProxy('k3k-victim-kubeconfig');
    try {
      const { started, errors } = secretsIn(namespace, corrupting.access);
      watch = started;
      await vi.waitFor(
        () => {
          expect(started.synced()).toBe(true);
        },
        { timeout: 20_000 },
      );
      await secret(namespace, 'k3k-victim-kubeconfig');
      await secret(namespace, 'k3k-after-kubeconfig');
      await vi.waitFor(
        () => {
          expect([...started.store.keys()].sort()).toEqual([
            `${namespace}/k3k-after-kubeconfig`,
            `${namespace}/k3k-victim-kubeconfig`,
          ]);
        },
        { timeout: 20_000 },
      );
      expect(corrupting.corrupted()).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await corrupting.close();
    }
  });

  it('ends a watch whose line grows past 8 MiB without ending, and resumes before it: the event is not lost', async () => {
    const namespace = uniqueName('lw');
    await createNamespace(h.core, namespace);
    const corrupting = await startCorruptingProxy('k3k-victim-kubeconfig', 'endless');
    try {
      const { started, errors } = secretsIn(namespace, corrupting.access);
      watch = started;
      await vi.waitFor(
        () => {
          expect(started.synced()).toBe(true);
        },
        { timeout: 20_000 },
      );
      await secret(namespace, 'k3k-victim-kubeconfig');
      // Without a cap the line would be buffered until the stream is abandoned for silence
      // (minutes), and the event after it would wait as long.
      await vi.waitFor(
        () => {
          expect([...started.store.keys()]).toEqual([`${namespace}/k3k-victim-kubeconfig`]);
        },
        { timeout: 20_000 },
      );
      expect(corrupting.corrupted()).toBe(1);
      expect(started.stats().silences).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await corrupting.close();
    }
  });
});
