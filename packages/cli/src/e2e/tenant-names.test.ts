// Names and servers across tenants, end to end against the real host plane (`--once`, child
// process): a tenant cannot take ArgoCD's own `in-cluster` name, and the Events on a tenant's
// source never name another tenant's namespace or server (the operator's plan still does).

import { describe, expect, it } from 'vitest';
import {
  applyOnce,
  createSourceNamespace,
  kubeconfigYaml,
  outcomeOf,
  planJson,
  putK3kKubeconfig,
  registration,
  useWorld,
} from '../test-support/e2e.js';
import type { World } from '../test-support/e2e.js';

const { world } = useWorld();

/** A labelled namespace claiming `cluster`, its kubeconfig naming `server`; its name. */
async function tenant(cluster: string, server: string): Promise<string> {
  const ns = await createSourceNamespace(world, { cluster });
  const name = ns.metadata?.name ?? '';
  await putK3kKubeconfig(world, name, kubeconfigYaml(world.child, { server }));
  return name;
}

async function refusedEvents(target: World, namespace: string): Promise<string[]> {
  const events = await target.hostApi.listNamespacedEvent({ namespace });
  return events.items.filter((e) => e.reason === 'Refused').map((e) => e.message ?? '');
}

describe('names and servers across tenants', () => {
  it('refuses a namespace labelled cluster=in-cluster by name, and registers its neighbour', async () => {
    const hijack = await tenant('in-cluster', 'https://hijack.example:6443');
    const neighbour = await tenant('neighbour', 'https://neighbour.example:6443');

    await applyOnce(world);

    expect(await registration(world, 'in-cluster')).toBeUndefined();
    expect(await registration(world, 'neighbour')).toBeDefined();
    const { plan } = await planJson(world);
    expect(outcomeOf(plan, hijack)).toMatchObject({
      state: 'refused',
      reason: { code: 'name-reserved' },
    });
    expect(outcomeOf(plan, neighbour)?.state).toBe('unchanged');
    const [event] = await refusedEvents(world, hijack);
    expect(event).toContain('cluster name "in-cluster"');
    expect(event).toContain('is reserved');
  });

  it('tells a tenant refused for another tenant’s name or server neither that namespace nor that server', async () => {
    const server = 'https://owner.example:6443';
    const owner = await tenant('shared', server);
    await applyOnce(world);
    expect(await registration(world, 'shared')).toBeDefined();

    const sameName = await tenant('shared', 'https://same-name.example:6443');
    const sameServer = await tenant('other', server);
    await applyOnce(world);

    // The operator's plan names the holder.
    const { plan } = await planJson(world);
    expect(outcomeOf(plan, sameName)?.reason?.code).toBe('name-claimed');
    expect(outcomeOf(plan, sameName)?.reason?.message).toContain(owner);
    expect(outcomeOf(plan, sameServer)?.reason?.code).toBe('server-collision');
    expect(outcomeOf(plan, sameServer)?.reason?.message).toContain(owner);
    // The tenants' Events do not.
    for (const namespace of [sameName, sameServer]) {
      const events = await refusedEvents(world, namespace);
      expect(events).toHaveLength(1);
      for (const message of events) {
        expect(message).toContain('another source');
        expect(message).not.toContain(owner);
        expect(message).not.toContain('owner.example');
      }
    }
  });
});
