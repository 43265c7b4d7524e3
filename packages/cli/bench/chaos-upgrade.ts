// The long upgrade case, as a rolling update of a two-replica Deployment does it: 0.2.0
// (built from git) runs as two replicas with --leader-elect, each through a fault proxy (every
// kind but truncation, see OLD_FAULTS), over 200 source namespaces under churn for a while;
// churn and faults stop and it converges; then one current-build replica starts, the old
// leader is stopped as the kubelet stops a pod (SIGTERM, then SIGKILL after the chart's 30 s
// grace period), a second current replica starts, the remaining old one is stopped. The
// current build must take over the same registrations: nothing lost or added, none rewritten
// except the intended fields (upgrade-check.ts), at most one Event per registration it
// rewrote, and nothing written at all over a steady stretch after it. Then churn and faults
// (every kind) resume under the current build, and the world must converge with the usual
// guarantees. Each replica's log is kept and summarised (keepLogs), 0.2.0's with --debug.
import { FAULT_KINDS, previousRelease } from '../../testkit/src/index.js';
import {
  changedForeign,
  servedPort,
  startChurn,
  startProxiedDaemon,
} from '../src/test-support/chaos.js';
import { httpGet, startDaemon } from '../src/test-support/e2e.js';
import type { RunningDaemon } from '../src/test-support/e2e.js';
import { writesAgainstTheLease } from '../src/test-support/lease-history.js';
import { V0_2_0, registrations, takeoverChanges } from '../src/test-support/upgrade-check.js';
import {
  converge,
  heldBy,
  keepLogs,
  proxiedReplica,
  seconds,
  sleep,
  startBenchWorld,
  waitFor,
} from './chaos-world.js';
import type { BenchWorld, ProxiedReplica } from './chaos-world.js';

const NAMESPACES = 200;
const FAULT_RATE = 0.05;
const INTERVAL_S = 10;
/** The chart's terminationGracePeriodSeconds: after it the kubelet sends SIGKILL. */
const GRACE_MS = 30_000;
const FAULTS = { rate: FAULT_RATE, hangMs: 20_000 };
/**
 * 0.2.0 meets every fault kind but one: a list answer cut short of its Content-Length. 0.2.0
 * bounds no request, and its HTTP client (node-fetch 2.7) waits for the missing bytes forever
 * where a chunked answer cut short fails at once: the pass that sent the list never ends, so
 * nothing is registered, and SIGTERM waits on that pass, so the pod never stops by itself.
 * Measured with all kinds: 0 of 200 registered in 15 minutes, and again in a short run whose
 * 0.2.0 said "pass running for 260s" on /healthz; neither pod stopped on SIGTERM. A released
 * version's known hang would test nothing of the upgrade; the current build bounds every
 * request (bounded-requests.test.ts) and meets every kind, truncation included, in its phase.
 */
const OLD_FAULTS = { ...FAULTS, kinds: FAULT_KINDS.filter((kind) => kind !== 'truncate') };

/** Stops a pod as the kubelet does: SIGTERM, then SIGKILL once the grace period is over. */
async function stopPod(daemon: RunningDaemon): Promise<string> {
  const from = Date.now();
  void daemon.stop('SIGTERM');
  const code = await Promise.race([daemon.exited, sleep(GRACE_MS).then(() => 'grace' as const)]);
  if (code !== 'grace')
    return `exited ${String(code)} after ${String(seconds(Date.now() - from))} s`;
  await daemon.stop('SIGKILL');
  return `still running ${String(GRACE_MS / 1000)} s after SIGTERM: SIGKILLed`;
}

const requestSummary = (replica: ProxiedReplica): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const entry of replica.proxy.log) {
    const key = entry.fault ?? String(entry.status ?? 'none');
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
};

/** A replica's /healthz as `status body`, or why it could not be read. */
const health = async (replica: ProxiedReplica): Promise<string> => {
  const port = servedPort(replica.daemon, '/healthz');
  if (port === undefined) return `${replica.label}: not listening`;
  try {
    const { status, body } = await httpGet(port, '/healthz');
    return `${replica.label}: ${String(status)} ${body.trim().slice(0, 200)}`;
  } catch (err) {
    return `${replica.label}: ${err instanceof Error ? err.message : String(err)}`;
  }
};

