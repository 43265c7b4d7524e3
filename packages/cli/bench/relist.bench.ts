// The daemon's resident memory around its re-lists: N sources (default 1,000), the shipped
// daemon as the image runs it with `--resync-period 1m` (the shortest it takes; 10m by
// default), so each minute holds one re-list of every watch. Prints the high-water mark each
// time it rises, each minute's largest and median RSS, and the CPU of each minute. No probes,
// no Events after the cold start's: what a re-list alone adds.
//
//   pnpm build && node --expose-gc --import tsx packages/cli/bench/relist.bench.ts [N]
//   (`pnpm bench relist`; RELIST_MINUTES: minutes after registration, default 4)
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startControlPlane } from '../../testkit/src/index.js';
import { imageRuntime } from '../src/test-support/image-runtime.js';
import {
  daemonFlags,
  cpuSeconds,
  requireBuild,
  createSources,
  countRegistrations,
  freePort,
  repo,
  sleep,
  spawnDaemon,
  startSampler,
  stopDaemon,
  withRetry,
} from './harness.js';

const N = Number(process.argv[2] ?? 1000);
const MINUTES = Number(process.env['RELIST_MINUTES'] ?? 4);

async function main(): Promise<void> {
  requireBuild();
  const plane = await startControlPlane(`bench-relist-${String(process.pid)}`, {
    ownerPid: process.pid,
  });
  const runtime = imageRuntime(repo);
  try {
    const kc = new KubeConfig();
    kc.loadFromString(plane.kubeConfig);
    const api = kc.makeApiClient(CoreV1Api);
    await withRetry('ns', () => api.createNamespace({ body: { metadata: { name: 'argocd' } } }));
    await createSources(api, plane.kubeConfig, N, {
      prefix: 'fleet-',
      concurrency: 16,
      say: console.log,
    });
    const metricsPort = await freePort();
    const start = performance.now();
    const daemon = spawnDaemon(
      runtime,
      daemonFlags(plane.kubeconfigPath, { metrics: metricsPort }, [
        '--target-namespace',
        'argocd',
        '--resync-period',
        '1m',
      ]),
      join(tmpdir(), `acr-bench-relist-${String(process.pid)}.log`),
    );
    const sampler = startSampler(daemon.pid ?? 0, 50, start);
    while ((await countRegistrations(api, 'argocd')) < N) await sleep(500);
    console.log(`registered after ${((performance.now() - start) / 1000).toFixed(1)} s`);
    const cpuAt: number[] = [];
    for (let m = 0; m < MINUTES; m += 1) {
      cpuAt.push(cpuSeconds(daemon.pid ?? 0));
      await sleep(60_000);
    }
    cpuAt.push(cpuSeconds(daemon.pid ?? 0));
    sampler.stop();
    await stopDaemon(daemon);
    let hwm = 0;
    for (const s of sampler.samples) {
      if (s.hwmKiB > hwm) {
        console.log(
          `t=${(s.t / 1000).toFixed(1)} s hwm ${(s.hwmKiB / 1024).toFixed(1)} rss ${(s.rssKiB / 1024).toFixed(1)}`,
        );
        hwm = s.hwmKiB;
      }
    }
    // The largest rise of RSS within a second, per minute after registration.
    for (let m = 0; m <= MINUTES; m += 1) {
      const inMinute = sampler.samples.filter((s) => s.t >= m * 60_000 && s.t < (m + 1) * 60_000);
      const max = Math.max(...inMinute.map((s) => s.rssKiB));
      const median = inMinute.map((s) => s.rssKiB).sort((a, b) => a - b)[
        Math.floor(inMinute.length / 2)
      ];
      console.log(
        `minute ${String(m)}: rss max ${(max / 1024).toFixed(1)} median ${((median ?? 0) / 1024).toFixed(1)}`,
      );
    }
    console.log(
      'cpu per minute',
      cpuAt.slice(1).map((c, i) => (c - (cpuAt[i] ?? 0)).toFixed(2)),
    );
  } finally {
    runtime.release();
    await plane.stop();
  }
}

await main();
