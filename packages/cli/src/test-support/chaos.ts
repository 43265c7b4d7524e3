// The chaos harness shared by the chaos e2e tests and `pnpm bench chaos`: a world of source
// namespaces with kubeconfig Secrets and hand-made foreign cluster Secrets, a churn loop that
// talks to the API server directly, a write audit that judges every write a daemon's proxy
// forwards against the world at that moment, and the convergence check.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { V1Secret } from '@kubernetes/client-node';
import {
  finalizeNamespace,
  seededRandom,
  statusOf,
  uniqueName,
} from '@argocd-cluster-registrar/testkit';
import type { FaultProxy, ForwardedWrite } from '@argocd-cluster-registrar/testkit';
import {
  PREFIX,
  createSourceNamespace,
  getSecret,
  kubeconfigYaml,
  putK3kKubeconfig,
  startDaemon,
} from './e2e.js';
import type { RunningDaemon, World } from './e2e.js';

const CLUSTER_KEY = `${PREFIX}cluster`;
const MANAGED_BY_KEY = `${PREFIX}managed-by`;
const ARGO = 'argocd.argoproj.io/secret-type';
const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export interface ChaosSource {
  /** The cluster name it was created with; a revert puts it back. */
  readonly base: string;
  cluster: string;
  token: string;
  readonly server: string;
}

export interface ChaosWorld {
  readonly world: World;
  /** Live source namespaces by name: the cluster label and token they carry now. */
  readonly sources: Map<string, ChaosSource>;
  /** Hand-made cluster Secrets nobody but their owner may touch: name → JSON of the object. */
  readonly foreign: Map<string, string>;
  /**
   * When the server took the last rename or revert of a source (epoch ms), `Infinity` while
   * one is under way: a claim is judged only from then on (see auditWrites).
   */
  readonly claimedAt: Map<string, number>;
  serial: number;
}

function snapshotOf(secret: V1Secret): string {
  const m = secret.metadata ?? {};
  return JSON.stringify([
    m.uid,
    m.resourceVersion,
    m.labels,
    m.annotations,
    secret.type,
    secret.data,
  ]);
}

/** How long a churn write keeps trying while the API server does not answer (restarts). */
const PERSIST_MS = 300_000;

/**
 * Runs a churn write until the server has taken it. `sources` records what the server holds,
 * so a write the server may not have taken (refused while it restarts, a 5xx, a cut
 * connection) is sent again rather than believed or forgotten: either would leave the
 * convergence check expecting a world the server never had. `done` names the answers that
 * mean an earlier attempt went through (409 on a create); a write that is not idempotent
 * (a replace, whose resourceVersion moved) is re-run whole, reads included.
 */
