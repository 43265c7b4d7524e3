// ArgoCD's application controller connects to the child plane through registrations the
// daemon wrote, and says so in its own records (the ClusterInfo it keeps in Redis): client
// certificate and token variants, still Successful after the child's credentials rotate,
// and a refused namespace never becomes a cluster ArgoCD knows. One ArgoCD and one daemon
// serve the whole file.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyObjects,
  clusterInfos,
  coreApi,
  destinationApplication,
  mintToken,
  rbacApi,
  startArgoCd,
  uniqueName,
} from '@argocd-cluster-registrar/testkit';
import type { ArgoCd, ArgoClusterInfo } from '@argocd-cluster-registrar/testkit';
import {
  CHILD_HOST,
  childCredentials,
  clusterConfig,
  createSourceNamespace,
  createWorld,
  decoded,
  eventually,
  kubeconfigYaml,
  mintChildClientCertificate,
  putK3kKubeconfig,
  registration,
  startReadyDaemon,
  targetSecrets,
} from '../test-support/e2e.js';
import type { KubeconfigUser, RunningDaemon, World } from '../test-support/e2e.js';

let world: World;
let argo: ArgoCd | undefined;
let daemon: RunningDaemon | undefined;

beforeAll(async () => {
  world = await createWorld();
  argo = await startArgoCd(world.host, { namespace: world.target, applicationController: true });
  // Kubeconfig Secrets are not watched: a rotation reaches the registration at the next full
  // pass (and credential-only writes are at most one per interval), so passes are frequent.
  ({ daemon } = await startReadyDaemon(world, ['--interval=3s']));
});

afterAll(async () => {
  await daemon?.stop();
  await argo?.stop();
});

function diagnostics(): string {
  const daemonLines = (daemon?.logs ?? []).slice(-20).map((l) => JSON.stringify(l));
  return `--- daemon\n${daemonLines.join('\n')}\n${argo?.logs() ?? ''}`;
}

/** The child plane under a name of the cluster's own (one server per registration). */
function serverOf(cluster: string): string {
  return `https://${cluster}.${CHILD_HOST}:${new URL(world.child.server).port}`;
}

/** ArgoCD's ClusterInfo for `server` once `check` holds for it (it refreshes every 10 s). */
async function untilArgoInfo(
  server: string,
  what: string,
  check: (info: ArgoClusterInfo) => boolean,
): Promise<ArgoClusterInfo> {
  const redisPort = argo?.redisPort;
  if (redisPort === undefined) throw new Error('the application controller is not running');
  try {
    return await eventually(
      async () => {
        const info = (await clusterInfos(redisPort)).get(server);
        return info !== undefined && check(info) ? info : undefined;
      },
      what,
      60_000,
      250,
    );
  } catch (err) {
    const infos = [...(await clusterInfos(redisPort)).values()];
    throw new Error(
      `${String(err)}\nArgoCD's clusters: ${JSON.stringify(infos)}\n${diagnostics()}`,
    );
  }
}

const after = (time: string | undefined, since: number): boolean =>
  time !== undefined && Date.parse(time) >= since;

/**
 * Registers `cluster` through the daemon with `user`'s credentials, points an Application at
 * it (ArgoCD only watches clusters that have Applications) and waits for ArgoCD's verdict.
 */
async function connected(cluster: string, user: KubeconfigUser): Promise<string> {
  const ns = await createSourceNamespace(world, { cluster });
  const server = serverOf(cluster);
  await putK3kKubeconfig(
    world,
    ns.metadata?.name ?? '',
    kubeconfigYaml(world.child, { server, user }),
    cluster,
  );
  await eventually(() => registration(world, cluster), `the registration of ${cluster}`);
  await applyObjects(world.host, [destinationApplication(world.target, `to-${cluster}`, server)]);
  const info = await untilArgoInfo(
    server,
    `ArgoCD to connect to ${cluster}`,
    (i) => i.status === 'Successful',
  );
  expect(info.serverVersion).toMatch(/^v1\.\d+\./);
  return ns.metadata?.name ?? '';
}

