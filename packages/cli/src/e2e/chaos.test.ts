// Chaos: the daemon as a child process, through the fault-injecting proxy in front of the
// real host plane, while a churn loop changes the world directly (create, delete+finalize,
// rotate, rename, revert, re-create with the same name). Every write the proxy forwards is
// judged against the world at that moment (test-support/chaos.ts). Small on purpose (20
// namespaces, a 5 s interval) so the file runs in a few minutes on two cores; the long run
// is `pnpm bench chaos`.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { leaseName } from '@argocd-cluster-registrar/k8s-adapter';
import { adminKubeConfig, seededRandom, startFaultProxy } from '@argocd-cluster-registrar/testkit';
import type { FaultProxy } from '@argocd-cluster-registrar/testkit';
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
import type { ChaosWorld } from '../test-support/chaos.js';
import {
  PREFIX,
  createSourceNamespace,
  createWorld,
  eventually,
  httpGet,
  kubeconfigYaml,
  putK3kKubeconfig,
  registration,
} from '../test-support/e2e.js';
import type { RunningDaemon } from '../test-support/e2e.js';
import { watchLease, writesAgainstTheLease } from '../test-support/lease-history.js';

const INTERVAL_MS = 5000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let chaos: ChaosWorld;
let proxies: FaultProxy[] = [];
let daemons: RunningDaemon[] = [];

beforeEach(async () => {
  chaos = await createChaosWorld(await createWorld(), { namespaces: 20, foreign: 3 });
});

afterEach(async () => {
  await Promise.all(daemons.map((d) => d.stop('SIGKILL')));
  await Promise.all(proxies.map((p) => p.close()));
  daemons = [];
  proxies = [];
});

async function proxied(seed: number) {
  const audit = auditWrites(chaos);
  const proxy = await startFaultProxy(chaos.world.host, { seed, beforeWrite: audit.beforeWrite });
  proxies.push(proxy);
  return { proxy, audit, kubeconfig: proxyKubeconfig(proxy) };
}

function daemon(kubeconfig: string, extra: readonly string[] = []): RunningDaemon {
  const running = startProxiedDaemon(chaos, kubeconfig, [
    `--interval=${INTERVAL_MS / 1000}s`,
    ...extra,
  ]);
  daemons.push(running);
  return running;
}

/** Converged: exactly the expected registrations, within three intervals. */
async function expectConverged(): Promise<void> {
  let last: string[] = [];
  try {
    await eventually(
      async () => {
        last = await divergence(chaos);
        return last.length === 0 ? true : undefined;
      },
      'convergence',
      3 * INTERVAL_MS,
      500,
    );
  } catch {
    expect(last).toEqual([]);
  }
}

