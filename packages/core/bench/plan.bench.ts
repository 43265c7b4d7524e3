// Benchmark of plan() on generated snapshots of 1,000, 10,000 and 100,000 managed namespaces,
// each with a real kubeconfig Secret (real CA, client certificate and key from the committed
// openssl fixtures). Budget (docs/behaviour.md#budgets): 10,000 namespaces in ≤ 100 ms with kubeconfigs
// already parsed, and roughly linear growth.
//
// Scenarios, each the median of several runs after a warm-up:
//   steady, pre-parsed  every namespace already registered and up to date (the daemon's normal
//                       pass); a memoising translator keyed by Secret uid+resourceVersion+key
//                       has seen every kubeconfig and the daemon's plan memo has seen the
//                       pass, so nothing is parsed or rebuilt. A full GC before each run.
//   back to back        the same, without the GC in between (a daemon's passes in a row).
//   re-listed           the same, on a fresh copy of the snapshot each run (new objects and
//                       strings, as a daemon gets from the API each pass).
//   steady, cold        the same pass with parsing included (fresh translator, no memo).
//   first pass          nothing registered yet: every namespace yields a create (pre-parsed).
//
// Run: `pnpm bench -- plan` (PLAN_BENCH_SIZES=1000,10000 to pick sizes).
// Writes docs/bench/plan.md.

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { availableParallelism, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  Config,
  ObservedSecret,
  Plan,
  Snapshot,
  SourceNamespace,
  TranslationResult,
} from '../src/types.js';
import { createPlanMemo, plan } from '../src/plan.js';
import { translateSecretKey, type Translator } from '../src/providers.js';
import { parseConfig } from '../src/config.js';
import { labelKeys } from '../src/label-keys.js';
import { CA_CERT_PEM, CLIENT_CERT_PEM, CLIENT_KEY_PEM } from '../src/test-fixtures/certificates.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const sizes = (process.env['PLAN_BENCH_SIZES'] ?? '1000,10000,100000').split(',').map(Number);
const NOW = Date.parse('2026-11-29T18:00:00Z');
const BUDGET_MS = 100;

const parsedConfig = parseConfig({});
if (!parsedConfig.ok) throw new Error('default config is invalid');
const config: Config = parsedConfig.config;
const keys = labelKeys(config.labelPrefix);

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const CA = b64(CA_CERT_PEM);
const CERT = b64(CLIENT_CERT_PEM);
const KEY = b64(CLIENT_KEY_PEM);

function kubeconfig(server: string): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: default
  cluster:
    server: ${server}
    certificate-authority-data: ${CA}
contexts:
- name: default
  context:
    cluster: default
    user: default
current-context: default
users:
- name: default
  user:
    client-certificate-data: ${CERT}
    client-key-data: ${KEY}
`;
}

/** N managed namespaces, each with its k3k kubeconfig Secret; nothing registered yet. */
function freshSnapshot(count: number): Snapshot {
  const namespaces: SourceNamespace[] = [];
  const candidateSecrets: ObservedSecret[] = [];
  for (let i = 0; i < count; i++) {
    const cluster = `c${i}`;
    const namespace = `k3k-${cluster}`;
    namespaces.push({
      name: namespace,
      uid: `ns-uid-${i}`,
      resourceVersion: '1',
      labels: {
        [keys.managedBy]: config.managedBy,
        [keys.cluster]: cluster,
        [`${config.labelPrefix}team`]: `team-${i % 20}`,
      },
      annotations: {},
      creationTimestamp: '2026-11-01T00:00:00Z',
    });
    candidateSecrets.push({
      namespace,
      name: `k3k-${cluster}-kubeconfig`,
      uid: `secret-uid-${i}`,
      resourceVersion: '1',
      type: 'Opaque',
      labels: {},
      annotations: {},
      data: { 'kubeconfig.yaml': b64(kubeconfig(`https://${cluster}.clusters.example.com:6443`)) },
    });
  }
  return { namespaces, candidateSecrets, clusterSecrets: [], sourceLookups: {} };
}

/** The fresh snapshot after its first plan was applied: every registration exists. */
function steadySnapshot(fresh: Snapshot, first: Plan): Snapshot {
  const clusterSecrets: ObservedSecret[] = [];
  for (const action of first.actions) {
    if (action.kind !== 'create') continue;
    const { secret } = action;
    clusterSecrets.push({
      namespace: secret.namespace,
      name: secret.name,
      uid: `registration-uid-${secret.name}`,
      resourceVersion: '2',
      type: secret.type,
      labels: secret.labels,
      annotations: secret.annotations,
      data: secret.data,
    });
  }
  return { ...fresh, clusterSecrets };
}

