// Drain before deregistration, end to end with the daemon on the real host plane: with
// --drain-on-terminate, a terminating source namespace's registration loses the labels it
// copied from the namespace (what ApplicationSet generators select on) and keeps everything
// else; it is deleted only once the namespace is finalized and gone. Without the flag it is
// kept as it is until then.

import { describe, expect, it } from 'vitest';
import { finalizeNamespace } from '@argocd-cluster-registrar/testkit';
import {
  PREFIX,
  createSourceNamespace,
  useWorld,
  eventually,
  httpGet,
  kubeconfigYaml,
  putK3kKubeconfig,
  registration,
  startReadyDaemon,
  whoAmI,
  clusterConfig,
  childServer,
  decoded,
} from '../test-support/e2e.js';

const { world, daemons } = useWorld();

async function startReady(extra: readonly string[]): Promise<{ metricsPort: number }> {
  const { daemon: running } = await startReadyDaemon(world, ['--interval=10m', ...extra]);
  daemons.push(running);
  const metricsPort = await eventually(() => {
    const line = running.logs.find(
      (l) => l['msg'] === 'listening' && String(l['serves']).includes('/metrics'),
    );
    const address = line === undefined ? undefined : String(line['address']);
    return Promise.resolve(
      address === undefined ? undefined : Number(address.slice(address.lastIndexOf(':') + 1)),
    );
  }, 'the metrics server');
  return { metricsPort };
}

/** A registered namespace whose registration carries two copied labels. */
async function registeredWithCopiedLabels(cluster: string): Promise<string> {
  const ns = await createSourceNamespace(world, {
    cluster,
    labels: { [`${PREFIX}team`]: 'payments', [`${PREFIX}env`]: 'prod' },
  });
  const name = ns.metadata?.name ?? '';
  await putK3kKubeconfig(world, name, kubeconfigYaml(world.child));
  return name;
}

describe('drain on terminate', () => {
  it('removes the copied labels while the namespace terminates, and the registration once it is gone', async () => {
    const name = await registeredWithCopiedLabels('draining');
    const { metricsPort } = await startReady(['--drain-on-terminate']);
    const before = await eventually(async () => {
      const secret = await registration(world, 'draining');
      return secret?.metadata?.labels?.[`${PREFIX}team`] === 'payments' ? secret : undefined;
    }, 'the registration with its copied labels');

    // Terminating (no controller-manager runs on the test plane, so it stays terminating).
    await world.hostApi.deleteNamespace({ name });
    const drained = await eventually(async () => {
      const secret = await registration(world, 'draining');
      return secret !== undefined && secret.metadata?.labels?.[`${PREFIX}team`] === undefined
        ? secret
        : undefined;
    }, 'the copied labels to be removed');
    const labels = drained.metadata?.labels ?? {};
    expect(labels[`${PREFIX}env`]).toBeUndefined();
    // Still a registration, still ours, on the same object with the same credentials.
    expect(labels).toMatchObject({
      'argocd.argoproj.io/secret-type': 'cluster',
      [`${PREFIX}managed-by`]: world.managedBy,
      [`${PREFIX}cluster`]: 'draining',
      [`${PREFIX}source-namespace`]: name,
    });
    expect(drained.metadata?.uid).toBe(before.metadata?.uid);
    expect(drained.data).toEqual(before.data);
    // ArgoCD can still reach the child with what stays registered.
    const who = await whoAmI(decoded(drained, 'server') ?? '', clusterConfig(drained));
    expect(who.status).toBe(201);
    // The Event goes on the registration Secret: a terminating namespace takes no new objects.
    const event = await eventually(async () => {
      const events = await world.hostApi.listNamespacedEvent({ namespace: world.target });
      return events.items.find(
        (e) => e.reason === 'Drained' && e.involvedObject.name === 'cluster-draining',
      );
    }, 'the Drained event');
    expect(event.involvedObject).toMatchObject({ kind: 'Secret', uid: before.metadata?.uid });
    expect(event.message).toContain(
      'stays registered without the labels copied from the namespace',
    );
    const metrics = await httpGet(metricsPort, '/metrics');
    expect(metrics.body).toContain('argocd_cluster_registrar_registrations{state="drained"} 1\n');

    await finalizeNamespace(world.host, name);
    await eventually(
      async () => ((await registration(world, 'draining')) === undefined ? true : undefined),
      'the registration to be deleted once the namespace is gone',
    );
  });

  it('without the flag, keeps the registration as it is while the namespace terminates', async () => {
    const name = await registeredWithCopiedLabels('kept');
    await startReady([]);
    await eventually(() => registration(world, 'kept'), 'the registration');
    await world.hostApi.deleteNamespace({ name });
    // A pass that sees the terminating namespace: a later namespace event wakes the daemon,
    // and the registration must still carry its labels then.
    const marker = await createSourceNamespace(world, { cluster: 'marker' });
    // Another server address: one server is registered once.
    const other = childServer(world.child).replace('child.acr.test', 'marker.acr.test');
    await putK3kKubeconfig(
      world,
      marker.metadata?.name ?? '',
      kubeconfigYaml(world.child, { server: other }),
    );
    await eventually(() => registration(world, 'marker'), 'a later pass');
    const kept = await registration(world, 'kept');
    expect(kept?.metadata?.labels?.[`${PREFIX}team`]).toBe('payments');
    await finalizeNamespace(world.host, name);
  });
});
