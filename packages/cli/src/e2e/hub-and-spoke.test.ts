// Hub and spokes with real parts: a hub plane running ArgoCD's ApplicationSet and application
// controllers, and two host planes (A: a plane of this file's own; B: the run's shared host),
// each with a child API server of its own and a registrar daemon that writes into the hub's
// ArgoCD namespace through the identity the chart's hub mode renders, with the kubeconfig
// scripts/hub-kubeconfig printed for it. A's link to the hub goes through the fault proxy.
// The cases share the planes, ArgoCD and the daemons, and run in order: each starts from what
// the one before left.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { V1Secret } from '@kubernetes/client-node';
import {
  applyObjects,
  checkClusterSecrets,
  clusterInfos,
  clustersApplicationSet,
  coreApi,
  listApplications,
  refreshApplicationSet,
  startArgoCd,
  startControlPlane,
  startHub,
  testChildPlane,
  testHostPlane,
  uniqueName,
} from '@argocd-cluster-registrar/testkit';
import type { ArgoApplication, ArgoCd, Hub } from '@argocd-cluster-registrar/testkit';
import { PREFIX, decoded, deleteNamespace, eventually } from '../test-support/e2e.js';
import { childServerOf, connectSpoke, spokeSource } from '../test-support/hub-and-spoke.js';
import type { Spoke } from '../test-support/hub-and-spoke.js';

const FLEET = `${PREFIX}fleet`;
const APPSET = 'fleet';
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const managedBy = uniqueName('fleet');
// The hub stops its token controller with its plane; its plane's stop alone would leave it running.
const own: { stop(): Promise<void> }[] = [];
const spokes: Spoke[] = [];
let scratch = '';
let hub: Hub;
let argo: ArgoCd | undefined;
let a: Spoke;
let b: Spoke;
/** B's first source, on B's host. */
let bravo = '';

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'acr-hub-and-spoke-'));
  const pid = String(process.pid);
  const [started, hostA, childB, hostB, childA] = await Promise.all([
    startHub({ name: `hub-${pid}`, spokes: ['host-a', 'host-b'], managedBy }),
    startControlPlane(`host-a-${pid}`, { ownerPid: process.pid }),
    startControlPlane(`child-b-${pid}`, { ownerPid: process.pid }),
    testHostPlane(),
    testChildPlane(),
  ]);
  hub = started;
  own.push(hub, hostA, childB);
  argo = await startArgoCd(hub.plane, { namespace: hub.namespace, applicationController: true });
  await applyObjects(hub.plane, [
    clustersApplicationSet(hub.namespace, APPSET, { [FLEET]: 'true' }, `${APPSET}-`),
  ]);
  [a, b] = await Promise.all([
    connectSpoke(hub, {
      name: 'host-a',
      host: hostA,
      child: childA,
      managedBy,
      throughProxy: true,
      scratch,
    }),
    connectSpoke(hub, {
      name: 'host-b',
      host: hostB,
      child: childB,
      managedBy,
      throughProxy: false,
      scratch,
    }),
  ]);
  spokes.push(a, b);
  await Promise.all([a.start(['--interval=5s', '--debug']), b.start(['--interval=5s', '--debug'])]);
});

afterAll(async () => {
  await Promise.allSettled(spokes.flatMap((spoke) => spoke.daemons).map((d) => d.stop()));
  await argo?.stop();
  await Promise.allSettled(spokes.map(async (spoke) => spoke.proxy?.close()));
  await Promise.allSettled(own.map((owned) => owned.stop()));
  if (scratch !== '') await rm(scratch, { recursive: true, force: true });
});

// Whatever the spokes wrote, ArgoCD's own parser accepts.
afterEach(async () => {
  const verdicts = await checkClusterSecrets(hub.plane, [hub.namespace], {
    [`${PREFIX}managed-by`]: managedBy,
  });
  expect(verdicts.filter((v) => !v.accepted)).toEqual([]);
});

