// The daemon's gatherer: a Snapshot made from what the watches hold (world-cache.ts), so a
// pass costs no API request in steady state. A pass reads only what changed since the last:
// a candidate Secret whose resourceVersion moved (GET, translate, drop the data), and the
// source namespaces of owned registrations that are not managed (reused when the answer
// cannot have changed); with Cluster sources on, the same for labelled Clusters and the
// Clusters that registrations record. Everything is re-listed only when a watch cannot resume and every
// resync period. Same contract as gather.ts: failures are values, and every lookup is
// `unknown` while a watch it depends on is not in sync.
import {
  clusterSecretName,
  isCandidate,
  labelKeys,
  recordedSourceKey,
} from '@argocd-cluster-registrar/core';
import type {
  Config,
  ObservedSecret,
  Snapshot,
  SourceCluster,
  SourceLookup,
  SourceNamespace,
} from '@argocd-cluster-registrar/core';
import { CLUSTER_API_ABSENT, clusterApiServed, lookUpCluster } from './capi-clusters.js';
import { classifyApiError } from '../connection/api-failure.js';
import type { ApiFailure } from '../connection/api-failure.js';
import { createCandidateTranslations } from './candidate-translations.js';
import { mapBounded } from '../concurrency.js';
import type { GatherFailure, GatherResult, Gatherer } from './gather.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { listSecrets, readNamespace, readSecret } from '../connection/kube-api.js';
import type { KubeSecret } from '../kube-objects.js';
import type { ListWatchStats, ListWatchTiming } from '../watch/list-watch.js';
import { NearMissRecord } from './near-misses.js';
import {
  byName,
  byNamespaceThenName,
  toObservedSecret,
  toSourceNamespace,
} from '../observed-objects.js';
import { startWorldCache } from './world-cache.js';
import type { CandidateMeta, WatchName, WorldChange } from './world-cache.js';

export interface WatchGathererOptions {
  /** What changed, as the watches saw it: the daemon plans the affected namespaces soon. */
  readonly onChange: (change: WorldChange) => void;
  readonly onError: (watch: string, failure: ApiFailure) => void;
  /** A watch that was failing answers again: a pass that failed for want of it can retry. */
  readonly onRecovered?: (watch: WatchName) => void;
  /** Every watch re-lists this often, whatever else happens (0: never). */
  readonly resyncPeriodMs: number;
  readonly timing?: Partial<ListWatchTiming>;
  readonly resumeFrom?: Partial<Record<WatchName, string>>;
}

export interface WatchGathererStats {
  /** GETs of candidate Secrets (one per new resourceVersion). */
  readonly secretReads: number;
  /** GETs of source namespaces. */
  readonly lookups: number;
  /** Lists of a namespace's Secrets for its near misses (namespaces without a candidate). */
  readonly nearMissLists: number;
  readonly candidates: number;
  readonly translations: number;
  /** Translations asked of a candidate that was not prepared: must stay 0. */
  readonly translationMisses: number;
  /** Whole copies of cluster Secrets held: one per Secret, however many watches see it. */
  readonly clusterSecretCopies: number;
  readonly watches: Readonly<Record<WatchName, ListWatchStats>>;
}

export interface WatchGatherer extends Gatherer {
  stats(): WatchGathererStats;
  stop(): void;
}

/** Concurrent reads per pass: enough to hide latency, few enough to stay polite. */
const READ_CONCURRENCY = 16;
const PAGE_SIZE = 500;

