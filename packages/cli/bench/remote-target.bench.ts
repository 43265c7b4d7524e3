// One remote target: the shipped daemon on a host plane with N labelled namespaces (each with a
// k3k kubeconfig Secret, a unique server), writing into the ArgoCD namespace of a second plane,
// the hub, through the identity the chart's hub mode renders there and the kubeconfig
// scripts/hub-kubeconfig prints for it (testkit's startHub). Measured: the cold start (spawn →
// N registrations listed at the hub), the requests the hub serves in steady state (its own
// apiserver_request_total, watches excepted, per minute: must not grow with N), the writes in
// that window (none), the same at the host, and resident memory (peak, steady).
//
//   pnpm build && node --expose-gc --import tsx packages/cli/bench/remote-target.bench.ts [N]
//   (`pnpm bench remote-target` runs N = 1,000; REGISTRAR_BENCH_REMOTE_STEADY_MINUTES sets the
//   steady window, default 2)

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import {
  apiServerRequests,
  nonWatchRequests,
  requestBreakdown,
  requestsBetween,
  startControlPlane,
  startHub,
} from '../../testkit/src/index.js';
import { imageRuntime } from '../src/test-support/image-runtime.js';
import {
  daemonFlags,
  MANAGED_BY,
  countRegistrations,
  createSources,
  describeBuild,
  fmt,
  loadAverage,
  machine,
  repo,
  requireBuild,
  sayer,
  secs,
  sleep,
  spawnDaemon,
  startSampler,
  stopDaemon,
} from './harness.js';

const N = Number((process.argv[2] ?? '1000').replace(/[_,]/g, ''));
const STEADY_MINUTES = Number(process.env['REGISTRAR_BENCH_REMOTE_STEADY_MINUTES'] ?? 2);
const INTERVAL_S = 30;
const REGISTER_TIMEOUT_MS = 15 * 60_000;
const say = sayer('remote-target');
const work = `/tmp/acr-bench-remote/n${String(N)}-${String(process.pid)}`;

function kubeConfigOf(text: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(text);
  return kc;
}

/** The kubeconfig the printed Secret holds (the chart mounts that key as a file). */
function kubeconfigFromSecret(manifest: string): string {
  const line = /^ {2}kubeconfig: (\S+)$/m.exec(manifest);
  if (line?.[1] === undefined) throw new Error('scripts/hub-kubeconfig printed no kubeconfig key');
  return Buffer.from(line[1], 'base64').toString('utf8');
}

async function main(): Promise<void> {
  if (!Number.isInteger(N) || N < 1) throw new Error(`N must be a positive integer`);
  requireBuild();
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true, mode: 0o700 });
  say(`starting the host and hub planes…`);
  const pid = String(process.pid);
  const [host, hub] = await Promise.all([
    startControlPlane(`bench-remote-host-${pid}`, { ownerPid: process.pid }),
    startHub({ name: `bench-remote-hub-${pid}`, spokes: ['bench'], managedBy: MANAGED_BY }),
  ]);
  try {
    const hostKc = kubeConfigOf(host.kubeConfig);
    const hubKc = kubeConfigOf(hub.plane.kubeConfig);
    const hostApi = hostKc.makeApiClient(CoreV1Api);
    const hubApi = hubKc.makeApiClient(CoreV1Api);
    const hubKubeconfig = join(work, 'hub.kubeconfig');
    writeFileSync(hubKubeconfig, kubeconfigFromSecret(await hub.kubeconfigSecret('bench')), {
      mode: 0o600,
    });
    const targetsFile = join(work, 'targets.json');
    writeFileSync(
      targetsFile,
      JSON.stringify({
        targets: [{ name: 'hub', namespace: hub.namespace, kubeconfig: hubKubeconfig }],
      }),
    );

    say(`creating ${String(N)} sources on the host…`);
    await createSources(hostApi, host.kubeConfig, N, { prefix: 'src-', concurrency: 16, say });

    const runtime = imageRuntime(repo);
    const logPath = join(work, 'daemon.log');
    const hostBefore = await apiServerRequests(hostKc);
    const hubBefore = await apiServerRequests(hubKc);
    const spawnedAt = performance.now();
    const daemon = spawnDaemon(
      runtime,
      daemonFlags(host.kubeconfigPath, {}, [
        '--targets-file',
        targetsFile,
        // The hub's write policy admits the spoke "bench" only with its own host identity.
        '--host-id',
        'bench',
        '--interval',
        `${String(INTERVAL_S)}s`,
      ]),
      logPath,
    );
    const sampler = startSampler(daemon.pid ?? 0, 200, spawnedAt);
    try {
      let registered = 0;
      while (registered < N) {
        if (daemon.exitCode !== null) throw new Error(`the daemon exited; its log: ${logPath}`);
        if (performance.now() - spawnedAt > REGISTER_TIMEOUT_MS)
          throw new Error(`${String(registered)}/${String(N)} registered in time; log: ${logPath}`);
        await sleep(250);
        registered = await countRegistrations(hubApi, hub.namespace);
      }
      const coldStartMs = performance.now() - spawnedAt;
      say(`cold start: ${secs(coldStartMs)} to ${String(N)} registrations at the hub`);
      const coldHub = requestsBetween(hubBefore, await apiServerRequests(hubKc));
      const coldHost = requestsBetween(hostBefore, await apiServerRequests(hostKc));

      // Steady: two passes to settle, then a window in which the bench asks nothing.
      await sleep(2 * INTERVAL_S * 1000);
      const hubFrom = await apiServerRequests(hubKc);
      const hostFrom = await apiServerRequests(hostKc);
      await sleep(STEADY_MINUTES * 60_000);
      const hubSteady = requestsBetween(hubFrom, await apiServerRequests(hubKc));
      const hostSteady = requestsBetween(hostFrom, await apiServerRequests(hostKc));
      // The bench's own two reads of /metrics are requests too (non-resource: not counted).
      const perMinute = (n: number): string => (n / STEADY_MINUTES).toFixed(1);
      const peak = Math.max(...sampler.samples.map((s) => s.hwmKiB));
      const last = sampler.samples.at(-1);
      const rows = [
        `| ${N.toLocaleString('en')} | ${secs(coldStartMs)} | ${perMinute(nonWatchRequests(hubSteady))} | ${String(hubSteady.writes)} | ${perMinute(nonWatchRequests(hostSteady))} | ${String(hostSteady.writes)} | ${fmt(peak)} | ${fmt(last?.rssKiB)} | ${loadAverage()} |`,
      ];
      console.log(`\nOne remote target, ${machine()}`);
      console.log(describeBuild());
      console.log(
        '\n| sources | cold start → all registered at the hub | hub requests/min steady (watches excepted) | hub writes steady | host requests/min steady | host writes steady | peak RSS | steady RSS | load average (1/5/15 min) |',
      );
      console.log('|---|---|---|---|---|---|---|---|---|');
      for (const row of rows) console.log(row);
      console.log(`\ncold start at the hub: ${requestBreakdown(coldHub)}`);
      console.log(`cold start at the host: ${requestBreakdown(coldHost)}`);
      console.log(
        `steady at the hub (${String(STEADY_MINUTES)} min): ${requestBreakdown(hubSteady)}`,
      );
      console.log(
        `steady at the host (${String(STEADY_MINUTES)} min): ${requestBreakdown(hostSteady)}`,
      );
    } finally {
      sampler.stop();
      await stopDaemon(daemon);
    }
  } finally {
    await Promise.allSettled([host.stop(), hub.stop()]);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
