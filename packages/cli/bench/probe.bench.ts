// What probing children costs (`--probe-children`): N registered children (default 1,000), of
// which half answer `/version` and half never do, under the daemon as the image runs it
// (default timing: a child that answers is probed once a --probe-interval, 3m; a failing one
// each --interval, 60s). Measured: the daemon's CPU,
// resident memory and open descriptors, the requests it sends the host API server, the probes
// the children receive, how long until every unreachable child is paused, and reactions
// (namespace deleted → deregistered, kubeconfig appears → registered; budgets in
// docs/behaviour.md#budgets) while the probes go on.
//
//   pnpm build && node --expose-gc --import tsx packages/cli/bench/probe.bench.ts [N]
//   (`pnpm bench probe`)
//
// The children are this process: each has a port of its own on the machine's first
// non-loopback IPv4 address (the registrar refuses loopback servers, as it should), with a
// serving certificate signed by the plane's CA, which the registrations carry. A reachable
// child answers `/version` as an API server does; an unreachable one accepts the connection
// and never answers (a black-holed load balancer: every probe costs its full time-out), or,
// with REGISTRAR_BENCH_PROBE_UNREACHABLE=refuse, nothing listens on its port (a stopped
// server: refused at once, and not counted here). REGISTRAR_BENCH_PROBE_MINUTES: the steady
// window (default 5); REGISTRAR_BENCH_PROBE_TRIALS: deletions and appearances (default 20 each);
// REGISTRAR_BENCH_PROBE_INTERVAL: the daemon's --probe-interval (default: its own, 3m). A
// window that is to hold the answering children's `/version` calls must be at least 10 probe
// intervals long: they fall due together, every 10 probe intervals.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join, relative } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import {
  apiServerRequests,
  mintServingCertificate,
  nonWatchRequests,
  requestBreakdown,
  requestsBetween,
  startControlPlane,
} from '../../testkit/src/index.js';
import { imageRuntime } from '../src/test-support/image-runtime.js';
import {
  daemonFlags,
  MANAGED_BY,
  PREFIX,
  cpuSeconds,
  createSource,
  createSources,
  createsApplied,
  daemonMain,
  deleteAndFinalize,
  describeBuild,
  fmt,
  freePort,
  latencyRow,
  loadAverage,
  machine,
  mib,
  percentile,
  readStatus,
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
  until,
  watchSightings,
  withRetry,
  writeDocBlock,
} from './harness.js';

const N = Number((process.argv[2] ?? '1000').replace(/[_,]/g, ''));
const UNREACHABLE: 'hang' | 'refuse' =
  process.env['REGISTRAR_BENCH_PROBE_UNREACHABLE'] === 'refuse' ? 'refuse' : 'hang';
const WINDOW_MS = Number(process.env['REGISTRAR_BENCH_PROBE_MINUTES'] ?? 5) * 60_000;
const TRIALS = Number(process.env['REGISTRAR_BENCH_PROBE_TRIALS'] ?? 20);
const PROBE_INTERVAL = process.env['REGISTRAR_BENCH_PROBE_INTERVAL'];
const TARGET = 'argocd';
const SAMPLE_MS = 1000;
/** Every 15 s: /metrics costs the daemon in proportion to its children. */
const SCRAPE_MS = 15_000;
const REGISTER_TIMEOUT_MS = 10 * 60_000;
const PAUSE_TIMEOUT_MS = 30 * 60_000;
/** The budgets at 1,000 clusters (docs/behaviour.md#budgets). */
const RSS_BUDGET_MIB = 96;
const CPU_BUDGET = 0.3;
const work = `/tmp/acr-bench-probe-${String(process.pid)}`;
const say = sayer('probe');

/** The address other hosts would reach this one by: loopback is refused as a child's server. */
function hostAddress(): string {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
  if (address === undefined)
    throw new Error('no non-loopback IPv4 address to serve the children on');
  return address;
}

/**
 * The children: `reachable` ports answer `/version`, `unreachable` ones hang (or refuse).
 * Counts what they received.
 */
