// The cluster inventory end to end: the registrar publishes a ClusterProfile for each
// registered child (a k3k-shaped one with a client certificate, a vcluster-shaped one with a
// token), and the inventory's own code proves each usable the way consumers use it: its
// pkg/access builds the client from the profile and a consumer's provider file, its
// kubeconfig-secretreader plugin reads the provisioner's Secret, and a SelfSubjectReview
// authenticates to the child API server. A profile of another cluster manager is left alone,
// and a profile goes only on the proof its registration goes on.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  KUEUE_NAMESPACE,
  checkProfiles,
  coreApi,
  finalizeNamespace,
  installClusterProfileCrd,
  installKueueCrds,
  kubectl,
  mintToken,
  secretreaderPath,
  secretreaderProvider,
  startControlPlane,
  startKueue,
  testHostPlane,
  uniqueName,
} from '@argocd-cluster-registrar/testkit';
import {
  PREFIX,
  applyOnce,
  childCredentials,
  createSourceNamespace,
  eventually,
  putSecret,
  registration,
  runCli,
  useWorld,
} from '../test-support/e2e.js';
import { kubeconfigText } from '@argocd-cluster-registrar/testkit';
import type { ControlPlane } from '@argocd-cluster-registrar/testkit';

const { world } = useWorld();
/** A child API server of this file's own, serving for {@link CHILD} (pkg/access sets no tls-server-name). */
let child: ControlPlane;
let proxy: { readonly url: string; readonly server: Server; readonly sockets: Set<Socket> };
let providerFile: string;
const CHILD = 'child.acr.test';

interface Profile {
  readonly metadata: {
    readonly name: string;
    readonly uid: string;
    readonly resourceVersion: string;
    readonly labels?: Record<string, string>;
  };
  readonly spec: {
    readonly displayName?: string;
    readonly clusterManager: { readonly name: string };
  };
  readonly status?: {
    readonly accessProviders?: readonly {
      readonly name: string;
      readonly cluster: Record<string, unknown>;
    }[];
    readonly conditions?: readonly { readonly type: string; readonly status: string }[];
  };
}

beforeAll(async () => {
  const [own, , provider] = await Promise.all([
    startControlPlane(`inventory-child-${String(process.pid)}`, {
      ownerPid: process.pid,
      host: CHILD,
    }),
    testHostPlane().then((host) => installClusterProfileCrd(host)),
    secretreaderProvider(),
  ]);
  child = own;
  proxy = await startChildProxy(Number(new URL(child.server).port));
  providerFile = join(mkdtempSync(join(tmpdir(), 'acr-inventory-')), 'providers.json');
  writeFileSync(providerFile, JSON.stringify(provider));
}, 600_000);

afterAll(async () => {
  for (const socket of proxy.sockets) socket.destroy();
  await new Promise((resolve) => proxy.server.close(resolve));
  await child.stop();
});

/**
 * Consumers reach a child by the name its provisioner gives it (a Service), which nothing on
 * this machine resolves: every kubeconfig names this proxy (`proxy-url`), which tunnels each
 * CONNECT, whatever its port, to the child plane. Two sources then have two server addresses
 * (their ports differ) for one child, and TLS is verified for real against the CA and name.
 */
