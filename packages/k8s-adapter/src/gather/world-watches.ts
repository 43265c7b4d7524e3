// The world cache's watches of sources: managed namespaces, every Secret's metadata (kept
// only for names a provider's glob matches) and, once discovery found the served version of
// cluster.x-k8s.io, labelled Clusters. Each reports what it changed as the source namespaces
// (or Cluster source keys) it concerns.
import { clusterSourceKey } from '@argocd-cluster-registrar/core';
import { startListWatch } from '../watch/list-watch.js';
import type { ListWatch, WatchedObject } from '../watch/list-watch.js';
import { toSourceCluster, toSourceNamespace } from '../observed-objects.js';
import { clustersPath, discoverClusterApi } from '../connection/cluster-api.js';
import { managedNamespaceSelector } from './selectors.js';
import {
  changed,
  isCandidateMeta,
  settleCheck,
  watchOptions,
  watchReports,
} from './world-cache-state.js';
import type { WorldCacheState } from './world-cache-state.js';
import type { CandidateMeta, ClusterEntry, NamespaceEntry } from './world-cache-types.js';

// The API server's JSON: timestamps stay strings, which toTimestamp takes as is.
export function watchNamespaces(state: WorldCacheState): ListWatch<NamespaceEntry> {
  const { version } = state;
  return startListWatch<NamespaceEntry>(state.access, {
    ...watchOptions(state, 'namespaces'),
    path: '/api/v1/namespaces',
    labelSelector: managedNamespaceSelector(state.config),
    project: (object) => {
      const namespace = toSourceNamespace(object);
      return { resourceVersion: namespace.resourceVersion ?? '', namespace };
    },
    handlers: {
      onUpsert: (name) => {
        version.namespaces += 1;
        state.secretEvents.set(name, ++state.secretSequence);
        changed(state, [name]);
      },
      onDelete: (name) => {
        version.namespaces += 1;
        state.secretEvents.delete(name);
        changed(state, [name]);
      },
      ...watchReports(state, 'namespaces'),
    },
  });
}

export function watchCandidates(
  state: WorldCacheState,
  namespaces: ListWatch<NamespaceEntry>,
): ListWatch<CandidateMeta> {
  const { version } = state;
  const reports = watchReports(state, 'secret metadata');
  return startListWatch<CandidateMeta>(state.access, {
    ...watchOptions(state, 'secret metadata'),
    path: '/api/v1/secrets',
    metadataOnly: true,
    // Filtered on arrival: a Secret no provider reads (by glob or by its provisioner's marks)
    // is not kept; one that gains or loses the marks is kept or dropped on that event.
    project: (object: WatchedObject) => {
      const meta = object.metadata ?? {};
      if (!isCandidateMeta(state, meta)) return undefined;
      return {
        namespace: meta.namespace ?? '',
        name: meta.name ?? '',
        uid: meta.uid ?? '',
        resourceVersion: meta.resourceVersion ?? '',
      };
    },
    handlers: {
      onUpsert: (_key, value) => {
        version.candidates += 1;
        changed(state, [value.namespace]);
      },
      onDelete: (_key, previous) => {
        version.candidates += 1;
        changed(state, [previous.namespace]);
      },
      onEvent: (object) => {
        const namespace = object.metadata?.namespace ?? '';
        if (!namespaces.store.has(namespace) && !holdsClusters(state, namespace)) return;
        state.secretEvents.set(namespace, ++state.secretSequence);
        // Another Secret in a managed namespace (or one of Clusters) may change what its
        // message says (a near miss appeared or went); a candidate's own change is reported by
        // onUpsert/onDelete.
        if (!isCandidateMeta(state, object.metadata ?? {})) changed(state, [namespace]);
      },
      ...reports,
      onListed: () => {
        state.secretGeneration += 1;
        state.secretEvents.clear();
        reports.onListed();
      },
    },
  });
}

/** Finds the served version of cluster.x-k8s.io, then watches its Clusters. */
export async function discoverClusters(state: WorldCacheState): Promise<void> {
  const answer = await discoverClusterApi(state.access);
  // Overlapping calls (rediscover() while a retry runs) start one watch: checked after the await.
  if (state.stopped || state.clusterWatch !== undefined) return;
  state.clusterApi = answer;
  if (answer.state === 'served') {
    state.clusterWatch = watchClusters(state, answer.version);
    state.watches.set('clusters', state.clusterWatch);
  } else if (answer.state === 'unknown') {
    state.options.onError('clusters', answer.failure);
    // Asked again with capped back-off; Cluster sources wait, namespaces are served.
    state.discoveryTimer = setTimeout(
      () => void discoverClusters(state),
      state.discoveryDelayMs,
    ).unref();
    state.discoveryDelayMs = Math.min(state.discoveryDelayMs * 2, 60_000);
  }
  state.discovering = false;
  settleCheck(state);
}

function watchClusters(state: WorldCacheState, apiVersion: string): ListWatch<ClusterEntry> {
  const { version } = state;
  return startListWatch<ClusterEntry>(state.access, {
    ...watchOptions(state, 'clusters'),
    path: clustersPath(apiVersion),
    labelSelector: managedNamespaceSelector(state.config),
    metadataOnly: true,
    project: (object) => {
      const cluster = toSourceCluster(object);
      return { resourceVersion: cluster.resourceVersion ?? '', cluster };
    },
    handlers: {
      onUpsert: (_key, value) => {
        version.clusters += 1;
        const { namespace, name } = value.cluster;
        const names = state.clusterNames.get(namespace) ?? new Set<string>();
        state.clusterNames.set(namespace, names.add(name));
        changed(state, [clusterSourceKey(value.cluster.namespace, value.cluster.name)]);
      },
      onDelete: (_key, previous) => {
        version.clusters += 1;
        const names = state.clusterNames.get(previous.cluster.namespace);
        names?.delete(previous.cluster.name);
        if (names?.size === 0) state.clusterNames.delete(previous.cluster.namespace);
        changed(state, [clusterSourceKey(previous.cluster.namespace, previous.cluster.name)]);
      },
      ...watchReports(state, 'clusters'),
    },
  });
}

/** Whether a managed Cluster lives in `namespace`: its Secrets may be that Cluster's hints. */
function holdsClusters(state: WorldCacheState, namespace: string): boolean {
  return state.clusterNames.has(namespace);
}
