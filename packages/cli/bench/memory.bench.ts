// Resident memory of the SHIPPED daemon with N registered clusters (docs/behaviour.md#budgets: 10,000
// registered clusters ≤ 256 MiB). The daemon runs the bundle the image runs
// (packages/cli/dist/bundle/argocd-cluster-registrar.mjs, no tsx, NODE_ENV=production) against its own control plane
// holding N labelled namespaces, each with a k3k kubeconfig Secret (real embedded CA, client
// certificate and key; unique server). Resident memory is read from /proc/<pid>/status.
//
//   pnpm build && node --expose-gc --import tsx packages/cli/bench/memory.bench.ts [N]
//   (`pnpm bench memory` runs it with the default N = 10,000; a run takes 2-3 minutes)
//
// REGISTRAR_BENCH_MEMORY_SOURCES=clusters runs it with N Cluster API Cluster sources instead
// of namespaces (Cluster API's real CRDs on the plane, 100 labelled Clusters per namespace,
// each with its `<cluster>-kubeconfig`; the daemon runs with --provider capi --capi-clusters).
//
// REGISTRAR_BENCH_MEMORY_PROFILES=1 also publishes every source as a ClusterProfile
// (--cluster-profiles, the cluster inventory's CRD from its own module on the plane): the
// cold start then lasts until N profiles exist with their status written too.
//
// REGISTRAR_BENCH_MEMORY_DIAG=1 makes a diagnostic run: the daemon also gets --trace-gc,
// --heap-prof and a tiny preloaded probe logging process.memoryUsage() every second; the bench
// prints where the live heap was allocated and the heap left after the last full collections.
// Those figures carry the profiler's overhead, so they never go into docs/bench/memory.md.
//
// REGISTRAR_BENCH_MEMORY_CPU_PROFILE=1 runs the daemon with --cpu-prof: where its CPU time
// went (cold start included), written to the work folder when it exits; its figures carry the
// profiler's overhead and never go into docs/bench/memory.md either.
//
// The daemon runs as the image and the chart run it (image-runtime.ts): the image's Node
// release and ENTRYPOINT flags, inside a memory cgroup at the chart's default limit.

import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { CoreV1Api } from '@kubernetes/client-node';
import { mapBounded } from '../../k8s-adapter/src/concurrency.js';
import {
  apiServerRequests,
  nonWatchRequests,
  requestBreakdown,
  requestsBetween,
  applyObjects,
  installCapiCrds,
  installClusterProfileCrd,
  startControlPlane,
} from '../../testkit/src/index.js';
import { imageRuntime } from '../src/test-support/image-runtime.js';
import type { ImageRuntime } from '../src/test-support/image-runtime.js';
import type { ControlPlane } from '../../testkit/src/index.js';
import {
  daemonFlags,
  MANAGED_BY,
  PREFIX,
  childKubeconfig,
  countRegistrations,
  cpuSeconds,
  createSources,
  createsApplied,
  daemonMain,
  describeBuild,
  fmt,
  freePort,
  loadAverage,
  machine,
  mib,
  repo,
  requireBuild,
  sayer,
  scrape,
  secs,
  sleep,
  spawnDaemon,
  startSampler,
  stopDaemon,
  total,
  withRetry,
  writeDocBlock,
} from './harness.js';
import type { Sample, Series } from './harness.js';

const N = parseCount(process.argv[2]);
const DIAG = process.env['REGISTRAR_BENCH_MEMORY_DIAG'] === '1';
const CPU_PROFILE = process.env['REGISTRAR_BENCH_MEMORY_CPU_PROFILE'] === '1';
// Pid-suffixed, as the test planes are: two runs at once (other N, other variant) never share
// a plane or a work directory.
const PLANE = `bench-memory-${String(process.pid)}`;
const TARGET = 'argocd';
const INTERVAL_S = 30;
const CREATE_CONCURRENCY = 16;
const SAMPLE_MS = 200;
// How often the bench reads the daemon's /metrics. Rendering them costs the daemon memory and CPU
// in proportion to the clusters (a series per cluster), so the bench scrapes no more often than a
// Prometheus would (every 5 s is already eager).
const SCRAPE_MS = 5000;
const STEADY_PASSES = 2;
/**
 * The peak RSS budget for n clusters: 96 MiB at 1,000, 256 MiB at 10,000, straight between
 * them (about 18 KiB a cluster on a 78 MiB base), and the end values beyond.
 */
const BUDGET_MIB = Math.round(96 + ((Math.min(Math.max(N, 1000), 10_000) - 1000) * 160) / 9000);
const REGISTER_TIMEOUT_MS = 15 * 60_000;

