// API clients for a KubeAccess, over connections that are kept alive.
//
// client-node 1.4 builds a new https.Agent for every request, so every request pays a TCP
// and TLS handshake (measured: a 1,000-namespace pass took ~16 s on 2 cores, mostly
// handshakes on both ends). We memoise the agent per KubeConfig and TLS identity, with
// keep-alive on. client-node has no public hook for this, so its (TypeScript-private)
// `createAgent` is wrapped; if a future version drops it, requests simply go back to one
// connection each.
import type { Agent as HttpAgent } from 'node:http';
import {
  CoordinationV1Api,
  CoreV1Api,
  ServerConfiguration,
  createConfiguration,
} from '@kubernetes/client-node';
import type { Configuration, KubeConfig } from '@kubernetes/client-node';
import type { KubeAccess } from './kube-access.js';
import { guardMiddleware } from './request-guard.js';

type CreateAgent = (cluster: unknown, agentOptions: Record<string, unknown>) => HttpAgent;

/** TLS identities per KubeConfig; more than a few means credentials rotate, so old ones go. */
const MAX_AGENTS = 4;
const patched = new WeakSet<KubeConfig>();

export function keepConnections(kubeConfig: KubeConfig): void {
  if (patched.has(kubeConfig)) return;
  patched.add(kubeConfig);
  const target = kubeConfig as unknown as { createAgent?: CreateAgent };
  const original = target.createAgent;
  if (typeof original !== 'function') return;
  const agents = new Map<string, HttpAgent>();
  target.createAgent = function createSharedAgent(cluster, agentOptions) {
    const key = identityOf(cluster, agentOptions);
    let agent = agents.get(key);
    if (agent === undefined) {
      // Idle sockets each hold a TLS session (tens of KiB off the JS heap): a pass needs a
      // handful, not Node's default 256. maxSockets stays unbounded: client-node's fetch fails
      // reused connections with ERR_STREAM_PREMATURE_CLOSE when requests queue on the agent;
      // callers bound their own concurrency instead.
      agent = original.call(this, cluster, {
        ...agentOptions,
        keepAlive: true,
        maxFreeSockets: 16,
      });
      agents.set(key, agent);
      if (agents.size > MAX_AGENTS) {
        const [oldestKey, oldest] = agents.entries().next().value as [string, HttpAgent];
        agents.delete(oldestKey);
        oldest.destroy();
      }
    }
    return agent;
  };
}

/** Everything that makes two agents differ: server, proxy and every TLS option. */
function identityOf(cluster: unknown, agentOptions: Record<string, unknown>): string {
  const { server, proxyUrl } = (cluster ?? {}) as { server?: string; proxyUrl?: string };
  const parts: string[] = [server ?? '', proxyUrl ?? ''];
  for (const name of Object.keys(agentOptions).sort()) {
    const value = agentOptions[name];
    if (value === undefined) continue;
    parts.push(name, Buffer.isBuffer(value) ? value.toString('base64') : JSON.stringify(value));
  }
  return parts.join('\0');
}

/**
 * `KubeConfig.makeApiClient`, plus the default request guard: every request through these
 * clients is bounded in time (request-guard.ts), whether or not its caller thought of it.
 */
function makeApiClient<T>(access: KubeAccess, Api: new (config: Configuration) => T): T {
  const kubeConfig = access.kubeConfig;
  keepConnections(kubeConfig);
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  return new Api(
    createConfiguration({
      baseServer: new ServerConfiguration(cluster.server, {}),
      authMethods: { default: kubeConfig },
      promiseMiddleware: [guardMiddleware(requestBound(access))],
    }),
  );
}

export function coreApiFor(access: KubeAccess): CoreV1Api {
  return makeApiClient(access, CoreV1Api);
}

export function coordinationApiFor(access: KubeAccess): CoordinationV1Api {
  return makeApiClient(access, CoordinationV1Api);
}

/** The access's request time-out, when it sets one. */
export function requestBound(access: KubeAccess): { timeoutMs?: number } {
  return access.requestTimeoutMs === undefined ? {} : { timeoutMs: access.requestTimeoutMs };
}
