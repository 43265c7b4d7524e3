// ArgoCD itself against a test plane: Redis, the ApplicationSet controller and (optionally)
// the application controller, run out-of-cluster from the tools/argocd binary, watching one
// namespace (where the registrar writes its cluster Secrets). Everything listens on loopback
// except the application controller's metrics server, which ArgoCD binds on all interfaces
// (a free port is picked for it).

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ControlPlane } from './control-plane.js';
import { startLoopbackProxy } from './argocd-dns-proxy.js';
import type { LoopbackProxy } from './argocd-dns-proxy.js';
import { cleanEnv, startManaged, waitReady } from './argocd-process.js';
import { applyCrds } from './crds.js';
import type { Managed } from './argocd-process.js';
import { argocdBinaryPath, argocdCrdDir, freePort, kubectl } from './argocd-tools.js';

export interface ArgoCdOptions {
  /** The namespace ArgoCD runs in: it reads cluster Secrets and ApplicationSets there. */
  readonly namespace: string;
  /** Also start Redis and the application controller (connection checks). Default false. */
  readonly applicationController?: boolean;
}

export interface ArgoCd {
  readonly namespace: string;
  /** Port of the application controller's metrics (argocd_cluster_* series), if started. */
  readonly metricsPort: number | undefined;
  /** Port of the run's Redis (the application controller's cache), if started. */
  readonly redisPort: number | undefined;
  /** Recent output of every process, for failure messages. */
  logs(): string;
  stop(): Promise<void>;
}

/** Applies ArgoCD's CRDs (server-side: the ApplicationSet CRD is too large for client-side). */
export async function installArgoCdCrds(
  plane: Pick<ControlPlane, 'kubeconfigPath'>,
): Promise<void> {
  const names = ['applications', 'applicationsets', 'appprojects'].map((n) => `${n}.argoproj.io`);
  await applyCrds(plane, "ArgoCD's CRDs", names, { path: await argocdCrdDir() });
}

// What ArgoCD's settings manager expects to find in its namespace (an install would create
// them), and the default AppProject the generated Applications belong to.
function baseObjects(namespace: string): string {
  const partOf = { 'app.kubernetes.io/part-of': 'argocd' };
  const objects = [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'argocd-cm', namespace, labels: partOf },
      data: {},
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'argocd-secret', namespace, labels: partOf },
      type: 'Opaque',
      // ArgoCD's settings refuse to load without one (it signs the API server's tokens; no
      // API server runs here).
      stringData: { 'server.secretkey': randomBytes(32).toString('hex') },
    },
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'AppProject',
      metadata: { name: 'default', namespace },
      spec: {
        sourceRepos: ['*'],
        destinations: [{ server: '*', namespace: '*' }],
        clusterResourceWhitelist: [{ group: '*', kind: '*' }],
      },
    },
  ];
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });
}

async function httpOk(url: string): Promise<boolean> {
  const response = await fetch(url);
  await response.text();
  return response.ok;
}

async function startRedis(): Promise<{ redis: Managed; port: number }> {
  const port = await freePort();
  // Per run, on loopback, nothing persisted: never the machine's redis service.
  const redis = startManaged(
    'redis-server',
    'redis-server',
    ['--save', '', '--appendonly', 'no', '--port', String(port), '--bind', '127.0.0.1'],
    cleanEnv({}),
  );
  await waitReady(redis, () => Promise.resolve(redis.tail().includes('Ready to accept')));
  return { redis, port };
}

/** Starts ArgoCD against the plane (CRDs applied, base objects created); stop() ends it all. */
export async function startArgoCd(
  plane: Pick<ControlPlane, 'kubeconfigPath'>,
  options: ArgoCdOptions,
): Promise<ArgoCd> {
  const { namespace } = options;
  const binary = await argocdBinaryPath();
  await installArgoCdCrds(plane);
  await kubectl(
    plane,
    ['apply', '--server-side', '--force-conflicts', '-f', '-'],
    baseObjects(namespace),
  );

  const started: Managed[] = [];
  let proxy: LoopbackProxy | undefined;
  const home = mkdtempSync(join(tmpdir(), 'registrar-argocd-'));
  const stop = async (): Promise<void> => {
    await Promise.allSettled(started.map((m) => m.stop()));
    await proxy?.stop();
    rmSync(home, { recursive: true, force: true });
  };
  // ArgoCD reads KUBECONFIG from the environment in places, not only --kubeconfig.
  const env = cleanEnv({ KUBECONFIG: plane.kubeconfigPath, HOME: home });
  const common = ['--kubeconfig', plane.kubeconfigPath, '--namespace', namespace];
  let metricsPort: number | undefined;
  let redisPort: number | undefined;
  try {
    const [probe, metrics, webhook] = [await freePort(), await freePort(), await freePort()];
    const appset = startManaged(
      'applicationset-controller',
      binary,
      [
        'applicationset-controller',
        ...common,
        `--probe-addr=127.0.0.1:${String(probe)}`,
        `--metrics-addr=127.0.0.1:${String(metrics)}`,
        `--webhook-addr=127.0.0.1:${String(webhook)}`,
        // No repo server runs; the clusters generator needs none.
        '--argocd-repo-server=127.0.0.1:1',
        '--enable-scm-providers=false',
        '--logformat=text',
      ],
      env,
    );
    started.push(appset);
    // Its probe server registers no checks (404); the workers starting is the ready sign.
    await waitReady(appset, () => Promise.resolve(appset.tail().includes('Starting workers')));

    if (options.applicationController === true) {
      const { redis, port } = await startRedis();
      started.push(redis);
      redisPort = port;
      proxy = await startLoopbackProxy();
      metricsPort = await freePort();
      const controller = startManaged(
        'application-controller',
        binary,
        [
          'application-controller',
          ...common,
          `--redis=127.0.0.1:${String(port)}`,
          // Plain JSON in Redis, so tests (and users) can read ArgoCD's cluster info.
          '--redis-compress=none',
          `--metrics-port=${String(metricsPort)}`,
          '--repo-server=127.0.0.1:1',
          '--commit-server=127.0.0.1:1',
          '--logformat=text',
          // Short cycles: the tests wait on the controller's view, not on a clock.
          '--app-resync=10',
          '--app-resync-jitter=0',
        ],
        { ...env, HTTPS_PROXY: proxy.url, https_proxy: proxy.url },
      );
      started.push(controller);
      const controllerMetrics = metricsPort;
      await waitReady(controller, () =>
        httpOk(`http://127.0.0.1:${String(controllerMetrics)}/metrics`),
      );
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    namespace,
    metricsPort,
    redisPort,
    logs: () => started.map((m) => `--- ${m.name}\n${m.tail()}`).join('\n'),
    stop,
  };
}
