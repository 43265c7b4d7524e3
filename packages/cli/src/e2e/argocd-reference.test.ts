// Reference mode, proven by ArgoCD's own application controller: a registration that copies no
// credential, only names the source's kubeconfig Secret, is what ArgoCD connects to the child
// with, through the real kubeconfig-secretreader plugin (tools/build.sh inventory). The plugin
// reads the Secret as a consumer ServiceAccount bound by the chart's consumerAccess Role (get on
// that Secret, nothing more): in a cluster it would be the application controller's own
// identity; here the controller runs as the plane's admin, so the plugin's path is a two-line
// script that gives the real plugin that identity's kubeconfig and nothing else.
//
// Then the child's client certificate rotates for real: the child API server (a plane of this
// file's own) stops trusting the CA that signed the old certificate, the source Secret holds a
// new one of another CA, and ArgoCD, refused with the old, runs the plugin again and syncs its
// cache of the child with the new. The registrar writes nothing to the registration meanwhile.

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyObjects,
  clusterInfos,
  destinationApplication,
  kubectl,
  mintClientCertificateFrom,
  mintToken,
  newClientCa,
  restartApiServer,
  runCommand,
  runControlPlaneScript,
  secretreaderPath,
  startArgoCd,
  startControlPlane,
  tokenKubeConfig,
  toolsBinDir,
  trustClientCas,
  uniqueName,
} from '@argocd-cluster-registrar/testkit';
import type {
  ArgoCd,
  ArgoClusterInfo,
  ClientCa,
  ControlPlane,
} from '@argocd-cluster-registrar/testkit';
import {
  CHILD_HOST,
  REPO,
  clusterConfig,
  createSourceNamespace,
  createWorld,
  eventually,
  kubeconfigYaml,
  putK3kKubeconfig,
  registration,
  startReadyDaemon,
  whoAmI,
} from '../test-support/e2e.js';
import type { RunningDaemon, World } from '../test-support/e2e.js';

const CLUSTER = 'by-reference';
const SECRET = `k3k-${CLUSTER}-kubeconfig`;
const CONSUMER = 'argocd-application-controller';

let world: World;
let child: ControlPlane | undefined;
let argo: ArgoCd | undefined;
let daemon: RunningDaemon | undefined;
let scratch: string | undefined;
let oldCa: ClientCa;
let newCa: ClientCa;
let sourceNamespace: string;
let plugin: string;

beforeAll(async () => {
  world = await createWorld();
  scratch = mkdtempSync(join(tmpdir(), 'acr-reference-'));
  // The child's own plane: its client CAs change, which the shared child's must not.
  child = await startControlPlane(uniqueName('acr-ref-child'), { ownerPid: process.pid });
  oldCa = newClientCa('acr-old-client-ca');
  newCa = newClientCa('acr-new-client-ca');
  trustClientCas(child, [oldCa]);
  await restartApiServer(child);

  sourceNamespace = (await createSourceNamespace(world, { cluster: CLUSTER })).metadata?.name ?? '';
  plugin = await consumerPlugin(world, sourceNamespace, scratch);
  argo = await startArgoCd(world.host, { namespace: world.target, applicationController: true });
  ({ daemon } = await startReadyDaemon(world, [
    '--interval=3s',
    '--reference-mode=on',
    `--secretreader-path=${plugin}`,
  ]));
});

afterAll(async () => {
  await daemon?.stop();
  await argo?.stop();
  if (child !== undefined) await runControlPlaneScript(['down', '--name', child.name]);
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

/**
 * The consumer identity: a ServiceAccount in ArgoCD's namespace, bound by the chart's own
 * consumerAccess Role and RoleBinding (rendered by helm, applied as they are), and the plugin
 * path ArgoCD runs, which hands the real plugin that identity's kubeconfig.
 */
async function consumerPlugin(on: World, namespace: string, dir: string): Promise<string> {
  await kubectl(on.host, ['create', 'serviceaccount', CONSUMER, '--namespace', on.target]);
  const values = join(dir, 'values.json');
  writeFileSync(
    values,
    JSON.stringify({
      consumerAccess: {
        serviceAccounts: [{ name: CONSUMER, namespace: on.target }],
        namespaces: [{ name: namespace, secretNames: [SECRET] }],
      },
    }),
  );
  const rendered = await runCommand(join(await toolsBinDir(), 'helm'), [
    'template',
    'acr',
    join(REPO, 'charts/argocd-cluster-registrar'),
    '--namespace',
    'registrar-system',
    '--values',
    values,
    '--show-only',
    'templates/consumer-access.yaml',
  ]);
  if (rendered.code !== 0) throw new Error(`helm template failed:\n${rendered.stderr}`);
  await kubectl(on.host, ['apply', '-f', '-'], rendered.stdout);
  const token = await mintToken(on.host, on.target, CONSUMER);
  const kubeconfig = join(dir, 'consumer.kubeconfig');
  writeFileSync(kubeconfig, tokenKubeConfig(on.host, token, CONSUMER).exportConfig(), {
    mode: 0o600,
  });
  const path = join(dir, 'kubeconfig-secretreader');
  writeFileSync(
    path,
    `#!/bin/sh\nKUBECONFIG=${kubeconfig} exec ${await secretreaderPath()} "$@"\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

function diagnostics(): string {
  const daemonLines = (daemon?.logs ?? []).slice(-20).map((l) => JSON.stringify(l));
  return `--- daemon\n${daemonLines.join('\n')}\n${argo?.logs() ?? ''}`;
}

/** The child under a name of its own, as ArgoCD's proxy resolves it. */
function serverOf(plane: ControlPlane): string {
  return `https://${CLUSTER}.${CHILD_HOST}:${new URL(plane.server).port}`;
}

/** ArgoCD's ClusterInfo for `server` once `check` holds (its cycle is 10 seconds). */
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
      120_000,
      1000,
    );
  } catch (err) {
    const info = (await clusterInfos(redisPort)).get(server);
    throw new Error(`${String(err)}\nArgoCD's info: ${JSON.stringify(info)}\n${diagnostics()}`);
  }
}

