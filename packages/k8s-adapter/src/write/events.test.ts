import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '@argocd-cluster-registrar/testkit';
import { recordClusterEvent, recordNamespaceEvent } from './events.js';
import { createNamespace, host, restrictedAccess } from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

let h: Host;
beforeAll(async () => {
  h = await host();
});

describe('recordNamespaceEvent', () => {
  it('records a core/v1 Event about the namespace, inside it', async () => {
    const name = uniqueName('evented');
    const uid = await createNamespace(h.core, name);
    const failure = await recordNamespaceEvent(
      h.access,
      { name, uid },
      {
        type: 'Warning',
        reason: 'Refused',
        message: 'server-loopback: the kubeconfig points at 127.0.0.1',
      },
      'argocd-cluster-registrar',
    );
    expect(failure).toBeUndefined();
    const events = await h.core.listNamespacedEvent({ namespace: name });
    expect(events.items).toHaveLength(1);
    expect(events.items[0]).toMatchObject({
      type: 'Warning',
      reason: 'Refused',
      message: 'server-loopback: the kubeconfig points at 127.0.0.1',
      count: 1,
      source: { component: 'argocd-cluster-registrar' },
      involvedObject: { kind: 'Namespace', name, uid },
    });
  });

  it('returns a forbidden failure instead of throwing', async () => {
    const name = uniqueName('evented');
    const uid = await createNamespace(h.core, name);
    const access = await restrictedAccess(h, name, [
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get'] },
    ]);
    const failure = await recordNamespaceEvent(
      access,
      { name, uid },
      { type: 'Normal', reason: 'Registered', message: 'ok' },
      'test',
    );
    expect(failure).toMatchObject({ kind: 'forbidden', status: 403, retryable: false });
  });

  it('aggregates a repeat into the first Event (count, lastTimestamp), as client-go does', async () => {
    const name = uniqueName('evented');
    const uid = await createNamespace(h.core, name);
    const refused = {
      type: 'Warning' as const,
      reason: 'Refused',
      message: 'server-loopback: the kubeconfig points at 127.0.0.1',
    };
    // Separate calls, as separate `--once` runs make them: no memory in between.
    for (let i = 0; i < 3; i++)
      expect(await recordNamespaceEvent(h.access, { name, uid }, refused, 'acr')).toBeUndefined();
    const other = { ...refused, message: 'something else' };
    expect(await recordNamespaceEvent(h.access, { name, uid }, other, 'acr')).toBeUndefined();

    const events = (await h.core.listNamespacedEvent({ namespace: name })).items;
    const summary = events.map((e) => [e.message, e.count]).sort();
    expect(summary).toEqual([
      ['server-loopback: the kubeconfig points at 127.0.0.1', 3],
      ['something else', 1],
    ]);
    const first = events.find((e) => e.count === 3);
    expect(first?.metadata.name?.startsWith(`${name}.`)).toBe(true);
    expect(Date.parse(String(first?.lastTimestamp))).toBeGreaterThanOrEqual(
      Date.parse(String(first?.firstTimestamp)),
    );
  });
});

describe('recordClusterEvent', () => {
  it('names the Cluster by the version discovery found, whatever version that is', async () => {
    const namespace = uniqueName('fleet');
    await createNamespace(h.core, namespace);
    // The Clusters need not exist: an Event only refers to them.
    const note = { type: 'Normal' as const, reason: 'Registered', message: 'ok' };
    for (const [i, version] of ['v1beta1', 'v1beta2'].entries()) {
      const uid = `00000000-0000-4000-8000-00000000000${String(i)}`;
      const cluster = { namespace, name: `cluster-${String(i)}`, uid, version };
      expect(await recordClusterEvent(h.access, cluster, note, 'acr')).toBeUndefined();
    }
    const events = (await h.core.listNamespacedEvent({ namespace })).items;
    expect(events.map((e) => e.involvedObject.apiVersion).sort()).toEqual([
      'cluster.x-k8s.io/v1beta1',
      'cluster.x-k8s.io/v1beta2',
    ]);
  });
});