/** Replaces the credentials, waits for the daemon to carry them over, then for ArgoCD to resync. */
async function rotate(
  namespace: string,
  cluster: string,
  user: KubeconfigUser,
  carried: (config: ReturnType<typeof clusterConfig>) => boolean,
): Promise<ArgoClusterInfo> {
  const server = serverOf(cluster);
  await putK3kKubeconfig(world, namespace, kubeconfigYaml(world.child, { server, user }), cluster);
  await eventually(
    async () => (carried(clusterConfig(await registration(world, cluster))) ? true : undefined),
    'the daemon to carry the new credentials over',
  );
  const since = Math.floor(Date.now() / 1000) * 1000;
  return untilArgoInfo(
    server,
    `ArgoCD to resync ${cluster} with the new credentials`,
    (i) => i.status === 'Successful' && after(i.lastCacheSyncTime, since),
  );
}

// The two variants run side by side: most of their time is ArgoCD's 10-second cluster info
// cadence, which they can share.
describe.concurrent("ArgoCD's application controller through the daemon's registrations", () => {
  it('connects with the client certificate variant, and again after the certificate rotates', async () => {
    const admin = childCredentials(world.child);
    const namespace = await connected('conn-cert', {
      certData: admin.certData,
      keyData: admin.keyData,
    });
    const next = mintChildClientCertificate(world.child, 'argocd-rotated');
    const info = await rotate(
      namespace,
      'conn-cert',
      next,
      (c) => c.tlsClientConfig.certData === next.certData,
    );
    expect(info.message ?? '').toBe('');
  });

  it('connects with the ServiceAccount token variant, and again after the token rotates', async () => {
    const saNamespace = uniqueName('argocd-manager');
    await coreApi(world.child).createNamespace({ body: { metadata: { name: saNamespace } } });
    await coreApi(world.child).createNamespacedServiceAccount({
      namespace: saNamespace,
      body: { metadata: { name: 'argocd-manager' } },
    });
    // What `argocd cluster add` grants: ArgoCD caches every resource kind it can list.
    await rbacApi(world.child).createClusterRoleBinding({
      body: {
        metadata: { name: saNamespace },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'cluster-admin',
        },
        subjects: [{ kind: 'ServiceAccount', name: 'argocd-manager', namespace: saNamespace }],
      },
    });
    const token = await mintToken(world.child, saNamespace, 'argocd-manager');
    const namespace = await connected('conn-token', { token });

    const next = await mintToken(world.child, saNamespace, 'argocd-manager');
    expect(next).not.toBe(token);
    await rotate(namespace, 'conn-token', { token: next }, (c) => c.bearerToken === next);
  });
});

describe("ArgoCD's clusters", () => {
  it('never include a registration the registrar refused', async () => {
    const server = serverOf('conn-refused');
    const ns = await createSourceNamespace(world, { cluster: 'conn-refused' });
    const name = ns.metadata?.name ?? '';
    // Credentials in files on the provisioner's disk: useless inside ArgoCD, refused.
    const onDisk = kubeconfigYaml(world.child, { server })
      .replace(/certificate-authority-data: .*/, 'certificate-authority: /etc/k3s/ca.crt')
      .replace(/client-certificate-data: .*/, 'client-certificate: /etc/k3s/client.crt')
      .replace(/client-key-data: .*/, 'client-key: /etc/k3s/client.key');
    await putK3kKubeconfig(world, name, onDisk, 'conn-refused');
    await eventually(async () => {
      const events = await world.hostApi.listNamespacedEvent({ namespace: name });
      return events.items.some((e) => e.reason === 'Refused') ? true : undefined;
    }, 'the refusal');
    // Let ArgoCD write its cluster list once more after the refusal, then read it.
    const since = Date.now() + 1000;
    const redisPort = argo?.redisPort ?? 0;
    const known = await eventually(async () => {
      const infos = await clusterInfos(redisPort);
      return [...infos.values()].some((i) => after(i.modifiedAt, since)) ? infos : undefined;
    }, "ArgoCD's next cluster info update");
    expect([...known.keys()]).not.toContain(server);
    expect(await registration(world, 'conn-refused')).toBeUndefined();
    // Every cluster ArgoCD knows is the in-cluster one or a registration in its namespace.
    const registered = [...(await targetSecrets(world)).values()]
      .filter((s) => s.metadata?.labels?.['argocd.argoproj.io/secret-type'] === 'cluster')
      .map((s) => decoded(s, 'server'));
    expect([...known.keys()].sort()).toEqual(
      ['https://kubernetes.default.svc', ...registered].sort(),
    );
  });
});