/** A run under another memory limit than the chart's (image-runtime.ts) is its own block. */
const LIMIT = process.env['REGISTRAR_BENCH_MEMORY_LIMIT'];
const CLUSTER_SOURCES = process.env['REGISTRAR_BENCH_MEMORY_SOURCES'] === 'clusters';
const CLUSTERS_PER_NAMESPACE = 100;
const PROFILES = process.env['REGISTRAR_BENCH_MEMORY_PROFILES'] === '1';
const INVENTORY = 'inventory';
const VARIANT = `${LIMIT === undefined ? '' : `-limit-${LIMIT}`}${CLUSTER_SOURCES ? '-clusters' : ''}${PROFILES ? '-profiles' : ''}`;
const work = `/tmp/acr-bench-memory/n${N}${VARIANT}${DIAG ? '-diag' : ''}${CPU_PROFILE ? '-cpu' : ''}-${String(process.pid)}`;

const say = sayer('memory');

function parseCount(arg: string | undefined): number {
  if (arg === undefined) return 10_000;
  const n = Number(arg.replace(/[_,]/g, ''));
  if (!Number.isInteger(n) || n < 1) throw new Error(`N must be a positive integer, got ${arg}`);
  return n;
}

// A diagnostic probe preloaded into the daemon (only with REGISTRAR_BENCH_MEMORY_DIAG=1).
const PROBE = [
  "import { appendFileSync } from 'node:fs';",
  'const file = process.env.BENCH_MEMORY_PROBE_FILE;',
  'if (file) setInterval(() => {',
  '  const m = process.memoryUsage();',
  '  appendFileSync(file, JSON.stringify({ t: Date.now(), ...m }) + "\\n");',
  '}, 1000).unref();',
].join('\n');