export function createWatchGatherer(
  access: KubeAccess,
  config: Config,
  options: WatchGathererOptions,
): WatchGatherer {
  const keys = labelKeys(config.labelPrefix);
  const translations = createCandidateTranslations(config);
  const lookups = new Map<string, SourceLookup>();
  let secretReads = 0;
  let lookupReads = 0;
  let nearMissLists = 0;
  const nearMisses = new NearMissRecord(config.providers); // messages only, never decisions

  const cache = startWorldCache(access, config, {
    onChange: (change) => {
      // A namespace that changed may answer a lookup differently now.
      if (change.all) lookups.clear();
      else for (const name of change.namespaces) lookups.delete(name);
      options.onChange(change);
    },
    onError: options.onError,
    ...(options.onRecovered !== undefined ? { onRecovered: options.onRecovered } : {}),
    ...(options.timing !== undefined ? { timing: options.timing } : {}),
    ...(options.resumeFrom !== undefined ? { resumeFrom: options.resumeFrom } : {}),
  });
  const resyncTimer =
    options.resyncPeriodMs > 0
      ? setInterval(() => {
          cache.resync();
        }, options.resyncPeriodMs).unref()
      : undefined;

  // Views rebuilt only when what they are made of changed.
  let namespacesAt = -1;
  let namespaceList: readonly SourceNamespace[] = [];
  let managed = new Map<string, SourceNamespace>();
  let candidatesKey = '';
  let candidateList: readonly ObservedSecret[] = [];
  let clustersAt = -1;
  let clusterList: readonly SourceCluster[] = [];
  /** Secret `<namespace>/<name>` → the Cluster it is the kubeconfig of (clusterView). */
  let clusterSecrets = new Map<string, SourceCluster>();
  const clusterKeys = new Set<string>();
  let saidAbsent = false;

  const clusterView = (): void => {
    if (clustersAt === cache.version.clusters) return;
    const entries = [...cache.clusters().values()].map((entry) => entry.cluster);
    clusterList = entries.sort(byNamespaceThenName);
    clusterSecrets = new Map();
    clusterKeys.clear();
    for (const cluster of clusterList) {
      clusterKeys.add(`${cluster.namespace}/${cluster.name}`);
      for (const provider of config.providers) {
        const name = clusterSecretName(provider.secretNamePattern, cluster.name);
        if (name !== undefined) clusterSecrets.set(`${cluster.namespace}/${name}`, cluster);
      }
    }
    clustersAt = cache.version.clusters;
  };

  const namespaceView = (): void => {
    if (namespacesAt === cache.version.namespaces) return;
    managed = new Map();
    for (const entry of cache.namespaces.values())
      managed.set(entry.namespace.name, entry.namespace);
    namespaceList = [...managed.values()].sort(byName);
    namespacesAt = cache.version.namespaces;
  };

  const readCandidate = async (
    meta: CandidateMeta,
    variant: boolean,
    failures: GatherFailure[],
  ): Promise<ObservedSecret | undefined> => {
    secretReads += 1;
    try {
      const secret = await readSecret(access, meta.namespace, meta.name);
      return translations.prepare(toObservedSecret(secret, meta.namespace), variant);
    } catch (err) {
      const failure = classifyApiError(err);
      // Gone since the event: the watch reports the deletion next.
      if (failure.kind === 'not-found') return undefined;
      failures.push({ scope: `get secret ${meta.namespace}/${meta.name}`, failure });
      // A stale translation beats none while the read fails (deletions are withheld anyway).
      return translations.kept(meta.uid);
    }
  };

  const candidateView = async (failures: GatherFailure[]): Promise<readonly ObservedSecret[]> => {
    const chosen: ObservedSecret[] = [];
    const toRead: { meta: CandidateMeta; variant: boolean }[] = [];
    for (const meta of cache.candidates.values()) {
      // A candidate of a managed namespace, or the kubeconfig of a managed Cluster.
      const source =
        managed.get(meta.namespace) ?? clusterSecrets.get(`${meta.namespace}/${meta.name}`);
      if (source === undefined) continue;
      // A `<prefix>server` override translates differently: a source that gains or loses
      // one has its candidates read again, once.
      const variant = source.annotations[keys.server] !== undefined;
      const ready = translations.current(meta.uid, meta.resourceVersion, variant);
      if (ready !== undefined) chosen.push(ready);
      else toRead.push({ meta, variant });
    }
    const key = `${cache.version.candidates}:${cache.version.namespaces}:${cache.version.clusters}`;
    if (toRead.length === 0 && key === candidatesKey) return candidateList;
    const read = await mapBounded(toRead, READ_CONCURRENCY, ({ meta, variant }) =>
      readCandidate(meta, variant, failures),
    );
    for (const secret of read) if (secret !== undefined) chosen.push(secret);
    translations.retain(new Set(chosen.map((secret) => secret.uid)));
    candidateList = chosen.sort(byNamespaceThenName);
    // A view with reads still to repeat is not reused as is.
    candidatesKey = failures.length === 0 && toRead.length === 0 ? key : '';
    return candidateList;
  };

  // The Secrets of a namespace without a candidate are listed, as the one-shot gatherer lists
  // every managed namespace's, and recorded through the same NearMissRecord: the daemon names
  // the same near misses as `--once`. Only when they may have changed since (the watch saw a
  // Secret event in the namespace, or re-listed): a waiting namespace costs no request in
  // steady state.
  const listNearMisses = async (namespace: string, failures: GatherFailure[]): Promise<void> => {
    const version = cache.secretsVersion(namespace);
    const secrets: KubeSecret[] = [];
    let token: string | undefined;
    try {
      do {
        nearMissLists += 1;
        const page = await listSecrets(access, namespace, { limit: PAGE_SIZE, continue: token });
        secrets.push(...(page.items ?? []));
        token = page.metadata?.continue || undefined;
      } while (token !== undefined);
    } catch (err) {
      // Messages only: the namespace's candidates are known from the watch; asked again next pass.
      failures.push({ scope: `list secrets in ${namespace}`, failure: classifyApiError(err) });
      return;
    }
    nearMisses.record(namespace, secrets, version);
  };

  const nearMissView = async (
    candidates: readonly ObservedSecret[],
    unread: ReadonlySet<string>,
    failures: GatherFailure[],
  ): Promise<void> => {
    const served = new Set<string>();
    for (const secret of candidates)
      if (isCandidate({ name: secret.name, keys: Object.keys(secret.data) }, config.providers))
        served.add(secret.namespace);
    const toList: string[] = [];
    for (const namespace of namespaceList) {
      const name = namespace.name;
      if (served.has(name)) nearMisses.forget(name);
      else if (!unread.has(name) && !nearMisses.current(name, cache.secretsVersion(name)))
        toList.push(name);
    }
    await mapBounded(toList, READ_CONCURRENCY, (name) => listNearMisses(name, failures));
  };

  const lookUp = async (name: string): Promise<SourceLookup> => {
    lookupReads += 1;
    if (name.includes('/')) {
      const api = cache.clusterApi();
      if (api !== undefined) return lookUpCluster(access, api, name);
    }
    try {
      const namespace = toSourceNamespace(await readNamespace(access, name));
      return {
        state: 'present',
        uid: namespace.uid,
        labels: namespace.labels,
        ...(namespace.deletionTimestamp !== undefined
          ? { deletionTimestamp: namespace.deletionTimestamp }
          : {}),
      };
    } catch (err) {
      const failure = classifyApiError(err);
      if (failure.kind === 'not-found') return { state: 'notFound' };
      return { state: 'unknown', reason: failure.message };
    }
  };

  const gather = async (fullPass: boolean): Promise<GatherResult> => {
    // CRDs installed after start-up are found by the next full pass (one GET while missing).
    if (fullPass) await cache.rediscover();
    await cache.settled();
    const before = secretReads + lookupReads + nearMissLists;
    const failures: GatherFailure[] = cache
      .unhealthy()
      .map(({ watch, failure }) => ({ scope: `watch ${watch}`, failure }));
    namespaceView();
    clusterView();
    const notices: string[] = [];
    const api = cache.clusterApi();
    if (api?.state === 'absent' && !saidAbsent) notices.push(CLUSTER_API_ABSENT);
    const news = api?.state === 'served' && saidAbsent ? [clusterApiServed(api.version)] : [];
    saidAbsent = api?.state === 'absent';
    const candidateSecrets = await candidateView(failures);
    const clusterSecrets = cache.clusterSecrets();

    const lookupNames = unmanagedSources(clusterSecrets, managed, clusterKeys, keys, config);
    const incomplete = failures.find(
      (f) =>
        f.scope === 'watch namespaces' ||
        f.scope === 'watch cluster secrets' ||
        f.scope === 'watch owned secrets',
    );
    const clustersIncomplete = failures.find((f) => f.scope === 'watch clusters') ?? incomplete;
    const toLookUp: string[] = [];
    for (const name of lookupNames) {
      const kept = lookups.get(name);
      const unsynced = name.includes('/') ? clustersIncomplete : incomplete;
      if (unsynced !== undefined) {
        lookups.set(name, {
          state: 'unknown',
          reason: `the ${unsynced.scope.replace(/^watch /, '')} watch is not in sync`,
        });
      } else if (kept === undefined || !reusable(kept, fullPass)) toLookUp.push(name);
    }
    const answers = await mapBounded(toLookUp, READ_CONCURRENCY, lookUp);
    toLookUp.forEach((name, index) => lookups.set(name, answers[index] as SourceLookup));
    const needed = new Set(lookupNames);
    for (const name of lookups.keys()) if (!needed.has(name)) lookups.delete(name);
    const sourceLookups: Record<string, SourceLookup> = {};
    for (const name of lookupNames)
      sourceLookups[name] = lookups.get(name) ?? { state: 'unknown', reason: 'not looked up' };
    // An unknown answer is asked again next time.
    for (const name of lookupNames)
      if (lookups.get(name)?.state === 'unknown') lookups.delete(name);

    const unread = unreadParts(failures, [
      ...namespaceList.map((namespace) => namespace.name),
      ...clusterList.map((cluster) => cluster.namespace),
    ]);
    await nearMissView(
      candidateSecrets,
      new Set((unread.unreadNamespaces ?? []).map((namespace) => namespace.name)),
      failures,
    );
    const snapshot: Snapshot = {
      namespaces: namespaceList,
      ...(clusterList.length === 0 ? {} : { clusters: clusterList }),
      candidateSecrets,
      clusterSecrets,
      sourceLookups,
      ...unread,
      ...nearMisses.snapshotField(managed),
    };
    return {
      snapshot,
      failures,
      requests: secretReads + lookupReads + nearMissLists - before,
      ...(notices.length === 0 ? {} : { notices }),
      ...(news.length === 0 ? {} : { news }),
    };
  };

  return {
    full: () => gather(true),
    refresh: () => gather(false),
    translate: translations.translate,
    stats() {
      const t = translations.stats();
      return {
        secretReads,
        lookups: lookupReads,
        nearMissLists,
        candidates: t.candidates,
        translations: t.translations,
        translationMisses: t.misses,
        clusterSecretCopies: cache.wholeClusterSecrets(),
        watches: cache.stats(),
      };
    },
    stop() {
      if (resyncTimer !== undefined) clearInterval(resyncTimer);
      cache.stop();
    },
  };
}

