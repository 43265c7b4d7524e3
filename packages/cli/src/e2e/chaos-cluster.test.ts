// Chaos of the cluster around the registrar, as production does it to every controller
// sooner or later: the API server restarting under churn (twice, once after an etcd
// compaction), one replica partitioned from the API server while the other is not, and an
// upgrade from the previous release with live registrations. Each case keeps the usual
// guarantees: no wrongful deletion or demotion, no foreign write, no write while the Lease
// was valid for another holder (lease-history.ts), and convergence afterwards. Short
// variants (20-200 namespaces, a 5 s interval); `pnpm bench chaos` runs the long ones.

import { afterEach, describe, expect, it } from 'vitest';
import { CoordinationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { leaseName } from '@argocd-cluster-registrar/k8s-adapter';
import {
  adminKubeConfig,
  compactEtcd,
  previousRelease,
  restartApiServer,
  startControlPlane,
  startFaultProxy,
  uniqueName,
} from '@argocd-cluster-registrar/testkit';
import type { ControlPlane, FaultProxy } from '@argocd-cluster-registrar/testkit';
import {
  auditWrites,
  changedForeign,
  createChaosWorld,
  divergence,
  proxyKubeconfig,
  servedPort,
  startChurn,
  startProxiedDaemon,
} from '../test-support/chaos.js';
import type { ChaosWorld, WriteAudit } from '../test-support/chaos.js';
import { PREFIX, createWorld, eventually, httpGet, startDaemon } from '../test-support/e2e.js';
import type { RunningDaemon, World } from '../test-support/e2e.js';
import { watchLease, writesAgainstTheLease } from '../test-support/lease-history.js';
import type { LeaseHistory } from '../test-support/lease-history.js';
import { V0_2_0, registrations, takeoverChanges } from '../test-support/upgrade-check.js';

const INTERVAL_MS = 5000;
const UPGRADE_NAMESPACES = 200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Replica {
  readonly proxy: FaultProxy;
  readonly audit: WriteAudit;
  readonly daemon: RunningDaemon;
}

let cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  cleanups = [];
  watched = [];
});

async function replica(chaos: ChaosWorld, seed: number): Promise<Replica> {
  const audit = auditWrites(chaos);
  const proxy = await startFaultProxy(chaos.world.host, { seed, beforeWrite: audit.beforeWrite });
  const daemon = startProxiedDaemon(chaos, proxyKubeconfig(proxy), [
    `--interval=${INTERVAL_MS / 1000}s`,
    '--leader-elect',
  ]);
  cleanups.push(async () => {
    await daemon.stop('SIGKILL');
    await proxy.close();
  });
  const made = { proxy, audit, daemon };
  watched.push(made);
  return made;
}

function leaseOf(chaos: ChaosWorld): { history: LeaseHistory; holder: () => Promise<string> } {
  const { world } = chaos;
  const name = leaseName({ labelPrefix: PREFIX, managedBy: world.managedBy });
  const history = watchLease(world.host.kubeConfig, world.target, name);
  cleanups.push(() => {
    history.stop();
    return Promise.resolve();
  });
  const leases = adminKubeConfig(world.host).makeApiClient(CoordinationV1Api);
  const holder = async (): Promise<string> => {
    try {
      const lease = await leases.readNamespacedLease({ name, namespace: world.target });
      return lease.spec?.holderIdentity ?? '';
    } catch {
      return '';
    }
  };
  return { history, holder };
}

const heldBy = (identity: string, r: Replica): boolean =>
  identity.endsWith(`_${String(r.daemon.process.pid)}`);

/** The daemons' warnings and errors, last first, for a failure's message. */
let watched: Replica[] = [];
function trouble(): string {
  return watched
    .flatMap((r, i) =>
      r.daemon.logs
        .filter((l) => l['level'] !== 'info' && l['level'] !== 'debug')
        .slice(-12)
        .map((l) => `${String(i)}: ${JSON.stringify(l)}`),
    )
    .join('\n');
}

async function expectConverged(chaos: ChaosWorld, timeoutMs = 6 * INTERVAL_MS): Promise<void> {
  let last: string[] = [];
  try {
    await eventually(
      async () => {
        last = await divergence(chaos);
        return last.length === 0 ? true : undefined;
      },
      'convergence',
      timeoutMs,
      500,
    );
  } catch {
    expect(last, trouble()).toEqual([]);
  }
}

