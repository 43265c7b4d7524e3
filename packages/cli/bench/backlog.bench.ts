// Reactions while the Events of a cold start are still going out (budget in
// docs/behaviour.md#budgets: namespace deleted → registration removed p99 ≤ 1 s; kubeconfig
// appears → registered p99 ≤ 1 s). A cold start at N sources (default 10,000) decides N
// `Registered` Events; right after the N registrations are written, namespaces are deleted
// and new sources appear, one at a time, and each reaction is timed on the bench's own
// watches, while the API server counts the Events the daemon posts.
//
//   pnpm build && node --expose-gc --import tsx packages/cli/bench/backlog.bench.ts [N]
//   (`pnpm bench backlog`; one plane is populated once, then each daemon gets a cold start
//   of its own into a target namespace of its own)
//
// REGISTRAR_BENCH_BACKLOG_DAEMONS=before=<bundle>,after=<bundle> compares builds, interleaved
// (before, after, before, after … for REGISTRAR_BENCH_BACKLOG_ROUNDS rounds, default 1); by
// default the one `pnpm build` writes. REGISTRAR_BENCH_BACKLOG_TRIALS: deletions and
// appearances per run (default 20 each).

import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { mapBounded } from '../../k8s-adapter/src/concurrency.js';
import { apiServerRequests, requestsBetween, startControlPlane } from '../../testkit/src/index.js';
import type { ControlPlane } from '../../testkit/src/index.js';
import { imageRuntime } from '../src/test-support/image-runtime.js';
import {
  daemonFlags,
  MANAGED_BY,
  PREFIX,
  createSource,
  createSources,
  createsApplied,
  daemonMain,
  deleteAndFinalize,
  describeBuild,
  freePort,
  latencyRow,
  loadAverage,
  machine,
  repo,
  requireBuild,
  sayer,
  scrape,
  secs,
  sleep,
  spawnDaemon,
  stopDaemon,
  until,
  watchSightings,
  withRetry,
} from './harness.js';

const N = Number((process.argv[2] ?? '10000').replace(/[_,]/g, ''));
const TRIALS = Number(process.env['REGISTRAR_BENCH_BACKLOG_TRIALS'] ?? 20);
const ROUNDS = Number(process.env['REGISTRAR_BENCH_BACKLOG_ROUNDS'] ?? 1);
const DAEMONS: readonly { label: string; main: string }[] = (
  process.env['REGISTRAR_BENCH_BACKLOG_DAEMONS'] ?? `current=${daemonMain}`
)
  .split(',')
  .map((pair) => {
    const [label = '', main = ''] = pair.split('=');
    return { label, main: main.startsWith('/') ? main : join(repo, main) };
  });
const CREATE_CONCURRENCY = 32;
const REGISTER_TIMEOUT_MS = 15 * 60_000;
/** A reaction stuck behind the backlog is measured, not given up on. */
const REACTION_TIMEOUT_MS = 15 * 60_000;
const work = `/tmp/acr-bench-backlog-${String(process.pid)}`;
const say = sayer('backlog');

interface Run {
  readonly label: string;
  readonly build: string;
  readonly registerMs: number;
  readonly deleted: number[];
  readonly appeared: number[];
  /** Event POSTs the API server counted from the spawn to the end of the trials. */
  readonly eventPosts: number;
  /** …and all its requests (watches excepted) in that time. */
  readonly requests: number;
  readonly windowMs: number;
  /** From the registrations written to the last trial. */
  readonly trialsMs: number;
  readonly load: string;
}

