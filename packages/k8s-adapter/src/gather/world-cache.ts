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
import { ARGOCD_SECRET_TYPE_LABEL, labelKeys, matchGlob } from '@argocd-cluster-registrar/core';
import { clusterSourceKey } from '@argocd-cluster-registrar/core';
import type {
  Config,
  ObservedSecret,
  SourceCluster,
  SourceNamespace,
} from '@argocd-cluster-registrar/core';
import { clustersPath, discoverClusterApi, toSourceCluster } from './capi-clusters.js';
import type { ClusterApi } from './capi-clusters.js';
import type { ApiFailure } from '../connection/api-failure.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { startListWatch } from '../watch/list-watch.js';
import type {
  ListWatch,
  ListWatchStats,
  ListWatchTiming,
  Versioned,
  WatchedObject,
} from '../watch/list-watch.js';
import { byNamespaceThenName, toObservedSecret, toSourceNamespace } from '../observed-objects.js';
import { managedNamespaceSelector } from './selectors.js';

/** A Secret whose name matches a provider's glob, as its metadata tells. */
export interface CandidateMeta {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
}

interface NamespaceEntry {
  readonly resourceVersion: string;
  readonly namespace: SourceNamespace;
}

interface ClusterEntry {
  readonly resourceVersion: string;
  readonly cluster: SourceCluster;
}

interface ClusterSecretEntry {
  readonly resourceVersion: string;
  readonly uid: string;
  /** The source namespace its labels name, if any: whose plan a change of it concerns. */
  readonly source: string | undefined;
  /** Absent in a shadow: the other watch holds this Secret whole. */
  readonly secret?: ObservedSecret;
}

export interface WorldChange {
  /** Namespaces whose state changed (source namespaces, by name). */
  readonly namespaces: readonly string[];
  /** Everything may have changed (a watch re-listed). */
  readonly all: boolean;
}

export interface WorldCacheOptions {
  readonly onChange: (change: WorldChange) => void;
  readonly onError: (watch: string, failure: ApiFailure) => void;
  /** A watch that was failing answers again (see ListWatchHandlers.onRecovered). */
  readonly onRecovered?: (watch: WatchName) => void;
  readonly timing?: Partial<ListWatchTiming>;
  /** Per watch, for tests: resume from this version instead of listing first. */
  readonly resumeFrom?: Partial<Record<WatchName, string>>;
}

export type WatchName =
  'namespaces' | 'secret metadata' | 'cluster secrets' | 'owned secrets' | 'clusters';

export interface WorldCache {
  readonly namespaces: ReadonlyMap<string, NamespaceEntry>;
  readonly candidates: ReadonlyMap<string, CandidateMeta>;
  /** Managed Clusters by `<namespace>/<name>` (empty with Cluster sources off). */
  clusters(): ReadonlyMap<string, ClusterEntry>;
  /** What discovery said of cluster.x-k8s.io; `undefined` with Cluster sources off. */
  clusterApi(): ClusterApi | undefined;
  /** While cluster.x-k8s.io is not served, asks again; a served group is then watched. */
  rediscover(): Promise<void>;
  /** Cluster Secrets by uid (both watches merged). */
  clusterSecrets(): readonly ObservedSecret[];
  /**
   * Moves whenever a Secret in this managed namespace may have changed (any Secret, not
   * only candidates): what a namespace's near misses were recorded at.
   */
  secretsVersion(namespace: string): string;
  /** Bumped on every change of what clusterSecrets()/namespaces hold, so views can be reused. */
  readonly version: {
    namespaces: number;
    clusterSecrets: number;
    candidates: number;
    clusters: number;
  };
  /** Resolves once every watch has listed or failed once. */
  settled(): Promise<void>;
  /** Watches that have not listed yet or are failing now, with why. */
  unhealthy(): readonly { readonly watch: WatchName; readonly failure: ApiFailure }[];
  resync(): void;
  stats(): Readonly<Record<WatchName, ListWatchStats>>;
  /** Whole cluster Secrets held in memory, both watches together: one per Secret. */
  wholeClusterSecrets(): number;
  stop(): void;
}