describe('chaos', () => {
  it('under ~20% faults and churn: no wrongful deletion or demotion, foreign Secrets untouched, convergence once faults stop', async () => {
    const { proxy, audit, kubeconfig } = await proxied(101);
    proxy.setFaults({ rate: 0.2, latencyMs: [1000, 4000], hangMs: 3000, watchCutMs: [500, 3000] });
    const running = daemon(kubeconfig);
    const health = await eventually(
      () => Promise.resolve(servedPort(running, '/healthz')),
      'the health server',
    );
    const metricsPort = await eventually(
      () => Promise.resolve(servedPort(running, '/metrics')),
      'the metrics server',
    );
    const churn = startChurn(chaos, { periodMs: 700, seed: 5 });
    const unanswered: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      await sleep(2000);
      for (const [port, path] of [
        [health, '/readyz'],
        [metricsPort, '/metrics'],
      ] as const) {
        try {
          await httpGet(port, path);
        } catch (err) {
          unanswered.push(`${path}: ${String(err)}`);
        }
      }
    }
    await churn.stop();
    proxy.setFaults({ rate: 0 });
    await expectConverged();

    expect(audit.wrongful).toEqual([]);
    expect(audit.foreignWrites).toEqual([]);
    expect(await changedForeign(chaos)).toEqual([]);
    expect(unanswered).toEqual([]);
    expect(running.process.exitCode).toBeNull();
    // The faults and the churn were real (how many depends on how fast the daemon ran).
    expect(Object.values(proxy.counts).filter((count) => count > 0).length).toBeGreaterThanOrEqual(
      3,
    );
    expect(Object.values(churn.counts).reduce((a, b) => a + b, 0)).toBeGreaterThan(10);
  }, 180_000);

  it('survives 20 SIGKILLs at random moments under churn with the same guarantees', async () => {
    const { proxy, audit, kubeconfig } = await proxied(202);
    proxy.setFaults({
      rate: 0.1,
      latencyMs: [200, 1000],
      kinds: ['status-500', 'status-503', 'latency', 'reset'],
    });
    const random = seededRandom(9);
    const churn = startChurn(chaos, { periodMs: 500, seed: 6 });
    for (let kill = 0; kill < 20; kill += 1) {
      const running = daemon(kubeconfig);
      await sleep(800 + random() * 2500);
      await running.stop('SIGKILL');
    }
    await churn.stop();
    proxy.setFaults({ rate: 0 });
    const last = daemon(kubeconfig);
    await expectConverged();
    expect(audit.wrongful).toEqual([]);
    expect(audit.foreignWrites).toEqual([]);
    expect(await changedForeign(chaos)).toEqual([]);
    expect(last.process.exitCode).toBeNull();
  }, 180_000);

  it('HA: the standby writes nothing; a leader frozen past its lease writes nothing after it resumes', async () => {
    const a = await proxied(303);
    const b = await proxied(304);
    const first = daemon(a.kubeconfig, ['--leader-elect']);
    const second = daemon(b.kubeconfig, ['--leader-elect']);
    const leases = adminKubeConfig(chaos.world.host).makeApiClient(CoordinationV1Api);
    const name = leaseName({ labelPrefix: PREFIX, managedBy: chaos.world.managedBy });
    const history = watchLease(chaos.world.host.kubeConfig, chaos.world.target, name);
    const holder = async () => {
      try {
        const lease = await leases.readNamespacedLease({ name, namespace: chaos.world.target });
        return lease.spec?.holderIdentity ?? undefined;
      } catch {
        return undefined;
      }
    };
    const byHolder = (identity: string) =>
      identity.endsWith(`_${String(first.process.pid)}`)
        ? { leader: first, leaderAudit: a.audit, standby: second, standbyAudit: b.audit }
        : { leader: second, leaderAudit: b.audit, standby: first, standbyAudit: a.audit };
    const initial = await eventually(holder, 'a leader', 30_000, 200);
    const { leader, leaderAudit, standby, standbyAudit } = byHolder(initial);
    await expectConverged();

    const churn = startChurn(chaos, { periodMs: 600, seed: 7 });
    await sleep(8000);
    expect(standbyAudit.writes).toEqual([]);

    // Freeze the leader past its lease (15 s): the standby must take over.
    leader.process.kill('SIGSTOP');
    const frozenAt = Date.now();
    await eventually(
      async () => {
        const now = await holder();
        return now !== undefined && now !== initial ? now : undefined;
      },
      'the standby to take over',
      40_000,
      250,
    );
    await sleep(Math.max(0, 17_000 - (Date.now() - frozenAt)));
    leader.process.kill('SIGCONT');
    const resumedAt = Date.now();
    await sleep(8000);
    await churn.stop();
    await expectConverged();

    expect(leaderAudit.writes.filter((w) => w.at >= resumedAt)).toEqual([]);
    // Judged against the Lease itself: nobody wrote while it was valid for the other.
    history.stop();
    expect(writesAgainstTheLease(history, leaderAudit.writes, leader.process.pid)).toEqual([]);
    expect(writesAgainstTheLease(history, standbyAudit.writes, standby.process.pid)).toEqual([]);
    expect(history.versions.length).toBeGreaterThan(2);
    expect(standbyAudit.writes.length).toBeGreaterThan(0);
    expect(leaderAudit.wrongful).toEqual([]);
    expect(standbyAudit.wrongful).toEqual([]);
    expect(await changedForeign(chaos)).toEqual([]);
    expect(standby.process.exitCode).toBeNull();
    expect(leader.process.exitCode).toBeNull();
  }, 180_000);

  it('hang: recovers within one interval after the API answers again, and SIGTERM during a hang exits within 10 s', async () => {
    // A 30 s hang rather than 2 minutes, to keep CI time reasonable: twice the watches'
    // headers bound (15 s), so every watch has re-opened into the hang and failed, and the
    // pass that found them failing is backing off, as after a longer one.
    const { proxy, kubeconfig } = await proxied(404);
    const interval = 30_000;
    const running = startProxiedDaemon(chaos, kubeconfig, [`--interval=${interval / 1000}s`]);
    daemons.push(running);
    await expectConverged();

    // The API server stops answering: open watches are dropped, and whatever is sent hangs.
    proxy.hangAll(true);
    proxy.dropConnections();
    await sleep(30_000);
    proxy.hangAll(false);
    const answeredAt = Date.now();
    const ns = await createSourceNamespace(chaos.world, { cluster: 'after-hang' });
    await putK3kKubeconfig(
      chaos.world,
      ns.metadata?.name ?? '',
      kubeconfigYaml(chaos.world.child, {
        server: 'https://after-hang.example:6443',
        user: { token: 'h' },
      }),
    );
    // Within one interval of the API server answering again: the watches re-open within
    // their headers bound plus one back-off (15 s + 5 s), and the pass that failed for want
    // of them is retried as soon as they answer, not at the end of its back-off.
    await eventually(
      () => registration(chaos.world, 'after-hang'),
      'registration within one interval after the hang',
      interval - (Date.now() - answeredAt),
      500,
    );
    expect(running.process.exitCode).toBeNull();

    proxy.hangAll(true);
    await sleep(5000);
    const signalledAt = Date.now();
    const code = await running.stop('SIGTERM');
    const tookMs = Date.now() - signalledAt;
    proxy.hangAll(false);
    expect(code).not.toBeNull();
    expect(tookMs).toBeLessThan(10_000);
  }, 360_000);
});