async function coldStart(
  plane: ControlPlane,
  kc: KubeConfig,
  api: CoreV1Api,
  daemon: { label: string; main: string },
  index: number,
): Promise<Run> {
  const runtime = imageRuntime(repo);
  const target = `argocd-${String(index)}`;
  const tag = `r${String(index)}`;
  await withRetry(`create namespace ${target}`, () =>
    api.createNamespace({ body: { metadata: { name: target } } }),
  );
  // Sources to delete during the backlog, registered by the cold start like the others.
  const doomed = Array.from({ length: TRIALS }, (_, i) => `${tag}-gone-${String(i)}`);
  await mapBounded(doomed, 4, (name) => createSource(api, plane.kubeConfig, name, `${name}-c`));
  // The fleet, the sources earlier runs added, and this run's doomed ones.
  const sources = N + TRIALS * (index + 1);
  const sightings = await watchSightings(kc, target, `${PREFIX}managed-by=${MANAGED_BY}`);
  const metricsPort = await freePort();
  const before = await apiServerRequests(kc);
  const spawnedAt = performance.now();
  const child = spawnDaemon(
    runtime,
    daemonFlags(plane.kubeconfigPath, { metrics: metricsPort }, [
      '--target-namespace',
      target,
      '--interval',
      '30s',
    ]),
    join(work, `daemon-${String(index)}.log`),
    { main: daemon.main },
  );
  // Interrupted: the daemon goes with the bench (the plane stops itself once its owner is gone).
  const interrupted = (): void => {
    child.kill('SIGKILL');
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    let registeredAt: number | undefined;
    while (registeredAt === undefined) {
      if (child.exitCode !== null) throw new Error(`daemon ${daemon.label} exited`);
      if (performance.now() - spawnedAt > REGISTER_TIMEOUT_MS)
        throw new Error('not all registered in time');
      await sleep(200);
      const applied = createsApplied((await scrape(metricsPort)) ?? []);
      if (applied >= sources) registeredAt = performance.now();
    }
    say(`${daemon.label}: ${String(sources)} registered after ${secs(registeredAt - spawnedAt)}`);

    // The backlog: a deletion and an appearance at a time, each timed on the watches.
    const deleted: number[] = [];
    const appeared: number[] = [];
    for (let i = 0; i < TRIALS; i += 1) {
      const name = doomed[i] ?? '';
      await deleteAndFinalize(api, name);
      await until(() => sightings.namespaceDeleted.has(name), `namespace ${name} gone`);
      await until(
        () => sightings.deleted.has(`cluster-${name}-c`),
        `${name} deregistered`,
        REACTION_TIMEOUT_MS,
      );
      deleted.push(
        (sightings.deleted.get(`cluster-${name}-c`) ?? NaN) -
          (sightings.namespaceDeleted.get(name) ?? NaN),
      );
      const fresh = `${tag}-new-${String(i)}`;
      const start = performance.now();
      await createSource(api, plane.kubeConfig, fresh, `${fresh}-c`);
      await until(
        () => sightings.added.has(`cluster-${fresh}-c`),
        `${fresh} registered`,
        REACTION_TIMEOUT_MS,
      );
      appeared.push((sightings.added.get(`cluster-${fresh}-c`) ?? NaN) - start);
      await sleep(Math.random() * 1000);
    }
    const endedAt = performance.now();
    const during = requestsBetween(before, await apiServerRequests(kc));
    let requests = 0;
    for (const [key, value] of during.byResource)
      if (!key.startsWith('WATCH ') && !key.endsWith(' leases')) requests += value;
    return {
      label: daemon.label,
      build: describeBuild(daemon.main),
      registerMs: registeredAt - spawnedAt,
      deleted,
      appeared,
      eventPosts: during.byResource.get('POST events') ?? 0,
      requests,
      windowMs: endedAt - spawnedAt,
      trialsMs: endedAt - registeredAt,
      load: loadAverage(),
    };
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await stopDaemon(child);
    sightings.stop();
    runtime.release();
  }
}

function printRun(run: Run, startedLoad: string): void {
  console.log(
    `\n${run.label}: cold start at ${N.toLocaleString('en-US')} sources (${machine()}; load average ${startedLoad} at the bench's start, ${run.load} at this run's end); ${run.build}; all registered ${secs(run.registerMs)} after the spawn; trials over the ${secs(run.trialsMs)} after that`,
  );
  console.log(
    `Event POSTs from the spawn to the last trial (${secs(run.windowMs)}): ${String(run.eventPosts)} (${((run.eventPosts * 60_000) / run.windowMs).toFixed(0)} a minute); all requests but watches and Leases: ${String(run.requests)} (${((run.requests * 60_000) / run.windowMs).toFixed(0)} a minute)`,
  );
  console.log('| measurement | trials | p50 | p99 | max |');
  console.log('|---|---|---|---|---|');
  console.log(latencyRow('namespace deleted (finalized) → deregistered', run.deleted));
  console.log(
    latencyRow('labelled namespace and its kubeconfig created → registered', run.appeared),
  );
}

async function main(): Promise<void> {
  for (const daemon of DAEMONS) requireBuild(daemon.main);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const startedLoad = loadAverage();
  say(`starting plane bench-backlog-${String(process.pid)}…`);
  const plane = await startControlPlane(`bench-backlog-${String(process.pid)}`, {
    ownerPid: process.pid,
  });
  try {
    const kc = new KubeConfig();
    kc.loadFromString(plane.kubeConfig);
    const api = kc.makeApiClient(CoreV1Api);
    say(`creating ${String(N)} sources…`);
    await createSources(api, plane.kubeConfig, N, {
      prefix: 'fleet-',
      concurrency: CREATE_CONCURRENCY,
      say,
    });
    let index = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const daemon of DAEMONS) {
        say(`round ${String(round + 1)}: ${daemon.label} (load ${loadAverage()})`);
        const run = await coldStart(plane, kc, api, daemon, index);
        // Printed at once: a long comparison cut short still shows the runs it made.
        printRun(run, startedLoad);
        index += 1;
      }
    }
  } finally {
    await plane.stop();
  }

  say(`daemon logs in ${work}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
