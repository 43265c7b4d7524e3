// Cluster API Clusters as sources (--capi-clusters), with Cluster API's own core and kubeadm
// control plane controllers writing the kubeconfigs (testkit startCapi) and ArgoCD's own
// ApplicationSet controller generating from the registrations: several Clusters in one
// namespace that carries no registrar label, each registered from its own kubeconfig with the
// labels of its Cluster.
//
// The file runs on a host plane of its own (Kubernetes' garbage collector runs beside CAPI and
// acts on every object of the plane); the tests run in order on one daemon.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyObjects,
  clustersApplicationSet,
  createCapiCluster,
  freePort,
  kubectl,
  listApplications,
  pauseCapiCluster,
  refreshApplicationSet,
  startArgoCd,
  startCapi,
  startControlPlane,
  uniqueName,
} from '@argocd-cluster-registrar/testkit';
import type { ArgoCd, Capi, ControlPlane } from '@argocd-cluster-registrar/testkit';
import {
  PREFIX,
  createWorld,
  decoded,
  eventually,
  registration,
  runCli,
  startReadyDaemon,
} from '../test-support/e2e.js';
import type { RunningDaemon, World } from '../test-support/e2e.js';

const APPS = `${PREFIX}fleet-apps`;
const APPSET = 'fleet-clusters';
const APP_PREFIX = 'fleet-';
const DOMAIN = 'fleet.acr.test';

let host: ControlPlane | undefined;
let world: World;
let capi: Capi | undefined;
let argo: ArgoCd | undefined;
let daemon: RunningDaemon | undefined;
let fleet = '';

beforeAll(async () => {
  host = await startControlPlane(`capi-sources-host-${String(process.pid)}`, {
    ownerPid: process.pid,
  });
  world = await createWorld({ host });
  capi = await startCapi(host);
  argo = await startArgoCd(host, { namespace: world.target });
  await applyObjects(host, [
    clustersApplicationSet(world.target, APPSET, { [APPS]: 'true' }, APP_PREFIX),
  ]);
  // A plain namespace: the Clusters carry the registrar's labels, not the namespace.
  fleet = uniqueName('fleet');
  await world.hostApi.createNamespace({ body: { metadata: { name: fleet } } });
  // A long interval: what reaches a registration in these tests came through the watches.
  // Bare Cluster names (not the default <namespace>.<name>): `fleet` is unique per run anyway.
  ({ daemon } = await startReadyDaemon(world, [
    '--provider=capi',
    '--capi-clusters',
    '--capi-cluster-names=name',
    '--interval=1h',
  ]));
});

afterAll(async () => {
  await daemon?.stop();
  await argo?.stop();
  await capi?.stop();
  await host?.stop();
});

function running(): Capi {
  if (capi === undefined) throw new Error('CAPI is not running');
  return capi;
}

async function explained<T>(waiting: Promise<T>): Promise<T> {
  try {
    return await waiting;
  } catch (err) {
    const lines = (daemon?.logs ?? []).slice(-30).map((l) => JSON.stringify(l));
    throw new Error(`${String(err)}\n--- daemon\n${lines.join('\n')}\n${capi?.logs() ?? ''}`);
  }
}

/** The daemon's log lines with `msg`, as [namespace, sourceCluster, reason] (absent: undefined). */
function logged(msg: string): unknown[][] {
  return (daemon?.logs ?? [])
    .filter((line) => line['msg'] === msg)
    .map((line) => [line['namespace'], line['sourceCluster'], line['reason']]);
}

async function clusterEndpoint(name: string): Promise<{ host: string; port: number }> {
  return { host: `${name}.${DOMAIN}`, port: await freePort() };
}

