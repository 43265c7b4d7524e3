// What the daemon benches share: the shipped daemon as the image runs it (image-runtime.ts:
// the image's Node release and flags, in a memory cgroup at the chart's limit), what /proc
// says about it, what its /metrics and the API server count, when the bench's own watches saw
// a registration appear or go, a world of labelled namespaces with kubeconfig Secrets, and the
// generated blocks of the docs the figures go into. Each bench is a scenario on these.
//
// REGISTRAR_BENCH_DAEMON names another built bundle to run (e.g. one built from an earlier
// commit, for a before/after comparison); by default the one `pnpm build` writes.

import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { cpus, loadavg, totalmem } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Watch } from '@kubernetes/client-node';
import type { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { mapBounded } from '../../k8s-adapter/src/concurrency.js';
import type { ImageRuntime } from '../src/test-support/image-runtime.js';

export const repo = fileURLToPath(new URL('../../../', import.meta.url));
const daemonOverride = process.env['REGISTRAR_BENCH_DAEMON'];
/** The bundle the image runs, or REGISTRAR_BENCH_DAEMON's. */
export const daemonMain =
  daemonOverride === undefined
    ? join(repo, 'packages/cli/dist/bundle/argocd-cluster-registrar.mjs')
    : isAbsolute(daemonOverride)
      ? daemonOverride
      : join(repo, daemonOverride);
export const PREFIX = 'argocd-cluster-registrar/';
/** The daemon's default: the benches run it without --managed-by unless they say otherwise. */
export const MANAGED_BY = 'cluster-registrar';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
export const mib = (kib: number): number => kib / 1024;
/** KiB as MiB, one decimal. */
export const fmt = (kib: number | undefined): string =>
  kib === undefined ? '—' : `${mib(kib).toFixed(1)} MiB`;
export const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
/** A progress line on stderr, tagged with the bench's name. */
export const sayer =
  (tag: string) =>
  (text: string): void => {
    process.stderr.write(`[${tag}] ${text}\n`);
  };
export const loadAverage = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

export function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${cpus().length} CPUs (nproc), ${cpu}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${process.platform}/${process.arch} (the bench itself on Node ${process.version})`;
}

export function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? NaN;
}

/** `| label | trials | p50 | p99 | max |` of latencies in ms. */
export function latencyRow(label: string, samples: readonly number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const f = (ms: number): string => `${(ms / 1000).toFixed(3)} s`;
  return `| ${label} | ${sorted.length} | ${f(percentile(sorted, 50))} | ${f(percentile(sorted, 99))} | ${f(sorted[sorted.length - 1] ?? NaN)} |`;
}

// --- the daemon's process, from /proc -------------------------------------------------------

export interface Sample {
  /** ms since the daemon was spawned */
  readonly t: number;
  readonly rssKiB: number;
  readonly hwmKiB: number;
  /** Of the RSS: anonymous memory (heap, malloc) and file pages (mostly the node binary). */
  readonly anonKiB: number;
  readonly fileKiB: number;
  /** open file descriptors: mostly sockets to the API server */
  readonly fds: number;
}

export function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) the process has used, from /proc/<pid>/stat (100 ticks/s). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

export function readStatus(
  pid: number,
): { rssKiB: number; hwmKiB: number; anonKiB: number; fileKiB: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const field = (name: string): number | undefined => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(text);
    return match?.[1] === undefined ? undefined : Number(match[1]);
  };
  const rssKiB = field('VmRSS');
  const hwmKiB = field('VmHWM');
  if (rssKiB === undefined || hwmKiB === undefined) return undefined;
  return { rssKiB, hwmKiB, anonKiB: field('RssAnon') ?? NaN, fileKiB: field('RssFile') ?? NaN };
}

/** Samples the process every `everyMs` until stopped; `t` counts from `since` (performance.now). */
export function startSampler(
  pid: number,
  everyMs: number,
  since: number,
): { readonly samples: Sample[]; stop(): void } {
  const samples: Sample[] = [];
  const timer = setInterval(() => {
    const status = readStatus(pid);
    if (status !== undefined)
      samples.push({ t: performance.now() - since, ...status, fds: openFds(pid) });
  }, everyMs);
  return {
    samples,
    stop: () => {
      clearInterval(timer);
    },
  };
}

// --- spawning it ----------------------------------------------------------------------------

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

/**
 * The flags every bench gives its daemon: the kubeconfig, JSON logs, and the health and metrics
 * listeners on loopback at the ports given (none given: that listener off); `rest` follows.
 */
export function daemonFlags(
  kubeconfig: string,
  ports: { readonly health?: number | string; readonly metrics?: number | string },
  rest: readonly string[] = [],
): string[] {
  const address = (port: number | string | undefined): string =>
    port === undefined ? '' : `127.0.0.1:${String(port)}`;
  return [
    '--kubeconfig',
    kubeconfig,
    '--health-addr',
    address(ports.health),
    '--metrics-addr',
    address(ports.metrics),
    '--log-format',
    'json',
    ...rest,
  ];
}

/**
 * The shipped daemon with `args`, as the image runs it: its Node flags, its ENV, nothing of
 * ours configured (no ACR_*, KUBECONFIG, NODE_OPTIONS or tsx settings leak in); `nodeFlags`
 * go before the bundle, `env` on top. Its stdout and stderr go to `logPath`, or with `null` its
 * stderr (the log) to the bench.
 */
export function spawnDaemon(
  runtime: ImageRuntime,
  args: readonly string[],
  logPath: string | null,
  extra: {
    readonly nodeFlags?: readonly string[];
    readonly env?: Readonly<Record<string, string>>;
    readonly main?: string;
  } = {},
): ChildProcess {
  const env: Record<string, string> = { ...runtime.env };
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key.startsWith('ACR_') || key === 'KUBECONFIG') continue;
    if (key === 'NODE_OPTIONS' || key in runtime.env || key.startsWith('TSX_')) continue;
    if (key === 'REGISTRAR_BENCH_DAEMON') continue;
    env[key] = value;
  }
  Object.assign(env, extra.env ?? {});
  const { file, args: command } = runtime.command([
    ...(extra.nodeFlags ?? []),
    extra.main ?? daemonMain,
    ...args,
  ]);
  if (logPath === null)
    return spawn(file, command, { cwd: repo, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const log = openSync(logPath, 'w');
  try {
    return spawn(file, command, { cwd: repo, env, stdio: ['ignore', log, log] });
  } finally {
    closeSync(log);
  }
}

/** SIGTERM, then SIGKILL after a minute; the exit code. */
export async function stopDaemon(daemon: ChildProcess): Promise<number | null> {
  if (daemon.exitCode !== null || daemon.signalCode !== null) return daemon.exitCode;
  const exited = new Promise<number | null>((resolve) => {
    daemon.once('exit', (code) => {
      resolve(code);
    });
  });
  daemon.kill('SIGTERM');
  const timer = setTimeout(() => daemon.kill('SIGKILL'), 60_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

// --- its /metrics ---------------------------------------------------------------------------

export interface Series {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export async function scrape(port: number): Promise<Series[] | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    if (!response.ok) return undefined;
    const series: Series[] = [];
    for (const line of (await response.text()).split('\n')) {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (match === null) continue;
      const labels: Record<string, string> = {};
      for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
        labels[pair[1] ?? ''] = pair[2] ?? '';
      }
      series.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
    }
    return series;
  } catch {
    return undefined;
  }
}

/** Sum of the series named `name` whose labels include `where`. */
export function total(
  series: readonly Series[],
  name: string,
  where: Record<string, string> = {},
): number {
  return series
    .filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** Creates the daemon reports as applied so far. */
export const createsApplied = (series: readonly Series[]): number =>
  total(series, 'argocd_cluster_registrar_actions_total', { kind: 'create', status: 'applied' });

// --- the world ------------------------------------------------------------------------------

/** Retries what a busy API server may refuse for a moment (429, 5xx, resets). */
export async function withRetry<T>(what: string, attempt: () => Promise<T>): Promise<T | 'exists'> {
  for (let i = 0; ; i += 1) {
    try {
      return await attempt();
    } catch (err) {
      const code = (err as { code?: number }).code;
      // An earlier attempt that timed out on our side may have landed.
      if (code === 409 && i > 0) return 'exists';
      if (i >= 5 || (code !== undefined && code !== 429 && code < 500))
        throw new Error(`${what}: ${err instanceof Error ? err.message.slice(0, 300) : 'failed'}`);
      await sleep(200 * 2 ** i);
    }
  }
}

/**
 * The plane's own admin kubeconfig (embedded CA, client certificate and key, as k3k writes
 * them), with a unique, non-loopback server, by default `https://<host>.example:6443`, so each
 * registration is distinct.
 */
export function childKubeconfig(
  adminKubeconfig: string,
  host: string,
  server = `https://${host}.example:6443`,
): string {
  const text = adminKubeconfig.replace(/server: \S+/, `server: ${server}`);
  if (text === adminKubeconfig) throw new Error('admin kubeconfig has no server line');
  return text;
}

/**
 * A labelled namespace and its k3k kubeconfig Secret, as a provisioner leaves them; `server`
 * as childKubeconfig's.
 */
export async function createSource(
  api: CoreV1Api,
  adminKubeconfig: string,
  namespace: string,
  cluster: string,
  server?: string,
): Promise<void> {
  const managedBy = MANAGED_BY;
  await withRetry(`create namespace ${namespace}`, () =>
    api.createNamespace({
      body: {
        metadata: {
          name: namespace,
          labels: { [`${PREFIX}managed-by`]: managedBy, [`${PREFIX}cluster`]: cluster },
        },
      },
    }),
  );
  await withRetry(`create secret in ${namespace}`, () =>
    api.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: `k3k-${cluster}-kubeconfig` },
        data: {
          'kubeconfig.yaml': Buffer.from(
            childKubeconfig(adminKubeconfig, cluster, server),
          ).toString('base64'),
        },
      },
    }),
  );
}