// What a daemon does: parse a kubeconfig once per Secret uid+resourceVersion+key (and the
// provider and server-override flag, which change the translation). Two levels, so a lookup
// hashes the uid (already a string) instead of building a composite key on every call.
function memoisingTranslator(): Translator {
  const bySecret = new Map<
    string,
    { resourceVersion: string; results: Map<string, TranslationResult> }
  >();
  return (secret, key, provider, options) => {
    let entry = bySecret.get(secret.uid);
    if (entry?.resourceVersion !== secret.resourceVersion) {
      entry = { resourceVersion: secret.resourceVersion, results: new Map() };
      bySecret.set(secret.uid, entry);
    }
    const variant = `${key}\u0000${provider.name}\u0000${options?.serverOverridden === true ? '1' : '0'}`;
    let result = entry.results.get(variant);
    if (result === undefined) {
      result = translateSecretKey(secret, key, provider, options);
      entry.results.set(variant, result);
    }
    return result;
  };
}

const gc = (globalThis as { gc?: () => void }).gc;

function measure(
  runs: number,
  once: (input: Snapshot) => Plan,
  snapshot: Snapshot,
  options: { warmUp?: boolean; gcBefore?: boolean; copy?: boolean } = {},
): { medianMs: number; cpuMs: number; actions: number } {
  const { warmUp = true, gcBefore = true, copy = false } = options;
  const times: number[] = [];
  const cpuTimes: number[] = [];
  let actions = 0;
  if (warmUp) once(snapshot); // JIT, and for a shared memoising translator its parse cache
  for (let run = 0; run < runs; run++) {
    const input = copy ? structuredClone(snapshot) : snapshot;
    if (gcBefore) gc?.();
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    const result = once(input);
    times.push(performance.now() - start);
    // CPU time of this process: on a shared, busy machine it is closer than wall time to
    // what an idle machine would show (it includes V8's GC helper threads, so it errs high).
    const cpu = process.cpuUsage(cpuStart);
    cpuTimes.push((cpu.user + cpu.system) / 1000);
    actions = result.actions.length;
  }
  return { medianMs: median(times), cpuMs: median(cpuTimes), actions };
}

function median(values: number[]): number {
  values.sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)] ?? Number.NaN;
}

interface Row {
  readonly size: number;
  readonly steadyWarm: number;
  readonly steadyWarmCpu: number;
  readonly backToBack: number;
  readonly backToBackCpu: number;
  readonly relisted: number;
  readonly relistedCpu: number;
  readonly steadyCold: number;
  readonly firstWarm: number;
  readonly steadyActions: number;
  readonly firstActions: number;
  readonly runs: number;
  readonly coldRuns: number;
  /** Heap in use (after a GC) holding the snapshot, its registrations, parse cache and memo. */
  readonly heapMiB: number;
}

const cpuModel =
  /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? 'unknown';
let nproc = String(availableParallelism());
try {
  nproc = execFileSync('nproc', { encoding: 'utf8' }).trim();
} catch {
  // nproc missing: availableParallelism() is the same figure.
}

const fmt = (ms: number): string =>
  ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0);
const perNs = (ms: number, size: number): string => ((ms * 1000) / size).toFixed(2);

function table(rows: readonly Row[]): string {
  return [
    '| namespaces | steady, pre-parsed (ms) | CPU (ms) | µs/namespace | back to back (ms) | CPU (ms) | re-listed (ms) | CPU (ms) | steady, parsing included (ms) | first pass, pre-parsed (ms) | actions steady / first | heap (MiB) | runs (cold) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.size.toLocaleString('en-US')} | ${fmt(row.steadyWarm)} | ${fmt(row.steadyWarmCpu)} | ${perNs(row.steadyWarm, row.size)} | ${fmt(row.backToBack)} | ${fmt(row.backToBackCpu)} | ${fmt(row.relisted)} | ${fmt(row.relistedCpu)} | ${fmt(row.steadyCold)} | ${fmt(row.firstWarm)} | ${row.steadyActions} / ${row.firstActions} | ${row.heapMiB.toFixed(0)} | ${row.runs} (${row.coldRuns}) |`,
    ),
  ].join('\n');
}

function findings(rows: readonly Row[]): string {
  const lines: string[] = [];
  const at10k = rows.find((row) => row.size === 10_000);
  if (at10k !== undefined) {
    lines.push(
      `10,000 namespaces, pre-parsed: ${fmt(at10k.steadyWarm)} ms wall, ${fmt(at10k.steadyWarmCpu)} ms CPU (budget ${BUDGET_MS} ms): ${at10k.steadyWarm <= BUDGET_MS ? 'within budget' : at10k.steadyWarmCpu <= BUDGET_MS ? 'over budget in wall time, within it in CPU time (a busy machine)' : 'OVER BUDGET'}.`,
    );
  }
  for (let i = 1; i < rows.length; i++) {
    const [small, large] = [rows[i - 1], rows[i]];
    if (small === undefined || large === undefined) continue;
    const growth = large.steadyWarm / small.steadyWarm / (large.size / small.size);
    lines.push(
      `Pre-parsed cost per namespace from ${small.size.toLocaleString('en-US')} to ${large.size.toLocaleString('en-US')}: ×${growth.toFixed(2)} (1.00 is linear).`,
    );
  }
  return lines.join('\n');
}