function startChildProxy(
  childPort: number,
): Promise<{ url: string; server: Server; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (_req, client: Socket, head: Buffer) => {
    const upstream = connect(childPort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream).add(client);
    const close = (): void => {
      upstream.destroy();
      client.destroy();
    };
    upstream.on('error', close).on('close', close);
    client.on('error', close).on('close', close);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${String(port)}`, server, sockets });
    });
  });
}

/** The child under a port of its own: two sources never share a server address. */
function serverAt(port: number): string {
  return `https://${CHILD}:${String(port)}`;
}

/**
 * A provisioner's kubeconfig for the child plane, as a consumer outside this machine's DNS
 * reaches it: through `proxy-url` (the child is named by a host name, as a provisioner names
 * its Service; the proxy tunnels to loopback). TLS stays verified against the CA and
 * tls-server-name.
 */
function childKubeconfig(user: { token: string } | 'certificate', port: number): string {
  const creds = childCredentials(child);
  return kubeconfigText({
    server: serverAt(port),
    cluster: [`certificate-authority-data: ${creds.caData}`, `proxy-url: ${proxy.url}`],
    user:
      user === 'certificate'
        ? [`client-certificate-data: ${creds.certData}`, `client-key-data: ${creds.keyData}`]
        : [`token: ${user.token}`],
    names: { cluster: 'child', user: 'child-user', context: 'child' },
  });
}

async function profiles(inventory: string): Promise<Map<string, Profile>> {
  const list = JSON.parse(
    await kubectl(world.host, ['get', 'clusterprofiles', '-n', inventory, '-o', 'json']),
  ) as { items: Profile[] };
  return new Map(list.items.map((p) => [p.metadata.name, p]));
}

async function newInventory(): Promise<{ name: string; args: string[] }> {
  const name = uniqueName('inventory');
  await world.hostApi.createNamespace({ body: { metadata: { name } } });
  return {
    name,
    args: [
      '--cluster-profiles',
      '--cluster-profile-namespace',
      name,
      '--provider',
      'k3k',
      '--provider',
      'vcluster',
    ],
  };
}

describe('ClusterProfiles', () => {
  it('are published for k3k and vcluster children, and the inventory library authenticates with each', async () => {
    const inventory = await newInventory();
    const k3k = await createSourceNamespace(world, { cluster: uniqueName('k3k') });
    const k3kNs = k3k.metadata?.name ?? '';
    await putSecret(world.hostApi, k3kNs, 'k3k-c-kubeconfig', {
      'kubeconfig.yaml': childKubeconfig('certificate', 6443),
    });
    // vcluster's Secret (vc-<name>, key config), with a ServiceAccount token of the child.
    const saNamespace = uniqueName('consumer');
    await coreApi(child).createNamespace({ body: { metadata: { name: saNamespace } } });
    await coreApi(child).createNamespacedServiceAccount({
      namespace: saNamespace,
      body: { metadata: { name: 'fleet' } },
    });
    const token = await mintToken(child, saNamespace, 'fleet');
    const vc = await createSourceNamespace(world, { cluster: uniqueName('vc') });
    const vcNs = vc.metadata?.name ?? '';
    await putSecret(world.hostApi, vcNs, 'vc-my-vcluster', {
      config: childKubeconfig({ token }, 7443),
    });

    const first = await applyOnce(world, inventory.args);
    expect(first.stdout).toContain(`ClusterProfiles in ${inventory.name} (v1alpha1): 2 published`);

    const published = await profiles(inventory.name);
    const k3kCluster = k3k.metadata?.labels?.[`${PREFIX}cluster`] ?? '';
    const vcCluster = vc.metadata?.labels?.[`${PREFIX}cluster`] ?? '';
    expect([...published.keys()].sort()).toEqual([k3kCluster, vcCluster].sort());
    const profile = published.get(k3kCluster);
    expect(profile?.spec).toEqual({
      displayName: k3kCluster,
      clusterManager: { name: 'argocd-cluster-registrar' },
    });
    expect(profile?.metadata.labels).toMatchObject({
      'x-k8s.io/cluster-manager': 'argocd-cluster-registrar',
      'multicluster.x-k8s.io/inventory-member-id': k3k.metadata?.uid,
      [`${PREFIX}managed-by`]: world.managedBy,
      [`${PREFIX}source-namespace`]: k3kNs,
    });
    expect(profile?.status?.accessProviders?.[0]?.cluster).toMatchObject({
      server: serverAt(6443),
      extensions: [
        {
          name: 'client.authentication.k8s.io/exec',
          extension: { name: 'k3k-c-kubeconfig', namespace: k3kNs, key: 'kubeconfig.yaml' },
        },
      ],
    });
    expect(profile?.status?.conditions).toEqual([
      expect.objectContaining({ type: 'ControlPlaneHealthy', status: 'Unknown' }),
    ]);
    // Never a credential in a profile.
    const text = JSON.stringify([...published.values()]);
    const creds = childCredentials(child);
    expect(text).not.toContain(creds.keyData);
    expect(text).not.toContain(creds.certData);
    expect(text).not.toContain(token);

    const checks = await checkProfiles(world.host, inventory.name, providerFile);
    expect(checks.map((c) => [c.profile, c.authenticated, c.username, c.error])).toEqual(
      [
        [k3kCluster, true, 'acr-admin', undefined],
        [vcCluster, true, `system:serviceaccount:${saNamespace}:fleet`, undefined],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );

    // A second run writes nothing: the profiles are unchanged.
    const before = await profiles(inventory.name);
    const second = await applyOnce(world, [...inventory.args, '--output', 'json']);
    const document = JSON.parse(second.stdout) as {
      profiles: { state: string; published: number; actions: unknown[] };
    };
    expect(document.profiles).toMatchObject({ state: 'planned', published: 2, actions: [] });
    const after = await profiles(inventory.name);
    for (const [name, p] of before)
      expect(after.get(name)?.metadata.resourceVersion).toBe(p.metadata.resourceVersion);
  }, 300_000);

  it("leaves another manager's profile alone, and removes ours only once the source is proven gone", async () => {
    const inventory = await newInventory();
    const taken = uniqueName('taken');
    await kubectl(
      world.host,
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'multicluster.x-k8s.io/v1alpha1',
        kind: 'ClusterProfile',
        metadata: {
          name: taken,
          namespace: inventory.name,
          labels: { 'x-k8s.io/cluster-manager': 'open-cluster-management' },
        },
        spec: { displayName: 'theirs', clusterManager: { name: 'open-cluster-management' } },
      }),
    );
    const theirs = (await profiles(inventory.name)).get(taken);
    const contested = await createSourceNamespace(world, { cluster: taken });
    await putSecret(world.hostApi, contested.metadata?.name ?? '', 'k3k-c-kubeconfig', {
      'kubeconfig.yaml': childKubeconfig('certificate', 8443),
    });
    const ours = await createSourceNamespace(world, { cluster: uniqueName('ours') });
    const oursNs = ours.metadata?.name ?? '';
    const oursCluster = ours.metadata?.labels?.[`${PREFIX}cluster`] ?? '';
    await putSecret(world.hostApi, oursNs, 'k3k-c-kubeconfig', {
      'kubeconfig.yaml': childKubeconfig('certificate', 9443),
    });

    const run = await applyOnce(world, inventory.args);
    // Said in the log (JSON: its quotes escaped).
    expect(run.stderr).toContain(
      `belongs to cluster manager \\"open-cluster-management\\", not to argocd-cluster-registrar`,
    );
    let published = await profiles(inventory.name);
    // Theirs untouched (the registration itself is still written: ArgoCD is not the inventory).
    expect(published.get(taken)?.metadata.resourceVersion).toBe(theirs?.metadata.resourceVersion);
    expect(published.get(taken)?.spec.clusterManager.name).toBe('open-cluster-management');
    expect(await registration(world, taken)).toBeDefined();
    expect(published.has(oursCluster)).toBe(true);

    // Its Events: registered and published in one run, one Event on the source says both; on
    // the contested source, a Warning saying why it has no profile.
    const sourceEvents = async (namespace: string, reason: string) =>
      (await world.hostApi.listNamespacedEvent({ namespace })).items
        .filter((e) => e.reason === reason)
        .map((e) => e.message);
    expect(await sourceEvents(oursNs, 'Registered')).toEqual([
      expect.stringMatching(
        new RegExp(`; published as ClusterProfile ${inventory.name}/${oursCluster}$`),
      ),
    ]);
    const inventoryEvents = async (reason: string) =>
      (await world.hostApi.listNamespacedEvent({ namespace: inventory.name })).items
        .filter((e) => e.reason === reason && e.involvedObject.kind === 'ClusterProfile')
        .map((e) => [e.involvedObject.name, e.involvedObject.uid, e.involvedObject.apiVersion]);
    expect(await inventoryEvents('Published')).toEqual([]);
    // A profile published apart from its registration (here: deleted by hand and written
    // again) has an Event of its own, on the profile by kind, name and uid.
    await kubectl(world.host, ['delete', 'clusterprofile', oursCluster, '-n', inventory.name]);
    await applyOnce(world, inventory.args);
    published = await profiles(inventory.name);
    expect(await inventoryEvents('Published')).toEqual([
      [oursCluster, published.get(oursCluster)?.metadata.uid, 'multicluster.x-k8s.io/v1alpha1'],
    ]);
    const contestedEvents = await world.hostApi.listNamespacedEvent({
      namespace: contested.metadata?.name ?? '',
    });
    expect(
      contestedEvents.items
        .filter((e) => e.reason === 'ProfileNotPublished')
        .map((e) => [e.type, e.involvedObject.kind, e.message]),
    ).toEqual([
      [
        'Warning',
        'Namespace',
        expect.stringContaining('belongs to cluster manager "open-cluster-management"'),
      ],
    ]);

    // `status` says the same, row by row.
    const status = await runCli(['status', ...world.baseArgs, ...inventory.args]);
    expect(status.code, status.stderr).toBe(0);
    const row = (cluster: string) =>
      status.stdout
        .split('\n')
        .find((line) => line.split(/ {2,}/)[1] === cluster)
        ?.split(/ {2,}/)
        .slice(1, 4);
    expect(status.stdout.split('\n')[0]).toMatch(/^NAMESPACE +CLUSTER +STATE +PROFILE /);
    expect(row(oursCluster)).toEqual([oursCluster, 'unchanged', 'published']);
    expect(row(taken)).toEqual([taken, 'unchanged', 'not published']);
    expect(status.stdout).toContain(
      `not published: ClusterProfile ${inventory.name}/${taken} belongs to cluster manager "open-cluster-management"`,
    );

    // Terminating: the registration is kept, so is the profile.
    await world.hostApi.deleteNamespace({ name: oursNs });
    await applyOnce(world, inventory.args);
    published = await profiles(inventory.name);
    expect(published.has(oursCluster)).toBe(true);
    expect(await registration(world, oursCluster)).toBeDefined();

    // Gone (a GET answers 404): the registration and the profile go, theirs stays.
    await finalizeNamespace(world.host, oursNs);
    await applyOnce(world, inventory.args);
    published = await profiles(inventory.name);
    expect(published.has(oursCluster)).toBe(false);
    expect(await registration(world, oursCluster)).toBeUndefined();
    expect(published.get(taken)?.metadata.resourceVersion).toBe(theirs?.metadata.resourceVersion);
    expect((await inventoryEvents('Withdrawn')).map(([name]) => name)).toEqual([oursCluster]);
  }, 300_000);

  it("connect Kueue's MultiKueue to the child: a MultiKueueCluster naming the profile becomes Active", async () => {
    // Kueue reads profiles in its own namespace only; the worker needs Kueue's CRDs (MultiKueue
    // watches its Workloads with the credentials the plugin reads from the source's Secret).
    await installKueueCrds(child);
    const kueue = await startKueue(world.host, await secretreaderPath());
    const cluster = uniqueName('queue');
    try {
      const source = await createSourceNamespace(world, { cluster });
      await putSecret(world.hostApi, source.metadata?.name ?? '', 'k3k-c-kubeconfig', {
        'kubeconfig.yaml': childKubeconfig('certificate', 7443),
      });
      await applyOnce(world, [
        '--cluster-profiles',
        '--cluster-profile-namespace',
        KUEUE_NAMESPACE,
        '--provider',
        'k3k',
      ]);
      expect((await profiles(KUEUE_NAMESPACE)).has(cluster)).toBe(true);
      await kubectl(
        world.host,
        ['apply', '-f', '-'],
        JSON.stringify({
          apiVersion: 'kueue.x-k8s.io/v1beta2',
          kind: 'MultiKueueCluster',
          metadata: { name: cluster },
          spec: { clusterSource: { clusterProfileRef: { name: cluster } } },
        }),
      );
      const active = await eventually(
        async () => {
          const status = JSON.parse(
            await kubectl(world.host, ['get', 'multikueuecluster', cluster, '-o', 'json']),
          ) as { status?: { conditions?: { type: string; status: string; reason: string }[] } };
          const condition = status.status?.conditions?.find((c) => c.type === 'Active');
          return condition?.status === 'True' ? condition : undefined;
        },
        `MultiKueueCluster ${cluster} Active`,
        120_000,
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}\n--- kueue\n${kueue.logs()}`);
      });
      expect(active.reason).toBe('Active');
    } finally {
      await kueue.stop();
    }
  }, 600_000);
});
