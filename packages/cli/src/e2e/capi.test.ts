// Cluster API in the loop: CAPI's own core and kubeadm control plane (KCP) controllers write
// the kubeconfig Secrets (tools/capi, testkit's startCapi), the daemon with the `capi` preset
// registers them, and ArgoCD's own controllers use the registrations. The credentials are
// KCP's: a client certificate from the cluster CA it generated, checked by a child API server
// that serves on that CA for the Cluster's endpoint. Nothing of CAPI's flow is written by the
// test except what a user and an infrastructure provider write (see testkit capi-cluster.ts).
//
// The file runs on a host plane of its own: Kubernetes' garbage collector runs beside CAPI
// (KCP's Secrets go by ownerReference) and acts on every object of the plane. One set of
// controllers, one ArgoCD and one daemon serve the whole file; the tests run in order.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import type { V1Secret } from '@kubernetes/client-node';
import {
  applyObjects,
  capiClusterCa,
  clusterInfos,
  clustersApplicationSet,
  createCapiCluster,
  freePort,
  kubectl,
  kubeconfigText,
  listApplications,
  refreshApplicationSet,
  startArgoCd,
  startCapi,
  startControlPlane,
  waitForCapiKubeconfig,
} from '@argocd-cluster-registrar/testkit';
import type { ArgoCd, Capi, ControlPlane } from '@argocd-cluster-registrar/testkit';
import {
  PREFIX,
  clusterConfig,
  createSourceNamespace,
  createWorld,
  decoded,
  eventually,
  getSecret,
  putSecret,
  registration,
  startReadyDaemon,
  whoAmI,
} from '../test-support/e2e.js';
import type { RunningDaemon, World } from '../test-support/e2e.js';

const APPS = `${PREFIX}capi-apps`;
const APPSET = 'capi-clusters';
const APP_PREFIX = 'capi-';
/** Cluster endpoints are named under this domain; ArgoCD and the tests reach them on loopback. */
const DOMAIN = 'capi.acr.test';

let host: ControlPlane | undefined;
let world: World;
let capi: Capi | undefined;
let argo: ArgoCd | undefined;
let daemon: RunningDaemon | undefined;
const children: ControlPlane[] = [];

beforeAll(async () => {
  host = await startControlPlane(`capi-host-${String(process.pid)}`, { ownerPid: process.pid });
  world = await createWorld({ host });
  capi = await startCapi(host);
  argo = await startArgoCd(host, { namespace: world.target, applicationController: true });
  await applyObjects(host, [
    clustersApplicationSet(world.target, APPSET, { [APPS]: 'true' }, APP_PREFIX),
  ]);
  // A long interval: whatever reaches a registration in these tests came through the watches.
  ({ daemon } = await startReadyDaemon(world, ['--provider=capi', '--interval=1h']));
});

afterAll(async () => {
  await daemon?.stop();
  await argo?.stop();
  await capi?.stop();
  await Promise.allSettled(children.map((c) => c.stop()));
  await host?.stop();
});

function diagnostics(): string {
  const daemonLines = (daemon?.logs ?? []).slice(-30).map((l) => JSON.stringify(l));
  return `--- daemon\n${daemonLines.join('\n')}\n${argo?.logs() ?? ''}\n${capi?.logs() ?? ''}`;
}

/** Adds the daemon's, ArgoCD's and CAPI's recent logs to a failure. */
async function explained<T>(waiting: Promise<T>): Promise<T> {
  try {
    return await waiting;
  } catch (err) {
    throw new Error(`${String(err)}\n${diagnostics()}`);
  }
}

function running(): Capi {
  if (capi === undefined) throw new Error('CAPI is not running');
  return capi;
}

/** The server and client certificate of a kubeconfig KCP wrote. */
function kubeconfigFacts(secret: V1Secret): { server: string; certData: string } {
  const kc = new KubeConfig();
  kc.loadFromString(decoded(secret, 'value') ?? '');
  return {
    server: kc.getCurrentCluster()?.server ?? '',
    certData: kc.getCurrentUser()?.certData ?? '',
  };
}

/** A namespace marked for the registrar holding one CAPI cluster of the same name. */
async function capiNamespace(
  cluster: string,
  labels: Record<string, string> = {},
): Promise<{ namespace: string; endpoint: { host: string; port: number } }> {
  const ns = await createSourceNamespace(world, { cluster, labels });
  const endpoint = { host: `${cluster}.${DOMAIN}`, port: await freePort() };
  return { namespace: ns.metadata?.name ?? '', endpoint };
}