async function persist(write: () => Promise<unknown>, done: readonly number[] = []): Promise<void> {
  const deadline = Date.now() + PERSIST_MS;
  for (let attempt = 0; ; attempt += 1) {
    try {
      await write();
      return;
    } catch (err) {
      const status = statusOf(err);
      if (attempt > 0 && status !== undefined && done.includes(status)) return;
      // No HTTP status: no answer, or the control-plane script's exit code (finalize).
      const answered = status !== undefined && status >= 400 && status < 500;
      const again = !answered || status === 429 || status === 409;
      if (!again || Date.now() > deadline) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function addSource(chaos: ChaosWorld, name?: string): Promise<void> {
  chaos.serial += 1;
  const cluster = `c${chaos.serial}`;
  const server = `https://${cluster}.chaos.example:6443`;
  const token = `t${chaos.serial}`;
  // Named here: a create sent again must not make a second namespace.
  const nsName = name ?? uniqueName('k3k');
  await persist(() => createSourceNamespace(chaos.world, { cluster, name: nsName }), [409]);
  await persist(() =>
    putK3kKubeconfig(
      chaos.world,
      nsName,
      kubeconfigYaml(chaos.world.child, { server, user: { token } }),
    ),
  );
  chaos.sources.set(nsName, { base: cluster, cluster, token, server });
}

export async function createChaosWorld(
  world: World,
  options: { namespaces: number; foreign: number },
): Promise<ChaosWorld> {
  const chaos: ChaosWorld = {
    world,
    sources: new Map(),
    foreign: new Map(),
    claimedAt: new Map(),
    serial: 0,
  };
  for (let i = 0; i < options.namespaces; i += 1) await addSource(chaos);
  for (let i = 0; i < options.foreign; i += 1) {
    const name = `cluster-foreign-${i}`;
    const secret = await world.hostApi.createNamespacedSecret({
      namespace: world.target,
      body: {
        metadata: { name, labels: { [ARGO]: 'cluster', 'team.example.com/owner': 'ops' } },
        type: 'Opaque',
        stringData: {
          name: `foreign-${i}`,
          server: `https://foreign-${i}.example:6443`,
          config: '{}',
        },
      },
    });
    chaos.foreign.set(name, snapshotOf(secret));
  }
  return chaos;
}

/** Foreign Secrets whose bytes changed (or that vanished). */
export async function changedForeign(chaos: ChaosWorld): Promise<string[]> {
  const changed: string[] = [];
  for (const [name, before] of chaos.foreign) {
    const now = await getSecret(chaos.world.hostApi, chaos.world.target, name);
    if (now === undefined || snapshotOf(now) !== before) changed.push(name);
  }
  return changed;
}

export type ChurnOp = 'create' | 'delete' | 'rotate' | 'rename' | 'revert' | 'recreate';

/** One churn step, chosen by `random`; errors (a race with ourselves) are ignored. */
async function churnOnce(chaos: ChaosWorld, random: () => number, counts: Record<ChurnOp, number>) {
  const { world } = chaos;
  const names = [...chaos.sources.keys()];
  const pick = () => names[Math.floor(random() * names.length)];
  const roll = random();
  const op: ChurnOp =
    roll < 0.15 || names.length < 3
      ? 'create'
      : roll < 0.3
        ? 'delete'
        : roll < 0.55
          ? 'rotate'
          : roll < 0.75
            ? 'rename'
            : roll < 0.9
              ? 'revert'
              : 'recreate';
  counts[op] += 1;
  const name = pick();
  const source = name === undefined ? undefined : chaos.sources.get(name);
  switch (op) {
    case 'create':
      await addSource(chaos);
      return;
    case 'delete':
      if (name === undefined) return;
      chaos.sources.delete(name);
      await persist(() => finalizeNamespace(world.host, name));
      return;
    case 'recreate':
      // The same name, a new namespace (a new uid), a new server.
      if (name === undefined) return;
      chaos.sources.delete(name);
      await persist(() => finalizeNamespace(world.host, name));
      await addSource(chaos, name);
      return;
    case 'rotate':
      if (name === undefined || source === undefined) return;
      chaos.serial += 1;
      source.token = `t${chaos.serial}`;
      await persist(() =>
        putK3kKubeconfig(
          world,
          name,
          kubeconfigYaml(world.child, { server: source.server, user: { token: source.token } }),
        ),
      );
      return;
    case 'rename':
    case 'revert': {
      // A rename gives the namespace a fresh cluster name; a revert puts the last one back.
      if (name === undefined || source === undefined) return;
      chaos.serial += 1;
      const next = op === 'rename' ? `${source.base}-r${chaos.serial}` : source.base;
      if (next === source.cluster) return;
      source.cluster = next;
      chaos.claimedAt.set(name, Infinity);
      await persist(() =>
        world.hostApi.patchNamespace(
          { name, body: { metadata: { labels: { [CLUSTER_KEY]: next } } } },
          merge,
        ),
      );
      chaos.claimedAt.set(name, Date.now());
      return;
    }
  }
}

export interface Churn {
  readonly counts: Record<ChurnOp, number>;
  stop(): Promise<void>;
}

export function startChurn(chaos: ChaosWorld, options: { periodMs: number; seed: number }): Churn {
  const random = seededRandom(options.seed);
  const counts: Record<ChurnOp, number> = {
    create: 0,
    delete: 0,
    rotate: 0,
    rename: 0,
    revert: 0,
    recreate: 0,
  };
  const state = { running: true };
  const loop = (async () => {
    while (state.running) {
      try {
        await churnOnce(chaos, random, counts);
      } catch {
        // A churn step racing another is not the registrar's problem.
      }
      await new Promise((resolve) => setTimeout(resolve, options.periodMs * (0.5 + random())));
    }
  })();
  return {
    counts,
    async stop() {
      state.running = false;
      await loop;
    },
  };
}

export interface WriteAudit {
  /** Deletions or demotions of a registration whose source still claimed it, as recorded. */
  readonly wrongful: string[];
  /** Writes aimed at a foreign Secret. */
  readonly foreignWrites: string[];
  /**
   * Secret and Event writes forwarded (Lease writes excluded): when the proxy judged them
   * (`at`, after any injected latency) and when it had the whole request (`receivedAt`).
   */
  readonly writes: { at: number; receivedAt: number; method: string; path: string }[];
  readonly beforeWrite: (write: ForwardedWrite) => Promise<void>;
}

/**
 * How long before a write reached the proxy the registrar may have looked at its source for
 * the last time: its proof is read right before the write is sent, and no precondition can
 * tie a Secret's write to a namespace's state.
 */
const PROOF_SLACK_MS = 1_000;

/**
 * Judges each write right before the proxy forwards it: a DELETE of a registration, or a
 * PATCH that demotes one, is wrongful when its source namespace exists at that moment with
 * the recorded uid, is managed by us, and still claims the registration's cluster name, and
 * claimed it when the write was sent: a rename reverted while the write was on its way (the
 * proxy may hold it for a second) is the world changing after the proof, not a wrongful write.
 */
export function auditWrites(chaos: ChaosWorld): WriteAudit {
  const { world } = chaos;
  const audit: WriteAudit = {
    wrongful: [],
    foreignWrites: [],
    writes: [],
    beforeWrite: async (write) => {
      if (write.path.includes('/leases')) return;
      audit.writes.push({
        at: Date.now(),
        receivedAt: write.receivedAt,
        method: write.method,
        path: write.path,
      });
      const match = new RegExp(`^/api/v1/namespaces/${world.target}/secrets/([^/?]+)`).exec(
        write.path,
      );
      const name = match?.[1];
      if (name === undefined) return;
      if (chaos.foreign.has(name)) audit.foreignWrites.push(`${write.method} ${name}`);
      let demotes = false;
      if (write.method === 'PATCH') {
        try {
          const body = JSON.parse(write.body.toString('utf8')) as {
            metadata?: { labels?: Record<string, string | null> };
          };
          demotes = typeof body.metadata?.labels?.[`${PREFIX}superseded-by`] === 'string';
        } catch {
          demotes = false;
        }
      }
      if (write.method !== 'DELETE' && !demotes) return;
      const secret = await getSecret(world.hostApi, world.target, name);
      const labels = secret?.metadata?.labels ?? {};
      const source = labels[`${PREFIX}source-namespace`];
      const uid = labels[`${PREFIX}source-namespace-uid`];
      const cluster = labels[CLUSTER_KEY];
      if (source === undefined || cluster === undefined) return;
      try {
        const ns = await world.hostApi.readNamespace({ name: source });
        const nsLabels = ns.metadata?.labels ?? {};
        if (
          ns.metadata?.deletionTimestamp === undefined &&
          (uid === undefined || ns.metadata?.uid === uid) &&
          nsLabels[MANAGED_BY_KEY] === world.managedBy &&
          nsLabels[CLUSTER_KEY] === cluster &&
          (chaos.claimedAt.get(source) ?? 0) < write.receivedAt - PROOF_SLACK_MS
        ) {
          audit.wrongful.push(`${write.method} ${name} while ${source} still claimed ${cluster}`);
        }
      } catch (err) {
        if (statusOf(err) !== 404) throw err;
      }
    },
  };
  return audit;
}

/** What is wrong with the registrations now, compared with the live sources ([] when converged). */
export async function divergence(chaos: ChaosWorld): Promise<string[]> {
  const { world } = chaos;
  const problems: string[] = [];
  const listed = await world.hostApi.listNamespacedSecret({ namespace: world.target });
  const active = new Map<string, V1Secret>();
  for (const secret of listed.items) {
    const labels = secret.metadata?.labels ?? {};
    if (labels[MANAGED_BY_KEY] === world.managedBy && labels[ARGO] === 'cluster')
      active.set(secret.metadata?.name ?? '', secret);
  }
  const expected = new Set<string>();
  for (const [name, source] of chaos.sources) {
    const registrationName = `cluster-${source.cluster}`;
    expected.add(registrationName);
    const secret = active.get(registrationName);
    if (secret === undefined) {
      problems.push(`${registrationName} (from ${name}) is not registered`);
      continue;
    }
    const config = Buffer.from(secret.data?.['config'] ?? '', 'base64').toString('utf8');
    if (!config.includes(`"bearerToken":"${source.token}"`))
      problems.push(`${registrationName} does not carry the current token`);
    if (secret.metadata?.labels?.[`${PREFIX}source-namespace`] !== name)
      problems.push(`${registrationName} names another source`);
  }
  for (const name of active.keys())
    if (!expected.has(name)) problems.push(`${name} is registered but no source claims it`);
  return problems;
}

/** A kubeconfig file that points at the proxy (the plane's CA and admin identity). */
export function proxyKubeconfig(proxy: FaultProxy): string {
  const dir = mkdtempSync(join(tmpdir(), 'acr-chaos-'));
  const path = join(dir, 'kubeconfig');
  writeFileSync(path, proxy.kubeConfig, { mode: 0o600 });
  return path;
}

/** The daemon, through `proxy`, with the world's target and managed-by. */
export function startProxiedDaemon(
  chaos: ChaosWorld,
  kubeconfigPath: string,
  extra: readonly string[],
): RunningDaemon {
  const { world } = chaos;
  return startDaemon([
    '--kubeconfig',
    kubeconfigPath,
    '--target-namespace',
    world.target,
    '--managed-by',
    world.managedBy,
    '--health-addr=127.0.0.1:0',
    '--metrics-addr=127.0.0.1:0',
    ...extra,
  ]);
}

/** The port a daemon serves `path` on, once it listens. */
export function servedPort(daemon: RunningDaemon, path: string): number | undefined {
  const line = daemon.logs.find(
    (l) => l['msg'] === 'listening' && String(l['serves']).includes(path),
  );
  if (line === undefined) return undefined;
  const address = String(line['address']);
  return Number(address.slice(address.lastIndexOf(':') + 1));
}