function diagnostics(): string {
  const tail = (spoke: Spoke): string =>
    (spoke.daemons.at(-1)?.logs ?? [])
      .slice(-30)
      .map((l) => JSON.stringify(l))
      .join('\n');
  const daemons = spokes.map((spoke) => `--- ${spoke.name}\n${tail(spoke)}`).join('\n');
  return `${daemons}\n${argo?.logs() ?? ''}`;
}

async function explained<T>(waiting: Promise<T>): Promise<T> {
  try {
    return await waiting;
  } catch (err) {
    throw new Error(`${String(err)}\n${diagnostics()}`);
  }
}

/** The hub's registrations (cluster Secrets, demoted ones too), by ArgoCD cluster name. */
async function registrations(): Promise<Map<string, V1Secret>> {
  const list = await coreApi(hub.plane).listNamespacedSecret({
    namespace: hub.namespace,
    labelSelector: `${PREFIX}managed-by=${managedBy}`,
  });
  return new Map(list.items.map((s) => [decoded(s, 'name') ?? '', s]));
}

const live = (secret: V1Secret | undefined): boolean =>
  secret?.metadata?.labels?.['argocd.argoproj.io/secret-type'] === 'cluster';

function untilRegistered(...clusters: string[]): Promise<Map<string, V1Secret>> {
  return explained(
    eventually(
      async () => {
        const all = await registrations();
        return clusters.every((c) => live(all.get(c))) ? all : undefined;
      },
      `the hub to hold ${clusters.join(', ')}`,
      60_000,
      250,
    ),
  );
}

/** Identity and version of every live registration: what "nothing changed" compares. */
async function liveVersions(): Promise<Map<string, string>> {
  const versions = new Map<string, string>();
  for (const [name, secret] of await registrations())
    if (live(secret))
      versions.set(name, `${secret.metadata?.uid ?? ''}/${secret.metadata?.resourceVersion ?? ''}`);
  return versions;
}

/** ArgoCD's Applications once `check` holds (asking the ApplicationSet to refresh meanwhile). */
async function untilApps(
  what: string,
  check: (apps: ArgoApplication[]) => boolean,
): Promise<ArgoApplication[]> {
  let nextRefresh = Date.now() + 2_000;
  return explained(
    eventually(
      async () => {
        const apps = await listApplications(hub.plane, hub.namespace);
        if (check(apps)) return apps;
        if (Date.now() > nextRefresh) {
          await refreshApplicationSet(hub.plane, hub.namespace, APPSET);
          nextRefresh = Date.now() + 2_000;
        }
        return undefined;
      },
      what,
      90_000,
      250,
    ),
  );
}

async function eventsOn(spoke: Spoke, namespace: string) {
  return (await spoke.world.hostApi.listNamespacedEvent({ namespace })).items;
}

