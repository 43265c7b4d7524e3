// The soak: the shipped daemon (packages/cli/dist, the image's Node release and flags, the
// chart's memory limit: image-runtime.ts) with --leader-elect, through a fault proxy (5 %
// faults of every kind) in front of a real host plane holding 1,000 source namespaces, under
// light churn, for 60 minutes. Every minute: resident memory (/proc/<pid>/status), V8 heap in
// use and event-loop delay (a small probe preloaded into the daemon), and open sockets and
// file descriptors (/proc/<pid>/fd). Figures: each sample, the least-squares slope of each
// series from minute 10 to the end, and the growth of resident memory from minute 10 to the
// last sample; the bench fails when that growth exceeds 10 %, or when the usual guarantees
// fail (no wrongful deletion or demotion, no foreign write, convergence once faults stop).
//
//   pnpm bench soak                                  60 minutes, 1,000 clusters
//   SOAK_MINUTES=6 SOAK_SAMPLE_SECONDS=20 pnpm bench soak    a short try
//   (also SOAK_CLUSTERS; the window then starts at a sixth of the run, at most minute 10)

import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { FAULT_KINDS, startFaultProxy } from '../../testkit/src/index.js';
import type { FaultKind } from '../../testkit/src/index.js';
import {
  auditWrites,
  changedForeign,
  divergence,
  proxyKubeconfig,
  startChurn,
} from '../src/test-support/chaos.js';
import { startBenchWorld } from './chaos-world.js';
import { imageRuntime } from '../src/test-support/image-runtime.js';
import { readStatus, repo, sleep, spawnDaemon } from './harness.js';
import { DIAG, PROBE, RESYNC_PERIOD, diagFigures, diagFlags, residentSplit } from './soak-diag.js';
import type { ResidentSplit } from './soak-diag.js';

const MINUTES = Number(process.env['SOAK_MINUTES'] ?? 60);
const CLUSTERS = Number(process.env['SOAK_CLUSTERS'] ?? 1000);
const SAMPLE_MS = Number(process.env['SOAK_SAMPLE_SECONDS'] ?? 60) * 1000;
/** The window the slope and the growth are taken over starts here. */
const WINDOW_FROM_MIN = Math.min(10, MINUTES / 6);
const FAULT_RATE = 0.05;
const INTERVAL_S = 30;
/** Light churn: one change of the world every 20 s on average. */
const CHURN_PERIOD_MS = 20_000;
const MAX_GROWTH = 0.1;

const work = `/tmp/acr-bench-soak${DIAG ? `-diag-${process.pid}` : ''}`;

interface Sample {
  readonly minute: number;
  readonly rssMiB: number;
  readonly resident: ResidentSplit;
  readonly heapUsedMiB: number | undefined;
  readonly sockets: number;
  readonly fds: number;
  readonly delayP99Ms: number | undefined;
  readonly delayMaxMs: number | undefined;
  readonly load1: number;
  readonly diag?: Record<string, number>;
}

function descriptors(pid: number): { sockets: number; fds: number } {
  let sockets = 0;
  let fds = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      fds += 1;
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets += 1;
    } catch {
      // Closed between the listing and the read.
    }
  }
  return { sockets, fds };
}

function lastProbe(path: string): Record<string, number> | undefined {
  if (!existsSync(path)) return undefined;
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  const last = lines[lines.length - 1];
  return last === undefined || last === ''
    ? undefined
    : (JSON.parse(last) as Record<string, number>);
}

/** Least-squares slope of `value` over `minute`, per hour. */
function slopePerHour(points: readonly { minute: number; value: number }[]): number | null {
  if (points.length < 2) return null;
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.minute, 0) / n;
  const my = points.reduce((s, p) => s + p.value, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.minute - mx) ** 2, 0);
  const sxy = points.reduce((s, p) => s + (p.minute - mx) * (p.value - my), 0);
  return sxx === 0 ? null : (sxy / sxx) * 60;
}

