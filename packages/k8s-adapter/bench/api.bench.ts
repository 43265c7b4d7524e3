// Benchmark of the adapter against a real kube-apiserver + etcd (scripts/control-plane,
// plane `bench`), budgets in docs/behaviour.md#budgets:
//   initial registration  1,000 labelled namespaces with k3k kubeconfig Secrets, nothing
//                         registered: gather + plan + apply, time and API requests.
//   steady state          the daemon's periodic full pass over the same 1,000, planned from
//                         the watches (createWatchGatherer): time, API requests and writes,
//                         counted by the API server itself (`apiserver_request_total` on its
//                         /metrics); then one idle minute with the watches open.
//   resident memory       10,000 registrations: snapshot + steady plan + translation cache held
//                         in-process (synthetic data, no API), RSS after gc.
//
// Run: `pnpm bench api` (ADAPTER_BENCH_CLUSTERS=1000 to pick the size). Writes
// docs/bench/adapter.md. Latency (kubeconfig appears → registered, namespace deleted →
// deregistered) needs the daemon and is measured by the CLI's benchmark.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { register } from 'node:module';
import { availableParallelism, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const packageSource = (pkg: string): string =>
  pathToFileURL(join(root, 'packages', pkg, 'src', 'index.ts')).href;

// The adapter imports core by package name, which resolves to core's dist/. Route it to the
// sources instead, so the benchmark needs no build step (hooks run before tsx's own).
register(
  `data:text/javascript,${encodeURIComponent(`
    const map = ${JSON.stringify({ '@argocd-cluster-registrar/core': packageSource('core') })};
    export async function resolve(specifier, context, next) {
      return next(map[specifier] ?? specifier, context);
    }`)}`,
);

const core = await import('../../core/src/index.js');
const adapter = await import('../src/index.js');
const { apiServerRequests, requestBreakdown, requestsBetween, startControlPlane } =
  await import('../../testkit/src/index.js');
const { CA_CERT_PEM, CLIENT_CERT_PEM, CLIENT_KEY_PEM } =
  await import('../../core/src/test-fixtures/certificates.js');
type Config = import('@argocd-cluster-registrar/core').Config;
type ObservedSecret = import('@argocd-cluster-registrar/core').ObservedSecret;
type Snapshot = import('@argocd-cluster-registrar/core').Snapshot;
type Plan = import('@argocd-cluster-registrar/core').Plan;
type RequestCounts = import('../../testkit/src/index.js').RequestCounts;

const CLUSTERS = Number(process.env['ADAPTER_BENCH_CLUSTERS'] ?? '1000');
const MEMORY_REGISTRATIONS = 10_000;
const STEADY_PASSES = 5;
const SEED_CONCURRENCY = 16;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const CA = b64(CA_CERT_PEM);
const CERT = b64(CLIENT_CERT_PEM);
const KEY = b64(CLIENT_KEY_PEM);

/** A k3k-style kubeconfig: CA, client certificate and key embedded. */
function kubeconfig(server: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: default',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${CA}`,
    'contexts:',
    '- name: default',
    '  context: {cluster: default, user: default}',
    'current-context: default',
    'users:',
    '- name: default',
    '  user:',
    `    client-certificate-data: ${CERT}`,
    `    client-key-data: ${KEY}`,
    '',
  ].join('\n');
}

function benchConfig(input: { targetNamespace: string; managedBy: string }): Config {
  const parsed = core.parseConfig({ ...input, providers: ['k3k'] });
  if (!parsed.ok)
    throw new Error(`invalid bench config: ${parsed.errors.map((e) => e.message).join('; ')}`);
  return parsed.config;
}

const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
const ms = (value: number): string => (value < 100 ? value.toFixed(1) : value.toFixed(0));
const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

// ---------------------------------------------------------------------------------------
// Resident memory: 10,000 registrations (synthetic, in-process; first, so nothing else the
// benchmark allocates is counted).

