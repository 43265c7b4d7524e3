// What every long chaos case starts from: a real host plane of its own with a chaos world
// (source namespaces, foreign Secrets) in a fresh target namespace, the Lease watched from
// its first version, and replicas each behind a fault proxy of their own whose Secret
// writes and Events are audited as they pass.
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { leaseName } from '../../k8s-adapter/src/index.js';
import { startControlPlane, startFaultProxy, uniqueName } from '../../testkit/src/index.js';
import type { ControlPlane, FaultProxy, FaultSettings } from '../../testkit/src/index.js';
import {
  auditWrites,
  createChaosWorld,
  divergence,
  proxyKubeconfig,
} from '../src/test-support/chaos.js';
import type { ChaosWorld, WriteAudit } from '../src/test-support/chaos.js';
import { PREFIX } from '../src/test-support/e2e.js';
import type { RunningDaemon, World } from '../src/test-support/e2e.js';
import { watchLease } from '../src/test-support/lease-history.js';
import type { LeaseHistory } from '../src/test-support/lease-history.js';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
export const seconds = (ms: number): number => Math.round(ms / 100) / 10;

export interface BenchWorld {
  readonly host: ControlPlane;
  readonly chaos: ChaosWorld;
  readonly history: LeaseHistory;
  /** The Lease's holder now ('' when none or unreadable). */
  readonly holder: () => Promise<string>;
  stop(): Promise<void>;
}

export async function startBenchWorld(plane: string, namespaces: number): Promise<BenchWorld> {
  const host = await startControlPlane(plane, { ownerPid: process.pid });
  const kc = new KubeConfig();
  kc.loadFromString(host.kubeConfig);
  const hostApi = kc.makeApiClient(CoreV1Api);
  const leases = kc.makeApiClient(CoordinationV1Api);
  const target = uniqueName('argocd');
  const managedBy = uniqueName('chaos');
  await hostApi.createNamespace({ body: { metadata: { name: target } } });
  // The registered kubeconfigs are never dialled: the host plane's own CA and identity
  // stand in for a child's.
  const world: World = {
    host,
    child: host,
    hostApi,
    childApi: hostApi,
    target,
    managedBy,
    baseArgs: [],
  };
  const chaos = await createChaosWorld(world, { namespaces, foreign: 5 });
  const lease = leaseName({ labelPrefix: PREFIX, managedBy });
  const history = watchLease(host.kubeConfig, target, lease);
  return {
    host,
    chaos,
    history,
    holder: async () => {
      try {
        return (
          (await leases.readNamespacedLease({ name: lease, namespace: target })).spec
            ?.holderIdentity ?? ''
        );
      } catch {
        return '';
      }
    },
    async stop() {
      history.stop();
      await host.stop();
    },
  };
}

/** A replica's proxy and audit; the daemon is started against `kubeconfig` by the case. */
export interface ProxiedReplica {
  readonly label: string;
  readonly proxy: FaultProxy;
  readonly audit: WriteAudit;
  readonly kubeconfig: string;
  daemon: RunningDaemon;
}

export async function proxiedReplica(
  world: BenchWorld,
  label: string,
  seed: number,
  faults: Partial<FaultSettings>,
  launch: (kubeconfig: string) => RunningDaemon,
): Promise<ProxiedReplica> {
  const audit = auditWrites(world.chaos);
  const proxy = await startFaultProxy(world.host, { seed, beforeWrite: audit.beforeWrite, faults });
  const kubeconfig = proxyKubeconfig(proxy);
  return { label, proxy, audit, kubeconfig, daemon: launch(kubeconfig) };
}

export const heldBy = (identity: string, daemon: RunningDaemon): boolean =>
  daemon.process.pid !== undefined && identity.endsWith(`_${String(daemon.process.pid)}`);

/** Polls until nothing diverges or `timeoutMs` passes: how long it took, or what was left. */
export async function converge(
  chaos: ChaosWorld,
  timeoutMs: number,
): Promise<{ convergedMs: number | undefined; left: string[] }> {
  const from = Date.now();
  let left: string[] = [];
  while (Date.now() - from < timeoutMs) {
    left = await divergence(chaos);
    if (left.length === 0) return { convergedMs: Date.now() - from, left };
    await sleep(500);
  }
  return { convergedMs: undefined, left: left.slice(0, 10) };
}

/** Polls `check` every 250 ms until it holds or `timeoutMs` passes: how long it took. */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
): Promise<number | undefined> {
  const from = Date.now();
  while (Date.now() - from < timeoutMs) {
    if (await check()) return Date.now() - from;
    await sleep(250);
  }
  return undefined;
}

/**
 * Each replica's whole log, kept in a directory of its own (one JSON line per log line), and
 * what a reader needs first: how often each message came, and the last warnings and errors.
 * A case that fails must say why, and the daemon's own words are where that starts.
 */
export function keepLogs(
  name: string,
  replicas: readonly Pick<ProxiedReplica, 'label' | 'daemon'>[],
  /** Which replicas are summarised (all of them by default); every log is kept. */
  summarise: (label: string) => boolean = () => true,
): { dir: string; replicas: Record<string, object> } {
  const dir = join(tmpdir(), `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(dir, { recursive: true });
  const summaries: Record<string, object> = {};
  for (const replica of replicas) {
    const { logs } = replica.daemon;
    writeFileSync(
      join(dir, `${replica.label}.jsonl`),
      logs.map((l) => JSON.stringify(l)).join('\n') + '\n',
    );
    if (!summarise(replica.label)) continue;
    const counts: Record<string, number> = {};
    for (const line of logs) {
      const key = `${String(line['level'])}: ${String(line['msg'])}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    summaries[replica.label] = {
      lines: logs.length,
      counts,
      lastTrouble: logs
        .filter((l) => l['level'] !== 'info' && l['level'] !== 'debug')
        .slice(-8)
        .map((l) => JSON.stringify(l).slice(0, 400)),
    };
  }
  return { dir, replicas: summaries };
}