// Written after every size, so a size that does not finish still leaves the others on record.
function report(rows: readonly Row[], pending: readonly number[]): void {
  const load = loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');
  const machine = `${nproc} CPUs (nproc), ${cpuModel}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}; load average ${load} (the machine is shared)`;
  const notFinished =
    pending.length === 0
      ? ''
      : `\nNot measured (the run stopped before): ${pending.map((size) => size.toLocaleString('en-US')).join(', ')} namespaces.\n`;
  const markdown = `## plan() — [budget](../behaviour.md#budgets): 10,000 namespaces ≤ ${BUDGET_MS} ms with kubeconfigs pre-parsed

Command: \`pnpm bench -- plan\` (script \`packages/core/bench/plan.bench.ts\`).
Machine: ${machine}.
Measured: ${new Date().toISOString().slice(0, 10)}.

Each namespace has its own kubeconfig Secret (real EC CA, client certificate and key; a unique
server address) and a copied prefixed label. Figures are medians of the given number of runs
(pre-parsed: after one warm-up; parsing included: the number in brackets, no warm-up).

- **steady, pre-parsed**: every namespace already registered and up to date (a normal daemon
  pass; expected actions: 0). The translator memoises by Secret uid + resourceVersion + key,
  as the daemon's does, and the daemon's plan memo (\`createPlanMemo()\`, passed as
  \`PlanOptions.memo\`) has seen the previous pass. A full GC before each run: V8 then drops
  much of the optimised code (deoptimisation reason "weak objects"), so this is the pass of a
  daemon after an idle spell rather than a hot one.
- **back to back**: the same pass repeated without a GC in between (a daemon's hot passes).
- **re-listed**: the same as steady, on a fresh deep copy of the snapshot each run (new
  objects and strings, as the daemon gets them from the API every pass): the memo recognises
  unchanged objects by uid + resourceVersion alone, not by identity.
- **steady, parsing included**: the same pass with a fresh translator and no memo, so every
  kubeconfig is decoded, parsed as YAML and its certificates read.
- **first pass, pre-parsed**: nothing registered yet; every namespace yields a create (with a
  memo that has seen that world).
- **CPU**: user + system CPU time of the process for that pass; on a busy shared machine it is
  closer than wall time to an idle machine's figure (it counts V8's GC helper threads too, so
  it errs high).
- **heap**: V8 heap in use after a GC while holding the snapshot, the registrations, the parse
  cache and the plan memo (a hint for the 256 MiB budget, not the daemon's resident memory).

${table(rows)}

${findings(rows)}
${notFinished}`;
  mkdirSync(join(root, 'docs', 'bench'), { recursive: true });
  writeFileSync(join(root, 'docs', 'bench', 'plan.md'), markdown);
  console.log(
    `\n${table(rows)}\n\n${findings(rows)}\nmachine: ${machine}\nwrote docs/bench/plan.md`,
  );
}

const rows: Row[] = [];
for (const [index, size] of sizes.entries()) {
  const runs = size >= 100_000 ? 3 : 7;
  // Parsing 100,000 kubeconfigs takes minutes on a busy machine: fewer cold runs, no warm-up
  // (the JIT is warm from the pre-parsed runs and the first pass).
  const coldRuns = size >= 100_000 ? 1 : size >= 10_000 ? 3 : 5;
  const fresh = freshSnapshot(size);
  const warm = memoisingTranslator();
  // The daemon's memo (one per process, passed to every pass); the first-pass runs get their
  // own, as they plan another world.
  const memo = createPlanMemo();
  const first = plan(fresh, config, NOW, { translate: warm });
  const steady = steadySnapshot(fresh, first);
  plan(steady, config, NOW, { translate: warm, memo });
  gc?.();
  // What a daemon holds between passes: the world, the parse cache and the plan memo.
  const heapMiB = process.memoryUsage().heapUsed / 2 ** 20;
  const firstMemo = createPlanMemo();

  const daemonPass = (input: Snapshot): Plan => plan(input, config, NOW, { translate: warm, memo });
  const steadyWarm = measure(runs, daemonPass, steady);
  const backToBack = measure(runs, daemonPass, steady, { gcBefore: false });
  const relisted = measure(runs, daemonPass, steady, { copy: true });
  const steadyCold = measure(
    coldRuns,
    (input) => plan(input, config, NOW, { translate: memoisingTranslator() }),
    steady,
    { warmUp: false },
  );
  const firstWarm = measure(
    runs,
    (input) => plan(input, config, NOW, { translate: warm, memo: firstMemo }),
    fresh,
  );
  rows.push({
    size,
    steadyWarm: steadyWarm.medianMs,
    steadyWarmCpu: steadyWarm.cpuMs,
    backToBack: backToBack.medianMs,
    backToBackCpu: backToBack.cpuMs,
    relisted: relisted.medianMs,
    relistedCpu: relisted.cpuMs,
    steadyCold: steadyCold.medianMs,
    firstWarm: firstWarm.medianMs,
    steadyActions: steadyWarm.actions,
    firstActions: firstWarm.actions,
    runs,
    coldRuns,
    heapMiB,
  });
  console.log(`measured ${size} namespaces`);
  report(rows, sizes.slice(index + 1));
}
