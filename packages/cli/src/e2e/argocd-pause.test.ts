// A paused registration, proven by what ArgoCD's own application controller does. ArgoCD
// 3.6 reads `argocd.argoproj.io/skip-reconcile: "true"` on a cluster Secret in its sharding
// cache: such a cluster is no shard's, so the controller drops its cache of the cluster (its
// watches end), its cluster info updater skips it, and no Application targeting it is
// processed; the Secret and the Applications stay. The child plane is reached through a fault
// proxy per case (the "link"): cutting it is the child API server that stops answering, and
// its log counts the requests ArgoCD's controller sends the child (its User-Agent). The proxy
// speaks to the child as its admin; argocd-connection.test.ts proves the registered
// credentials themselves.
//
// One case pauses by probe (a daemon with --probe-children), one by the <prefix>paused label
// (a second daemon, no probing, its own managed-by, writing into the same ArgoCD namespace);
// the second also shows that ArgoCD's own label (kubernetes-version, written by ArgoCD's
// controller when auto-label-cluster-info is on) and a refresh request survive the
// registrar's writes. Both run side by side: most of their time is ArgoCD's 10-second cycles.

import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V1Secret } from '@kubernetes/client-node';
import {
  applyObjects,
  clusterInfos,
  destinationApplication,
  kubectl,
  listApplications,
  startArgoCd,
  startFaultProxy,
} from '@argocd-cluster-registrar/testkit';
import type { ArgoCd, ArgoClusterInfo, FaultProxy } from '@argocd-cluster-registrar/testkit';
import {
  CHILD_HOST,
  MAIN,
  PREFIX,
  createSourceNamespace,
  createWorld,
  eventually,
  kubeconfigYaml,
  putK3kKubeconfig,
  registration,
  startReadyDaemon,
} from '../test-support/e2e.js';
import type { RunningDaemon, World } from '../test-support/e2e.js';

const SKIP_RECONCILE = 'argocd.argoproj.io/skip-reconcile';
const AUTO_LABEL = 'argocd.argoproj.io/auto-label-cluster-info';
const KUBERNETES_VERSION = 'argocd.argoproj.io/kubernetes-version';
const REFRESH = 'argocd.argoproj.io/refresh';
const IN_CLUSTER = 'https://kubernetes.default.svc';
const CHILD_HOST_LOOKUP = fileURLToPath(
  new URL('../test-support/child-host-lookup.mjs', import.meta.url),
);

/** A daemon with its world, and the link to the child its registrations name. */
interface Registrar {
  readonly world: World;
  readonly daemon: RunningDaemon;
  readonly link: FaultProxy;
}

/** The registrar that probes, and the one that only reads the label. */
let probing: Registrar | undefined;
let labelled: Registrar | undefined;
let argo: ArgoCd | undefined;
const links: FaultProxy[] = [];
const daemons: RunningDaemon[] = [];

beforeAll(async () => {
  const world = await createWorld();
  const labelWorld = await createWorld({ target: world.target });
  argo = await startArgoCd(world.host, { namespace: world.target, applicationController: true });
  const [probeLink, labelLink] = await Promise.all([
    startFaultProxy(world.child),
    startFaultProxy(world.child),
  ]);
  links.push(probeLink, labelLink);
  const [probe, label] = await Promise.all([
    // Probes resolve the child's host names as ArgoCD's proxy does (child-host-lookup.mjs).
    startReadyDaemon(
      world,
      ['--interval=3s', '--probe-interval=3s', '--probe-children', '--probe-failures=2'],
      {},
      { file: process.execPath, args: ['--import', 'tsx', '--import', CHILD_HOST_LOOKUP, MAIN] },
    ),
    startReadyDaemon(labelWorld, ['--interval=3s']),
  ]);
  daemons.push(probe.daemon, label.daemon);
  probing = { world, daemon: probe.daemon, link: probeLink };
  labelled = { world: labelWorld, daemon: label.daemon, link: labelLink };
});

afterAll(async () => {
  await Promise.all(daemons.map((daemon) => daemon.stop()));
  await argo?.stop();
  await Promise.all(links.map((link) => link.close()));
});

function diagnostics(): string {
  const daemonLines = [...(probing?.daemon.logs ?? []), ...(labelled?.daemon.logs ?? [])]
    .slice(-30)
    .map((l) => JSON.stringify(l));
  return `--- daemons\n${daemonLines.join('\n')}\n${argo?.logs() ?? ''}`;
}

/** The child plane, through `link`, under a name of the cluster's own. */
function serverVia(cluster: string, link: FaultProxy): string {
  return `https://${cluster}.${CHILD_HOST}:${new URL(link.server).port}`;
}

/** Updates of `cluster`'s registration the daemon logged. */
function updatesOf(daemon: RunningDaemon, cluster: string): number {
  return daemon.logs.filter((l) => l['msg'] === 'updated registration' && l['cluster'] === cluster)
    .length;
}

