// Which cluster we talk to, and how that was decided. The `source` names a file and a
// context, never anything read from inside it.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { WriteFence } from './write-fence.js';

export interface KubeAccess {
  readonly kubeConfig: KubeConfig;
  /** 'in-cluster' or '<path> (context <ctx>)'. */
  readonly source: string;
  /** Bound on each request, headers to last byte; default REQUEST_TIMEOUT_MS (request-guard.ts). */
  readonly requestTimeoutMs?: number;
  /**
   * Checked right before each Secret write and Event is sent (write-fence.ts); a daemon with
   * leader election sets its elector here. Absent: writes are not fenced.
   */
  readonly writeFence?: WriteFence;
}

export interface KubeAccessOptions {
  readonly kubeconfig?: string;
  readonly context?: string;
}

/** Where the in-cluster service account is looked for; a parameter so tests can place one. */
export interface InClusterProbe {
  readonly serviceHost: string | undefined;
  readonly tokenPath: string;
}

const IN_CLUSTER: InClusterProbe = {
  get serviceHost() {
    return process.env['KUBERNETES_SERVICE_HOST'];
  },
  tokenPath: '/var/run/secrets/kubernetes.io/serviceaccount/token',
};

/**
 * An explicit `opts.kubeconfig` or `opts.context` first: asked for, it is never silently
 * replaced by the pod's service account. Otherwise the in-cluster service account
 * (KUBERNETES_SERVICE_HOST + token file), then `$KUBECONFIG`, `~/.kube/config`. Throws
 * with a message that names the file and the problem when none is usable: there is nothing
 * sensible to do without one.
 */
export function loadKubeAccess(
  opts: KubeAccessOptions,
  inCluster: InClusterProbe = IN_CLUSTER,
): KubeAccess {
  const kubeConfig = new KubeConfig();
  const explicit = opts.kubeconfig !== undefined || opts.context !== undefined;
  if (!explicit && inCluster.serviceHost && existsSync(inCluster.tokenPath)) {
    kubeConfig.loadFromCluster();
    return { kubeConfig, source: 'in-cluster' };
  }

  const envPaths = (process.env['KUBECONFIG'] ?? '').split(delimiter).filter((p) => p.length > 0);
  const paths = opts.kubeconfig
    ? [opts.kubeconfig]
    : envPaths.length > 0
      ? envPaths
      : [join(homedir(), '.kube', 'config')];
  const existing = paths.filter((p) => existsSync(p));
  if (existing.length === 0) {
    throw new Error(
      `no kubeconfig found (tried ${paths.join(', ')}); pass --kubeconfig or run in-cluster`,
    );
  }

  for (const [index, path] of existing.entries()) {
    try {
      if (index === 0) {
        kubeConfig.loadFromFile(path);
      } else {
        // Like kubectl: with several $KUBECONFIG files, the first one to set a value wins.
        const next = new KubeConfig();
        next.loadFromFile(path);
        mergeFirstWins(kubeConfig, next);
      }
    } catch (err) {
      // Parser errors quote the offending line, which may hold a credential: keep the class only.
      const code =
        err instanceof Error && 'code' in err && typeof err.code === 'string'
          ? err.code
          : 'unreadable or not YAML';
      throw new Error(`cannot read kubeconfig ${path} (${code})`, { cause: undefined });
    }
  }

  if (opts.context !== undefined) {
    if (!kubeConfig.getContextObject(opts.context)) {
      throw new Error(
        `context ${opts.context} not found in kubeconfig ${existing.join(delimiter)}`,
      );
    }
    kubeConfig.setCurrentContext(opts.context);
  }
  const context = kubeConfig.getCurrentContext();
  if (!context || !kubeConfig.getContextObject(context)) {
    throw new Error(
      `kubeconfig ${existing.join(delimiter)} has no current context; pass --context`,
    );
  }
  if (!kubeConfig.getCurrentCluster()) {
    throw new Error(
      `context ${context} in kubeconfig ${existing.join(delimiter)} names no known cluster`,
    );
  }
  return { kubeConfig, source: `${existing.join(delimiter)} (context ${context})` };
}

function mergeFirstWins(into: KubeConfig, from: KubeConfig): void {
  if (!into.getCurrentContext() && from.getCurrentContext())
    into.setCurrentContext(from.getCurrentContext());
  const clusters = new Set(into.getClusters().map((c) => c.name));
  const users = new Set(into.getUsers().map((u) => u.name));
  const contexts = new Set(into.getContexts().map((c) => c.name));
  for (const cluster of from.getClusters())
    if (!clusters.has(cluster.name)) into.addCluster(cluster);
  for (const user of from.getUsers()) if (!users.has(user.name)) into.addUser(user);
  for (const context of from.getContexts())
    if (!contexts.has(context.name)) into.addContext(context);
}
