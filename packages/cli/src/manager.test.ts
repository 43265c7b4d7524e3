// The daemon in this process, against the real host plane through the fault proxy.

import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '@argocd-cluster-registrar/core';
import { createApplier } from '@argocd-cluster-registrar/k8s-adapter';
import {
  installClusterProfileCrd,
  kubectl,
  startFaultProxy,
  uniqueName,
} from '@argocd-cluster-registrar/testkit';
import type { FaultProxy } from '@argocd-cluster-registrar/testkit';
import { silentLogger } from './logging.js';
import { Daemon } from './manager.js';
import { RegistrarMetrics } from './metrics.js';
import { accessThrough } from './test-support/proxied-access.js';
import {
  createSourceNamespace,
  createWorld,
  eventually,
  kubeconfigYaml,
  putK3kKubeconfig,
  registration,
} from './test-support/e2e.js';
import type { World } from './test-support/e2e.js';

let proxy: FaultProxy | undefined;
let daemon: Daemon | undefined;

afterEach(async () => {
  await daemon?.stop();
  await proxy?.close();
  daemon = undefined;
  proxy = undefined;
});

async function addSource(world: World, cluster: string): Promise<void> {
  const ns = await createSourceNamespace(world, { cluster });
  const kubeconfig = kubeconfigYaml(world.child, {
    server: `https://${cluster}.example:6443`,
    user: { token: 't' },
  });
  await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfig);
}

describe('Daemon', () => {
  it('registers the next source while the last one’s Event is still unanswered', async () => {
    const world = await createWorld();
    const parsed = parseConfig({ targetNamespace: world.target, managedBy: world.managedBy });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const config = parsed.config;
    // Every Event hangs, for longer than this test runs; everything else is answered.
    proxy = await startFaultProxy(world.host, {
      faults: { rate: 1, kinds: ['hang'], only: /^POST \/api\/v1\/namespaces\/[^/]+\/events/ },
    });
    const access = accessThrough(proxy, { requestTimeoutMs: 600_000 });
    const metrics = new RegistrarMetrics();
    daemon = new Daemon({
      access,
      writerFor: (writerAccess) => createApplier(writerAccess, config),
      config,
      logger: silentLogger,
      metrics,
      leaderElect: false,
    });
    daemon.start();

    // The first source's namespace appears before its kubeconfig: its Waiting Event hangs.
    await addSource(world, 'first');
    await eventually(() => registration(world, 'first'), 'the first registration');
    const hung = (): number =>
      proxy?.log.filter((e) => e.method === 'POST' && e.path.endsWith('/events')).length ?? 0;
    await eventually(() => Promise.resolve(hung() > 0 ? true : undefined), 'its Event to be sent');

    await addSource(world, 'second');
    await eventually(() => registration(world, 'second'), 'the second registration');
    // The first Event was never answered: the second source did not wait for it.
    expect(proxy.log.filter((e) => e.path.endsWith('/events') && e.status !== undefined)).toEqual(
      [],
    );
    expect(metrics.events.get({ result: 'sent' })).toBeUndefined();
  });

  it('publishes ClusterProfiles in batches, each pass followed at once by the next while some are left', async () => {
    const world = await createWorld();
    await installClusterProfileCrd(world.host);
    const inventory = uniqueName('inventory');
    await world.hostApi.createNamespace({ body: { metadata: { name: inventory } } });
    const clusters = [uniqueName('batch'), uniqueName('batch'), uniqueName('batch')];
    for (const cluster of clusters) await addSource(world, cluster);
    const parsed = parseConfig({
      targetNamespace: world.target,
      managedBy: world.managedBy,
      clusterProfiles: true,
      clusterProfileNamespace: inventory,
      clusterManager: 'batch-test',
      // No interval pass within the test: only the follow-up passes can publish the rest.
      interval: '1h',
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const config = parsed.config;
    const deferred: number[] = [];
    daemon = new Daemon({
      access: accessThrough((proxy = await startFaultProxy(world.host))),
      writerFor: (writerAccess) => createApplier(writerAccess, config),
      config,
      logger: silentLogger,
      metrics: new RegistrarMetrics(),
      leaderElect: false,
      profileWritesPerPass: 1,
      onPass: (report) => {
        if (report.profiles?.state === 'planned' && report.profiles.results.length > 0)
          deferred.push(report.profiles.plan.deferred);
      },
    });
    daemon.start();
    const published = async (): Promise<string[] | undefined> => {
      const names = (
        await kubectl(world.host, ['get', 'clusterprofiles', '-n', inventory, '-o', 'name'])
      )
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.replace(/^.*\//, ''))
        .sort();
      return names.length === clusters.length ? names : undefined;
    };
    expect(await eventually(published, 'all three profiles')).toEqual([...clusters].sort());
    // One profile a pass: two passes left some for the next.
    expect(deferred).toEqual([2, 1, 0]);
  });
});