/** The daemon as the image runs it, with the diagnostic run's flags and probe. */
function startDaemon(
  runtime: ImageRuntime,
  kubeconfigPath: string,
  healthPort: number,
  metricsPort: number,
  logPath: string,
): ChildProcess {
  const diagFlags = DIAG
    ? [
        '--trace-gc',
        '--heap-prof',
        `--heap-prof-dir=${work}`,
        '--heap-prof-interval=65536',
        '--import',
        `data:text/javascript,${encodeURIComponent(PROBE)}`,
      ]
    : [];
  // The profile is written when the daemon exits (SIGTERM at the end of the run).
  const profileFlags = CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${work}`] : [];
  return spawnDaemon(runtime, daemonArgs(kubeconfigPath, healthPort, metricsPort), logPath, {
    nodeFlags: [...diagFlags, ...profileFlags],
    env: DIAG ? { BENCH_MEMORY_PROBE_FILE: join(work, 'probe.jsonl') } : {},
  });
}

function daemonArgs(kubeconfig: string, healthPort: number | string, metricsPort: number | string) {
  return daemonFlags(kubeconfig, { health: healthPort, metrics: metricsPort }, [
    '--interval',
    `${INTERVAL_S}s`,
    ...(CLUSTER_SOURCES ? ['--provider', 'capi', '--capi-clusters'] : []),
    ...(PROFILES
      ? [
          '--cluster-profiles',
          '--cluster-profile-namespace',
          INVENTORY,
          '--cluster-manager',
          'bench',
        ]
      : []),
  ]);
}

// --- the plane's contents -------------------------------------------------------------------

/** N labelled Clusters, 100 to a namespace, each with the kubeconfig KCP would write. */
async function populateClusters(
  plane: ControlPlane,
  api: CoreV1Api,
  adminKubeconfig: string,
): Promise<void> {
  await installCapiCrds(plane);
  const namespaces = Array.from({ length: Math.ceil(N / CLUSTERS_PER_NAMESPACE) }, (_, k) => k);
  await mapBounded(namespaces, 4, async (k) => {
    const namespace = `fleet-${k}`;
    await withRetry(`create namespace ${namespace}`, () =>
      api.createNamespace({ body: { metadata: { name: namespace } } }),
    );
    const indices = Array.from(
      { length: Math.min(CLUSTERS_PER_NAMESPACE, N - k * CLUSTERS_PER_NAMESPACE) },
      (_, j) => k * CLUSTERS_PER_NAMESPACE + j,
    );
    await applyObjects(
      plane,
      indices.map((i) => ({
        apiVersion: 'cluster.x-k8s.io/v1beta2',
        kind: 'Cluster',
        metadata: {
          name: `c${i}`,
          namespace,
          labels: { [`${PREFIX}managed-by`]: MANAGED_BY, [`${PREFIX}team`]: `t${i % 20}` },
        },
        spec: { paused: true },
      })),
    );
    await mapBounded(indices, CREATE_CONCURRENCY, (i) =>
      withRetry(`create secret c${i}-kubeconfig`, () =>
        api.createNamespacedSecret({
          namespace,
          body: {
            metadata: {
              name: `c${i}-kubeconfig`,
              labels: { 'cluster.x-k8s.io/cluster-name': `c${i}` },
            },
            type: 'cluster.x-k8s.io/secret',
            data: {
              value: Buffer.from(childKubeconfig(adminKubeconfig, `c${i}`)).toString('base64'),
            },
          },
        }),
      ),
    );
    say(`created ${namespace}: ${indices.length} Clusters with kubeconfig Secrets`);
  });
}

async function populate(api: CoreV1Api, adminKubeconfig: string): Promise<void> {
  await withRetry(`create namespace ${TARGET}`, () =>
    api.createNamespace({ body: { metadata: { name: TARGET } } }),
  );
  await createSources(api, adminKubeconfig, N, {
    prefix: 'mem-',
    concurrency: CREATE_CONCURRENCY,
    say,
  });
}

// --- namespaces waiting for their kubeconfig --------------------------------------------------

const WAITING = 20;
const WAIT_WINDOW_MS = 60_000;

interface Waiting {
  readonly requestsPerMinute: number;
  readonly breakdown: string;
  readonly cpuPerMinute: number;
  readonly peakKiB: number;
  readonly reported: number;
}

/**
 * Twenty labelled namespaces appear with no kubeconfig Secret (a provisioner still starting
 * them), and stay so: what they cost the daemon over a minute, counted by the API server
 * (watches and its own Lease renewals excepted) and by /proc.
 */
async function measureWaiting(
  api: CoreV1Api,
  kc: KubeConfig,
  pid: number,
  samples: readonly Sample[],
  now: () => number,
  metricsPort: number,
  check: () => void,
): Promise<Waiting> {
  await mapBounded(
    Array.from({ length: WAITING }, (_, i) => i),
    CREATE_CONCURRENCY,
    (i) =>
      withRetry(`create namespace wait-${i}`, () =>
        api.createNamespace({
          body: {
            metadata: {
              name: `wait-${i}`,
              labels: { [`${PREFIX}managed-by`]: MANAGED_BY, [`${PREFIX}cluster`]: `w${i}` },
            },
          },
        }),
      ),
  );
  // Until the daemon has planned them (its reaction is not what this measures).
  let reported = 0;
  for (let tries = 0; reported < WAITING && tries < 120; tries += 1) {
    check();
    await sleep(SCRAPE_MS);
    reported = total((await scrape(metricsPort)) ?? [], 'argocd_cluster_registrar_registrations', {
      state: 'waiting',
    });
  }
  const before = await apiServerRequests(kc);
  const cpuBefore = cpuSeconds(pid);
  const start = now();
  await sleep(WAIT_WINDOW_MS);
  check();
  const during = requestsBetween(before, await apiServerRequests(kc));
  const minutes = (now() - start) / 60_000;
  const window = samples.filter((s) => s.t >= start);
  const counted = new Map(
    [...during.byResource].filter(([key]) => !key.startsWith('WATCH ') && !key.endsWith(' leases')),
  );
  return {
    requestsPerMinute: nonWatchRequests(during) / minutes,
    breakdown: requestBreakdown({ ...during, byResource: counted }),
    cpuPerMinute: (cpuSeconds(pid) - cpuBefore) / minutes,
    peakKiB: Math.max(0, ...window.map((s) => s.rssKiB)),
    reported,
  };
}

// --- heap profile (diagnostic runs) ---------------------------------------------------------

interface ProfileNode {
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly ProfileNode[];
}

function summariseHeapProfile(path: string): string[] {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as { head: ProfileNode };
  const byOwnCode = new Map<string, number>();
  const byPackage = new Map<string, number>();
  const byLeaf = new Map<string, number>();
  let sum = 0;
  const add = (map: Map<string, number>, key: string, size: number): void => {
    map.set(key, (map.get(key) ?? 0) + size);
  };
  const frameName = (node: ProfileNode): string => {
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.startsWith('file://') ? relative(repo, fileURLToPath(url)) : url;
    const short = file.replace(/^node_modules\/\.pnpm\/[^/]+\/node_modules\//, '');
    return `${functionName || '(anonymous)'} ${short || '(native)'}:${lineNumber + 1}`;
  };
  const walk = (node: ProfileNode, own: string, pkg: string): void => {
    const url = node.callFrame.url;
    let nextOwn = own;
    let nextPkg = pkg;
    if (url.includes('/packages/') && !url.includes('/node_modules/')) nextOwn = frameName(node);
    const inModules = /\/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(
      url,
    );
    if (inModules?.[1] !== undefined) nextPkg = inModules[1];
    else if (url.includes('/packages/')) nextPkg = /\/packages\/([^/]+)\//.exec(url)?.[1] ?? pkg;
    else if (url.startsWith('node:')) nextPkg = 'node core';
    if (node.selfSize > 0) {
      sum += node.selfSize;
      add(byOwnCode, nextOwn, node.selfSize);
      add(byPackage, nextPkg, node.selfSize);
      add(byLeaf, frameName(node), node.selfSize);
    }
    for (const child of node.children) walk(child, nextOwn, nextPkg);
  };
  walk(profile.head, '(no project frame on the stack)', '(engine)');
  const table = (title: string, map: Map<string, number>, rows: number): string[] => [
    '',
    title,
    '| allocated by | live MiB | share |',
    '|---|---:|---:|',
    ...[...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, rows)
      .map(
        ([key, size]) =>
          `| ${key} | ${(size / 2 ** 20).toFixed(1)} | ${((100 * size) / sum).toFixed(1)}% |`,
      ),
  ];
  return [
    `Heap profile ${path}: ${(sum / 2 ** 20).toFixed(1)} MiB sampled live at exit`,
    ...table('By package (innermost frame):', byPackage, 8),
    ...table('By the innermost frame of project code on the stack:', byOwnCode, 20),
    ...table('By allocating frame:', byLeaf, 15),
  ];
}

// --- report ---------------------------------------------------------------------------------

interface Result {
  readonly n: number;
  readonly runtime: ImageRuntime;
  readonly waiting: Waiting;
  readonly createMs: number;
  readonly registerMs: number;
  readonly registerCpuS: number;
  readonly firstSampleKiB: number | undefined;
  readonly registeringPeakKiB: number;
  readonly steady: { min: number; median: number; max: number; count: number };
  readonly afterKiB: number;
  readonly hwmKiB: number;
  /** The sample with the highest RSS, split into anonymous memory and file pages. */
  readonly peakSample: Sample | undefined;
  readonly peakFds: number;
  readonly steadyPeakFds: number;
  readonly steadyPassMs: number | undefined;
  readonly registrations: number;
  readonly unchanged: number;
  readonly writesDuringSteady: number;
  /** CPU seconds a minute over the steady window (from one full pass to the next). */
  readonly steadyCpuPerMinute: number;
  readonly totalMs: number;
  /** From all registered until the cold start's Events had all been sent, and how many. */
  readonly drainMs: number;
  readonly eventsSent: number;
  /** With REGISTRAR_BENCH_MEMORY_PROFILES=1: the ClusterProfiles' share. */
  readonly profiles?: {
    /** Daemon start → the N-th profile created with its status. */
    readonly doneMs: number;
    readonly cpuS: number;
    /** Published profiles at the end (the daemon's gauge). */
    readonly published: number;
    readonly writesDuringSteady: number;
  };
}

function renderRun(r: Result, load: string, startedLoad: string, build: string): string {
  const verdict =
    mib(r.steady.median) <= BUDGET_MIB && mib(r.hwmKiB) <= BUDGET_MIB
      ? 'within budget (steady and peak)'
      : mib(r.steady.median) <= BUDGET_MIB
        ? `steady within budget; PEAK OVER ${BUDGET_MIB} MiB`
        : `OVER BUDGET (${BUDGET_MIB} MiB)`;
  return [
    `### N = ${r.n.toLocaleString('en-US')} registered clusters${CLUSTER_SOURCES ? ' (Cluster API Cluster sources)' : ''}${PROFILES ? ', each also a ClusterProfile' : ''}${LIMIT === undefined ? '' : `, memory limit ${LIMIT}`}: ${verdict}`,
    '',
    `Command: \`${LIMIT === undefined ? '' : `REGISTRAR_BENCH_MEMORY_LIMIT=${LIMIT} `}${CLUSTER_SOURCES ? 'REGISTRAR_BENCH_MEMORY_SOURCES=clusters ' : ''}${PROFILES ? 'REGISTRAR_BENCH_MEMORY_PROFILES=1 ' : ''}node --expose-gc --import tsx packages/cli/bench/memory.bench.ts ${r.n}\` (after \`pnpm build\`; the daemon: \`node ${r.runtime.flags.join(' ')} packages/cli/dist/bundle/argocd-cluster-registrar.mjs ${daemonArgs('<admin>', '<p>', '<p>').join(' ')}\`, with the image's ENV).`,
    `Runtime: ${r.runtime.describe}.`,
    `Machine: ${machine()}; load average ${startedLoad} at the start, ${load} at the end (shared).`,
    `Build: ${build}. Measured: ${new Date().toISOString().slice(0, 16)}Z.`,
    '',
    '| figure | value |',
    '|---|---:|',
    `| steady RSS (median of ${r.steady.count} samples over the last of ${STEADY_PASSES} full passes after registration) | **${fmt(r.steady.median)}** (min ${fmt(r.steady.min)}, max ${fmt(r.steady.max)}) |`,
    `| RSS 10 s after the last measured pass | ${fmt(r.afterKiB)} |`,
    `| peak RSS (VmHWM, whole run) | **${fmt(r.hwmKiB)}** (budget at this size: ${BUDGET_MIB} MiB) |`,
    `| … of the highest sampled RSS (${fmt(r.peakSample?.rssKiB)}): anonymous (heap, malloc) / file pages (the node binary, mostly) | ${fmt(r.peakSample?.anonKiB)} / ${fmt(r.peakSample?.fileKiB)} |`,
    `| peak RSS while registering (spawn → all registered) | ${fmt(r.registeringPeakKiB)} |`,
    `| peak open file descriptors (mostly API connections): whole run / steady passes | ${r.peakFds} / ${r.steadyPeakFds} |`,
    `| RSS at the first sample (${SAMPLE_MS} ms after spawn) | ${fmt(r.firstSampleKiB)} |`,
    `| registrar heap | not exposed by its metrics (only process_resident_memory_bytes) |`,
    `| create ${r.n} namespaces + kubeconfig Secrets (${CREATE_CONCURRENCY} in flight) | ${secs(r.createMs)} |`,
    `| daemon start → all ${r.n} registrations listed | ${secs(r.registerMs)} |`,
    `| daemon CPU by then (user + system) | ${r.registerCpuS.toFixed(2)} s |`,
    ...(r.profiles === undefined
      ? []
      : [
          `| daemon start → all ${r.n} ClusterProfiles created, status included (--cluster-profiles) | **${secs(r.profiles.doneMs)}** |`,
          `| daemon CPU by then | ${r.profiles.cpuS.toFixed(2)} s |`,
          `| ClusterProfiles published at the end / profile writes during the steady passes | ${r.profiles.published} / ${r.profiles.writesDuringSteady} |`,
        ]),
    `| all registered → the cold start's Events sent (${r.eventsSent}, 10 a second; the steady windows start after) | ${secs(r.drainMs)} |`,
    `| mean pass duration over the steady passes | ${r.steadyPassMs === undefined ? '—' : `${(r.steadyPassMs / 1000).toFixed(2)} s`} |`,
    `| registrations listed / outcome \`unchanged\` in the last pass | ${r.registrations} / ${r.unchanged} |`,
    `| writes during the steady passes | ${r.writesDuringSteady} |`,
    `| CPU over the steady window (user + system, /proc/<pid>/stat) | ${r.steadyCpuPerMinute.toFixed(2)} CPU-seconds a minute |`,
    `| while ${WAITING} labelled namespaces wait for a kubeconfig (${WAIT_WINDOW_MS / 1000} s after they appeared): API requests a minute, watches excepted | **${r.waiting.requestsPerMinute.toFixed(1)}** (${r.waiting.breakdown || 'none'}) |`,
    `| … CPU over that window | **${r.waiting.cpuPerMinute.toFixed(2)} CPU-seconds a minute** |`,
    `| … peak RSS over that window | **${fmt(r.waiting.peakKiB)}** (outcome \`waiting\` reported for ${r.waiting.reported} namespaces) |`,
    `| whole run (plane up → daemon stopped) | ${secs(r.totalMs)} |`,
  ].join('\n');
}

