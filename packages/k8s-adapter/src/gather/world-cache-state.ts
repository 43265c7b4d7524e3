// Everything the world cache knows besides its stores, in one object handed to each step
// (world-cache.ts, world-watches.ts, cluster-secrets.ts), and the steps every watch shares:
// reporting a change, a list, a failure or a recovery, and deciding when the cache settled.
import { claimedByAny, labelKeys } from '@argocd-cluster-registrar/core';
import type { ObjectMeta } from '../kube-objects.js';
import { ownerReferencesOf } from '../observed-objects.js';
import type { Config } from '@argocd-cluster-registrar/core';
import type { LabelKeys } from '@argocd-cluster-registrar/core';
import type { ApiFailure } from '../connection/api-failure.js';
import type { KubeAccess } from '../connection/kube-access.js';
import type { ListWatch, ListWatchTiming, Versioned } from '../watch/list-watch.js';
import type { ClusterApi } from '../connection/cluster-api.js';
import type {
  ClusterEntry,
  WatchName,
  WorldCache,
  WorldCacheOptions,
} from './world-cache-types.js';

export interface WorldCacheState {
  readonly access: KubeAccess;
  readonly config: Config;
  readonly options: WorldCacheOptions;
  readonly keys: LabelKeys;
  readonly version: WorldCache['version'];
  readonly listedOnce: Set<WatchName>;
  /** settled() callers still waiting. */
  readonly waiters: (() => void)[];
  /** In the order they started: unhealthy() reports them so. */
  readonly watches: Map<WatchName, ListWatch<Versioned>>;
  // Per managed namespace, the sequence number of the last Secret event in it or of its own
  // last change (a namespace that becomes managed again may have changed meanwhile). A list
  // of Secret metadata may have missed events: it starts a new generation, so every
  // namespace's version moves.
  readonly secretEvents: Map<string, number>;
  secretSequence: number;
  secretGeneration: number;
  stopped: boolean;
  /** What discovery said of cluster.x-k8s.io. */
  clusterApi: ClusterApi | undefined;
  /** Cluster sources: settled only once discovery has answered (served, absent or failed). */
  discovering: boolean;
  clusterWatch: ListWatch<ClusterEntry> | undefined;
  /** Names of the watched Clusters per namespace: a Secret event asks it once, in O(1). */
  readonly clusterNames: Map<string, Set<string>>;
  discoveryTimer: NodeJS.Timeout | undefined;
  discoveryDelayMs: number;
  /** A resync is re-listing the watches in turn: their lists are reported once, at its end. */
  resyncing: boolean;
}

export function createWorldCacheState(
  access: KubeAccess,
  config: Config,
  options: WorldCacheOptions,
): WorldCacheState {
  return {
    access,
    config,
    options,
    keys: labelKeys(config.labelPrefix),
    version: { namespaces: 0, clusterSecrets: 0, candidates: 0, clusters: 0 },
    listedOnce: new Set(),
    waiters: [],
    watches: new Map(),
    secretEvents: new Map(),
    secretSequence: 0,
    secretGeneration: 0,
    stopped: false,
    clusterApi: undefined,
    discovering: config.capiClusters,
    clusterWatch: undefined,
    clusterNames: new Map(),
    discoveryTimer: undefined,
    discoveryDelayMs: 1000,
    resyncing: false,
  };
}

/** A provider reads it: its name matches a glob or it carries a provisioner's marks. */
export function isCandidateMeta(state: WorldCacheState, meta: ObjectMeta): boolean {
  return claimedByAny(state.config.providers, {
    name: meta.name ?? '',
    ...(meta.labels === undefined ? {} : { labels: meta.labels }),
    ...ownerReferencesOf(meta),
  });
}

export function changed(state: WorldCacheState, names: readonly string[]): void {
  state.options.onChange({ namespaces: names, all: false });
}

/** Wakes settled() callers once every watch has listed or failed once (or the cache stopped). */
export function settleCheck(state: WorldCacheState): void {
  if (state.stopped) {
    for (const resolve of state.waiters.splice(0)) resolve();
    return;
  }
  if (state.discovering) return;
  for (const [name, watch] of state.watches)
    if (!watch.synced() && watch.failing() === undefined && !state.listedOnce.has(name)) return;
  for (const resolve of state.waiters.splice(0)) resolve();
}

/** A watch's name, timing and starting version. */
export function watchOptions(
  state: WorldCacheState,
  name: WatchName,
): {
  readonly name: WatchName;
  readonly timing?: Partial<ListWatchTiming>;
  readonly resumeFrom?: string;
} {
  const { options } = state;
  return {
    name,
    ...(options.timing !== undefined ? { timing: options.timing } : {}),
    ...(options.resumeFrom?.[name] !== undefined ? { resumeFrom: options.resumeFrom[name] } : {}),
  };
}

/** What every watch reports the same way: a list (a re-list is "look at everything"), a failure, a recovery. */
export function watchReports(
  state: WorldCacheState,
  name: WatchName,
): {
  readonly onListed: () => void;
  readonly onError: (failure: ApiFailure) => void;
  readonly onRecovered: () => void;
} {
  return {
    onListed: () => {
      const again = state.listedOnce.has(name);
      state.listedOnce.add(name);
      settleCheck(state);
      if (again && !state.resyncing) state.options.onChange({ namespaces: [], all: true });
    },
    onError: (failure) => {
      state.options.onError(name, failure);
      settleCheck(state);
    },
    onRecovered: () => {
      state.options.onRecovered?.(name);
    },
  };
}
