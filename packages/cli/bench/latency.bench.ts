// Latency of the daemon against a real control plane (budget in docs/behaviour.md#budgets):
//   appear:  a labelled namespace is waiting; its kubeconfig Secret is created → registered
//   rotate:  the kubeconfig's server changes → the registration carries the new server
//   delete:  a registered namespace is deleted and finalized → registration removed
// The daemon runs as users run it (the built bundle on the image's runtime, default timing, a 1h interval, so a full
// pass never rescues a trial: only the watches can). Times are taken in this process from
// two watches (target Secrets, managed namespaces), so both ends of a measurement share one
// clock.
//
//   node --expose-gc --import tsx packages/cli/bench/latency.bench.ts [trials]

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { startControlPlane } from '../../testkit/src/index.js';
import { imageRuntime } from '../src/test-support/image-runtime.js';

const TRIALS = Number(process.argv[2] ?? 60);
const TARGET = 'argocd';
const MANAGED_BY = 'bench-latency';
const PREFIX = 'argocd-cluster-registrar/';
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const daemonMain = join(repo, 'packages/cli/dist/bundle/argocd-cluster-registrar.mjs');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? NaN;
}

async function main(): Promise<void> {
  process.stderr.write(`starting plane bench-latency…\n`);
  const plane = await startControlPlane('bench-latency', { ownerPid: process.pid });
  const kc = new KubeConfig();
  kc.loadFromString(plane.kubeConfig);
  const api = kc.makeApiClient(CoreV1Api);
  const user = kc.getCurrentUser();
  const cluster = kc.getCurrentCluster();
  if (user?.certData === undefined || user.keyData === undefined || cluster?.caData === undefined) {
    throw new Error('plane kubeconfig lacks embedded credentials');
  }
  try {
    await api.createNamespace({ body: { metadata: { name: TARGET } } });
  } catch {
    // exists from an earlier run
  }
  const run = Date.now().toString(36);

  // One clock for both ends of every measurement: event arrival in this process.
  const secretEvents = new Map<string, { added?: number; deleted?: number }>();
  /** `<name> <server>` → when the registration first carried that server. */
  const serverSeen = new Map<string, number>();
  const namespaceDeleted = new Map<string, number>();
  const watch = new Watch(kc);
  const secretWatch = await watch.watch(
    `/api/v1/namespaces/${TARGET}/secrets`,
    {},
    (type: string, obj: { metadata?: { name?: string }; data?: Record<string, string> }) => {
      const name = obj.metadata?.name ?? '';
      const server = Buffer.from(obj.data?.['server'] ?? '', 'base64').toString('utf8');
      if (type !== 'DELETED' && !serverSeen.has(`${name} ${server}`))
        serverSeen.set(`${name} ${server}`, performance.now());
      const entry = secretEvents.get(name) ?? {};
      if (type === 'ADDED') entry.added ??= performance.now();
      if (type === 'DELETED') entry.deleted ??= performance.now();
      secretEvents.set(name, entry);
    },
    () => undefined,
  );
  const namespaceWatch = await watch.watch(
    '/api/v1/namespaces',
    { labelSelector: `${PREFIX}managed-by=${MANAGED_BY}` },
    (type: string, obj: { metadata?: { name?: string } }) => {
      if (type === 'DELETED') namespaceDeleted.set(obj.metadata?.name ?? '', performance.now());
    },
    () => undefined,
  );

  // The shipped daemon, with default timing: the built bundle on the image's Node release,
  // flags and environment (image-runtime.ts), as the container runs it.
  if (!existsSync(daemonMain))
    throw new Error(`${daemonMain} is missing: run \`pnpm build\` first`);
  const runtime = imageRuntime(repo);
  process.stderr.write(`runtime: ${runtime.describe}\n`);
  const { file, args } = runtime.command([
    daemonMain,
    '--kubeconfig',
    plane.kubeconfigPath,
    '--target-namespace',
    TARGET,
    '--managed-by',
    MANAGED_BY,
    '--health-addr',
    '',
    '--metrics-addr',
    '',
    '--log-format',
    'json',
    '--interval',
    '1h',
  ]);
  const env: Record<string, string> = { ...runtime.env };
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && key !== 'NODE_OPTIONS' && !key.startsWith('TSX_') && !(key in env))
      env[key] = value;
  const daemon = spawn(file, args, { cwd: repo, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const waiting = new Set<string>();
  let buffer = '';
  daemon.stderr.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
      try {
        const entry = JSON.parse(line) as { msg?: string; namespace?: string };
        if (entry.msg === 'namespace waiting for a kubeconfig' && entry.namespace !== undefined) {
          waiting.add(entry.namespace);
        }
      } catch {
        // not a log line
      }
    }
  });

  const until = async (check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(5);
    }
  };

  const kubeconfig = (server: string): string =>
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: c, cluster: {server: "${server}", certificate-authority-data: ${cluster.caData}}}]`,
      `users: [{name: u, user: {client-certificate-data: ${user.certData}, client-key-data: ${user.keyData}}}]`,
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
      'current-context: c',
      '',
    ].join('\n');

  const appear: number[] = [];
  const rotate: number[] = [];
  const gone: number[] = [];
  const names: string[] = [];
  try {
    for (let i = 0; i < TRIALS; i += 1) {
      const name = `lat-${run}-${i}`;
      const clusterName = `c-${run}-${i}`;
      names.push(name);
      await api.createNamespace({
        body: {
          metadata: {
            name,
            labels: { [`${PREFIX}managed-by`]: MANAGED_BY, [`${PREFIX}cluster`]: clusterName },
          },
        },
      });
      await until(() => waiting.has(name), `namespace ${name} to be waiting`);
      // At a random moment after the namespace was seen waiting.
      await sleep(Math.random() * 1500);
      const start = performance.now();
      await api.createNamespacedSecret({
        namespace: name,
        body: {
          metadata: { name: `k3k-${clusterName}-kubeconfig` },
          data: {
            'kubeconfig.yaml': Buffer.from(
              kubeconfig(`https://child-${i}.bench.test:6443`),
            ).toString('base64'),
          },
        },
      });
      await until(
        () => secretEvents.get(`cluster-${clusterName}`)?.added !== undefined,
        `cluster-${clusterName}`,
      );
      appear.push((secretEvents.get(`cluster-${clusterName}`)?.added ?? NaN) - start);
      process.stderr.write(`appear ${i + 1}/${TRIALS}\r`);
    }
    process.stderr.write('\n');

    for (let i = 0; i < TRIALS; i += 1) {
      const name = names[i] ?? '';
      const clusterName = `c-${run}-${i}`;
      const moved = `https://child-${i}-moved.bench.test:6443`;
      await sleep(Math.random() * 500);
      const start = performance.now();
      await api.replaceNamespacedSecret({
        namespace: name,
        name: `k3k-${clusterName}-kubeconfig`,
        body: {
          metadata: { name: `k3k-${clusterName}-kubeconfig` },
          data: { 'kubeconfig.yaml': Buffer.from(kubeconfig(moved)).toString('base64') },
        },
      });
      const key = `cluster-${clusterName} ${moved}`;
      await until(() => serverSeen.has(key), `${key} to carry the new server`);
      rotate.push((serverSeen.get(key) ?? NaN) - start);
      process.stderr.write(`rotate ${i + 1}/${TRIALS}\r`);
    }
    process.stderr.write('\n');

    for (let i = 0; i < TRIALS; i += 1) {
      const name = names[i] ?? '';
      const clusterName = `c-${run}-${i}`;
      await api.deleteNamespace({ name });
      await sleep(Math.random() * 500);
      // No controller-manager: finish the deletion ourselves, as the namespace controller would.
      const ns = await api.readNamespace({ name });
      await api.replaceNamespaceFinalize({ name, body: { ...ns, spec: { finalizers: [] } } });
      await until(() => namespaceDeleted.has(name), `namespace ${name} to be gone`);
      await until(
        () => secretEvents.get(`cluster-${clusterName}`)?.deleted !== undefined,
        `cluster-${clusterName} removal`,
      );
      gone.push(
        (secretEvents.get(`cluster-${clusterName}`)?.deleted ?? NaN) -
          (namespaceDeleted.get(name) ?? NaN),
      );
      process.stderr.write(`delete ${i + 1}/${TRIALS}\r`);
    }
    process.stderr.write('\n');
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((resolve) => {
      if (daemon.exitCode !== null || daemon.signalCode !== null) resolve(undefined);
      else daemon.once('exit', resolve);
    });
    runtime.release();
    secretWatch.abort();
    namespaceWatch.abort();
    await plane.stop();
  }

  const row = (label: string, samples: number[]): string => {
    const sorted = [...samples].sort((a, b) => a - b);
    const f = (ms: number): string => `${(ms / 1000).toFixed(3)} s`;
    return `| ${label} | ${sorted.length} | ${f(percentile(sorted, 50))} | ${f(percentile(sorted, 99))} | ${f(sorted[sorted.length - 1] ?? NaN)} |`;
  };
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `\nDaemon latency (${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; the daemon: ${runtime.describe})`,
  );
  console.log('| measurement | trials | p50 | p99 | max |');
  console.log('|---|---|---|---|---|');
  console.log(row('kubeconfig appears → registered', appear));
  console.log(row('server changed in the kubeconfig → registration updated', rotate));
  console.log(row('namespace deleted (finalized) → deregistered', gone));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