/** The usual guarantees, for every replica. */
async function expectGuarantees(
  chaos: ChaosWorld,
  history: LeaseHistory,
  replicas: readonly Replica[],
): Promise<void> {
  for (const r of replicas) {
    expect(r.audit.wrongful).toEqual([]);
    expect(r.audit.foreignWrites).toEqual([]);
    expect(writesAgainstTheLease(history, r.audit.writes, r.daemon.process.pid)).toEqual([]);
  }
  expect(await changedForeign(chaos)).toEqual([]);
}

/** A world on a plane of its own (a restart must not cut the other tests' plane). */
async function ownWorld(plane: ControlPlane): Promise<World> {
  const kc = new KubeConfig();
  kc.loadFromString(plane.kubeConfig);
  const hostApi = kc.makeApiClient(CoreV1Api);
  const target = uniqueName('argocd');
  await hostApi.createNamespace({ body: { metadata: { name: target } } });
  // The registered kubeconfigs are never dialled: the plane's own CA and identity will do.
  return {
    host: plane,
    child: plane,
    hostApi,
    childApi: hostApi,
    target,
    managedBy: uniqueName('chaos'),
    baseArgs: [],
  };
}

describe('chaos: what the cluster does to a controller', () => {
  // The churn talks to the server directly, so its writes fail while the server is down too;
  // it sends them again until the server has them (chaos.ts), and convergence is judged
  // against what the server holds.
  it('API server restarts under churn (twice, once after an etcd compaction): every watch breaks and re-lists, the guarantees hold, the world converges', async () => {
    const plane = await startControlPlane(`chaos-restart-${String(process.pid)}`, {
      ownerPid: process.pid,
    });
    cleanups.push(() => plane.stop());
    const chaos = await createChaosWorld(await ownWorld(plane), { namespaces: 20, foreign: 3 });
    const { history } = leaseOf(chaos);
    const a = await replica(chaos, 601);
    const b = await replica(chaos, 602);
    await expectConverged(chaos);

    const churn = startChurn(chaos, { periodMs: 600, seed: 21 });
    const watchesSince = (r: Replica, at: number) =>
      r.proxy.log.filter((e) => e.at >= at && e.path.includes('watch=true')).length;
    const listsSince = (r: Replica, at: number) =>
      r.proxy.log.filter(
        (e) =>
          e.at >= at &&
          e.method === 'GET' &&
          /\/secrets\?|\/namespaces\?/.test(e.path) &&
          !e.path.includes('watch=true'),
      ).length;
    const restarts: number[] = [];
    for (const compactFirst of [false, true]) {
      await sleep(4000);
      if (compactFirst) await compactEtcd(plane);
      restarts.push(Date.now());
      await restartApiServer(plane);
    }
    await sleep(6000);
    await churn.stop();
    // The watches re-list after their back-off; the passes that failed meanwhile back off too.
    await expectConverged(chaos, 90_000);

    await expectGuarantees(chaos, history, [a, b]);
    for (const at of restarts) {
      // Every watch of the leader broke and was opened again after each restart, from a
      // fresh list (the restarted server's watch cache begins at the current revision).
      const leaderish = [a, b].reduce((x, y) =>
        watchesSince(x, at) >= watchesSince(y, at) ? x : y,
      );
      expect(watchesSince(leaderish, at)).toBeGreaterThanOrEqual(3);
      expect(listsSince(leaderish, at)).toBeGreaterThan(0);
    }
    expect(a.daemon.process.exitCode).toBeNull();
    expect(b.daemon.process.exitCode).toBeNull();
    expect(Object.values(churn.counts).reduce((x, y) => x + y, 0)).toBeGreaterThan(10);
  }, 240_000);

  it('partition: the leader cut off from the API server (Lease included) past its lease loses it, writes nothing then or when reconnected, and stands by', async () => {
    const chaos = await createChaosWorld(await createWorld(), { namespaces: 20, foreign: 3 });
    const { history, holder } = leaseOf(chaos);
    const a = await replica(chaos, 701);
    const b = await replica(chaos, 702);
    const first = await eventually(
      async () => ((await holder()) === '' ? undefined : holder()),
      'a leader',
      30_000,
      200,
    );
    const [leader, other] = heldBy(first, a) ? [a, b] : [b, a];
    await expectConverged(chaos);

    const churn = startChurn(chaos, { periodMs: 600, seed: 31 });
    await sleep(3000);
    // Everything the leader sends is black-holed: accepted, never answered, never forwarded.
    // The time is read after the cut: a write the proxy took whole earlier in the same
    // millisecond went out before it (and once failed this test as a write after the cut).
    leader.proxy.hangAll(true);
    const cutAt = Date.now();
    leader.proxy.dropConnections();
    await eventually(
      async () => (heldBy(await holder(), other) ? true : undefined),
      'the other replica to take the Lease over',
      45_000,
      250,
    );
    // Longer than the lease (15 s) in all.
    await sleep(Math.max(0, 20_000 - (Date.now() - cutAt)));
    leader.proxy.hangAll(false);
    const reconnectedAt = Date.now();
    await sleep(8000);
    await churn.stop();
    await expectConverged(chaos);

    expect(leader.audit.writes.filter((w) => w.receivedAt > cutAt)).toEqual([]);
    expect(other.audit.writes.filter((w) => w.receivedAt >= cutAt).length).toBeGreaterThan(0);
    await expectGuarantees(chaos, history, [a, b]);
    // Reconnected, it serves as the standby: connected, ready, not the holder.
    expect(heldBy(await holder(), other)).toBe(true);
    expect(
      leader.daemon.logs.some(
        (l) => l['msg'] === 'not the leader; standing by' && Date.parse(String(l['time'])) >= cutAt,
      ),
    ).toBe(true);
    const port = await eventually(
      () => Promise.resolve(servedPort(leader.daemon, '/readyz')),
      'the health server',
    );
    await eventually(
      async () => ((await httpGet(port, '/readyz')).status === 200 ? true : undefined),
      'the reconnected replica to be ready as a standby',
    );
    expect(reconnectedAt).toBeGreaterThan(cutAt);
    expect(leader.daemon.process.exitCode).toBeNull();
  }, 180_000);

  it('upgrade: 0.2.0 (built from git) runs 200 registrations, a rolling update stops it, the current build takes over: nothing lost, only intended rewrites, no Event storm', async () => {
    const release = await previousRelease(V0_2_0);
    const chaos = await createChaosWorld(await createWorld(), {
      namespaces: UPGRADE_NAMESPACES,
      foreign: 3,
    });
    const { world } = chaos;
    const { history, holder } = leaseOf(chaos);
    const old = startDaemon(
      [
        '--kubeconfig',
        world.host.kubeconfigPath,
        '--target-namespace',
        world.target,
        '--managed-by',
        world.managedBy,
        `--interval=${INTERVAL_MS / 1000}s`,
        '--leader-elect',
        '--health-addr=127.0.0.1:0',
        '--metrics-addr=127.0.0.1:0',
      ],
      {},
      release.main,
    );
    cleanups.push(async () => {
      await old.stop('SIGKILL');
    });
    await expectConverged(chaos, 120_000);
    const before = await registrations(world);

    // A rolling update: the new pod starts, stands by while the old one holds the Lease,
    // and takes over once the old one is stopped (it releases the Lease on SIGTERM).
    const current = await replica(chaos, 801);
    await sleep(2 * INTERVAL_MS);
    expect(current.audit.writes).toEqual([]);
    expect(await old.stop('SIGTERM')).toBe(0);
    await eventually(
      async () => (heldBy(await holder(), current) ? true : undefined),
      'the current build to take the Lease over',
      30_000,
      250,
    );
    await sleep(3 * INTERVAL_MS);
    await expectConverged(chaos);
    const after = await registrations(world);

    const { lost, added, rewritten, unintended } = takeoverChanges(before, after);
    expect(lost).toEqual([]);
    expect(added).toEqual([]);
    expect(unintended).toEqual([]);
    // No Event storm: at most one Event per registration it rewrote, none for the others
    // (counted at its proxy: 0.2.0's own Events may still be landing after it converged).
    const events = current.audit.writes.filter((w) => w.path.includes('/events'));
    expect(events.length).toBeLessThanOrEqual(rewritten.size);
    expect(current.audit.wrongful).toEqual([]);
    expect(current.audit.foreignWrites).toEqual([]);
    expect(
      writesAgainstTheLease(history, current.audit.writes, current.daemon.process.pid),
    ).toEqual([]);
    expect(await changedForeign(chaos)).toEqual([]);
  }, 420_000);
});