/**
 * A `notFound` stays true for the uid a registration recorded (uids are never reused); a
 * `present` answer can only err on the side of keeping a registration, so it is reused
 * between full passes (an unmanaged namespace sends no watch events) and asked again on
 * each. A terminating namespace is asked again each time: it is about to become `notFound`.
 */
function reusable(lookup: SourceLookup, fullPass: boolean): boolean {
  if (lookup.state === 'notFound') return true;
  return lookup.state === 'present' && lookup.deletionTimestamp === undefined && !fullPass;
}

/**
 * Sources (namespaces, `<namespace>/<name>` of Clusters) recorded by owned registrations that
 * are not among the managed ones; Clusters only with Cluster sources on.
 */
function unmanagedSources(
  clusterSecrets: readonly ObservedSecret[],
  managed: ReadonlyMap<string, SourceNamespace>,
  clusters: ReadonlySet<string>,
  keys: ReturnType<typeof labelKeys>,
  config: Config,
): string[] {
  const names = new Set<string>();
  for (const secret of clusterSecrets) {
    if (secret.labels[keys.managedBy] !== config.managedBy) continue;
    const source = recordedSourceKey(secret.labels, keys);
    if (source === undefined || managed.has(source) || clusters.has(source)) continue;
    if (source.includes('/') && !config.capiClusters) continue;
    names.add(source);
  }
  return [...names].sort();
}