/** `count` sources `<prefix><i>` (cluster `c<i>`, server `server(i)`), `concurrency` in flight. */
export async function createSources(
  api: CoreV1Api,
  adminKubeconfig: string,
  count: number,
  options: {
    prefix: string;
    concurrency: number;
    say: (text: string) => void;
    server?: (i: number) => string;
  },
): Promise<void> {
  let done = 0;
  await mapBounded(
    Array.from({ length: count }, (_, i) => i),
    options.concurrency,
    async (i) => {
      await createSource(
        api,
        adminKubeconfig,
        `${options.prefix}${i}`,
        `c${i}`,
        options.server?.(i),
      );
      done += 1;
      if (done % 1000 === 0) options.say(`created ${done}/${count} namespaces with kubeconfigs`);
    },
  );
}

export async function countRegistrations(
  api: CoreV1Api,
  target: string,
  managedBy = MANAGED_BY,
): Promise<number> {
  let count = 0;
  let token: string | undefined;
  do {
    const page = await api.listNamespacedSecret({
      namespace: target,
      labelSelector: `${PREFIX}managed-by=${managedBy},argocd.argoproj.io/secret-type=cluster`,
      limit: 500,
      ...(token !== undefined ? { _continue: token } : {}),
    });
    count += page.items.length;
    token = page.metadata?._continue || undefined;
  } while (token !== undefined);
  return count;
}