async function registered(cluster: string, what: string, check: (s: V1Secret) => boolean) {
  return explained(
    eventually(async () => {
      const secret = await registration(world, cluster);
      return secret !== undefined && check(secret) ? secret : undefined;
    }, what),
  );
}

/** The cluster's registration as ArgoCD's ApplicationSet and application controllers see it. */
async function argoConnects(cluster: string, server: string): Promise<void> {
  let nextRefresh = Date.now() + 2_000;
  // The ApplicationSet's cluster informer can lag the Secret event (see argocd-appset.test.ts).
  await explained(
    eventually(
      async () => {
        const apps = await listApplications(world.host, world.target);
        if (
          apps.some((a) => a.name === `${APP_PREFIX}${cluster}` && a.destinationServer === server)
        )
          return true;
        if (Date.now() > nextRefresh) {
          await refreshApplicationSet(world.host, world.target, APPSET);
          nextRefresh = Date.now() + 2_000;
        }
        return undefined;
      },
      `ArgoCD's ApplicationSet to generate ${APP_PREFIX}${cluster}`,
      60_000,
      200,
    ),
  );
  const redisPort = argo?.redisPort ?? 0;
  // ArgoCD's own verdict: the application controller connected with the registration.
  const info = await explained(
    eventually(
      async () => {
        const found = (await clusterInfos(redisPort)).get(server);
        return found?.status === 'Successful' ? found : undefined;
      },
      `ArgoCD's application controller to connect to ${server}`,
      60_000,
      250,
    ),
  );
  expect(info.serverVersion).toMatch(/^v1\.\d+\./);
}