export function startWorldCache(
  access: KubeAccess,
  config: Config,
  options: WorldCacheOptions,
): WorldCache {
  const keys = labelKeys(config.labelPrefix);
  const target = config.targetNamespace;
  const isCandidateName = (name: string): boolean =>
    config.providers.some((p) => matchGlob(p.secretNamePattern, name));
  const version = { namespaces: 0, clusterSecrets: 0, candidates: 0, clusters: 0 };
  const listedOnce = new Set<WatchName>();
  const waiters: (() => void)[] = [];
  const watches = new Map<WatchName, ListWatch<Versioned>>();
  // Per managed namespace, the sequence number of the last Secret event in it or of its own
  // last change (a namespace that becomes managed again may have changed meanwhile). A list
  // of Secret metadata may have missed events: it starts a new generation, so every
  // namespace's version moves.
  const secretEvents = new Map<string, number>();
  let secretSequence = 0;
  let secretGeneration = 0;

  const changed = (names: readonly string[]): void => {
    options.onChange({ namespaces: names, all: false });
  };
  let stopped = false;
  // Cluster sources: settled only once discovery has answered (served, absent or failed).
  let clusterApi: ClusterApi | undefined;
  let discovering = config.capiClusters;
  const settleCheck = (): void => {
    if (stopped) {
      for (const resolve of waiters.splice(0)) resolve();
      return;
    }
    if (discovering) return;
    for (const [name, watch] of watches)
      if (!watch.synced() && watch.failing() === undefined && !listedOnce.has(name)) return;
    for (const resolve of waiters.splice(0)) resolve();
  };
  const listed = (name: WatchName) => (): void => {
    const again = listedOnce.has(name);
    listedOnce.add(name);
    settleCheck();
    if (again) options.onChange({ namespaces: [], all: true });
  };
  const errored =
    (name: WatchName) =>
    (failure: ApiFailure): void => {
      options.onError(name, failure);
      settleCheck();
    };
  const recovered = (name: WatchName) => (): void => {
    options.onRecovered?.(name);
  };
  const common = (name: WatchName) => ({
    name,
    ...(options.timing !== undefined ? { timing: options.timing } : {}),
    ...(options.resumeFrom?.[name] !== undefined ? { resumeFrom: options.resumeFrom[name] } : {}),
  });

  // The API server's JSON: timestamps stay strings, which toTimestamp takes as is.
  const namespaces = startListWatch<NamespaceEntry>(access, {
    ...common('namespaces'),
    path: '/api/v1/namespaces',
    labelSelector: managedNamespaceSelector(config),
    project: (object) => {
      const namespace = toSourceNamespace(object);
      return { resourceVersion: namespace.resourceVersion ?? '', namespace };
    },
    handlers: {
      onUpsert: (name) => {
        version.namespaces += 1;
        secretEvents.set(name, ++secretSequence);
        changed([name]);
      },
      onDelete: (name) => {
        version.namespaces += 1;
        secretEvents.delete(name);
        changed([name]);
      },
      onListed: listed('namespaces'),
      onError: errored('namespaces'),
      onRecovered: recovered('namespaces'),
    },
  });

  const candidates = startListWatch<CandidateMeta>(access, {
    ...common('secret metadata'),
    path: '/api/v1/secrets',
    metadataOnly: true,
    // Filtered on arrival: a Secret no provider's glob matches is never kept (names cannot
    // change, so it never becomes a candidate later).
    project: (object: WatchedObject) => {
      const meta = object.metadata ?? {};
      if (!isCandidateName(meta.name ?? '')) return undefined;
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
        changed([value.namespace]);
      },
      onDelete: (_key, previous) => {
        version.candidates += 1;
        changed([previous.namespace]);
      },
      onEvent: (object) => {
        const namespace = object.metadata?.namespace ?? '';
        if (!namespaces.store.has(namespace)) return;
        secretEvents.set(namespace, ++secretSequence);
        // Another Secret in a managed namespace may change what its message says (a near
        // miss appeared or went); a candidate's own change is reported by onUpsert/onDelete.
        if (!isCandidateName(object.metadata?.name ?? '')) changed([namespace]);
      },
      onListed: () => {
        secretGeneration += 1;
        secretEvents.clear();
        listed('secret metadata')();
      },
      onError: errored('secret metadata'),
      onRecovered: recovered('secret metadata'),
    },
  });

  const clusterSecretWatch = (
    name: WatchName,
    labelSelector: string,
    shadowed: (labels: Readonly<Record<string, string>>) => boolean,
  ) =>
    startListWatch<ClusterSecretEntry>(access, {
      ...common(name),
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
          changed(sourcesOf([value, previous]));
        },
        onDelete: (_key, previous) => {
          version.clusterSecrets += 1;
          changed(sourcesOf([previous]));
        },
        onListed: listed(name),
        onError: errored(name),
        onRecovered: recovered(name),
      },
    });
  const sourcesOf = (entries: readonly (ClusterSecretEntry | undefined)[]): string[] => {
    const names: string[] = [];
    for (const entry of entries) if (entry?.source !== undefined) names.push(entry.source);
    return names;
  };
  const isRegistered = (labels: Readonly<Record<string, string>>): boolean =>
    labels[ARGOCD_SECRET_TYPE_LABEL] === 'cluster';
  const registered = clusterSecretWatch(
    'cluster secrets',
    `${ARGOCD_SECRET_TYPE_LABEL}=cluster`,
    () => false,
  );
  const owned = clusterSecretWatch('owned secrets', managedNamespaceSelector(config), isRegistered);

  const startClusterWatch = (apiVersion: string): ListWatch<ClusterEntry> =>
    startListWatch<ClusterEntry>(access, {
      ...common('clusters'),
      path: clustersPath(apiVersion),
      labelSelector: managedNamespaceSelector(config),
      metadataOnly: true,
      project: (object) => {
        const cluster = toSourceCluster(object);
        return { resourceVersion: cluster.resourceVersion ?? '', cluster };
      },
      handlers: {
        onUpsert: (_key, value) => {
          version.clusters += 1;
          changed([clusterSourceKey(value.cluster.namespace, value.cluster.name)]);
        },
        onDelete: (_key, previous) => {
          version.clusters += 1;
          changed([clusterSourceKey(previous.cluster.namespace, previous.cluster.name)]);
        },
        onListed: listed('clusters'),
        onError: errored('clusters'),
        onRecovered: recovered('clusters'),
      },
    });
  let clusterWatch: ListWatch<ClusterEntry> | undefined;
  let discoveryTimer: NodeJS.Timeout | undefined;
  let discoveryDelayMs = 1000;
  const discover = async (): Promise<void> => {
    const answer = await discoverClusterApi(access);
    if (stopped || clusterWatch !== undefined) return;
    clusterApi = answer;
    if (answer.state === 'served') {
      clusterWatch = startClusterWatch(answer.version);
      watches.set('clusters', clusterWatch);
    } else if (answer.state === 'unknown') {
      options.onError('clusters', answer.failure);
      // Asked again with capped back-off; Cluster sources wait, namespaces are served.
      discoveryTimer = setTimeout(() => void discover(), discoveryDelayMs).unref();
      discoveryDelayMs = Math.min(discoveryDelayMs * 2, 60_000);
    }
    discovering = false;
    settleCheck();
  };
  if (config.capiClusters) void discover();

  watches.set('namespaces', namespaces);
  watches.set('secret metadata', candidates);
  watches.set('cluster secrets', registered);
  watches.set('owned secrets', owned);

  let mergedAt = -1;
  let merged: readonly ObservedSecret[] = [];
  /** Shadows whose whole Secret the other watch does not hold (yet): the merge is incomplete. */
  let unmatchedShadows = 0;
  const merge = (): void => {
    if (mergedAt === version.clusterSecrets) return;
    const byUid = new Map<string, ObservedSecret>();
    for (const entry of registered.store.values())
      if (entry.secret !== undefined) byUid.set(entry.uid, entry.secret);
    unmatchedShadows = 0;
    for (const entry of owned.store.values()) {
      if (entry.secret !== undefined) byUid.set(entry.uid, entry.secret);
      else if (!byUid.has(entry.uid)) unmatchedShadows += 1;
    }
    merged = [...byUid.values()].sort(byNamespaceThenName);
    mergedAt = version.clusterSecrets;
  };

  return {
    namespaces: namespaces.store,
    candidates: candidates.store,
    clusters: () => clusterWatch?.store ?? NO_CLUSTERS,
    clusterApi: () => clusterApi,
    // discover() starts one watch however many calls overlap: it checks after its await.
    rediscover: () => (clusterApi?.state === 'absent' && !stopped ? discover() : Promise.resolve()),
    version,
    secretsVersion: (namespace) => `${secretGeneration}.${secretEvents.get(namespace) ?? 0}`,
    clusterSecrets() {
      merge();
      return merged;
    },
    settled() {
      return new Promise<void>((resolve) => {
        waiters.push(resolve);
        settleCheck();
      });
    },
    unhealthy() {
      const problems: { watch: WatchName; failure: ApiFailure }[] = [];
      if (clusterApi?.state === 'unknown')
        problems.push({ watch: 'clusters', failure: clusterApi.failure });
      for (const [name, watch] of watches) {
        const failure = watch.failing();
        if (failure !== undefined) problems.push({ watch: name, failure });
        else if (!watch.synced()) {
          problems.push({
            watch: name,
            failure: { kind: 'transient', message: 'not listed yet', retryable: true },
          });
        }
      }
      merge();
      if (unmatchedShadows > 0 && !problems.some((p) => p.watch === 'cluster secrets')) {
        // A registration that just gained ArgoCD's label: our watch saw it first, ArgoCD's
        // label watch has not delivered it yet. Its data is unknown for a moment.
        problems.push({
          watch: 'cluster secrets',
          failure: {
            kind: 'transient',
            message: `${unmatchedShadows} relabelled registration(s) not delivered yet`,
            retryable: true,
          },
        });
      }
      return problems;
    },
    resync() {
      for (const watch of watches.values()) watch.resync();
    },
    stats() {
      return {
        namespaces: namespaces.stats(),
        'secret metadata': candidates.stats(),
        'cluster secrets': registered.stats(),
        'owned secrets': owned.stats(),
        clusters: clusterWatch?.stats() ?? NO_STATS,
      };
    },
    wholeClusterSecrets() {
      let count = 0;
      for (const store of [registered.store, owned.store])
        for (const entry of store.values()) if (entry.secret !== undefined) count += 1;
      return count;
    },
    stop() {
      stopped = true;
      if (discoveryTimer !== undefined) clearTimeout(discoveryTimer);
      for (const watch of watches.values()) watch.stop();
      for (const resolve of waiters.splice(0)) resolve();
    },
  };
}

const NO_CLUSTERS: ReadonlyMap<string, ClusterEntry> = new Map();
const NO_STATS: ListWatchStats = { lists: 0, watches: 0, resumes: 0, expired: 0, silences: 0 };
