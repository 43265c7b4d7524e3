// The gathered world kept between passes, and the rules for reusing it: which lookups stay
// true, what the snapshot reports unread, and when a view is too incomplete to keep.
import type {
  ObservedSecret,
  Snapshot,
  SourceLookup,
  SourceNamespace,
} from '@argocd-cluster-registrar/core';

/** The last gathered world, kept between passes so a refresh can reuse it. */
export interface View {
  readonly namespaces: Map<string, SourceNamespace>;
  readonly candidates: Map<string, readonly ObservedSecret[]>;
  clusterSecrets: readonly ObservedSecret[];
  /** Lookups whose answer cannot change for the recorded uid (see `reusableLookup`). */
  readonly lookups: Map<string, SourceLookup>;
  /**
   * Namespaces whose Secret list failed last time, and why: reported unread in the snapshot
   * and re-read on the next refresh.
   */
  readonly failedCandidates: Map<string, string>;
}

export function presentLookup(namespace: SourceNamespace): SourceLookup {
  return {
    state: 'present',
    uid: namespace.uid,
    labels: namespace.labels,
    ...(namespace.deletionTimestamp !== undefined
      ? { deletionTimestamp: namespace.deletionTimestamp }
      : {}),
  };
}

/**
 * A `notFound` stays true for the uid a registration recorded (uids are never reused), and a
 * `present` answer can only err on the side of keeping a registration, so both can be reused
 * between full passes; an `unknown` is always asked again. A terminating namespace is asked
 * again too: it is about to become `notFound`.
 */
export function reusableLookup(lookup: SourceLookup): boolean {
  return (
    lookup.state === 'notFound' ||
    (lookup.state === 'present' && lookup.deletionTimestamp === undefined)
  );
}

/**
 * What the snapshot says could not be read: managed namespaces, and namespaces of managed
 * Clusters, whose Secrets failed to list.
 */
export function unreadParts(
  current: View,
  clusterSecretsUnread: string | undefined,
  clusterNamespaces: ReadonlySet<string> = new Set(),
): Pick<Snapshot, 'unreadNamespaces' | 'clusterSecretsUnread'> {
  const unreadNamespaces = [...current.failedCandidates]
    .filter(([name]) => current.namespaces.has(name) || clusterNamespaces.has(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, reason]) => ({ name, reason }));
  return {
    ...(unreadNamespaces.length === 0 ? {} : { unreadNamespaces }),
    ...(clusterSecretsUnread === undefined ? {} : { clusterSecretsUnread }),
  };
}

export function forget(current: View, name: string): void {
  current.namespaces.delete(name);
  current.candidates.delete(name);
  current.failedCandidates.delete(name);
}

export function incompleteReason(
  namespacesFailed: boolean,
  clusterSecretsFailed: boolean,
  target: string,
): string | undefined {
  if (namespacesFailed) return 'the list of managed namespaces failed';
  if (clusterSecretsFailed) return `the list of cluster secrets in ${target} failed`;
  return undefined;
}

export function uidsOf(candidates: ReadonlyMap<string, readonly ObservedSecret[]>): Set<string> {
  const uids = new Set<string>();
  for (const list of candidates.values()) for (const secret of list) uids.add(secret.uid);
  return uids;
}