/** Requests ArgoCD's application controller sent through `link` (client-go's User-Agent). */
function argoRequests(link: FaultProxy): number {
  return link.log.filter((entry) => entry.userAgent?.startsWith('argocd/') === true).length;
}

const time = (stamp: string | undefined): number =>
  stamp === undefined ? Number.NaN : Date.parse(stamp);

/** ArgoCD's cluster infos (Redis) once `check` holds for them; its cycle is 10 seconds. */
async function untilInfos(
  what: string,
  check: (infos: Map<string, ArgoClusterInfo>) => boolean,
): Promise<Map<string, ArgoClusterInfo>> {
  const redisPort = argo?.redisPort;
  if (redisPort === undefined) throw new Error('the application controller is not running');
  try {
    return await eventually(
      async () => {
        const infos = await clusterInfos(redisPort);
        return check(infos) ? infos : undefined;
      },
      what,
      90_000,
      // A cycle is 10 seconds, and each read starts a redis-cli per key.
      1000,
    );
  } catch (err) {
    const infos = [...(await clusterInfos(redisPort)).values()];
    throw new Error(
      `${String(err)}\nArgoCD's clusters: ${JSON.stringify(infos)}\n${diagnostics()}`,
    );
  }
}

/** The registration once `check` holds for it. */
async function untilRegistration(
  world: World,
  cluster: string,
  what: string,
  check: (secret: V1Secret) => boolean,
): Promise<V1Secret> {
  try {
    return await eventually(
      async () => {
        const secret = await registration(world, cluster);
        return secret !== undefined && check(secret) ? secret : undefined;
      },
      what,
      60_000,
      250,
    );
  } catch (err) {
    throw new Error(`${String(err)}\n${diagnostics()}`);
  }
}

/**
 * Registers `cluster` through `link`, points an Application at it (ArgoCD only watches
 * clusters that have Applications) and waits until ArgoCD has synced its cache of the child
 * through the link. `before` runs between the registration and the Application.
 */
async function registeredAndWatched(
  { world, link }: Registrar,
  cluster: string,
  before: (secret: V1Secret) => Promise<void> = () => Promise.resolve(),
): Promise<{ namespace: string; server: string; secret: V1Secret }> {
  const ns = await createSourceNamespace(world, { cluster });
  const namespace = ns.metadata?.name ?? '';
  const server = serverVia(cluster, link);
  await putK3kKubeconfig(world, namespace, kubeconfigYaml(world.child, { server }), cluster);
  const secret = await untilRegistration(
    world,
    cluster,
    `the registration of ${cluster}`,
    () => true,
  );
  await before(secret);
  await applyObjects(world.host, [destinationApplication(world.target, `to-${cluster}`, server)]);
  await untilInfos(`ArgoCD to sync its cache of ${cluster}`, (infos) => {
    const info = infos.get(server);
    return info?.status === 'Successful' && info.lastCacheSyncTime !== undefined;
  });
  expect(argoRequests(link)).toBeGreaterThan(0);
  return { namespace, server, secret };
}

/**
 * The registration carries skip-reconcile (the same object, its labels intact), and ArgoCD
 * stops reconciling the cluster: a cycle of its cluster info updater skips it, and from then
 * on, over two more cycles and although a cache refresh is requested, its controller sends
 * the child nothing. The Application stays, and the registrar writes nothing more. Returns
 * the first registration that carried skip-reconcile (the registrar's write) and ArgoCD's
 * request count at the end.
 */
async function provePaused(
  { world, daemon, link }: Registrar,
  cluster: string,
  server: string,
  registered: V1Secret,
  reason: string,
): Promise<{ paused: V1Secret; quiet: number }> {
  const paused = await untilRegistration(
    world,
    cluster,
    `${SKIP_RECONCILE} on the registration of ${cluster}`,
    (s) => s.metadata?.annotations?.[SKIP_RECONCILE] === 'true',
  );
  const pausedAt = Date.now();
  expect(paused.metadata?.uid).toBe(registered.metadata?.uid);
  expect(paused.metadata?.annotations?.[`${PREFIX}pause-reason`]).toBe(reason);
  expect(paused.metadata?.labels).toMatchObject(registered.metadata?.labels ?? {});

  const skipped = await untilInfos(`ArgoCD's cluster info updater to skip ${cluster}`, (infos) => {
    const inCluster = time(infos.get(IN_CLUSTER)?.modifiedAt);
    const own = time(infos.get(server)?.modifiedAt);
    // Written in the same cycle, seconds apart at most; a cycle is 10 seconds.
    return inCluster >= pausedAt && !(own > inCluster - 5000);
  });
  const quietFrom = argoRequests(link);
  const writes = updatesOf(daemon, cluster);
  const cycle = time(skipped.get(IN_CLUSTER)?.modifiedAt);
  const ownInfo = skipped.get(server)?.modifiedAt;
  // A refresh of ArgoCD's cache of the cluster, requested as `argocd cluster invalidate-cache`
  // requests it: a cluster ArgoCD reconciles would be re-read at once.
  await kubectl(world.host, [
    'annotate',
    '--namespace',
    world.target,
    '--overwrite',
    `secret/cluster-${cluster}`,
    `${REFRESH}=${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}`,
  ]);
  const later = await untilInfos('two more cycles of the cluster info updater', (infos) => {
    return time(infos.get(IN_CLUSTER)?.modifiedAt) >= cycle + 15_000;
  });
  expect(later.get(server)?.modifiedAt).toBe(ownInfo);
  expect(argoRequests(link)).toBe(quietFrom);
  expect(updatesOf(daemon, cluster)).toBe(writes);
  const apps = await listApplications(world.host, world.target);
  expect(apps.map((a) => a.name)).toContain(`to-${cluster}`);
  expect((await registration(world, cluster))?.metadata?.uid).toBe(registered.metadata?.uid);
  return { paused, quiet: quietFrom };
}

