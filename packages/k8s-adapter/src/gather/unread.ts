// What a pass could not read, from the typed failures of its reads, for both world sources.
// The snapshot records it (`unreadNamespaces`, `clusterSecretsUnread`) so the planner
// decides what that withholds; and a lookup waits while a read it depends on failed: an
// owned registration's source is only looked up when the lists that say it is not managed
// are complete (a lookup is `unknown` then, never inferred from a failed read).
import type { Snapshot } from '@argocd-cluster-registrar/core';
import type { GatherFailure, GatherRead } from './gather-failure.js';

export interface Unread extends Pick<Snapshot, 'unreadNamespaces' | 'clusterSecretsUnread'> {
  /** Why lookups of namespace sources wait, when they do. */
  readonly namespaceLookups?: string;
  /** Why lookups of Cluster sources wait, when they do. */
  readonly clusterLookups?: string;
}

/** The part of the world a read is for. */
type Concern =
  | { readonly part: 'namespaces' | 'cluster secrets' | 'clusters' | 'all candidates' }
  | { readonly part: 'candidates'; readonly namespace: string };

function concernOf(read: GatherRead, target: string): Concern | undefined {
  switch (read.verb) {
    case 'discover':
      return { part: 'clusters' };
    case 'watch':
      switch (read.watch) {
        case 'namespaces':
        case 'clusters':
          return { part: read.watch };
        case 'cluster secrets':
        case 'owned secrets':
          return { part: 'cluster secrets' };
        case 'secret metadata':
          return { part: 'all candidates' };
      }
      return undefined;
    case 'list':
      if (read.kind === 'Namespace') return { part: 'namespaces' };
      if (read.kind === 'Cluster') return { part: 'clusters' };
      if (read.namespace === undefined) return undefined;
      if (read.namespace === target && read.labelSelector !== undefined)
        return { part: 'cluster secrets' };
      return { part: 'candidates', namespace: read.namespace };
    case 'get':
      return read.kind === 'Secret' && read.namespace !== undefined
        ? { part: 'candidates', namespace: read.namespace }
        : undefined;
    case 'sleep':
      // Withholds no source: the signal is left out of the snapshot, so its pauses stand.
      return undefined;
  }
}

const notInSync = (failure: GatherFailure): string | undefined =>
  failure.read.verb === 'watch' ? `the ${failure.read.watch} watch is not in sync` : undefined;

/**
 * `sourceNamespaces`: the namespaces whose Secrets hold kubeconfigs (managed ones, and those
 * of managed Clusters). Call it before reads that only shape messages (near misses).
 */
export function whatWasUnread(
  failures: readonly GatherFailure[],
  target: string,
  sourceNamespaces: readonly string[],
): Unread {
  const sources = new Set(sourceNamespaces);
  const unread = new Map<string, string>();
  let namespaces: string | undefined;
  let clusterSecrets: GatherFailure | undefined;
  let clusters: string | undefined;
  for (const failure of failures) {
    const concern = concernOf(failure.read, target);
    const message = failure.failure.message;
    switch (concern?.part) {
      case 'namespaces':
        namespaces ??= notInSync(failure) ?? 'the list of managed namespaces failed';
        break;
      case 'cluster secrets':
        clusterSecrets ??= failure;
        break;
      case 'clusters':
        clusters ??= notInSync(failure) ?? 'the list of managed Clusters failed';
        break;
      case 'all candidates':
        for (const name of sources)
          if (!unread.has(name)) unread.set(name, `${notInSync(failure) ?? ''}: ${message}`);
        break;
      case 'candidates':
        if (sources.has(concern.namespace) && !unread.has(concern.namespace))
          unread.set(
            concern.namespace,
            failure.read.verb === 'get' ? `${failure.scope} failed: ${message}` : message,
          );
        break;
      case undefined:
        break;
    }
  }
  const secretsReason =
    clusterSecrets === undefined
      ? undefined
      : (notInSync(clusterSecrets) ?? `the list of cluster secrets in ${target} failed`);
  const namespaceLookups = namespaces ?? secretsReason;
  const clusterLookups = clusters ?? namespaceLookups;
  const unreadNamespaces = [...unread]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, reason]) => ({ name, reason }));
  return {
    ...(namespaceLookups === undefined ? {} : { namespaceLookups }),
    ...(clusterLookups === undefined ? {} : { clusterLookups }),
    ...(unreadNamespaces.length === 0 ? {} : { unreadNamespaces }),
    ...(clusterSecrets === undefined
      ? {}
      : {
          clusterSecretsUnread:
            clusterSecrets.read.verb === 'watch'
              ? `${secretsReason ?? ''}: ${clusterSecrets.failure.message}`
              : clusterSecrets.failure.message,
        }),
  };
}