const DOC_HEADER = `## Resident memory of the shipped daemon (\`packages/cli/bench/memory.bench.ts\`)

Budget ([budgets](../behaviour.md#budgets)): peak resident memory ≤ 96 MiB with 1,000 registered
clusters and ≤ 256 MiB (the chart's default limit) with 10,000; in between, the straight line.

The bench starts its own plane (\`scripts/control-plane up --name bench-memory-<pid>\`), creates N labelled
namespaces each with a k3k kubeconfig Secret (the plane's admin kubeconfig: embedded EC CA,
client certificate and key, with the server rewritten to a unique \`https://c<i>.example:6443\`),
then runs the built daemon as the image does (the image's Node release and ENTRYPOINT flags, in a
memory cgroup at the chart's default limit when the machine allows one) and waits until all N registrations exist (listed
by the ownership label), the cold start's Events have gone out, and ${STEADY_PASSES} further full passes have completed (read from
\`argocd_cluster_registrar_passes_total\` on its /metrics). VmRSS and VmHWM are read from /proc/<pid>/status
every ${SAMPLE_MS} ms. "Steady" is the median over the interval that ends with the last
measured pass (it includes that pass's own allocations).

<!-- memory-bench:runs -->

<!-- memory-bench:runs-end -->
`;

function writeDoc(run: string, n: string): void {
  writeDocBlock('docs/bench/memory.md', 'memory-bench', `n=${n}`, run, DOC_HEADER);
}

