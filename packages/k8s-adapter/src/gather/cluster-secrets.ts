// The target namespace's cluster Secrets, seen by two watches because a label selector
// cannot say "ArgoCD's label or ours": one selects ArgoCD's label, the other ours (for
// demoted registrations, which lack ArgoCD's). Each Secret is held whole once: the second
// watch keeps only a shadow (identity and labels) of a Secret the first one selects. Readers
// get the two merged by uid.
import { ARGOCD_SECRET_TYPE_LABEL } from '@argocd-cluster-registrar/core';
import type { ObservedSecret } from '@argocd-cluster-registrar/core';
import { toObservedSecret } from '../observed-objects.js';
import { startListWatch } from '../watch/list-watch.js';
import type { ListWatch } from '../watch/list-watch.js';
import { managedNamespaceSelector } from './selectors.js';
import { changed, watchOptions, watchReports } from './world-cache-state.js';
import type { WorldCacheState } from './world-cache-state.js';
import type { ClusterSecretEntry, WatchName } from './world-cache-types.js';

export interface ClusterSecrets {
  readonly registered: ListWatch<ClusterSecretEntry>;
  readonly owned: ListWatch<ClusterSecretEntry>;
  /** The cache's clusterSecrets version the merge was made at. */
  mergedAt: number;
  merged: readonly ObservedSecret[];
  /** Shadows whose whole Secret the other watch does not hold (yet): the merge is incomplete. */
  unmatchedShadows: number;
}

export function watchClusterSecrets(state: WorldCacheState): ClusterSecrets {
  const isRegistered = (labels: Readonly<Record<string, string>>): boolean =>
    labels[ARGOCD_SECRET_TYPE_LABEL] === 'cluster';
  const registered = watchClusterSecretsBy(
    state,
    'cluster secrets',
    `${ARGOCD_SECRET_TYPE_LABEL}=cluster`,
    () => false,
  );
  const owned = watchClusterSecretsBy(
    state,
    'owned secrets',
    managedNamespaceSelector(state.config),
    isRegistered,
  );
  return { registered, owned, mergedAt: -1, merged: [], unmatchedShadows: 0 };
}

function watchClusterSecretsBy(
  state: WorldCacheState,
  name: WatchName,
  labelSelector: string,
  shadowed: (labels: Readonly<Record<string, string>>) => boolean,
): ListWatch<ClusterSecretEntry> {
  const { version, keys } = state;
  const target = state.config.targetNamespace;
  return startListWatch<ClusterSecretEntry>(state.options.targetAccess ?? state.access, {
    ...watchOptions(state, name),
    path: `/api/v1/namespaces/${encodeURIComponent(target)}/secrets`,
    labelSelector,
    // Only the whole Secret keeps its labels: a second copy of them per registration (and
    // a third in the other watch's shadow) is what 10,000 registrations cannot afford.
    project: (object) => {
      const meta = object.metadata ?? {};
      const labels = meta.labels ?? {};
      const source = labels[keys.sourceNamespace];
      const identity = {
        resourceVersion: meta.resourceVersion ?? '',
        uid: meta.uid ?? '',
        source: source !== undefined && source !== '' ? source : undefined,
      };
      if (shadowed(labels)) return identity;
      return { ...identity, secret: toObservedSecret(object, target) };
    },
    handlers: {
      onUpsert: (_key, value, previous) => {
        version.clusterSecrets += 1;
        changed(state, sourcesOf([value, previous]));
      },
      onDelete: (_key, previous) => {
        version.clusterSecrets += 1;
        changed(state, sourcesOf([previous]));
      },
      ...watchReports(state, name),
    },
  });
}

/** The source namespaces whose plan a change of these entries concerns. */
function sourcesOf(entries: readonly (ClusterSecretEntry | undefined)[]): string[] {
  const names: string[] = [];
  for (const entry of entries) if (entry?.source !== undefined) names.push(entry.source);
  return names;
}

/** Both watches' Secrets by uid, sorted; made again only when either changed. */
export function mergeClusterSecrets(secrets: ClusterSecrets, version: number): void {
  if (secrets.mergedAt === version) return;
  const byUid = new Map<string, ObservedSecret>();
  for (const entry of secrets.registered.store.values())
    if (entry.secret !== undefined) byUid.set(entry.uid, entry.secret);
  secrets.unmatchedShadows = 0;
  for (const entry of secrets.owned.store.values()) {
    if (entry.secret !== undefined) byUid.set(entry.uid, entry.secret);
    else if (!byUid.has(entry.uid)) secrets.unmatchedShadows += 1;
  }
  secrets.merged = [...byUid.values()].sort(byNamespaceThenName);
  secrets.mergedAt = version;
}

export function wholeClusterSecrets(secrets: ClusterSecrets): number {
  let count = 0;
  for (const store of [secrets.registered.store, secrets.owned.store])
    for (const entry of store.values()) if (entry.secret !== undefined) count += 1;
  return count;
}

function byNamespaceThenName(a: ObservedSecret, b: ObservedSecret): number {
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