/**
 * Skip-reconcile leaves the registration, and ArgoCD reconciles the cluster again: it syncs a
 * new cache of the child (requests through the link) after `since`.
 */
async function proveResumed(
  { world, link }: Registrar,
  cluster: string,
  server: string,
  since: number,
  quiet: number,
): Promise<V1Secret> {
  const resumed = await untilRegistration(
    world,
    cluster,
    `${SKIP_RECONCILE} to leave the registration of ${cluster}`,
    (s) => s.metadata?.annotations?.[SKIP_RECONCILE] === undefined,
  );
  expect(resumed.metadata?.annotations?.[`${PREFIX}pause-reason`]).toBeUndefined();
  await untilInfos(`ArgoCD to sync a new cache of ${cluster}`, (infos) => {
    const info = infos.get(server);
    return info?.status === 'Successful' && time(info.lastCacheSyncTime) >= since;
  });
  expect(argoRequests(link)).toBeGreaterThan(quiet);
  return resumed;
}

/** Now, to the second (ArgoCD's times have no fractions). */
const wholeSecond = (): number => Math.floor(Date.now() / 1000) * 1000;

describe.concurrent("a paused registration, as ArgoCD's application controller sees it", () => {
  it('pauses a child whose API server stops answering the probes, and resumes it when it answers', async () => {
    if (probing === undefined) throw new Error('not started');
    const { link } = probing;
    const cluster = 'pause-probe';
    const { server, secret } = await registeredAndWatched(probing, cluster);

    // The child API server stops answering: every request through the link hangs.
    link.hangAll(true);
    link.dropConnections();
    const { quiet } = await provePaused(probing, cluster, server, secret, 'unreachable');

    const since = wholeSecond();
    link.hangAll(false);
    await proveResumed(probing, cluster, server, since, quiet);
  });

  it("pauses a source labelled paused, without probing, and keeps ArgoCD's own keys through its writes", async () => {
    if (labelled === undefined) throw new Error('not started');
    const { world } = labelled;
    const cluster = 'pause-label';
    const theirs = (s: V1Secret): Record<string, string | undefined> => ({
      [AUTO_LABEL]: s.metadata?.labels?.[AUTO_LABEL],
      [KUBERNETES_VERSION]: s.metadata?.labels?.[KUBERNETES_VERSION],
      [REFRESH]: s.metadata?.annotations?.[REFRESH],
    });
    const refresh = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const { namespace, server, secret } = await registeredAndWatched(
      labelled,
      cluster,
      // A user turns ArgoCD's cluster-info labelling on for this cluster and asks for a cache
      // refresh (as `argocd cluster invalidate-cache` does): keys of ArgoCD's on our Secret.
      async () => {
        const name = `secret/cluster-${cluster}`;
        const ns = ['--namespace', world.target, '--overwrite', name];
        await kubectl(world.host, ['label', ...ns, `${AUTO_LABEL}=true`]);
        await kubectl(world.host, ['annotate', ...ns, `${REFRESH}=${refresh}`]);
      },
    );
    // ArgoCD's controller writes the child's Kubernetes version as a label.
    const versioned = await untilRegistration(
      world,
      cluster,
      `ArgoCD's ${KUBERNETES_VERSION} label`,
      (s) => (s.metadata?.labels?.[KUBERNETES_VERSION] ?? '') !== '',
    );
    const argoKeys = theirs(versioned);
    expect(argoKeys[REFRESH]).toBe(refresh);

    await kubectl(world.host, ['label', 'namespace', namespace, `${PREFIX}paused=true`]);
    const { paused, quiet } = await provePaused(labelled, cluster, server, secret, 'paused');
    // The registrar's write (the pause) kept them.
    expect(theirs(paused)).toEqual(argoKeys);
    const during = await registration(world, cluster);
    expect(during?.metadata?.annotations?.[REFRESH]).toBeDefined();

    const since = wholeSecond();
    await kubectl(world.host, ['label', 'namespace', namespace, `${PREFIX}paused-`]);
    const resumed = await proveResumed(labelled, cluster, server, since, quiet);
    // And so did its write that removed the pause.
    expect(theirs(resumed)).toEqual(during === undefined ? {} : theirs(during));
  });
});