/**
 * Deletes a namespace and, `pauseMs` later (the daemon sees it terminating meanwhile),
 * finalizes it, as the namespace controller would (none runs here).
 */
export async function deleteAndFinalize(api: CoreV1Api, name: string, pauseMs = 0): Promise<void> {
  await api.deleteNamespace({ name });
  if (pauseMs > 0) await sleep(pauseMs);
  const ns = await api.readNamespace({ name });
  await api.replaceNamespaceFinalize({ name, body: { ...ns, spec: { finalizers: [] } } });
}

// --- reaction timing ------------------------------------------------------------------------

/**
 * When this process saw each registration in `target` appear, go, and carry each server, and
 * each namespace go: both ends of a reaction on one clock (performance.now).
 */
export interface Sightings {
  readonly added: ReadonlyMap<string, number>;
  readonly deleted: ReadonlyMap<string, number>;
  /** `<registration> <server>` → when it first carried that server. */
  readonly servers: ReadonlyMap<string, number>;
  readonly namespaceDeleted: ReadonlyMap<string, number>;
  stop(): void;
}

export async function watchSightings(
  kc: KubeConfig,
  target: string,
  namespaceSelector: string,
): Promise<Sightings> {
  const added = new Map<string, number>();
  const deleted = new Map<string, number>();
  const servers = new Map<string, number>();
  const namespaceDeleted = new Map<string, number>();
  const watch = new Watch(kc);
  const stopSecrets = await keepWatching(
    watch,
    `/api/v1/namespaces/${target}/secrets`,
    {},
    (type: string, obj: { metadata?: { name?: string }; data?: Record<string, string> }) => {
      const at = performance.now();
      const name = obj.metadata?.name ?? '';
      const server = Buffer.from(obj.data?.['server'] ?? '', 'base64').toString('utf8');
      if (type !== 'DELETED' && !servers.has(`${name} ${server}`))
        servers.set(`${name} ${server}`, at);
      if (type === 'ADDED' && !added.has(name)) added.set(name, at);
      if (type === 'DELETED' && !deleted.has(name)) deleted.set(name, at);
    },
  );
  const stopNamespaces = await keepWatching(
    watch,
    '/api/v1/namespaces',
    { labelSelector: namespaceSelector },
    (type: string, obj: { metadata?: { name?: string } }) => {
      if (type === 'DELETED') namespaceDeleted.set(obj.metadata?.name ?? '', performance.now());
    },
  );
  return {
    added,
    deleted,
    servers,
    namespaceDeleted,
    stop: () => {
      stopSecrets();
      stopNamespaces();
    },
  };
}