/**
 * What this pass could not read, recorded in the snapshot so the planner decides what it
 * withholds: every managed namespace's candidates while the Secret metadata watch is out of
 * sync, a namespace whose changed candidate could not be read, and the target namespace's
 * cluster Secrets while either of their watches is out of sync.
 */
function unreadParts(
  failures: readonly GatherFailure[],
  namespaces: readonly string[],
): Pick<Snapshot, 'unreadNamespaces' | 'clusterSecretsUnread'> {
  const unread = new Map<string, string>();
  const metadata = failures.find((f) => f.scope === 'watch secret metadata');
  if (metadata !== undefined) {
    const reason = `the secret metadata watch is not in sync: ${metadata.failure.message}`;
    for (const namespace of namespaces) unread.set(namespace, reason);
  }
  for (const f of failures) {
    const read = /^get secret ([^/]+)\//.exec(f.scope);
    if (read?.[1] !== undefined && !unread.has(read[1]))
      unread.set(read[1], `${f.scope} failed: ${f.failure.message}`);
  }
  const target = failures.find(
    (f) => f.scope === 'watch cluster secrets' || f.scope === 'watch owned secrets',
  );
  return {
    ...(unread.size === 0
      ? {}
      : {
          unreadNamespaces: [...unread]
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([name, reason]) => ({ name, reason })),
        }),
    ...(target === undefined
      ? {}
      : {
          clusterSecretsUnread: `the ${target.scope.replace(/^watch /, '')} watch is not in sync: ${target.failure.message}`,
        }),
  };
}