function syntheticSnapshot(config: Config, count: number): Snapshot {
  const keys = core.labelKeys(config.labelPrefix);
  const namespaces = [];
  const candidateSecrets: ObservedSecret[] = [];
  for (let i = 0; i < count; i += 1) {
    const name = `k3k-c${i}`;
    namespaces.push({
      name,
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      labels: {
        [keys.managedBy]: config.managedBy,
        [keys.cluster]: `c${i}`,
        'kubernetes.io/metadata.name': name,
      },
      annotations: {},
      creationTimestamp: '2026-11-01T00:00:00Z',
    });
    candidateSecrets.push({
      namespace: name,
      name: `k3k-c${i}-kubeconfig`,
      uid: `10000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      resourceVersion: String(1000 + i),
      type: 'Opaque',
      labels: {},
      annotations: {},
      data: { 'kubeconfig.yaml': b64(kubeconfig(`https://c${i}.clusters.example.com:6443`)) },
    });
  }
  return { namespaces, candidateSecrets, clusterSecrets: [], sourceLookups: {} };
}

function registered(snapshot: Snapshot, first: Plan): Snapshot {
  const clusterSecrets: ObservedSecret[] = [];
  for (const action of first.actions) {
    if (action.kind !== 'create') continue;
    const { secret } = action;
    clusterSecrets.push({
      ...secret,
      uid: `20000000-${secret.name}`,
      resourceVersion: '5000',
      creationTimestamp: '2026-11-02T00:00:00Z',
    });
  }
  // As a daemon holds them: parsed from the API server's JSON, not shared with the plan.
  return {
    ...snapshot,
    clusterSecrets: JSON.parse(JSON.stringify(clusterSecrets)) as ObservedSecret[],
  };
}

interface MemoryFigures {
  /** RSS after gc with the benchmark's modules loaded, before any data is built. */
  readonly baseline: number;
  /** RSS after gc, holding everything, once V8 has returned the pages planning left free. */
  readonly held: number;
  /** JavaScript heap the data occupies (heap used, held minus before): the stable figure. */
  readonly heapUsed: number;
  /** Highest RSS of the process (reached during the cold first plan over every kubeconfig). */
  readonly peak: number;
  readonly steadyActions: number;
  readonly planMs: number;
}

const sleep = (millis: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, millis));

async function measureMemory(): Promise<MemoryFigures> {
  const config = benchConfig({ targetNamespace: 'argocd', managedBy: 'cluster-registrar' });
  const now = Date.parse('2026-11-29T18:00:00Z');
  gc?.();
  const { rss: baseline, heapUsed: baselineHeap } = process.memoryUsage();
  const cache = adapter.createTranslationCache(core.translateSecretKey);
  const fresh = syntheticSnapshot(config, MEMORY_REGISTRATIONS);
  const steady = registered(fresh, core.plan(fresh, config, now, { translate: cache.translate }));
  const start = performance.now();
  const steadyPlan = core.plan(steady, config, now, { translate: cache.translate });
  const planMs = performance.now() - start;
  const peak = process.resourceUsage().maxRSS * 1024;
  // What a daemon looks like between passes: while idle, V8 gives back the pages a pass left
  // free. Settle (gc, wait) until RSS stops falling.
  let held = Number.POSITIVE_INFINITY;
  for (let round = 0, calm = 0; round < 30 && calm < 4; round += 1) {
    gc?.();
    const current = process.memoryUsage().rss;
    calm = current < held * 0.995 ? 0 : calm + 1;
    held = Math.min(held, current);
    await sleep(1000);
  }
  const usage = process.memoryUsage();
  // Everything measured must still be reachable here.
  if (
    steady.clusterSecrets.length !== MEMORY_REGISTRATIONS ||
    cache.stats().secrets !== MEMORY_REGISTRATIONS
  ) {
    throw new Error('memory scenario did not register every cluster');
  }
  return {
    baseline,
    held,
    heapUsed: usage.heapUsed - baselineHeap,
    peak,
    steadyActions: steadyPlan.actions.length,
    planMs,
  };
}