const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

async function main(): Promise<void> {
  process.stderr.write(
    `soak: ${MINUTES} min, ${CLUSTERS} clusters, ${FAULT_RATE * 100}% faults, a sample every ${SAMPLE_MS / 1000} s${DIAG ? ', DIAGNOSTIC (forced collections)' : ''}${RESYNC_PERIOD === undefined ? '' : `, --resync-period=${RESYNC_PERIOD}`}\n`,
  );
  // The shipped daemon: build it from the current source.
  const build = spawnSync('pnpm', ['-s', 'build'], { cwd: repo, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('pnpm build failed');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });

  const created = Date.now();
  // The registered kubeconfigs are never dialled: the host plane stands in for a child.
  const world = await startBenchWorld('bench-soak', CLUSTERS);
  const { host, chaos } = world;
  process.stderr.write(
    `world of ${CLUSTERS} namespaces in ${Math.round((Date.now() - created) / 1000)} s\n`,
  );
  const audit = auditWrites(chaos);
  const proxy = await startFaultProxy(host, {
    seed: 4242,
    beforeWrite: audit.beforeWrite,
    faults: {
      rate: FAULT_RATE,
      latencyMs: [200, 3000],
      hangMs: 20_000,
      watchCutMs: [5000, 120_000],
    },
  });
  const kubeconfig = proxyKubeconfig(proxy);

  const runtime = imageRuntime(repo);
  const probeFile = join(work, 'probe.jsonl');
  const daemon = spawnDaemon(
    runtime,
    [
      '--kubeconfig',
      kubeconfig,
      '--target-namespace',
      world.chaos.world.target,
      '--managed-by',
      world.chaos.world.managedBy,
      `--interval=${INTERVAL_S}s`,
      '--leader-elect',
      '--health-addr=127.0.0.1:0',
      '--metrics-addr=127.0.0.1:0',
      '--log-format=json',
      ...(RESYNC_PERIOD === undefined ? [] : [`--resync-period=${RESYNC_PERIOD}`]),
    ],
    join(work, 'daemon.log'),
    {
      nodeFlags: [...diagFlags, '--import', `data:text/javascript,${encodeURIComponent(PROBE)}`],
      env: { SOAK_PROBE_FILE: probeFile, SOAK_PROBE_MS: String(SAMPLE_MS) },
      main: join(repo, 'packages/cli/dist/main.js'),
    },
  );
  const started = Date.now();
  // The cgroup wrapper execs node: the same pid, so /proc reads are the daemon's.
  const pid = daemon.pid ?? -1;

  let firstConvergedS: number | null = null;
  const churn = startChurn(chaos, { periodMs: CHURN_PERIOD_MS, seed: 4343 });
  const samples: Sample[] = [];
  const end = started + MINUTES * 60_000;
  let next = started + SAMPLE_MS;
  const exited = (): boolean => daemon.exitCode !== null || daemon.signalCode !== null;
  while (Date.now() < end && !exited()) {
    await sleep(Math.max(0, Math.min(next, end) - Date.now()));
    next += SAMPLE_MS;
    if (exited()) break;
    const probe = lastProbe(probeFile);
    const { sockets, fds } = descriptors(pid);
    const sample: Sample = {
      minute: round((Date.now() - started) / 60_000),
      rssMiB: round((readStatus(pid)?.rssKiB ?? 0) / 1024, 1),
      resident: residentSplit(pid),
      heapUsedMiB:
        probe?.['heapUsed'] === undefined ? undefined : round(probe['heapUsed'] / 2 ** 20, 1),
      sockets,
      fds,
      delayP99Ms: probe?.['delayP99Ms'] === undefined ? undefined : round(probe['delayP99Ms'], 1),
      delayMaxMs: probe?.['delayMaxMs'] === undefined ? undefined : round(probe['delayMaxMs'], 1),
      load1: round(loadavg()[0] ?? 0),
      ...(DIAG ? { diag: diagFigures(probe) } : {}),
    };
    samples.push(sample);
    process.stderr.write(`${JSON.stringify(sample)}\n`);
    if (firstConvergedS === null && (await divergence(chaos)).length === 0)
      firstConvergedS = Math.round((Date.now() - started) / 1000);
  }
  const crashed = exited();

  await churn.stop();
  proxy.setFaults({ rate: 0 });
  const quietAt = Date.now();
  let convergedMs: number | undefined;
  let last: string[] = [];
  while (!crashed && Date.now() - quietAt < 10 * INTERVAL_S * 1000) {
    last = await divergence(chaos);
    if (last.length === 0) {
      convergedMs = Date.now() - quietAt;
      break;
    }
    await sleep(1000);
  }
  const foreignChanged = await changedForeign(chaos);

  const window = samples.filter((s) => s.minute >= WINDOW_FROM_MIN - 1e-9);
  const from = window[0];
  const to = window[window.length - 1];
  const growth = from !== undefined && to !== undefined ? to.rssMiB / from.rssMiB - 1 : null;
  const slope = (pick: (s: Sample) => number | undefined): number | null => {
    const points = window.flatMap((s) => {
      const value = pick(s);
      return value === undefined ? [] : [{ minute: s.minute, value }];
    });
    const value = slopePerHour(points);
    return value === null ? null : round(value, 2);
  };
  const faults = Object.fromEntries(
    FAULT_KINDS.map((kind: FaultKind) => [kind, proxy.counts[kind]]),
  );
  const figures = {
    minutes: MINUTES,
    clusters: CLUSTERS,
    sampleSeconds: SAMPLE_MS / 1000,
    runtime: runtime.describe,
    requests: proxy.log.length,
    faultsTotal: Object.values(faults).reduce((a, b) => a + b, 0),
    faults,
    churn: churn.counts,
    firstConvergedSeconds: firstConvergedS,
    window: { fromMinute: from?.minute ?? null, toMinute: to?.minute ?? null },
    rssMiB: {
      from: from?.rssMiB ?? null,
      to: to?.rssMiB ?? null,
      max: Math.max(...samples.map((s) => s.rssMiB)),
    },
    rssGrowthPercent: growth === null ? null : round(growth * 100, 1),
    slopesPerHour: {
      rssMiB: slope((s) => s.rssMiB),
      heapUsedMiB: slope((s) => s.heapUsedMiB),
      sockets: slope((s) => s.sockets),
      fds: slope((s) => s.fds),
      delayP99Ms: slope((s) => s.delayP99Ms),
    },
    socketsMax: Math.max(...samples.map((s) => s.sockets)),
    delayP99MsMax: Math.max(...samples.map((s) => s.delayP99Ms ?? 0)),
    loadAverage: loadavg().map((l) => round(l)),
    crashed,
    oomKilled: runtime.oomKilled(),
    wrongfulDeletionsOrDemotions: audit.wrongful,
    foreignWrites: audit.foreignWrites.length + foreignChanged.length,
    convergenceSeconds: convergedMs === undefined ? null : convergedMs / 1000,
    notConverged: convergedMs === undefined ? last.slice(0, 10) : [],
    samples,
  };
  writeFileSync(join(work, 'figures.json'), `${JSON.stringify(figures, null, 2)}\n`);
  console.log(JSON.stringify(figures, null, 2));
  daemon.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 2000));
  if (daemon.exitCode === null) daemon.kill('SIGKILL');
  runtime.release();
  await proxy.close();
  await world.stop();
  const ok =
    !crashed &&
    growth !== null &&
    growth <= MAX_GROWTH &&
    figures.wrongfulDeletionsOrDemotions.length === 0 &&
    figures.foreignWrites === 0 &&
    convergedMs !== undefined;
  process.exit(ok ? 0 : 1);
}

await main();
