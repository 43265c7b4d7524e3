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

import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startControlPlane } from '../../testkit/src/index.js';
import { imageRuntime } from '../src/test-support/image-runtime.js';
import {
  daemonFlags,
  PREFIX,
  deleteAndFinalize,
  latencyRow,
  machine,
  repo,
  requireBuild,
  sleep,
  spawnDaemon,
  stopDaemon,
  until,
  watchSightings,
} from './harness.js';

const TRIALS = Number(process.argv[2] ?? 60);
const TARGET = 'argocd';
const MANAGED_BY = 'bench-latency';

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
  const seen = await watchSightings(kc, TARGET, `${PREFIX}managed-by=${MANAGED_BY}`);

  // The shipped daemon, with default timing: the built bundle on the image's Node release,
  // flags and environment (image-runtime.ts), as the container runs it.
  requireBuild();
  const runtime = imageRuntime(repo);
  process.stderr.write(`runtime: ${runtime.describe}\n`);
  const daemon = spawnDaemon(
    runtime,
    daemonFlags(plane.kubeconfigPath, {}, [
      '--target-namespace',
      TARGET,
      '--managed-by',
      MANAGED_BY,
      '--interval',
      '1h',
    ]),
    null,
  );
  const waiting = new Set<string>();
  let buffer = '';
  daemon.stderr?.on('data', (chunk: Buffer) => {
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
      await until(() => seen.added.has(`cluster-${clusterName}`), `cluster-${clusterName}`);
      appear.push((seen.added.get(`cluster-${clusterName}`) ?? NaN) - start);
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
      await until(() => seen.servers.has(key), `${key} to carry the new server`);
      rotate.push((seen.servers.get(key) ?? NaN) - start);
      process.stderr.write(`rotate ${i + 1}/${TRIALS}\r`);
    }
    process.stderr.write('\n');

    for (let i = 0; i < TRIALS; i += 1) {
      const name = names[i] ?? '';
      const clusterName = `c-${run}-${i}`;
      // No controller-manager: the bench finishes the deletion, as the namespace controller
      // would, at a random moment after the namespace started terminating.
      await deleteAndFinalize(api, name, Math.random() * 500);
      await until(() => seen.namespaceDeleted.has(name), `namespace ${name} to be gone`);
      await until(
        () => seen.deleted.has(`cluster-${clusterName}`),
        `cluster-${clusterName} removal`,
      );
      gone.push(
        (seen.deleted.get(`cluster-${clusterName}`) ?? NaN) -
          (seen.namespaceDeleted.get(name) ?? NaN),
      );
      process.stderr.write(`delete ${i + 1}/${TRIALS}\r`);
    }
    process.stderr.write('\n');
  } finally {
    await stopDaemon(daemon);
    runtime.release();
    seen.stop();
    await plane.stop();
  }

  console.log(`\nDaemon latency (${machine()}; the daemon: ${runtime.describe})`);
  console.log('| measurement | trials | p50 | p99 | max |');
  console.log('|---|---|---|---|---|');
  console.log(latencyRow('kubeconfig appears → registered', appear));
  console.log(latencyRow('server changed in the kubeconfig → registration updated', rotate));
  console.log(latencyRow('namespace deleted (finalized) → deregistered', gone));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
