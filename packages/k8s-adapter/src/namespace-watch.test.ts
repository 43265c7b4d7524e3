import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { uniqueName } from '@argocd-cluster-registrar/testkit';
import type { ApiFailure } from './api-failure.js';
import { watchManagedNamespaces } from './namespace-watch.js';
import type { NamespaceWatch } from './namespace-watch.js';
import { MANAGED_BY_KEY, createNamespace, host, testConfig } from './test-support/host.js';
import type { Host } from './test-support/host.js';

let h: Host;
let watch: NamespaceWatch | undefined;
beforeAll(async () => {
  h = await host();
});
afterEach(() => {
  watch?.stop();
  watch = undefined;
});

/** Touches a namespace (one MODIFIED event each time), so a test never races the watch's start. */
async function touch(name: string): Promise<void> {
  await h.core.patchNamespace({
    name,
    body: [{ op: 'add', path: '/metadata/annotations', value: { touched: String(Date.now()) } }],
  });
}

describe('watchManagedNamespaces', () => {
  it('reports changes of labelled namespaces, including losing the label, and nothing else', async () => {
    const config = testConfig();
    const managed = uniqueName('watched');
    const other = uniqueName('unwatched');
    await createNamespace(h.core, managed, { [MANAGED_BY_KEY]: config.managedBy });
    await createNamespace(h.core, other, { [MANAGED_BY_KEY]: 'someone-else' });
    const changes: string[] = [];
    const errors: ApiFailure[] = [];
    watch = watchManagedNamespaces(h.access, config, {
      onChange: (name) => changes.push(name),
      onError: (f) => errors.push(f),
    });

    await vi.waitFor(
      async () => {
        await touch(managed);
        await touch(other);
        expect(changes).toContain(managed);
      },
      { timeout: 20_000, interval: 300 },
    );
    expect(changes).not.toContain(other);

    // Removing the label takes the namespace out of the selector: a DELETED event for us.
    changes.length = 0;
    await h.core.patchNamespace({
      name: managed,
      body: [{ op: 'remove', path: `/metadata/labels/${MANAGED_BY_KEY.replace('/', '~1')}` }],
    });
    await vi.waitFor(
      () => {
        expect(changes).toEqual([managed]);
      },
      { timeout: 10_000 },
    );

    // A namespace labelled after the watch started is reported too.
    const late = uniqueName('late');
    await createNamespace(h.core, late, { [MANAGED_BY_KEY]: config.managedBy });
    await vi.waitFor(
      () => {
        expect(changes).toContain(late);
      },
      { timeout: 10_000 },
    );
    expect(errors).toEqual([]);
  });

  it('reports an unreachable API server as transient and keeps retrying until stopped', async () => {
    const unreachable = new KubeConfig();
    unreachable.loadFromOptions({
      clusters: [{ name: 'nowhere', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'nobody', token: 'a-token-that-must-not-leak' }],
      contexts: [{ name: 'nowhere', cluster: 'nowhere', user: 'nobody' }],
      currentContext: 'nowhere',
    });
    const errors: ApiFailure[] = [];
    watch = watchManagedNamespaces({ kubeConfig: unreachable, source: 'test' }, testConfig(), {
      onChange: () => undefined,
      onError: (f) => errors.push(f),
    });
    await vi.waitFor(
      () => {
        expect(errors.length).toBeGreaterThanOrEqual(2);
      },
      { timeout: 10_000 },
    );
    watch.stop();
    const seen = errors.length;
    expect(errors[0]).toMatchObject({
      kind: 'transient',
      retryable: true,
      message: 'connection failed (ECONNREFUSED)',
    });
    expect(JSON.stringify(errors)).not.toContain('a-token-that-must-not-leak');
    // Stopped means stopped: no more attempts.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(errors.length).toBe(seen);
  });
});