describe('two Clusters in one namespace', () => {
  it('registers each from the kubeconfig KCP wrote for it, with the labels of its Cluster; an ApplicationSet selects one by a copied label', async () => {
    const managed = { [`${PREFIX}managed-by`]: world.managedBy };
    const endpoints = {
      alpha: await clusterEndpoint('alpha'),
      beta: await clusterEndpoint('beta'),
    };
    await createCapiCluster(running(), {
      namespace: fleet,
      name: 'alpha',
      endpoint: endpoints.alpha,
      labels: { ...managed, [APPS]: 'true', [`${PREFIX}env`]: 'prod' },
    });
    await createCapiCluster(running(), {
      namespace: fleet,
      name: 'beta',
      endpoint: endpoints.beta,
      labels: { ...managed, [`${PREFIX}env`]: 'dev' },
    });
    for (const name of ['alpha', 'beta'] as const) {
      const secret = await explained(
        eventually(() => registration(world, name), `the registration of Cluster ${name}`, 60_000),
      );
      expect(decoded(secret, 'server')).toBe(
        `https://${endpoints[name].host}:${String(endpoints[name].port)}`,
      );
      expect(secret.metadata?.labels).toMatchObject({
        [`${PREFIX}source-kind`]: 'Cluster',
        [`${PREFIX}source-namespace`]: fleet,
        [`${PREFIX}source-cluster`]: name,
        [`${PREFIX}provider`]: 'capi',
        [`${PREFIX}env`]: name === 'alpha' ? 'prod' : 'dev',
      });
    }
    // Said of each Cluster as a Cluster: a message of its own, its namespace as namespace.
    await explained(
      eventually(
        () => Promise.resolve(logged('Cluster registered').length === 2 ? true : undefined),
        'a "Cluster registered" line for each Cluster',
      ),
    );
    expect(logged('Cluster registered').sort()).toEqual([
      [fleet, 'alpha', undefined],
      [fleet, 'beta', undefined],
    ]);
    expect(logged('namespace registered')).toEqual([]);
    let nextRefresh = Date.now() + 2_000;
    const apps = await explained(
      eventually(
        async () => {
          const listed = await listApplications(world.host, world.target);
          if (listed.some((app) => app.name === `${APP_PREFIX}alpha`)) return listed;
          if (Date.now() > nextRefresh) {
            await refreshApplicationSet(world.host, world.target, APPSET);
            nextRefresh = Date.now() + 2_000;
          }
          return undefined;
        },
        `ArgoCD's ApplicationSet to generate ${APP_PREFIX}alpha`,
        60_000,
        200,
      ),
    );
    expect(apps.map((app) => app.name)).toEqual([`${APP_PREFIX}alpha`]);
  });

  it('status shows each Cluster on its own row: its namespace, the Cluster and its registration', async () => {
    const run = await runCli([
      'status',
      ...world.baseArgs,
      '--provider=capi',
      '--capi-clusters',
      '--capi-cluster-names=name',
      '--namespace',
      fleet,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const table = run.stdout
      .split('\n')
      .slice(0, 3)
      .map((line) => line.split(/ {2,}/).slice(0, 4));
    expect(table).toEqual([
      ['NAMESPACE', 'SOURCE', 'CLUSTER', 'STATE'],
      [fleet, 'Cluster/alpha', 'alpha', 'unchanged'],
      [fleet, 'Cluster/beta', 'beta', 'unchanged'],
    ]);
    expect(run.stdout).toContain('2 managed Clusters (2 unchanged).');
  });

  it('keeps a registration whose kubeconfig Secret was deleted by hand, as stale', async () => {
    const before = await registration(world, 'beta');
    // KCP writes a deleted kubeconfig again at its next reconcile, which would race the Stale
    // verdict; a paused Cluster's KCP writes nothing.
    await explained(pauseCapiCluster(running(), fleet, 'beta'));
    await kubectl(world.host, ['delete', 'secret', 'beta-kubeconfig', '-n', fleet]);
    await explained(
      eventually(async () => {
        const events = await world.hostApi.listNamespacedEvent({ namespace: fleet });
        return events.items.some(
          (e) =>
            e.reason === 'Stale' &&
            e.involvedObject.kind === 'Cluster' &&
            e.involvedObject.name === 'beta',
        )
          ? true
          : undefined;
      }, 'a Stale Event on Cluster beta'),
    );
    expect((await registration(world, 'beta'))?.metadata?.uid).toBe(before?.metadata?.uid);
    expect(logged('registration stale').map(([ns, cluster]) => [ns, cluster])).toEqual([
      [fleet, 'beta'],
    ]);
  });

  it('removes only the registration of a deleted Cluster, once CAPI has deleted it', async () => {
    await kubectl(world.host, [
      'delete',
      'clusters.cluster.x-k8s.io',
      'alpha',
      '--namespace',
      fleet,
      '--wait=false',
    ]);
    await explained(
      eventually(
        async () => ((await registration(world, 'alpha')) === undefined ? true : undefined),
        'the registration of alpha to go once CAPI deleted the Cluster',
        90_000,
        250,
      ),
    );
    // The proof was the Cluster's absence: it is gone from the API.
    const left = await kubectl(world.host, [
      'get',
      'clusters.cluster.x-k8s.io',
      '--namespace',
      fleet,
      '--output',
      'name',
    ]);
    expect(left.trim()).toBe('cluster.cluster.x-k8s.io/beta');
    expect(await registration(world, 'beta')).toBeDefined();
    // The reason names what was proven gone: the Cluster, not its namespace (which is there).
    await explained(
      eventually(
        () => Promise.resolve(logged('deleted registration').length > 0 ? true : undefined),
        'the "deleted registration" line',
      ),
    );
    expect(logged('deleted registration')).toEqual([[fleet, 'alpha', 'source-cluster-not-found']]);
  });
});