// --- main -----------------------------------------------------------------------------------

async function main(): Promise<void> {
  requireBuild();
  const build = describeBuild();
  say(`daemon: ${relative(repo, daemonMain)}; ${build}`);

  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const startedLoad = loadAverage();
  const runStart = performance.now();

  say(`starting plane ${PLANE}…`);
  const plane: ControlPlane = await startControlPlane(PLANE, { ownerPid: process.pid });
  let daemon: ChildProcess | undefined;
  let runtime: ImageRuntime | undefined;
  const interrupted = (): void => {
    say('interrupted; stopping the daemon and the plane');
    daemon?.kill('SIGKILL');
    void plane.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  try {
    const kc = new KubeConfig();
    kc.loadFromString(plane.kubeConfig);
    const api = kc.makeApiClient(CoreV1Api);

    say(
      `creating ${N} labelled namespaces with kubeconfig Secrets (${CREATE_CONCURRENCY} in flight)…`,
    );
    const createStart = performance.now();
    if (CLUSTER_SOURCES) {
      await withRetry(`create namespace ${TARGET}`, () =>
        api.createNamespace({ body: { metadata: { name: TARGET } } }),
      );
      await populateClusters(plane, api, plane.kubeConfig);
    } else await populate(api, plane.kubeConfig);
    if (PROFILES) {
      await installClusterProfileCrd(plane);
      await withRetry(`create namespace ${INVENTORY}`, () =>
        api.createNamespace({ body: { metadata: { name: INVENTORY } } }),
      );
    }
    const createMs = performance.now() - createStart;
    say(`created in ${secs(createMs)}`);

    const [healthPort, metricsPort] = [await freePort(), await freePort()];
    const logPath = join(work, 'daemon.log');
    runtime = imageRuntime(repo);
    const ran = runtime;
    say(`runtime: ${runtime.describe}`);
    const spawnedAt = performance.now();
    daemon = startDaemon(runtime, plane.kubeconfigPath, healthPort, metricsPort, logPath);
    const pid = daemon.pid;
    if (pid === undefined) throw new Error('could not start the daemon');
    let exitedEarly: string | undefined;
    daemon.once('exit', (code, signal) => {
      const oom = ran.oomKilled() ? ', killed by the kernel: over the memory limit' : '';
      exitedEarly = `daemon exited (${signal ?? `code ${String(code)}`}${oom}); see ${logPath}`;
    });

    const sampler = startSampler(pid, SAMPLE_MS, spawnedAt);
    const samples: readonly Sample[] = sampler.samples;
    const since = (t: number): Sample[] => samples.filter((s) => s.t >= t);
    const now = (): number => performance.now() - spawnedAt;
    const check = (): void => {
      if (exitedEarly !== undefined) throw new Error(exitedEarly);
    };

    try {
      // 1. Until all N registrations exist and the pass that wrote them has been counted.
      let series: Series[] | undefined;
      let registeredAt: number | undefined;
      // The daemon's own CPU time by then: unlike the wall time, it hardly moves with the
      // machine's other load (the API server's share does).
      let registerCpuS = NaN;
      let listed = 0;
      let lastReport = 0;
      // With profiles on: when the N-th ClusterProfile was created (its status with it).
      let profiledAt: number | undefined;
      let profiledCpuS = NaN;
      const profileCreates = (s: readonly Series[]): number =>
        total(s, 'argocd_cluster_registrar_cluster_profile_actions_total', {
          kind: 'create',
          status: 'applied',
        });
      while (registeredAt === undefined || (PROFILES && profiledAt === undefined)) {
        check();
        if (now() > REGISTER_TIMEOUT_MS) throw new Error(`not all registered after ${secs(now())}`);
        await sleep(1000);
        series = await scrape(metricsPort);
        if (series === undefined) continue;
        const created = createsApplied(series);
        const profiled = profileCreates(series);
        if (now() - lastReport > 10_000) {
          lastReport = now();
          const last = samples[samples.length - 1];
          say(
            `t=${secs(now())} creates applied ${created}/${N}${PROFILES ? `, profiles ${profiled}/${N}` : ''}, passes ${total(series, 'argocd_cluster_registrar_passes_total')}, RSS ${fmt(last?.rssKiB)} (peak ${fmt(last?.hwmKiB)})`,
          );
        }
        if (PROFILES && profiledAt === undefined && profiled >= N) {
          profiledAt = now();
          profiledCpuS = cpuSeconds(pid);
        }
        if (created < N || registeredAt !== undefined) continue;
        // The scrape that counted all N is when they were known to be written; the list
        // only confirms it (listing 1,000 Secrets takes the bench's client most of a second).
        const at = now();
        const cpu = cpuSeconds(pid);
        listed = await countRegistrations(api, TARGET);
        if (listed >= N) {
          registeredAt = at;
          registerCpuS = cpu;
        }
      }
      const registerMs = registeredAt;
      const registeringPeakKiB = Math.max(...samples.map((s) => s.hwmKiB));

      // 2. The cold start's N Events go out behind the passes, 10 a second: the steady
      // windows start once they have stopped, or they would measure that backlog.
      const drainStart = now();
      let eventsSent = -1;
      for (;;) {
        check();
        if (now() - drainStart > N * 200 + 120_000)
          throw new Error(
            `the cold start's Events still going out after ${secs(now() - drainStart)}`,
          );
        await sleep(SCRAPE_MS);
        const current = await scrape(metricsPort);
        if (current === undefined) continue;
        const sent = total(current, 'argocd_cluster_registrar_events_total');
        series = current;
        if (sent === eventsSent) break;
        eventsSent = sent;
      }
      const drainMs = now() - drainStart;

      const fullOk = (s: readonly Series[]): number =>
        total(s, 'argocd_cluster_registrar_passes_total', { scope: 'full', result: 'ok' });
      const p0 = fullOk(series);
      say(
        `all ${N} registered after ${secs(registerMs)}, daemon CPU ${registerCpuS.toFixed(2)} s; the cold start's ${eventsSent} Events sent ${secs(drainMs)} after (full passes so far: ${p0}); waiting for ${STEADY_PASSES} more`,
      );

      // 3. Two further full passes; the steady window is the interval ending with the last.
      const passMarks: { t: number; series: Series[]; cpu: number }[] = [
        { t: now(), series, cpu: cpuSeconds(pid) },
      ];
      let passesSeen = 0;
      const passDeadline = now() + (STEADY_PASSES + 2) * (INTERVAL_S * 1000) + 5 * 60_000;
      while (passesSeen < STEADY_PASSES) {
        check();
        if (now() > passDeadline) throw new Error('the steady passes did not complete in time');
        await sleep(SCRAPE_MS);
        const current = await scrape(metricsPort);
        if (current === undefined) continue;
        if (fullOk(current) >= p0 + passesSeen + 1) {
          passesSeen = fullOk(current) - p0;
          passMarks.push({ t: now(), series: current, cpu: cpuSeconds(pid) });
          const last = samples[samples.length - 1];
          say(
            `full pass ${passesSeen}/${STEADY_PASSES} after registration done; RSS ${fmt(last?.rssKiB)}`,
          );
        }
      }
      const windowStart = passMarks[passMarks.length - 2]?.t ?? 0;
      const windowEnd = passMarks[passMarks.length - 1]?.t ?? now();
      const windowSamples = samples
        .filter((s) => s.t >= windowStart && s.t <= windowEnd)
        .map((s) => s.rssKiB)
        .sort((a, b) => a - b);
      const afterMark = now();
      await sleep(10_000);
      check();
      const after = since(afterMark + 9_000);
      const finalSeries = (await scrape(metricsPort)) ?? [];
      const firstMark = passMarks[0]?.series ?? [];
      const lastMark = passMarks[passMarks.length - 1]?.series ?? [];
      const durationSum = (s: readonly Series[]): number =>
        total(s, 'argocd_cluster_registrar_pass_duration_seconds_sum');
      const durationCount = (s: readonly Series[]): number =>
        total(s, 'argocd_cluster_registrar_pass_duration_seconds_count');
      const passCount = durationCount(lastMark) - durationCount(firstMark);
      say(`${WAITING} namespaces start waiting for a kubeconfig…`);
      const waiting = await measureWaiting(api, kc, pid, samples, now, metricsPort, check);
      const result: Result = {
        n: N,
        runtime: ran,
        waiting,
        createMs,
        registerMs,
        registerCpuS,
        firstSampleKiB: samples[0]?.rssKiB,
        registeringPeakKiB,
        steady: {
          min: windowSamples[0] ?? NaN,
          median: windowSamples[Math.floor(windowSamples.length / 2)] ?? NaN,
          max: windowSamples[windowSamples.length - 1] ?? NaN,
          count: windowSamples.length,
        },
        afterKiB: after[after.length - 1]?.rssKiB ?? samples[samples.length - 1]?.rssKiB ?? NaN,
        hwmKiB: Math.max(...samples.map((s) => s.hwmKiB)),
        peakSample: samples.reduce<Sample | undefined>(
          (top, s) => (top === undefined || s.rssKiB > top.rssKiB ? s : top),
          undefined,
        ),
        peakFds: Math.max(...samples.map((s) => s.fds)),
        steadyPeakFds: Math.max(
          0,
          ...samples.filter((s) => s.t >= windowStart && s.t <= windowEnd).map((s) => s.fds),
        ),
        steadyPassMs:
          passCount > 0
            ? (1000 * (durationSum(lastMark) - durationSum(firstMark))) / passCount
            : undefined,
        registrations: await countRegistrations(api, TARGET),
        unchanged: total(finalSeries, 'argocd_cluster_registrar_registrations', {
          state: 'unchanged',
        }),
        writesDuringSteady:
          total(lastMark, 'argocd_cluster_registrar_actions_total') -
          total(firstMark, 'argocd_cluster_registrar_actions_total'),
        steadyCpuPerMinute:
          (((passMarks[passMarks.length - 1]?.cpu ?? NaN) -
            (passMarks[passMarks.length - 2]?.cpu ?? NaN)) *
            60_000) /
          Math.max(1, windowEnd - windowStart),
        totalMs: 0,
        drainMs,
        eventsSent,
        ...(PROFILES
          ? {
              profiles: {
                doneMs: profiledAt ?? NaN,
                cpuS: profiledCpuS,
                published: total(finalSeries, 'argocd_cluster_registrar_cluster_profiles'),
                writesDuringSteady:
                  total(lastMark, 'argocd_cluster_registrar_cluster_profile_actions_total') -
                  total(firstMark, 'argocd_cluster_registrar_cluster_profile_actions_total'),
              },
            }
          : {}),
      };
      sampler.stop();
      writeFileSync(
        join(work, 'samples.csv'),
        `t_ms,vmrss_kib,vmhwm_kib,fds\n${samples.map((s) => `${Math.round(s.t)},${s.rssKiB},${s.hwmKiB},${s.fds}`).join('\n')}\n`,
      );

      const code = await stopDaemon(daemon);
      say(`daemon stopped (exit ${String(code)}); log in ${logPath}`);
      const load = loadAverage();
      const finished = { ...result, totalMs: performance.now() - runStart };

      console.log(`\nResident memory of the shipped daemon, N = ${N} (${machine()})`);
      console.log('| figure | value |');
      console.log('|---|---:|');
      console.log(
        `| steady RSS (median over the last steady pass interval) | ${fmt(finished.steady.median)} (min ${fmt(finished.steady.min)}, max ${fmt(finished.steady.max)}) |`,
      );
      console.log(`| RSS 10 s after the last pass | ${fmt(finished.afterKiB)} |`);
      console.log(`| peak RSS (VmHWM) | ${fmt(finished.hwmKiB)} (budget ${BUDGET_MIB} MiB) |`);
      console.log(
        `| highest sample: anonymous / file pages | ${fmt(finished.peakSample?.anonKiB)} / ${fmt(finished.peakSample?.fileKiB)} |`,
      );
      console.log(
        `| peak open fds (sockets): whole run / steady passes | ${finished.peakFds} / ${finished.steadyPeakFds} |`,
      );
      console.log(`| peak while registering | ${fmt(finished.registeringPeakKiB)} |`);
      console.log(`| create namespaces + Secrets | ${secs(finished.createMs)} |`);
      console.log(`| daemon start → all registered | ${secs(finished.registerMs)} |`);
      console.log(`| daemon CPU by then | ${finished.registerCpuS.toFixed(2)} s |`);
      if (finished.profiles !== undefined)
        console.log(
          `| daemon start → all ClusterProfiles created (CPU by then) / published / profile writes in steady | ${secs(finished.profiles.doneMs)} (${finished.profiles.cpuS.toFixed(2)} s) / ${finished.profiles.published} / ${finished.profiles.writesDuringSteady} |`,
        );
      console.log(
        `| ${WAITING} namespaces waiting: requests a minute (watches excepted), CPU-s a minute, peak RSS | ${finished.waiting.requestsPerMinute.toFixed(1)} (${finished.waiting.breakdown || 'none'}), ${finished.waiting.cpuPerMinute.toFixed(2)}, ${fmt(finished.waiting.peakKiB)} (${finished.waiting.reported} reported waiting) |`,
      );
      console.log(`| runtime | ${finished.runtime.describe} |`);
      console.log(
        `| mean steady pass | ${finished.steadyPassMs === undefined ? '—' : secs(finished.steadyPassMs)} |`,
      );
      console.log(
        `| registrations / unchanged | ${finished.registrations} / ${finished.unchanged} |`,
      );
      console.log(`| writes during steady passes | ${finished.writesDuringSteady} |`);
      console.log(`| whole run | ${secs(finished.totalMs)} |`);
      console.log(`samples: ${join(work, 'samples.csv')}`);

      if (DIAG) {
        const profiles = readdirSync(work).filter((f) => f.endsWith('.heapprofile'));
        for (const profile of profiles)
          console.log(summariseHeapProfile(join(work, profile)).join('\n'));
        if (profiles.length === 0) console.log('no heap profile was written');
        console.log(`memoryUsage() log: ${join(work, 'probe.jsonl')}`);
        // --trace-gc lines: `Mark-Compact <before> (<reserved>) -> <after> (<reserved>) MB`.
        const compactions = readFileSync(logPath, 'utf8')
          .split('\n')
          .filter((line) => line.includes('Mark-Compact'));
        console.log('Last full GCs (heap MB before -> after, reserved in brackets):');
        for (const line of compactions.slice(-6))
          console.log(`  ${line.replace(/^\[[^\]]*\]\s*/, '')}`);
      } else if (CPU_PROFILE) {
        console.log(`CPU profile (open in Chrome DevTools): ${join(work, '*.cpuprofile')}`);
      } else {
        writeDoc(renderRun(finished, load, startedLoad, build), `${N}${VARIANT}`);
        console.log('figures written to docs/bench/memory.md');
      }
    } finally {
      sampler.stop();
    }
  } finally {
    if (daemon !== undefined) await stopDaemon(daemon);
    runtime?.release();
    say(`stopping plane ${PLANE}`);
    await plane.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
