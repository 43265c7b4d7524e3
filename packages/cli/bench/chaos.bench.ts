// The long chaos runs, each on a real host plane of its own with 200 source namespaces under
// churn, each replica through its own fault proxy. Every forwarded Secret write or Event is
// judged: wrongful deletions/demotions at that moment (test-support/chaos.ts), and
// afterwards, against every version of the Lease a watch saw, writes received while the
// Lease was valid for another holder than their sender (standby or deposed leader). Then
// faults and churn stop and the time to converge is measured. The cases:
// - kills: two replicas with --leader-elect (about 20 % faults of every kind), SIGKILLs at
//   random moments (about one per 24 s, 50 in the default 20 minutes) and one leader frozen
//   past its lease mid-run, and kube-apiserver restarted on the same etcd every 5 minutes
//   (every second restart right after an etcd compaction, so the watches' versions are
//   gone): every watch of both replicas breaks at once and re-lists. Every process's log is
//   kept (with --debug, so each pass shows) and the last two are summarised;
// - partition (half as long): the leader cut off from the API server again and again, the
//   other replica connected (chaos-partition.ts);
// - upgrade (half as long): 0.2.0 rolled over to the current build (chaos-upgrade.ts).
//
//   pnpm bench chaos                                  all three, 20 + 10 + 10 minutes
//   CHAOS_CASES=partition,upgrade pnpm bench chaos    some of them
//   CHAOS_MINUTES=3 pnpm bench chaos                  short runs

import { loadavg } from 'node:os';
import {
  FAULT_KINDS,
  compactEtcd,
  restartApiServer,
  seededRandom,
  startFaultProxy,
} from '../../testkit/src/index.js';
import type { FaultKind, FaultProxy, ForwardedWrite } from '../../testkit/src/index.js';
import {
  auditWrites,
  changedForeign,
  divergence,
  proxyKubeconfig,
  startChurn,
  startProxiedDaemon,
} from '../src/test-support/chaos.js';
import type { WriteAudit } from '../src/test-support/chaos.js';
import type { LeaseHistory } from '../src/test-support/lease-history.js';
import type { RunningDaemon } from '../src/test-support/e2e.js';
import { partitionCase } from './chaos-partition.js';
import { keepLogs, startBenchWorld } from './chaos-world.js';
import { upgradeCase } from './chaos-upgrade.js';

const MINUTES = Number(process.env['CHAOS_MINUTES'] ?? 20);
const NAMESPACES = Number(process.env['CHAOS_NAMESPACES'] ?? 200);
const FAULT_RATE = 0.2;
const INTERVAL_S = 10;
const KILL_EVERY_MS = 24_000;
const RESTART_EVERY_MS = 5 * 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Replica {
  readonly label: string;
  readonly proxy: FaultProxy;
  readonly audit: WriteAudit;
  readonly kubeconfig: string;
  daemon: RunningDaemon;
  /**
   * Every process this replica ran, with when it ran (a write is judged by who sent it), and
   * the process itself, whose log is kept.
   */
  readonly processes: { pid: number; from: number; to: number; daemon: RunningDaemon }[];
  /** Every Secret write and Event it forwarded: when the proxy had it, and which process sent it. */
  readonly sent: { at: number; sender: number | undefined; what: string }[];
  /** Writes received while the Lease was valid for another holder than their sender. */
  unfenced: string[];
  /** Of those, sent by the process that was frozen, after it resumed. */
  deposed: string[];
  frozenPid: number | undefined;
  resumedAt: number;
  kills: number;
}

/**
 * A write counts against its replica only if, when the proxy had it, the Lease was valid for
 * another holder than the process that sent it (lease-history.ts).
 */
function judgeLeadership(replicas: readonly Replica[], history: LeaseHistory): void {
  for (const replica of replicas) {
    for (const write of replica.sent) {
      const sender = write.sender;
      const other = history.otherValidHolder(
        write.at,
        (holder) => sender !== undefined && holder.endsWith(`_${String(sender)}`),
      );
      if (other === undefined) continue;
      replica.unfenced.push(`${write.what} (sent by ${String(sender)}, Lease valid for ${other})`);
      if (sender === replica.frozenPid && write.at >= replica.resumedAt)
        replica.deposed.push(write.what);
    }
  }
}

