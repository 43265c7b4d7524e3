// The long partition case: two replicas with --leader-elect, each through its own fault
// proxy (light faults) in front of a real host plane, 200 source namespaces under churn.
// Again and again, the leader's proxy black-holes everything it sends (Lease included: taken,
// never answered, never forwarded) for 20-60 s, longer than the 15 s lease, while the other
// replica stays connected. Each time: leadership must move to the other replica, the cut-off
// one must write nothing (its writes are judged against every version of the Lease a watch
// saw), and once reconnected it must stand by (logged, /readyz 200). Then churn and faults
// stop, and the world must converge with no wrongful deletion or demotion, no foreign write.
import { seededRandom } from '../../testkit/src/index.js';
import {
  changedForeign,
  servedPort,
  startChurn,
  startProxiedDaemon,
} from '../src/test-support/chaos.js';
import { httpGet } from '../src/test-support/e2e.js';
import { writesAgainstTheLease } from '../src/test-support/lease-history.js';
import {
  converge,
  heldBy,
  proxiedReplica,
  seconds,
  sleep,
  startBenchWorld,
  waitFor,
} from './chaos-world.js';
import type { ProxiedReplica } from './chaos-world.js';

const NAMESPACES = 200;
const FAULT_RATE = 0.05;
const INTERVAL_S = 10;
const LEASE_S = 15;

interface Partition {
  readonly cut: string;
  readonly cutSeconds: number;
  /** From the cut to the other replica holding the Lease; null: it never did. */
  readonly takeoverSeconds: number | null;
  /** From reconnection to "standing by" logged and /readyz 200; null: not within 60 s. */
  readonly standbySeconds: number | null;
  /** Writes the cut-off replica got through from the cut to 10 s after reconnection. */
  readonly writesFromCutOff: number;
}

const stoodBy = async (replica: ProxiedReplica, since: number): Promise<boolean> => {
  const logged = replica.daemon.logs.some(
    (l) => l['msg'] === 'not the leader; standing by' && Date.parse(String(l['time'])) >= since,
  );
  const port = servedPort(replica.daemon, '/readyz');
  if (!logged || port === undefined) return false;
  try {
    return (await httpGet(port, '/readyz')).status === 200;
  } catch {
    return false;
  }
};

export async function partitionCase(minutes: number): Promise<{ figures: object; ok: boolean }> {
  const world = await startBenchWorld('bench-chaos-partition', NAMESPACES);
  const { chaos } = world;
  const launch = (kubeconfig: string) =>
    startProxiedDaemon(chaos, kubeconfig, [`--interval=${INTERVAL_S}s`, '--leader-elect']);
  const faults = { rate: FAULT_RATE, hangMs: 20_000 };
  const replicas = [
    await proxiedReplica(world, 'a', 2001, faults, launch),
    await proxiedReplica(world, 'b', 2002, faults, launch),
  ];
  const firstLeaderSeconds = await waitFor(async () => (await world.holder()) !== '', 60_000);
  const first = await converge(chaos, 180_000);

  const random = seededRandom(2003);
  const churn = startChurn(chaos, { periodMs: 1000, seed: 2004 });
  const partitions: Partition[] = [];
  let noLeaderAtCut = 0;
  const end = Date.now() + minutes * 60_000;
  while (Date.now() < end) {
    await sleep(30_000 + random() * 30_000);
    const holder = await world.holder();
    const leader = replicas.find((r) => heldBy(holder, r.daemon));
    const other = replicas.find((r) => r !== leader);
    if (leader === undefined || other === undefined) {
      noLeaderAtCut += 1;
      continue;
    }
    const cutMs = (LEASE_S + 5 + random() * 40) * 1000;
    const cutAt = Date.now();
    leader.proxy.hangAll(true);
    leader.proxy.dropConnections();
    const takeover = await waitFor(async () => heldBy(await world.holder(), other.daemon), 60_000);
    await sleep(Math.max(0, cutMs - (Date.now() - cutAt)));
    leader.proxy.hangAll(false);
    const reconnectedAt = Date.now();
    const standby = await waitFor(() => stoodBy(leader, cutAt), 60_000);
    await sleep(Math.max(0, reconnectedAt + 10_000 - Date.now()));
    const partition: Partition = {
      cut: leader.label,
      cutSeconds: seconds(reconnectedAt - cutAt),
      takeoverSeconds: takeover === undefined ? null : seconds(takeover),
      standbySeconds: standby === undefined ? null : seconds(standby),
      writesFromCutOff: leader.audit.writes.filter(
        (w) => w.receivedAt >= cutAt && w.receivedAt <= reconnectedAt + 10_000,
      ).length,
    };
    partitions.push(partition);
    process.stderr.write(`partition: ${JSON.stringify(partition)}\n`);
  }

  await churn.stop();
  for (const replica of replicas) replica.proxy.setFaults({ rate: 0 });
  const last = await converge(chaos, 10 * INTERVAL_S * 1000);
  const foreignChanged = await changedForeign(chaos);
  const againstTheLease = replicas.flatMap((r) =>
    writesAgainstTheLease(world.history, r.audit.writes, r.daemon.process.pid).map(
      (w) => `${r.label}: ${w}`,
    ),
  );
  const crashed = replicas.filter((r) => r.daemon.process.exitCode !== null).map((r) => r.label);
  const figures = {
    case: 'partition',
    minutes,
    namespaces: NAMESPACES,
    faultRate: FAULT_RATE,
    firstLeaderSeconds: firstLeaderSeconds === undefined ? null : seconds(firstLeaderSeconds),
    firstConvergenceSeconds: first.convergedMs === undefined ? null : seconds(first.convergedMs),
    requests: replicas.reduce((sum, r) => sum + r.proxy.log.length, 0),
    churn: churn.counts,
    partitions,
    noLeaderAtCut,
    tookOver: partitions.filter((p) => p.takeoverSeconds !== null).length,
    takeoverSecondsMax: Math.max(...partitions.map((p) => p.takeoverSeconds ?? Infinity)),
    stoodBy: partitions.filter((p) => p.standbySeconds !== null).length,
    writesFromCutOff: partitions.reduce((sum, p) => sum + p.writesFromCutOff, 0),
    writesWithoutTheLease: againstTheLease.length,
    writesWithoutTheLeaseDetail: againstTheLease.slice(0, 20),
    wrongfulDeletionsOrDemotions: replicas.flatMap((r) => r.audit.wrongful),
    foreignWrites: replicas.flatMap((r) => r.audit.foreignWrites).length + foreignChanged.length,
    crashed,
    convergenceSeconds: last.convergedMs === undefined ? null : seconds(last.convergedMs),
    notConverged: last.left,
  };
  for (const replica of replicas) {
    await replica.daemon.stop('SIGKILL');
    await replica.proxy.close();
  }
  await world.stop();
  const ok =
    partitions.length > 0 &&
    figures.tookOver === partitions.length &&
    figures.stoodBy === partitions.length &&
    figures.writesFromCutOff === 0 &&
    figures.writesWithoutTheLease === 0 &&
    figures.wrongfulDeletionsOrDemotions.length === 0 &&
    figures.foreignWrites === 0 &&
    crashed.length === 0 &&
    last.convergedMs !== undefined;
  return { figures, ok };
}