async function startChildren(
  ip: string,
  pems: { certPem: string; keyPem: string },
  reachable: number,
  unreachable: number,
): Promise<{
  reachablePorts: number[];
  unreachablePorts: number[];
  counts: { answered: number; connected: number; hung: number };
  stop(): void;
}> {
  // answered: `/version` requests; connected: connections to answering children (a knock is
  // one, a `/version` call another); hung: connections to the others, which are never answered.
  const counts = { answered: 0, connected: 0, hung: 0 };
  const tls = createHttpsServer({ cert: pems.certPem, key: pems.keyPem }, (req, res) => {
    counts.answered += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"major":"1","minor":"36","gitVersion":"v1.36.3"}');
  });
  const held = new Set<Socket>();
  const listeners: Server[] = [];
  const listen = async (onConnection: (socket: Socket) => void): Promise<number> => {
    const server = createTcpServer(onConnection);
    listeners.push(server);
    await new Promise<void>((resolve) => server.listen(0, ip, resolve));
    const address = server.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  };
  const reachablePorts: number[] = [];
  for (let i = 0; i < reachable; i += 1)
    reachablePorts.push(
      await listen((socket) => {
        counts.connected += 1;
        tls.emit('connection', socket);
      }),
    );
  const unreachablePorts: number[] = [];
  for (let i = 0; i < unreachable; i += 1) {
    if (UNREACHABLE === 'refuse') {
      unreachablePorts.push(await freePort());
      continue;
    }
    unreachablePorts.push(
      await listen((socket) => {
        counts.hung += 1;
        held.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => held.delete(socket));
        socket.setTimeout(60_000, () => socket.destroy());
      }),
    );
  }
  return {
    reachablePorts,
    unreachablePorts,
    counts,
    stop() {
      for (const server of listeners) server.close();
      for (const socket of held) socket.destroy();
      tls.close();
    },
  };
}

interface Window {
  readonly minutes: number;
  readonly cpuPerMinute: number;
  readonly requestsPerMinute: number;
  readonly writes: number;
  readonly breakdown: string;
  readonly answeredPerMinute: number;
  readonly connectedPerMinute: number;
  readonly hungPerMinute: number;
  readonly rss: { median: number; max: number };
  readonly anonMedianKiB: number;
  readonly fdsMax: number;
  readonly load: string;
}