// In its own process, so the API scenarios' allocations do not count (nor these theirs).
if (process.argv.includes('--memory-only')) {
  console.log(JSON.stringify(await measureMemory()));
  process.exit(0);
}
console.log(
  `resident memory with ${MEMORY_REGISTRATIONS.toLocaleString('en-US')} registrations (own process)...`,
);
const memoryRun = execFileSync(
  process.execPath,
  [...process.execArgv, fileURLToPath(import.meta.url), '--memory-only'],
  {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const memory = JSON.parse(memoryRun.trim().split('\n').pop() ?? '{}') as MemoryFigures;
// tsx (and its loader thread) inflates the baseline; what the client library alone costs in
// plain Node, as the shipped daemon runs, for an estimate.
const plainClientRss = Number(
  execFileSync(
    process.execPath,
    [
      '--expose-gc',
      '--input-type=module',
      '-e',
      "await import('@kubernetes/client-node'); gc(); console.log(process.memoryUsage().rss);",
    ],
    { encoding: 'utf8', cwd: join(root, 'packages', 'k8s-adapter') },
  ).trim(),
);

// ---------------------------------------------------------------------------------------
// Against the real API server.

console.log('starting control plane "bench"...');
const plane = await startControlPlane('bench', { ownerPid: process.pid, progress: true });
const access = adapter.loadKubeAccess({ kubeconfig: plane.kubeconfigPath });
const { CoreV1Api } = await import('@kubernetes/client-node');
const { KubeConfig: AdminConfig } = await import('@kubernetes/client-node');
const adminConfig = new AdminConfig();
adminConfig.loadFromString(plane.kubeConfig);
const admin = adminConfig.makeApiClient(CoreV1Api);
const run = `b${process.pid.toString(36)}`;
const config = benchConfig({ targetNamespace: `argocd-${run}`, managedBy: `bench-${run}` });
const keys = core.labelKeys(config.labelPrefix);

async function inBatches<T>(
  items: readonly T[],
  task: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
}

console.log(`seeding ${CLUSTERS} namespaces with kubeconfig Secrets...`);
const seedStart = performance.now();
await admin.createNamespace({ body: { metadata: { name: config.targetNamespace } } });
const indices = Array.from({ length: CLUSTERS }, (_, i) => i);
await inBatches(indices, async (i) => {
  const name = `k3k-${run}-${i}`;
  await admin.createNamespace({
    body: {
      metadata: {
        name,
        labels: { [keys.managedBy]: config.managedBy, [keys.cluster]: `${run}-${i}` },
      },
    },
  });
  await admin.createNamespacedSecret({
    namespace: name,
    body: {
      metadata: { name: `k3k-${run}-${i}-kubeconfig` },
      type: 'Opaque',
      data: { 'kubeconfig.yaml': b64(kubeconfig(`https://${run}-${i}.clusters.example.com:6443`)) },
    },
  });
});
const seedMs = performance.now() - seedStart;

interface PassFigures {
  readonly totalMs: number;
  readonly gatherMs: number;
  readonly planMs: number;
  readonly applyMs: number;
  readonly adapterRequests: number;
  readonly server: RequestCounts;
  readonly actions: number;
  readonly applied: number;
  readonly failures: number;
}

// The daemon's gatherer: watches, then a snapshot from what they hold.
const gatherer = adapter.createWatchGatherer(access, config, {
  onChange: () => undefined,
  onError: (watch, failure) => {
    console.log(`watch ${watch} failed: ${failure.message}`);
  },
  resyncPeriodMs: 0,
});

async function pass(): Promise<PassFigures> {
  const before = await apiServerRequests(adminConfig);
  const start = performance.now();
  const gathered = await gatherer.full();
  const gatheredAt = performance.now();
  const planned = core.plan(gathered.snapshot, config, Date.now(), {
    translate: gatherer.translate,
  });
  const plannedAt = performance.now();
  const results = await adapter
    .createApplier(access, config)
    .write(planned, gathered.snapshot.clusterSecrets);
  const end = performance.now();
  const after = await apiServerRequests(adminConfig);
  return {
    totalMs: end - start,
    gatherMs: gatheredAt - start,
    planMs: plannedAt - gatheredAt,
    applyMs: end - plannedAt,
    adapterRequests: gathered.requests + results.length,
    server: requestsBetween(before, after),
    actions: planned.actions.length,
    applied: results.filter((r) => r.status === 'applied').length,
    failures: gathered.failures.length + results.filter((r) => r.status !== 'applied').length,
  };
}

console.log('initial registration...');
const initial = await pass();
if (initial.applied !== CLUSTERS || initial.failures !== 0) {
  throw new Error(
    `initial registration applied ${initial.applied} of ${CLUSTERS} (${initial.failures} failures)`,
  );
}
// Our own creates come back through the cluster-Secret watch; wait until it holds them all.
for (let tries = 0; ; tries += 1) {
  const seen = (await gatherer.full()).snapshot.clusterSecrets.length;
  if (seen >= CLUSTERS) break;
  if (tries > 600) throw new Error(`the watch holds ${seen} of ${CLUSTERS} registrations`);
  await new Promise((resolve) => setTimeout(resolve, 100));
}
console.log('steady-state passes...');
const steady: PassFigures[] = [];
for (let i = 0; i < STEADY_PASSES; i += 1) steady.push(await pass());
console.log('one idle minute with the watches open...');
const idleBefore = await apiServerRequests(adminConfig);
await new Promise((resolve) => setTimeout(resolve, 60_000));
const idle = requestsBetween(idleBefore, await apiServerRequests(adminConfig));
const idleWatches = [...idle.byResource]
  .filter(([key]) => key.startsWith('WATCH'))
  .reduce((sum, [, value]) => sum + value, 0);
const idleLeases = [...idle.byResource]
  .filter(([key]) => key.endsWith(' leases'))
  .reduce((sum, [, value]) => sum + value, 0);
const watchStats = gatherer.stats();
gatherer.stop();
if (watchStats.translationMisses !== 0)
  throw new Error(`${watchStats.translationMisses} translations were not prepared`);
const { VersionApi } = await import('@kubernetes/client-node');
const apiserverVersion = (await adminConfig.makeApiClient(VersionApi).getCode()).gitVersion;
await plane.stop();

// ---------------------------------------------------------------------------------------
// Report.

const steadyMedian = median(steady.map((p) => p.totalMs));
const steadyRequests = median(steady.map((p) => p.server.total));
const steadyWrites = Math.max(...steady.map((p) => p.server.writes));
const steadyActions = Math.max(...steady.map((p) => p.actions));
const middle = [...steady].sort((a, b) => a.totalMs - b.totalMs)[
  Math.floor(steady.length / 2)
] as PassFigures;

const table = [
  '| scenario | time | API requests (API server count) | writes | notes |',
  '|---|---:|---:|---:|---|',
  `| initial registration, ${CLUSTERS.toLocaleString('en-US')} clusters | ${ms(initial.totalMs)} ms (gather ${ms(initial.gatherMs)}, plan ${ms(initial.planMs)}, apply ${ms(initial.applyMs)}) | ${initial.server.total} (adapter counted ${initial.adapterRequests}) | ${initial.server.writes} | ${initial.applied} created |`,
  `| steady-state pass, ${CLUSTERS.toLocaleString('en-US')} clusters (median of ${STEADY_PASSES}) | ${ms(steadyMedian)} ms (gather ${ms(middle.gatherMs)}, plan ${ms(middle.planMs)}, apply ${ms(middle.applyMs)}) | ${steadyRequests} (adapter counted ${middle.adapterRequests}) | ${steadyWrites} | ${steadyActions} actions; per pass: ${steady.map((p) => ms(p.totalMs)).join(', ')} ms |`,
  `| idle minute, ${CLUSTERS.toLocaleString('en-US')} clusters, watches open | 60 s | ${idle.total - idleWatches - idleLeases} (+ ${idleWatches} watch requests, + ${idleLeases} the API server's own Lease renewals) | ${idle.writes} | ${requestBreakdown(idle)} |`,
  `| resident memory, ${MEMORY_REGISTRATIONS.toLocaleString('en-US')} registrations | — | — | — | RSS ${mib(memory.held)} MiB held (under tsx, settled after gc; ${mib(memory.baseline)} MiB before any data). The data's JavaScript heap: ${mib(memory.heapUsed)} MiB (${(memory.heapUsed / MEMORY_REGISTRATIONS / 1024).toFixed(1)} KiB per registration). Plain Node with the client loaded (no tsx): ${mib(plainClientRss)} MiB. A synthetic lower bound only: the shipped daemon's resident memory is measured by memory.bench.ts (docs/bench/memory.md). Peak RSS ${mib(memory.peak)} MiB during the cold first plan; steady plan ${memory.steadyActions} actions in ${ms(memory.planMs)} ms |`,
].join('\n');

const cpuModel =
  /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? 'unknown';
const machine = `${cpuModel}, ${availableParallelism()} cores, ${mib(totalmem())} MiB RAM (shared: load average ${loadavg()
  .map((l) => l.toFixed(1))
  .join(
    ' ',
  )} at the end), Node ${process.version}, kube-apiserver ${apiserverVersion} + etcd on loopback (tmpfs)`;

console.log(`\n${table}\n`);
console.log(
  `steady-state requests by verb and resource (middle pass): ${requestBreakdown(middle.server)}`,
);
console.log(
  `initial registration requests by verb and resource: ${requestBreakdown(initial.server)}`,
);
console.log(`watch gatherer: ${JSON.stringify(watchStats)}`);
console.log(
  `seeding ${CLUSTERS} namespaces + Secrets took ${ms(seedMs)} ms (not part of any figure)`,
);
console.log(`machine: ${machine}`);

const doc = `## Adapter against a real API server (\`packages/k8s-adapter/bench/api.bench.ts\`)

Command: \`pnpm bench api\` (\`node --expose-gc --import tsx packages/k8s-adapter/bench/api.bench.ts\`).
Machine: ${machine}. Date: ${new Date().toISOString().slice(0, 10)}.

Each pass is what the daemon does every interval: \`gatherer.full()\` of the watch gatherer
(a snapshot from what the watches hold: managed namespaces, Secret metadata cluster-wide,
cluster Secrets in the target namespace; a candidate Secret is read once per resourceVersion),
\`plan()\` with the gatherer's translator, the applier's \`write()\`. The initial registration includes
starting the watches (their lists) and reading every kubeconfig once. Requests are counted by the
API server itself (\`apiserver_request_total\` delta on its \`/metrics\`, resource requests only;
this includes the API server's own background requests, e.g. its identity Lease, which the
writes column leaves out). "adapter counted" is \`GatherResult.requests\` + one per action.

${table}

Steady-state requests by verb and resource (middle pass): ${requestBreakdown(middle.server)}.
Initial registration requests by verb and resource: ${requestBreakdown(initial.server)}.

Watch gatherer counters at the end: ${JSON.stringify(watchStats)}.

Budget ([budget](../behaviour.md#budgets)): steady state zero writes and no requests per pass (watches excepted);
10,000 registrations ≤ 256 MiB resident. The memory scenario is synthetic (no API): 10,000
managed namespaces with real k3k kubeconfigs (CA, client certificate and key), their 10,000
registrations, the steady plan and the adapter's translation cache, all held while measuring.
`;
mkdirSync(join(root, 'docs', 'bench'), { recursive: true });
writeFileSync(join(root, 'docs', 'bench', 'adapter.md'), doc);
console.log('wrote docs/bench/adapter.md');