describe('Cluster API writes the kubeconfig, the registrar registers it, ArgoCD uses it', () => {
  const cluster = 'capi-a';
  let namespace = '';
  let server = '';

  it("registers KCP's kubeconfig; its client certificate authenticates against an API server on KCP's cluster CA; ArgoCD generates an Application and connects", async () => {
    const made = await capiNamespace(cluster, { [APPS]: 'true' });
    namespace = made.namespace;
    const kubeconfig = await createCapiCluster(running(), {
      namespace,
      name: cluster,
      endpoint: made.endpoint,
    });
    // What KCP wrote, as CAPI documents it.
    expect(kubeconfig.type).toBe('cluster.x-k8s.io/secret');
    expect(kubeconfig.metadata?.labels?.['cluster.x-k8s.io/cluster-name']).toBe(cluster);
    expect(kubeconfig.metadata?.ownerReferences?.map((o) => o.kind)).toEqual([
      'KubeadmControlPlane',
    ]);
    const facts = kubeconfigFacts(kubeconfig);
    server = `https://${made.endpoint.host}:${String(made.endpoint.port)}`;
    expect(facts.server).toBe(server);

    // The cluster's API server, on the CA KCP generated, at the Cluster's endpoint.
    const ca = await capiClusterCa(running(), namespace, cluster);
    children.push(
      await startControlPlane(`capi-child-${String(process.pid)}`, {
        ownerPid: process.pid,
        ca,
        host: made.endpoint.host,
        port: made.endpoint.port,
      }),
    );

    const secret = await registered(cluster, 'the registration', () => true);
    expect(decoded(secret, 'server')).toBe(server);
    expect(secret.metadata?.labels?.[`${PREFIX}provider`]).toBe('capi');
    const config = clusterConfig(secret);
    expect(config.tlsClientConfig.caData).toBe(Buffer.from(ca.certPem).toString('base64'));
    expect(config.tlsClientConfig.certData).toBe(facts.certData);
    // KCP's admin user, as the child API server authenticates it.
    expect(await whoAmI(server, config)).toEqual({ status: 201, username: 'kubernetes-admin' });

    await argoConnects(cluster, server);
  });

  it('carries a kubeconfig that KCP writes again (new client certificate) over to the registration through the watch', async () => {
    const before = await registered(cluster, 'the registration', () => true);
    const old = await waitForCapiKubeconfig(running(), namespace, cluster);
    // Credential-only changes are written at most once per interval (1h here) after the last
    // credential write. Stamping that write two hours back stands for a registration written
    // long ago, so the gate is open; the pass that carries the change over can then only be
    // one a watch event started, since the next timed pass is an hour away.
    const longAgo = new Date(Date.now() - 2 * 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await kubectl(world.host, [
      'annotate',
      'secret',
      before.metadata?.name ?? '',
      '--namespace',
      world.target,
      '--overwrite',
      `${PREFIX}credentials-updated-at=${longAgo}`,
    ]);

    await kubectl(world.host, ['delete', 'secret', `${cluster}-kubeconfig`, '-n', namespace]);
    // KCP does not watch Secrets: it writes the kubeconfig again at its next reconcile of the
    // KubeadmControlPlane, which a change to that object starts now.
    await kubectl(world.host, [
      'annotate',
      'kubeadmcontrolplane',
      `${cluster}-control-plane`,
      '--namespace',
      namespace,
      '--overwrite',
      `acr.test/nudged-at=${String(Date.now())}`,
    ]);
    const again = await waitForCapiKubeconfig(running(), namespace, cluster, {
      otherThan: old.metadata?.uid ?? '',
    });
    const next = kubeconfigFacts(again).certData;
    expect(next).not.toBe(kubeconfigFacts(old).certData);

    const updated = await registered(
      cluster,
      'the new client certificate in the registration',
      (s) => clusterConfig(s).tlsClientConfig.certData === next,
    );
    expect(await whoAmI(server, clusterConfig(updated))).toEqual({
      status: 201,
      username: 'kubernetes-admin',
    });
  });
});

describe('the capi preset', () => {
  it('prefers the Secret of type cluster.x-k8s.io/secret that KCP writes over an Opaque <x>-kubeconfig in the same namespace', async () => {
    const cluster = 'capi-b';
    const { namespace, endpoint } = await capiNamespace(cluster);
    // A usable kubeconfig under a name the preset's glob matches, first in name order.
    const decoyServer = `https://decoy.${DOMAIN}:6443`;
    const decoy = kubeconfigText({
      server: decoyServer,
      cluster: [`certificate-authority-data: ${Buffer.from(world.host.caPem).toString('base64')}`],
      user: ['token: decoy'],
      names: { cluster: 'decoy', user: 'decoy', context: 'decoy' },
    });
    await putSecret(world.hostApi, namespace, 'aaa-kubeconfig', { value: decoy });
    // Alone, the decoy is registered: it is a candidate like any other.
    await registered(cluster, 'the decoy registered', (s) => decoded(s, 'server') === decoyServer);

    const kubeconfig = await createCapiCluster(running(), { namespace, name: cluster, endpoint });
    const server = kubeconfigFacts(kubeconfig).server;
    const secret = await registered(
      cluster,
      "the registration to follow KCP's kubeconfig",
      (s) => decoded(s, 'server') === server,
    );
    expect(clusterConfig(secret).tlsClientConfig.certData).toBe(
      kubeconfigFacts(kubeconfig).certData,
    );
    expect((await getSecret(world.hostApi, namespace, 'aaa-kubeconfig'))?.type).toBe('Opaque');
  });
});

describe('deleting a CAPI Cluster', () => {
  it("runs CAPI's finalizers and the kubeconfig goes; the registration stays while the namespace exists and goes with it", async () => {
    const cluster = 'capi-c';
    const { namespace, endpoint } = await capiNamespace(cluster);
    await createCapiCluster(running(), { namespace, name: cluster, endpoint });
    await registered(cluster, 'the registration', () => true);

    await kubectl(world.host, [
      'delete',
      'clusters.cluster.x-k8s.io',
      cluster,
      '--namespace',
      namespace,
      '--wait=false',
    ]);
    const remaining = async (): Promise<string> =>
      (
        await kubectl(world.host, [
          'get',
          'clusters.cluster.x-k8s.io,kubeadmcontrolplanes.controlplane.cluster.x-k8s.io,secrets',
          '--namespace',
          namespace,
          '--output',
          'name',
        ])
      ).trim();
    // The Cluster and its control plane go once their finalizers ran; KCP's Secrets (owned by
    // the KubeadmControlPlane) are removed by the garbage collector.
    await explained(
      eventually(
        async () => ((await remaining()) === '' ? true : undefined),
        'the Cluster, its KubeadmControlPlane and its Secrets to go',
        90_000,
        250,
      ),
    );

    // A missing kubeconfig is no proof that the cluster is gone: the registration stays, stale.
    await explained(
      eventually(async () => {
        const events = await world.hostApi.listNamespacedEvent({ namespace });
        return events.items.some((e) => e.reason === 'Stale') ? true : undefined;
      }, 'the daemon to report the registration stale'),
    );
    expect(await registration(world, cluster)).toBeDefined();

    // Kubernetes' namespace controller empties and removes the namespace: that is the proof.
    await world.hostApi.deleteNamespace({ name: namespace });
    await explained(
      eventually(
        async () => ((await registration(world, cluster)) === undefined ? true : undefined),
        'the registration to go with the namespace',
        60_000,
        250,
      ),
    );
  });
});