/** The kill case: SIGKILLs at random moments and one leader frozen past its lease. */
async function killsCase(): Promise<{ figures: object; ok: boolean }> {
  process.stderr.write(
    `chaos: ${MINUTES} min, ${NAMESPACES} namespaces, ${FAULT_RATE * 100}% faults\n`,
  );
  const world = await startBenchWorld('bench-chaos', NAMESPACES);
  const { chaos, history, holder } = world;
  // --debug: each pass is logged ('pass complete', with its requests and failures) only so.
  const launch = (kubeconfig: string): RunningDaemon =>
    startProxiedDaemon(chaos, kubeconfig, [
      `--interval=${INTERVAL_S}s`,
      '--leader-elect',
      '--debug',
    ]);
  /** The replica's process is gone (killed or crashed): the next one takes its place. */
  const restart = (replica: Replica): void => {
    const last = replica.processes[replica.processes.length - 1];
    if (last !== undefined) last.to = Date.now();
    replica.daemon = launch(replica.kubeconfig);
    replica.processes.push({
      pid: replica.daemon.process.pid ?? -1,
      from: Date.now(),
      to: Infinity,
      daemon: replica.daemon,
    });
  };
  const replicas: Replica[] = [];
  for (const [index, label] of ['a', 'b'].entries()) {
    const audit = auditWrites(chaos);
    // Set once the replica exists; its proxy's hook needs it.
    const ref: { replica?: Replica } = {};
    const beforeWrite = async (write: ForwardedWrite): Promise<void> => {
      await audit.beforeWrite(write);
      const self = ref.replica;
      if (write.path.includes('/leases') || self === undefined) return;
      // The sender is the process that ran when the proxy had the whole request: one killed
      // since may have sent it, as its leader, just before it died (a real network delivers
      // such a request too). It is judged at the end against the Lease's whole history.
      const sender = self.processes.find(
        (p) => p.from <= write.receivedAt && write.receivedAt <= p.to,
      )?.pid;
      self.sent.push({
        at: write.receivedAt,
        sender,
        what: `${write.method} ${write.path}`,
      });
    };
    const proxy = await startFaultProxy(world.host, {
      seed: 1000 + index,
      beforeWrite,
      faults: { rate: FAULT_RATE, hangMs: 25_000 },
    });
    const kubeconfig = proxyKubeconfig(proxy);
    const daemon = launch(kubeconfig);
    const self: Replica = {
      label,
      proxy,
      audit,
      kubeconfig,
      daemon,
      processes: [{ pid: daemon.process.pid ?? -1, from: Date.now(), to: Infinity, daemon }],
      sent: [],
      unfenced: [],
      deposed: [],
      frozenPid: undefined,
      resumedAt: Number.POSITIVE_INFINITY,
      kills: 0,
    };
    ref.replica = self;
    replicas.push(self);
  }

  const random = seededRandom(77);
  const churn = startChurn(chaos, { periodMs: 1000, seed: 78 });
  const started = Date.now();
  const end = started + MINUTES * 60_000;
  let froze = false;
  let crashes = 0;
  let apiServerRestarts = 0;
  let compactions = 0;
  let nextApiServerRestart = started + RESTART_EVERY_MS;
  while (Date.now() < end) {
    await sleep(KILL_EVERY_MS * (0.5 + random()));
    for (const replica of replicas) {
      // An exit we did not cause is a crash.
      if (replica.daemon.process.exitCode !== null && replica.daemon.process.signalCode === null) {
        crashes += 1;
        restart(replica);
      }
    }
    if (Date.now() >= nextApiServerRestart && Date.now() < end) {
      nextApiServerRestart += RESTART_EVERY_MS;
      if (apiServerRestarts % 2 === 1) {
        await compactEtcd(world.host);
        compactions += 1;
      }
      await restartApiServer(world.host);
      apiServerRestarts += 1;
      process.stderr.write(`restarted kube-apiserver (${String(apiServerRestarts)})\n`);
      continue;
    }
    if (!froze && Date.now() > started + (end - started) / 2) {
      // Freeze the leader past its lease (15 s), then let it resume.
      froze = true;
      const now = await holder();
      const leader = replicas.find((r) => now.endsWith(`_${String(r.daemon.process.pid)}`));
      if (leader !== undefined) {
        leader.frozenPid = leader.daemon.process.pid;
        leader.daemon.process.kill('SIGSTOP');
        await sleep(20_000);
        leader.resumedAt = Date.now();
        leader.daemon.process.kill('SIGCONT');
        process.stderr.write(`froze replica ${leader.label} for 20 s\n`);
      }
      continue;
    }
    const victim = replicas[Math.floor(random() * replicas.length)];
    if (victim === undefined) continue;
    await victim.daemon.stop('SIGKILL');
    victim.kills += 1;
    restart(victim);
  }

  await churn.stop();
  for (const replica of replicas) replica.proxy.setFaults({ rate: 0 });
  judgeLeadership(replicas, history);
  const quietAt = Date.now();
  let convergedMs: number | undefined;
  let last: string[] = [];
  while (Date.now() - quietAt < 10 * INTERVAL_S * 1000) {
    last = await divergence(chaos);
    if (last.length === 0) {
      convergedMs = Date.now() - quietAt;
      break;
    }
    await sleep(500);
  }
  const foreignChanged = await changedForeign(chaos);

  const requests = replicas.reduce((sum, r) => sum + r.proxy.log.length, 0);
  const faults = Object.fromEntries(
    FAULT_KINDS.map((kind: FaultKind) => [
      kind,
      replicas.reduce((sum, r) => sum + r.proxy.counts[kind], 0),
    ]),
  );
  const figures = {
    minutes: MINUTES,
    namespaces: NAMESPACES,
    requests,
    faults,
    faultsTotal: Object.values(faults).reduce((a, b) => a + b, 0),
    churn: churn.counts,
    kills: replicas.reduce((sum, r) => sum + r.kills, 0),
    crashes,
    apiServerRestarts,
    compactions,
    wrongfulDeletionsOrDemotions: replicas.flatMap((r) => r.audit.wrongful),
    foreignWrites: replicas.flatMap((r) => r.audit.foreignWrites).length + foreignChanged.length,
    writesWithoutTheLease: replicas.reduce((sum, r) => sum + r.unfenced.length, 0),
    deposedLeaderWritesAfterResume: replicas.reduce((sum, r) => sum + r.deposed.length, 0),
    writesWithoutTheLeaseDetail: replicas.flatMap((r) => r.unfenced.map((w) => `${r.label}: ${w}`)),
    convergenceSeconds: convergedMs === undefined ? null : convergedMs / 1000,
    notConverged: convergedMs === undefined ? last.slice(0, 10) : [],
    // Every process's log, one file each (replica, then its n-th process, then its pid); the
    // summary covers the processes still running at the end, whose work convergence awaited.
    logs: keepLogs(
      'chaos-kills',
      replicas.flatMap((r) =>
        r.processes.map((p, n) => ({
          ...r,
          label: `${r.label}-${String(n).padStart(2, '0')}-${String(p.pid)}`,
          daemon: p.daemon,
        })),
      ),
      (label) => replicas.some((r) => label.endsWith(`-${String(r.daemon.process.pid)}`)),
    ),
  };
  for (const replica of replicas) {
    await replica.daemon.stop('SIGKILL');
    await replica.proxy.close();
  }
  await world.stop();
  const ok =
    figures.writesWithoutTheLease === 0 &&
    figures.wrongfulDeletionsOrDemotions.length === 0 &&
    figures.foreignWrites === 0 &&
    figures.deposedLeaderWritesAfterResume === 0 &&
    convergedMs !== undefined;
  return { figures: { case: 'kills', ...figures }, ok };
}

const CASES: Record<string, () => Promise<{ figures: object; ok: boolean }>> = {
  kills: killsCase,
  partition: () => partitionCase(MINUTES / 2),
  upgrade: () => upgradeCase(MINUTES / 2),
};

async function main(): Promise<void> {
  const chosen = (process.env['CHAOS_CASES'] ?? Object.keys(CASES).join(',')).split(',');
  let failed = 0;
  for (const name of chosen) {
    const run = CASES[name];
    if (run === undefined)
      throw new Error(`CHAOS_CASES: no case ${name} (${Object.keys(CASES).join(', ')})`);
    const { figures, ok } = await run();
    console.log(
      JSON.stringify(
        { ...figures, ok, loadAverage: loadavg().map((l) => Number(l.toFixed(2))) },
        null,
        2,
      ),
    );
    if (!ok) failed += 1;
  }
  process.exit(failed === 0 ? 0 : 1);
}

await main();