/** Updates of the registration the daemon logged. */
function updates(): number {
  return (daemon?.logs ?? []).filter(
    (l) => l['msg'] === 'updated registration' && l['cluster'] === CLUSTER,
  ).length;
}

describe("a reference-mode registration, as ArgoCD's application controller uses it", () => {
  it('connects through the plugin, and picks up a rotated client certificate with no registrar write', async () => {
    if (child === undefined) throw new Error('not started');
    const server = serverOf(child);
    const subject = (cn: string): string => `/O=system:masters/CN=${cn}`;
    const oldCert = mintClientCertificateFrom(oldCa, subject('acr-old'));
    const newCert = mintClientCertificateFrom(newCa, subject('acr-new'));
    await putK3kKubeconfig(
      world,
      sourceNamespace,
      kubeconfigYaml(child, { server, user: oldCert }),
      CLUSTER,
    );

    const registered = await eventually(
      () => registration(world, CLUSTER),
      'the registration',
      60_000,
      250,
    );
    const config = clusterConfig(registered);
    // No credential in ArgoCD's namespace: only the reference and the connection.
    expect(config.tlsClientConfig.certData).toBeUndefined();
    expect(config.tlsClientConfig.keyData).toBeUndefined();
    expect(config.bearerToken).toBeUndefined();
    expect(config.execProviderConfig).toEqual({
      command: plugin,
      args: [],
      apiVersion: 'client.authentication.k8s.io/v1',
      provideClusterInfo: true,
      config: {
        name: SECRET,
        namespace: sourceNamespace,
        key: 'kubeconfig.yaml',
        context: 'child',
      },
    });

    await applyObjects(world.host, [destinationApplication(world.target, `to-${CLUSTER}`, server)]);
    const first = await untilArgoInfo(server, 'ArgoCD to sync its cache of the child', (info) => {
      return info.status === 'Successful' && info.lastCacheSyncTime !== undefined;
    });
    const writes = updates();
    const version = registered.metadata?.resourceVersion;

    // Rotation: the child stops trusting the old certificate's CA, and the provisioner's
    // Secret holds a certificate of the new one.
    await putK3kKubeconfig(
      world,
      sourceNamespace,
      kubeconfigYaml(child, { server, user: newCert }),
      CLUSTER,
    );
    trustClientCas(child, [newCa]);
    await restartApiServer(child);
    // The child's API server, asked directly with each certificate (no plugin in between).
    const plane = child;
    const as = (cert: { certData: string; keyData: string }) =>
      whoAmI(plane.server, { tlsClientConfig: { ...config.tlsClientConfig, ...cert } });
    expect((await as(oldCert)).status).toBe(401);
    expect((await as(newCert)).username).toBe('acr-new');

    // What `argocd cluster invalidate-cache` asks for: ArgoCD syncs its cache of the child
    // anew, with whatever credentials it can get now. The registration is untouched until here.
    const untouched = await registration(world, CLUSTER);
    expect(untouched?.metadata?.resourceVersion).toBe(version);
    const refreshedAt = Math.floor(Date.now() / 1000) * 1000;
    await kubectl(world.host, [
      'annotate',
      '--namespace',
      world.target,
      '--overwrite',
      `secret/cluster-${CLUSTER}`,
      `argocd.argoproj.io/refresh=${new Date(refreshedAt).toISOString().replace(/\.\d+Z$/, 'Z')}`,
    ]);
    const annotated = (await registration(world, CLUSTER))?.metadata?.resourceVersion;
    await untilArgoInfo(
      server,
      'ArgoCD to sync a new cache of the child after the rotation',
      (info) => {
        const synced = Date.parse(info.lastCacheSyncTime ?? '');
        return info.status === 'Successful' && synced >= refreshedAt;
      },
    );
    expect(first.lastCacheSyncTime).toBeDefined();
    // Over the daemon's passes since the rotation (every 3 seconds), it wrote nothing.
    const after = await registration(world, CLUSTER);
    expect(after?.metadata?.resourceVersion).toBe(annotated);
    expect(updates()).toBe(writes);
  });
});