async function main(): Promise<void> {
  requireBuild();
  const build = describeBuild();
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const startedLoad = loadAverage();
  const ip = hostAddress();
  say(`starting plane bench-probe-${String(process.pid)}…`);
  const plane = await startControlPlane(`bench-probe-${String(process.pid)}`, {
    ownerPid: process.pid,
  });
  const runtime = imageRuntime(repo);
  const reachable = Math.ceil(N / 2);
  const children = await startChildren(
    ip,
    mintServingCertificate(plane, [ip]),
    reachable + TRIALS,
    N - reachable,
  );
  const server = (i: number): string => {
    // Even children answer, odd ones do not: deletions of the first few take both kinds.
    const port =
      i % 2 === 0 ? children.reachablePorts[i / 2] : children.unreachablePorts[Math.floor(i / 2)];
    return `https://${ip}:${String(port)}`;
  };
  try {
    const kc = new KubeConfig();
    kc.loadFromString(plane.kubeConfig);
    const api = kc.makeApiClient(CoreV1Api);
    await withRetry(`create namespace ${TARGET}`, () =>
      api.createNamespace({ body: { metadata: { name: TARGET } } }),
    );
    say(`creating ${String(N)} sources (children on ${ip}, the unreachable ones ${UNREACHABLE})…`);
    await createSources(api, plane.kubeConfig, N, {
      prefix: 'fleet-',
      concurrency: 16,
      say,
      server,
    });
    const sightings = await watchSightings(kc, TARGET, `${PREFIX}managed-by=${MANAGED_BY}`);
    const metricsPort = await freePort();
    const args = daemonFlags(plane.kubeconfigPath, { metrics: metricsPort }, [
      '--target-namespace',
      TARGET,
      '--probe-children',
      ...(PROBE_INTERVAL === undefined ? [] : ['--probe-interval', PROBE_INTERVAL]),
    ]);
    const spawnedAt = performance.now();
    const daemon = spawnDaemon(runtime, args, join(work, 'daemon.log'));
    const interrupted = (): void => {
      daemon.kill('SIGKILL');
      process.exit(130);
    };
    process.once('SIGINT', interrupted);
    process.once('SIGTERM', interrupted);
    const pid = daemon.pid ?? 0;
    const sampler = startSampler(pid, SAMPLE_MS, spawnedAt);
    const alive = (): void => {
      if (daemon.exitCode !== null || daemon.signalCode !== null)
        throw new Error(`daemon exited (${String(daemon.exitCode ?? daemon.signalCode)})`);
    };
    try {
      // 1. Cold start: every child registered.
      let registeredAt: number | undefined;
      while (registeredAt === undefined) {
        alive();
        if (performance.now() - spawnedAt > REGISTER_TIMEOUT_MS)
          throw new Error('not all registered in time');
        await sleep(1000);
        if (createsApplied((await scrape(metricsPort)) ?? []) >= N)
          registeredAt = performance.now();
      }
      const registerCpu = cpuSeconds(pid);
      say(`${String(N)} registered after ${secs(registeredAt - spawnedAt)}`);

      // 2. Probes find the unreachable half; each is paused after --probe-failures misses.
      const pausingFrom = await apiServerRequests(kc);
      let pausedAt: number | undefined;
      let paused = 0;
      let answering = 0;
      let unwritten = 0;
      let pausingTo = pausingFrom;
      while (pausedAt === undefined) {
        alive();
        if (performance.now() - registeredAt > PAUSE_TIMEOUT_MS)
          throw new Error(`only ${String(paused)} paused in time`);
        await sleep(SCRAPE_MS);
        const series = (await scrape(metricsPort)) ?? [];
        paused = total(series, 'argocd_cluster_registrar_paused_registrations', {
          reason: 'unreachable',
        });
        answering = total(series, 'argocd_cluster_registrar_children', { state: 'reachable' });
        say(`${String(paused)} paused, ${String(answering)} answering (load ${loadAverage()})`);
        if (paused < N - reachable || answering < reachable) continue;
        // What ArgoCD sees, not what the daemon says: the annotation on the registrations
        // (listed after the count, so the bench's own lists are not counted as the daemon's).
        pausingTo = await apiServerRequests(kc);
        const annotated = await countSkipReconcile(api);
        if (annotated >= N - reachable) pausedAt = performance.now();
        else if ((unwritten += 1) > 3)
          throw new Error(
            `the daemon reports ${String(paused)} paused, but only ${String(annotated)} registrations in ${TARGET} carry ${SKIP_RECONCILE}: "true"`,
          );
      }
      const pausing = requestsBetween(pausingFrom, pausingTo);
      const pausingCpu = cpuSeconds(pid) - registerCpu;
      say(`all ${String(paused)} unreachable paused ${secs(pausedAt - registeredAt)} after`);

      // 3. Steady: the probes go on, nothing changes.
      const steadyFrom = performance.now();
      const window = await measureWindow(kc, pid, sampler.samples, spawnedAt, children.counts);
      const steadyTo = performance.now();
      alive();

      // 4. Reactions while probing.
      const deleted: number[] = [];
      const appeared: number[] = [];
      for (let i = 0; i < TRIALS; i += 1) {
        const name = `fleet-${String(i)}`;
        await deleteAndFinalize(api, name);
        await until(() => sightings.namespaceDeleted.has(name), `namespace ${name} gone`);
        await until(() => sightings.deleted.has(`cluster-c${String(i)}`), `c${String(i)} gone`);
        deleted.push(
          (sightings.deleted.get(`cluster-c${String(i)}`) ?? NaN) -
            (sightings.namespaceDeleted.get(name) ?? NaN),
        );
        const fresh = `fresh-${String(i)}`;
        const start = performance.now();
        const port = children.reachablePorts[reachable + i] ?? 0;
        await createSource(api, plane.kubeConfig, fresh, fresh, `https://${ip}:${String(port)}`);
        await until(() => sightings.added.has(`cluster-${fresh}`), `${fresh} registered`);
        appeared.push((sightings.added.get(`cluster-${fresh}`) ?? NaN) - start);
        await sleep(Math.random() * 1000);
      }
      alive();
      const hwmKiB = readStatus(pid)?.hwmKiB ?? NaN;
      const oom = runtime.oomKilled();
      // Where the peak was: the largest RSS sampled in each phase of the run.
      const phaseMax = (from: number, to: number): string => {
        const inPhase = sampler.samples.filter(
          (s) => s.t >= from - spawnedAt && s.t < to - spawnedAt,
        );
        return inPhase.length === 0 ? '—' : fmt(Math.max(...inPhase.map((s) => s.rssKiB)));
      };
      const phases = `cold start ${phaseMax(spawnedAt, registeredAt)}, until all paused ${phaseMax(registeredAt, pausedAt)}, steady ${phaseMax(steadyFrom, steadyTo)}, reactions ${phaseMax(steadyTo, performance.now())}`;
      writeFileSync(join(work, 'samples.json'), JSON.stringify(sampler.samples));
      sightings.stop();

      const settings = [
        'REGISTRAR_BENCH_DAEMON',
        ...Object.keys(process.env).filter((k) => k.startsWith('REGISTRAR_BENCH_PROBE_')),
      ]
        .filter((k) => process.env[k] !== undefined)
        .map((k) => `${k}=${process.env[k] ?? ''} `)
        .join('');
      const verdict = (met: boolean): string => (met ? 'met' : '**missed**');
      const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
      const block = [
        `### ${N.toLocaleString('en-US')} children, ${String(N - reachable)} of them ${UNREACHABLE === 'hang' ? 'never answering (each probe waits out its time-out)' : 'refusing connections'}`,
        '',
        `Command: \`${settings}node --expose-gc --import tsx packages/cli/bench/probe.bench.ts ${String(N)}\` (after \`pnpm build\`; the daemon: \`node ${runtime.flags.join(' ')} ${relative(repo, daemonMain)} ${args
          .map((a) => (a === '' ? "''" : a))
          .join(' ')
          .replace(plane.kubeconfigPath, '<admin>')
          .replace(
            String(metricsPort),
            '<p>',
          )}\`, ${PROBE_INTERVAL === undefined ? 'default timing: --probe-interval 3m, --interval 60s' : `--interval 60s`} and --probe-failures 3).`,
        `Runtime: ${runtime.describe}.`,
        `Machine: ${machine()}; load average ${startedLoad} at the start, ${window.load} at the end of the steady window, ${loadAverage()} at the end (shared).`,
        `Build: ${build}. Measured: ${new Date().toISOString().slice(0, 16)}Z.`,
        '',
        '| figure | value | budget |',
        '|---|---:|---|',
        `| daemon start → all ${String(N)} registered | ${secs(registeredAt - spawnedAt)} (CPU ${registerCpu.toFixed(1)} s) | ≤ 5 s at 1,000: ${verdict(registeredAt - spawnedAt <= 5000)} |`,
        `| all registered → all ${String(N - reachable)} unreachable paused (their registrations listed with ${SKIP_RECONCILE}: "true") | ${secs(pausedAt - registeredAt)} (CPU ${pausingCpu.toFixed(1)} s; ${String(nonWatchRequests(pausing))} requests: ${requestBreakdown({ ...pausing, byResource: new Map([...pausing.byResource].filter(([k]) => !k.startsWith('WATCH ') && !k.endsWith(' leases'))) })}) | — |`,
        `| steady window (all paused, probes going on) | ${window.minutes.toFixed(1)} min | — |`,
        `| … daemon CPU (user + system) | **${window.cpuPerMinute.toFixed(2)} CPU-seconds a minute** | ≤ ${String(CPU_BUDGET)} (steady, without probes): ${verdict(window.cpuPerMinute <= CPU_BUDGET)} |`,
        `| … requests to the host API server, watches and Leases excepted | **${window.requestsPerMinute.toFixed(1)} a minute** (${window.breakdown || 'none'}; writes ${String(window.writes)}) | ≤ 10: ${verdict(window.requestsPerMinute <= 10)} |`,
        `| … what the children received, a minute | answering ones: **${window.connectedPerMinute.toFixed(0)} connections**, **${window.answeredPerMinute.toFixed(0)} \`/version\` calls** among them; unreachable ones: ${UNREACHABLE === 'hang' ? `**${window.hungPerMinute.toFixed(0)} connections** (a knock, and a \`/version\` call when it is accepted)` : 'refused connections not counted'} (${String(reachable)} answering and ${String(N - reachable)} unreachable children) | at most one probe an answering child a probe interval (${PROBE_INTERVAL ?? '3m'}) |`,
        `| … RSS median (max) | **${fmt(window.rss.median)}** (${fmt(window.rss.max)}); anonymous ${fmt(window.anonMedianKiB)} | ≤ ${String(RSS_BUDGET_MIB)} MiB at 1,000: ${verdict(mib(window.rss.max) <= RSS_BUDGET_MIB)} |`,
        `| … open descriptors, max | ${String(window.fdsMax)} | — |`,
        `| peak RSS, whole run (VmHWM) | ${fmt(hwmKiB)}${oom ? ', **killed for going over the memory limit**' : ''} (largest sampled each second: ${phases}) | ≤ ${String(RSS_BUDGET_MIB)} MiB at 1,000: ${verdict(mib(hwmKiB) <= RSS_BUDGET_MIB && !oom)} |`,
        `| registrar heap | not exposed by its metrics; "anonymous" (RssAnon) holds it | — |`,
        '',
        '| reaction while probing | trials | p50 | p99 | max |',
        '|---|---|---|---|---|',
        latencyRow('namespace deleted (finalized) → deregistered (budget p99 ≤ 1 s)', deleted),
        latencyRow(
          'labelled namespace and its kubeconfig created → registered (budget p99 ≤ 1 s)',
          appeared,
        ),
        '',
        `Reactions: deletion p99 ${verdict(percentile(sorted(deleted), 99) <= 1000)}, appearance p99 ${verdict(percentile(sorted(appeared), 99) <= 1000)}.`,
      ].join('\n');
      console.log(`\n${block}`);
      // Another build's run (REGISTRAR_BENCH_DAEMON) and another probe interval are blocks of
      // their own.
      const other = process.env['REGISTRAR_BENCH_DAEMON'] === undefined ? '' : '-other-build';
      const interval = PROBE_INTERVAL === undefined ? '' : `-every-${PROBE_INTERVAL}`;
      writeDocBlock(
        'docs/bench/probe.md',
        'probe-bench',
        `n=${String(N)}-${UNREACHABLE}${interval}${other}`,
        block,
        DOC_HEADER,
      );
    } finally {
      process.off('SIGINT', interrupted);
      process.off('SIGTERM', interrupted);
      sampler.stop();
      await stopDaemon(daemon);
    }
  } finally {
    children.stop();
    runtime.release();
    await plane.stop();
  }
  say(`daemon log in ${work}`);
}

const SKIP_RECONCILE = 'argocd.argoproj.io/skip-reconcile';

async function countSkipReconcile(api: CoreV1Api): Promise<number> {
  let count = 0;
  let token: string | undefined;
  do {
    const page = await api.listNamespacedSecret({
      namespace: TARGET,
      limit: 500,
      ...(token !== undefined ? { _continue: token } : {}),
    });
    count += page.items.filter((s) => s.metadata?.annotations?.[SKIP_RECONCILE] === 'true').length;
    token = page.metadata?._continue || undefined;
  } while (token !== undefined);
  return count;
}

async function measureWindow(
  kc: KubeConfig,
  pid: number,
  samples: readonly { t: number; rssKiB: number; anonKiB: number; fds: number }[],
  spawnedAt: number,
  counts: { answered: number; connected: number; hung: number },
): Promise<Window> {
  const before = await apiServerRequests(kc);
  const cpuBefore = cpuSeconds(pid);
  const answered = counts.answered;
  const connected = counts.connected;
  const hung = counts.hung;
  const start = performance.now();
  say(`steady window of ${secs(WINDOW_MS)}…`);
  await sleep(WINDOW_MS);
  const minutes = (performance.now() - start) / 60_000;
  const during = requestsBetween(before, await apiServerRequests(kc));
  const counted = new Map(
    [...during.byResource].filter(([key]) => !key.startsWith('WATCH ') && !key.endsWith(' leases')),
  );
  const inWindow = samples.filter((s) => s.t >= start - spawnedAt);
  const median = (xs: number[]): number =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  return {
    minutes,
    cpuPerMinute: (cpuSeconds(pid) - cpuBefore) / minutes,
    requestsPerMinute: nonWatchRequests(during) / minutes,
    writes: during.writes,
    breakdown: requestBreakdown({ ...during, byResource: counted }),
    answeredPerMinute: (counts.answered - answered) / minutes,
    connectedPerMinute: (counts.connected - connected) / minutes,
    hungPerMinute: (counts.hung - hung) / minutes,
    rss: {
      median: median(inWindow.map((s) => s.rssKiB)),
      max: Math.max(...inWindow.map((s) => s.rssKiB)),
    },
    anonMedianKiB: median(inWindow.map((s) => s.anonKiB)),
    fdsMax: Math.max(...inWindow.map((s) => s.fds)),
    load: loadAverage(),
  };
}

const DOC_HEADER = `## What probing children costs (\`packages/cli/bench/probe.bench.ts\`)

The daemon as the image runs it (the image's Node release and flags, in a memory cgroup at the
chart's default limit) with \`--probe-children\` and its default timing (a child that answers
probed once a probe interval of 3m, a failing one each interval of 60s, 3 failed probes before a
pause, 16 probes at once, 5 s each; a run whose command says only "default interval 60s" is
from before the probe interval, when every child was probed each interval), over N registered children of which half
answer \`/version\` and half do not. The children are the bench process: a port each on the
machine's non-loopback address, with a serving certificate from the plane's CA (which the
registrations carry). The budgets are those of [docs/behaviour.md](../behaviour.md#budgets) at
1,000 clusters; the CPU and request budgets are for a daemon that does not probe, so a miss
there is the price of probing, stated, not a regression. "Paused" is what the daemon reports and
what the registrations listed in the target namespace carry
(\`argocd.argoproj.io/skip-reconcile: "true"\`).

<!-- probe-bench:runs-end -->
`;

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
