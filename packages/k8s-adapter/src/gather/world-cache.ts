// What the daemon knows of the world between passes, kept current by watches instead of
// re-read on every pass:
// - managed namespaces (label selector), as the planner sees them;
// - every Secret's metadata cluster-wide (PartialObjectMetadata: never data), of which only
//   the names matching a provider's glob are kept, as uid + resourceVersion;
// - the target namespace's cluster Secrets, whole: they are the registrations the planner
//   compares against, a few KiB each. Two watches see them, because a label selector cannot
//   say "ArgoCD's label or ours": one selects ArgoCD's label, the other ours (for demoted
//   registrations, which lack ArgoCD's). Each Secret is held whole once: the second watch
//   keeps only a shadow (identity and labels) of a Secret the first one selects.
// - with Cluster sources on (Config.capiClusters), labelled Cluster API Clusters, as
//   metadata only, once discovery has found the served version of cluster.x-k8s.io (a
//   discovery that fails is retried; a group that is not served is reported, not watched,
//   and asked for again on each full pass: rediscover()). Watching the CRDs instead would
//   cost the registrar read access to CustomResourceDefinitions for a one-time event.
// - per managed namespace, a version of its Secrets that moves on every Secret event in it,
//   candidate or not (and for all of them on each re-list), so the daemon knows when a
//   namespace without a candidate must be listed again for its near misses (near-misses.ts);
// Each change is reported as the namespaces it concerns, so the daemon plans soon after it;
// a re-list (410 Gone, or the resync period) is reported as "look at everything".
import type { ListWatchStats } from '../watch/list-watch.js';
import type { ApiFailure } from '../connection/api-failure.js';
import type { KubeAccess } from '../connection/kube-access.js';
import type { Config } from '@argocd-cluster-registrar/core';
import {
  mergeClusterSecrets,
  watchClusterSecrets,
  wholeClusterSecrets,
} from './cluster-secrets.js';
import type { ClusterSecrets } from './cluster-secrets.js';
import { createWorldCacheState, settleCheck } from './world-cache-state.js';
import type { WorldCacheState } from './world-cache-state.js';
import type {
  ClusterEntry,
  WatchName,
  WorldCache,
  WorldCacheOptions,
} from './world-cache-types.js';
import { discoverClusters, watchCandidates, watchNamespaces } from './world-watches.js';

export type {
  CandidateMeta,
  WatchName,
  WorldCache,
  WorldCacheOptions,
  WorldChange,
} from './world-cache-types.js';

export function startWorldCache(
  access: KubeAccess,
  config: Config,
  options: WorldCacheOptions,
): WorldCache {
  const state = createWorldCacheState(access, config, options);
  const namespaces = watchNamespaces(state);
  const candidates = watchCandidates(state, namespaces);
  const secrets = watchClusterSecrets(state);
  state.watches.set('namespaces', namespaces);
  state.watches.set('secret metadata', candidates);
  state.watches.set('cluster secrets', secrets.registered);
  state.watches.set('owned secrets', secrets.owned);
  if (config.capiClusters) void discoverClusters(state);

  return {
    namespaces: namespaces.store,
    candidates: candidates.store,
    clusters: () => state.clusterWatch?.store ?? NO_CLUSTERS,
    clusterApi: () => state.clusterApi,
    rediscover: () =>
      state.clusterApi?.state === 'absent' && !state.stopped
        ? discoverClusters(state)
        : Promise.resolve(),
    version: state.version,
    secretsVersion: (namespace) =>
      `${state.secretGeneration}.${state.secretEvents.get(namespace) ?? 0}`,
    clusterSecrets() {
      mergeClusterSecrets(secrets, state.version.clusterSecrets);
      return secrets.merged;
    },
    settled() {
      return new Promise<void>((resolve) => {
        state.waiters.push(resolve);
        settleCheck(state);
      });
    },
    unhealthy: () => unhealthy(state, secrets),
    resync: () => resyncInTurn(state),
    stats() {
      return {
        namespaces: namespaces.stats(),
        'secret metadata': candidates.stats(),
        'cluster secrets': secrets.registered.stats(),
        'owned secrets': secrets.owned.stats(),
        clusters: state.clusterWatch?.stats() ?? NO_STATS,
      };
    },
    wholeClusterSecrets: () => wholeClusterSecrets(secrets),
    stop() {
      state.stopped = true;
      if (state.discoveryTimer !== undefined) clearTimeout(state.discoveryTimer);
      for (const watch of state.watches.values()) watch.stop();
      for (const resolve of state.waiters.splice(0)) resolve();
    },
  };
}

/**
 * Every watch lists again, each once the one before it has listed (or failed): a list holds
 * a page of raw objects beside the store, and five watches listing at once would hold five.
 * What they found is reported once, as one "look at everything", when the last has listed.
 */
async function resyncInTurn(state: WorldCacheState): Promise<void> {
  // Read through a call: stop() may run during an await.
  const stopped = (): boolean => state.stopped;
  if (state.resyncing || stopped()) return;
  state.resyncing = true;
  try {
    for (const watch of [...state.watches.values()]) {
      if (stopped()) return;
      await watch.resync();
    }
  } finally {
    state.resyncing = false;
  }
  if (!stopped()) state.options.onChange({ namespaces: [], all: true });
}

/** Watches that have not listed yet or are failing now, with why. */
function unhealthy(
  state: WorldCacheState,
  secrets: ClusterSecrets,
): { readonly watch: WatchName; readonly failure: ApiFailure }[] {
  const problems: { watch: WatchName; failure: ApiFailure }[] = [];
  if (state.clusterApi?.state === 'unknown')
    problems.push({ watch: 'clusters', failure: state.clusterApi.failure });
  for (const [name, watch] of state.watches) {
    const failure = watch.failing();
    if (failure !== undefined) problems.push({ watch: name, failure });
    else if (!watch.synced()) {
      problems.push({
        watch: name,
        failure: { kind: 'transient', message: 'not listed yet', retryable: true },
      });
    }
  }
  mergeClusterSecrets(secrets, state.version.clusterSecrets);
  if (secrets.unmatchedShadows > 0 && !problems.some((p) => p.watch === 'cluster secrets')) {
    // A registration that just gained ArgoCD's label: our watch saw it first, ArgoCD's
    // label watch has not delivered it yet. Its data is unknown for a moment.
    problems.push({
      watch: 'cluster secrets',
      failure: {
        kind: 'transient',
        message: `${secrets.unmatchedShadows} relabelled registration(s) not delivered yet`,
        retryable: true,
      },
    });
  }
  return problems;
}

const NO_CLUSTERS: ReadonlyMap<string, ClusterEntry> = new Map();
const NO_STATS: ListWatchStats = { lists: 0, watches: 0, resumes: 0, expired: 0, silences: 0 };