describe('hub and spokes', () => {
  it('the ApplicationSet generates Applications for the clusters of both hosts, and ArgoCD connects to both children', async () => {
    await spokeSource(a, 'alpha', { labels: { [FLEET]: 'true' } });
    await untilRegistered('alpha');
    bravo = await spokeSource(b, 'bravo', { labels: { [FLEET]: 'true' } });
    await untilRegistered('alpha', 'bravo');

    const apps = await untilApps('Applications for alpha and bravo', (list) =>
      ['fleet-alpha', 'fleet-bravo'].every((n) => list.some((app) => app.name === n)),
    );
    const servers = Object.fromEntries(apps.map((app) => [app.name, app.destinationServer]));
    expect(servers['fleet-alpha']).toBe(childServerOf(a, 'alpha'));
    expect(servers['fleet-bravo']).toBe(childServerOf(b, 'bravo'));

    // ArgoCD's application controller reaches each child with the registered credentials.
    const redisPort = argo?.redisPort ?? 0;
    const infos = await explained(
      eventually(
        async () => {
          const all = await clusterInfos(redisPort);
          const both = [childServerOf(a, 'alpha'), childServerOf(b, 'bravo')].map((s) =>
            all.get(s),
          );
          return both.every((info) => info?.status === 'Successful') ? both : undefined;
        },
        'ArgoCD to connect to both children',
        90_000,
        500,
      ),
    );
    for (const info of infos) expect(info?.serverVersion).toMatch(/^v1\.\d+\./);
  });

  it("the same cluster name on B is refused while A's registration holds it, and registers under B's name template", async () => {
    // B keeps only the clashing source: a name template renames everything B registered, and
    // how a rename goes is the rename rules' business (their own tests), not this case's.
    await deleteNamespace(b.world, bravo);
    await explained(
      eventually(
        async () => ((await registrations()).has('bravo') ? undefined : true),
        "B's registration of bravo to go",
        60_000,
        250,
      ),
    );
    const before = await liveVersions();
    const clash = await spokeSource(b, 'alpha');
    await explained(
      eventually(
        async () =>
          (await eventsOn(b, clash)).some((e) => e.reason === 'Refused') ? true : undefined,
        "B's refusal of alpha",
        60_000,
        250,
      ),
    );
    const refusal = (await eventsOn(b, clash)).find((e) => e.reason === 'Refused');
    expect(refusal?.message).toMatch(/alpha/);
    expect(refusal?.message).toMatch(/nameTemplate|name template/i);
    expect((await liveVersions()).get('alpha')).toBe(before.get('alpha'));

    // B, restarted with a name template of its own, registers it beside A's.
    await b.daemons.at(-1)?.stop();
    await b.target({ nameTemplate: 'b-{name}' });
    await b.start(['--interval=5s', '--debug']);
    const all = await untilRegistered('alpha', 'b-alpha');
    expect(decoded(all.get('b-alpha'), 'server')).toBe(childServerOf(b, 'alpha'));
    expect((await liveVersions()).get('alpha')).toBe(before.get('alpha'));
  });

  it("deleting a namespace on host A removes only A's registration, though B has a namespace of that name", async () => {
    const shared = uniqueName('team');
    await spokeSource(a, 'team-a', { name: shared });
    await spokeSource(b, 'team-b', { name: shared });
    await untilRegistered('team-a', 'b-team-b');
    const before = await liveVersions();

    await deleteNamespace(a.world, shared);
    await explained(
      eventually(
        async () => ((await registrations()).has('team-a') ? undefined : true),
        "A's registration of team-a to go",
        60_000,
        250,
      ),
    );
    const after = await liveVersions();
    before.delete('team-a');
    expect(after).toEqual(before);
  });

  it("with errors, a hang and a two-minute partition on A's link to the hub, nothing is deleted or demoted anywhere, and A converges once the link returns", async () => {
    const proxy = a.proxy;
    if (proxy === undefined) throw new Error('host A has no proxy');
    await untilRegistered('alpha', 'b-team-b');
    const before = await liveVersions();
    const from = proxy.log.length;
    /** Every live registration of before is still there, unchanged (A's and B's alike). */
    const untouched = async (): Promise<void> => {
      const now = await liveVersions();
      for (const [name, version] of before) expect(now.get(name), name).toBe(version);
    };

    // Errors: most requests fail, the watches among them (their connections are cut); new
    // sources still get through, and nothing else is written.
    const faulted = (): number =>
      proxy.counts['status-500'] + proxy.counts['status-503'] + proxy.counts.reset;
    const faultedBefore = faulted();
    proxy.setFaults({ rate: 0.6, kinds: ['status-500', 'status-503', 'reset'] });
    proxy.dropConnections();
    const errored = ['during-errors-1', 'during-errors-2', 'during-errors-3'];
    for (const cluster of errored) await spokeSource(a, cluster);
    await explained(
      eventually(
        () => Promise.resolve(faulted() - faultedBefore >= 5 ? true : undefined),
        'A to meet faults on its link',
        60_000,
        100,
      ),
    );
    await untilRegistered(...errored);
    proxy.setFaults({ rate: 0 });
    await untouched();

    // A hang: every request A sends is accepted and never answered, for 15 s.
    proxy.hangAll(true);
    proxy.dropConnections();
    await spokeSource(a, 'during-hang');
    await sleep(15_000);
    expect(live((await registrations()).get('during-hang'))).toBe(false);
    proxy.hangAll(false);
    await untilRegistered('during-hang');
    await untouched();

    // A partition of two minutes, connections cut: a source deleted on A meanwhile keeps its
    // registration until A can reach the hub again, and nothing else changes.
    const settled = await liveVersions();
    const doomed = await spokeSource(a, 'doomed');
    await untilRegistered('doomed');
    const partitionedAt = proxy.log.length;
    proxy.hangAll(true);
    proxy.dropConnections();
    await deleteNamespace(a.world, doomed);
    await sleep(120_000);
    const during = await liveVersions();
    for (const [name, version] of settled) expect(during.get(name), name).toBe(version);
    expect(live((await registrations()).get('doomed'))).toBe(true);
    expect(
      proxy.log.slice(partitionedAt).filter((e) => e.forwarded && WRITES.has(e.method)),
    ).toEqual([]);
    proxy.hangAll(false);
    await explained(
      eventually(
        async () => ((await registrations()).has('doomed') ? undefined : true),
        "A's registration of doomed to go once the link returns",
        // The watches and writes come back with their backoff, longer on a loaded machine.
        150_000,
        250,
      ),
    );
    const after = await liveVersions();
    for (const [name, version] of settled) expect(after.get(name), name).toBe(version);
    // A's only deletion through it all was doomed's, sent after the link returned.
    const deletes = proxy.log.slice(from).filter((e) => e.method === 'DELETE' && e.forwarded);
    expect(deletes.length).toBeGreaterThan(0);
    for (const e of deletes) expect(e.path).toMatch(/\/secrets\/cluster-doomed(\?|$)/);
  }, 450_000);

  it("restarting A's registrar rewrites nothing at the hub", async () => {
    const proxy = a.proxy;
    if (proxy === undefined) throw new Error('host A has no proxy');
    await untilRegistered('alpha');
    const before = await liveVersions();
    await a.daemons.at(-1)?.stop();
    const from = proxy.log.length;
    const daemon = await a.start(['--interval=5s', '--debug']);
    // Three full passes after the restart.
    await explained(
      eventually(
        () =>
          Promise.resolve(
            daemon.logs.filter((l) => l['msg'] === 'pass complete').length >= 3 ? true : undefined,
          ),
        'three passes of the restarted daemon',
        60_000,
        250,
      ),
    );
    const writes = proxy.log.slice(from).filter((e) => WRITES.has(e.method));
    expect(writes.map((e) => `${e.method} ${e.path}`)).toEqual([]);
    expect(await liveVersions()).toEqual(before);
  });

  it('everything A asked of the hub was within the hub-side Role, and none of it was refused', () => {
    const proxy = a.proxy;
    if (proxy === undefined) throw new Error('host A has no proxy');
    const secrets = `/api/v1/namespaces/${hub.namespace}/secrets`;
    // A's lists, watches and writes all went this way.
    expect(proxy.log.some((e) => e.method === 'POST' && e.status === 201)).toBe(true);
    expect(proxy.log.some((e) => e.path.includes('watch=true') && e.status === 200)).toBe(true);
    const outside = proxy.log.filter(
      (e) =>
        e.path !== secrets &&
        !e.path.startsWith(`${secrets}?`) &&
        !e.path.startsWith(`${secrets}/`),
    );
    expect(outside.map((e) => `${e.method} ${e.path}`)).toEqual([]);
    expect(proxy.log.filter((e) => e.status === 401 || e.status === 403)).toEqual([]);
    // GET with watch=true, GET of the list, POST, PATCH, DELETE: the Role's verbs, no other.
    const verbs = new Set(
      proxy.log.map((e) =>
        e.method !== 'GET' ? e.method : e.path.includes('watch=true') ? 'watch' : 'list',
      ),
    );
    expect([...verbs].every((v) => ['list', 'watch', 'POST', 'PATCH', 'DELETE'].includes(v))).toBe(
      true,
    );
  });
});