const leaderOf = async (
  world: BenchWorld,
  replicas: readonly ProxiedReplica[],
): Promise<ProxiedReplica | undefined> => {
  const holder = await world.holder();
  return replicas.find((r) => heldBy(holder, r.daemon));
};

export async function upgradeCase(minutes: number): Promise<{ figures: object; ok: boolean }> {
  const release = await previousRelease(V0_2_0);
  const world = await startBenchWorld('bench-chaos-upgrade', NAMESPACES);
  const { chaos } = world;
  const args = (kubeconfig: string): string[] => [
    '--kubeconfig',
    kubeconfig,
    '--target-namespace',
    chaos.world.target,
    '--managed-by',
    chaos.world.managedBy,
    `--interval=${INTERVAL_S}s`,
    '--leader-elect',
    '--health-addr=127.0.0.1:0',
    '--metrics-addr=127.0.0.1:0',
  ];
  // --debug: 0.2.0 logs each pass ('pass complete', with its requests and failures) only so.
  const launchOld = (kubeconfig: string): RunningDaemon =>
    startDaemon([...args(kubeconfig), '--debug'], {}, release.main);
  const launchNew = (kubeconfig: string): RunningDaemon =>
    startProxiedDaemon(chaos, kubeconfig, [`--interval=${INTERVAL_S}s`, '--leader-elect']);
  const old = [
    await proxiedReplica(world, 'old-a', 3001, OLD_FAULTS, launchOld),
    await proxiedReplica(world, 'old-b', 3002, OLD_FAULTS, launchOld),
  ];

  // 0.2.0 at work: churn under faults, then quiet until it has converged.
  const phaseMs = (minutes / 4) * 60_000;
  const oldChurn = startChurn(chaos, { periodMs: 1000, seed: 3003 });
  await sleep(phaseMs);
  await oldChurn.stop();
  for (const replica of old) replica.proxy.setFaults({ rate: 0 });
  const oldConverged = await converge(chaos, 180_000);
  // Its own word on its state: a pass that never ends shows here ("pass running for …").
  const oldHealth = await Promise.all(old.map(health));
  const before = await registrations(chaos.world);

  // The rolling update, without injected faults: every write now is the takeover's own.
  const noFaults = { rate: 0 };
  const current: ProxiedReplica[] = [];
  current.push(await proxiedReplica(world, 'new-a', 3004, noFaults, launchNew));
  await sleep(3 * INTERVAL_S * 1000);
  const standbyWrites = current[0]?.audit.writes.length ?? 0;
  const oldLeader = (await leaderOf(world, old)) ?? old[0];
  const oldLeaderExit = oldLeader === undefined ? 'none' : await stopPod(oldLeader.daemon);
  current.push(await proxiedReplica(world, 'new-b', 3005, noFaults, launchNew));
  await sleep(3 * INTERVAL_S * 1000);
  const oldOther = old.find((r) => r !== oldLeader);
  const oldOtherExit = oldOther === undefined ? 'none' : await stopPod(oldOther.daemon);
  const takeover = await waitFor(
    async () => (await leaderOf(world, current)) !== undefined,
    60_000,
  );
  await sleep(3 * INTERVAL_S * 1000);
  const newConverged = await converge(chaos, 120_000);
  const after = await registrations(chaos.world);
  const changes = takeoverChanges(before, after);
  const writes = current.flatMap((r) => r.audit.writes);
  const events = writes.filter((w) => w.path.includes('/events')).length;
  // Steady: nothing changes, so the current build must write nothing at all.
  const steadyFrom = Date.now();
  await sleep(phaseMs / 2);
  const steadyWrites = current
    .flatMap((r) => r.audit.writes)
    .filter((w) => w.receivedAt >= steadyFrom).length;

  // The current build at work: churn under faults, then quiet.
  for (const replica of current) replica.proxy.setFaults(FAULTS);
  const newChurn = startChurn(chaos, { periodMs: 1000, seed: 3006 });
  await sleep(phaseMs);
  await newChurn.stop();
  for (const replica of current) replica.proxy.setFaults({ rate: 0 });
  const last = await converge(chaos, 10 * INTERVAL_S * 1000);
  const foreignChanged = await changedForeign(chaos);
  const all = [...old, ...current];
  const leaseViolations = (replicas: typeof all): string[] =>
    replicas.flatMap((r) =>
      writesAgainstTheLease(world.history, r.audit.writes, r.daemon.process.pid).map(
        (w) => `${r.label}: ${w}`,
      ),
    );
  // The guarantee is the current build's. 0.2.0 had no write fence and no bound on its
  // requests (a renewal held past the lease by a hang let the other replica take over while it
  // went on writing): what it did is reported as found, not passed or failed here.
  const againstTheLease = leaseViolations(current);
  const oldAgainstTheLease = leaseViolations(old);
  const crashed = current.filter((r) => r.daemon.process.exitCode !== null).map((r) => r.label);
  const figures = {
    case: 'upgrade',
    minutes,
    namespaces: NAMESPACES,
    faultRate: FAULT_RATE,
    from: release.commit,
    churnUnderOld: oldChurn.counts,
    churnUnderCurrent: newChurn.counts,
    oldConvergenceSeconds:
      oldConverged.convergedMs === undefined ? null : seconds(oldConverged.convergedMs),
    oldNotConverged: oldConverged.left,
    oldHealth,
    // 0.2.0's own shutdown, reported: it is not the current build's to pass or fail.
    oldStops: [oldLeaderExit, oldOtherExit],
    registrationsBefore: before.size,
    standbyWritesBeforeTakeover: standbyWrites,
    takeoverSeconds: takeover === undefined ? null : seconds(takeover),
    takeoverConvergenceSeconds:
      newConverged.convergedMs === undefined ? null : seconds(newConverged.convergedMs),
    lost: changes.lost.length,
    lostFirst: changes.lost.slice(0, 20),
    added: changes.added.length,
    addedFirst: changes.added.slice(0, 20),
    rewritten: changes.rewritten.size,
    unintendedRewrites: changes.unintended.slice(0, 20),
    takeoverWrites: writes.length,
    events,
    steadySeconds: seconds(phaseMs / 2),
    steadyWrites,
    writesWithoutTheLease: againstTheLease.length,
    writesWithoutTheLeaseDetail: againstTheLease.slice(0, 20),
    oldWritesWithoutTheLease: oldAgainstTheLease.length,
    oldWritesWithoutTheLeaseDetail: oldAgainstTheLease.slice(0, 5),
    wrongfulDeletionsOrDemotions: all.flatMap((r) => r.audit.wrongful),
    foreignWrites: all.flatMap((r) => r.audit.foreignWrites).length + foreignChanged.length,
    crashed,
    convergenceSeconds: last.convergedMs === undefined ? null : seconds(last.convergedMs),
    notConverged: last.left,
    // What each replica's proxy saw (status or fault per request) and what each one logged.
    requests: Object.fromEntries(all.map((r) => [r.label, requestSummary(r)])),
    logs: keepLogs('chaos-upgrade', all),
  };
  for (const replica of all) {
    await replica.daemon.stop('SIGKILL');
    await replica.proxy.close();
  }
  await world.stop();
  const ok =
    oldConverged.convergedMs !== undefined &&
    standbyWrites === 0 &&
    takeover !== undefined &&
    newConverged.convergedMs !== undefined &&
    changes.lost.length === 0 &&
    changes.added.length === 0 &&
    changes.unintended.length === 0 &&
    events <= changes.rewritten.size &&
    steadyWrites === 0 &&
    figures.writesWithoutTheLease === 0 &&
    figures.wrongfulDeletionsOrDemotions.length === 0 &&
    figures.foreignWrites === 0 &&
    crashed.length === 0 &&
    last.convergedMs !== undefined;
  return { figures, ok };
}