/**
 * A watch opened again whenever it ends, until the returned stop is called: the API server
 * ends every watch after 30 to 60 minutes (--min-request-timeout), and a bench's window may
 * be longer. Resolves once the first watch is open.
 */
async function keepWatching(
  watch: Watch,
  path: string,
  query: Record<string, string>,
  onEvent: Parameters<Watch['watch']>[2],
): Promise<() => void> {
  let stopped = false;
  let current: AbortController | undefined;
  const open = async (): Promise<void> => {
    current = await watch.watch(path, query, onEvent, () => {
      if (!stopped) setTimeout(reopen, 100);
    });
  };
  const reopen = (): void => {
    if (!stopped) open().catch(() => setTimeout(reopen, 1000));
  };
  await open();
  return () => {
    stopped = true;
    current?.abort();
  };
}

/** Waits until `check` holds, polling every 5 ms. */
export async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

// --- what was measured, and where it is written ---------------------------------------------

/** The bundle's own fingerprint and age, and the state of the sources. */
export function describeBuild(main = daemonMain): string {
  const hash = createHash('sha256').update(readFileSync(main)).digest('hex').slice(0, 12);
  // Porcelain lines start with a status column that may be a space: trim only line ends.
  const git = (...args: string[]): string | undefined => {
    const run = spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
    return run.status === 0 ? run.stdout.trimEnd() : undefined;
  };
  const head = git('rev-parse', '--short=12', 'HEAD');
  if (head === undefined) return `bundle sha256:${hash}, not a git checkout`;
  const dirty = (
    git(
      'status',
      '--porcelain',
      '--',
      ...['core', 'k8s-adapter', 'cli'].map((p) => `packages/${p}/src`),
    ) ?? ''
  )
    .split('\n')
    .filter((l) => l !== '' && !l.endsWith('.test.ts'))
    .map((l) => l.slice(3));
  const defaultMain = join(repo, 'packages/cli/dist/bundle/argocd-cluster-registrar.mjs');
  const source =
    main !== defaultMain
      ? `${main} (not necessarily built from HEAD ${head})`
      : `HEAD ${head}${dirty.length > 0 ? `, uncommitted source changes (not necessarily built): ${dirty.join(', ')}` : ', sources clean'}`;
  return `bundle sha256:${hash}, ${source}`;
}

/** Fails early, with the fix, when the bundle to run is missing. */
export function requireBuild(main = daemonMain): void {
  if (!existsSync(main))
    throw new Error(`${relative(repo, main)} is missing: run \`pnpm build\` first`);
}

/**
 * Writes `block` into the doc at `docPath` (relative to the repository) between
 * `<!-- <tag>:<key>:begin …-->` and `<!-- <tag>:<key>:end -->`: a run replaces its own block; a
 * new one goes before `<!-- <tag>:runs-end -->` (after the others, before hand-written notes).
 * A missing doc starts as `header`. Returns the block with its markers.
 */
export function writeDocBlock(
  docPath: string,
  tag: string,
  key: string,
  block: string,
  header: string,
): void {
  const path = join(repo, docPath);
  const begin = `<!-- ${tag}:${key}:begin`;
  const end = `<!-- ${tag}:${key}:end -->`;
  const run = `${begin} (generated by the bench) -->\n${block}\n${end}`;
  let doc = existsSync(path) ? readFileSync(path, 'utf8') : header;
  const existing = new RegExp(`${escapeRegExp(begin)}[^]*?${escapeRegExp(end)}`);
  const runsEnd = `<!-- ${tag}:runs-end -->`;
  if (existing.test(doc)) doc = doc.replace(existing, run);
  else if (doc.includes(runsEnd)) doc = doc.replace(runsEnd, `${run}\n\n${runsEnd}`);
  else doc = `${doc.trimEnd()}\n\n${run}\n`;
  writeFileSync(path, doc);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
