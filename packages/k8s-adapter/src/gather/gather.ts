// Gather: read everything the planner needs into a Snapshot. Read-only. Every failure is a
// value in `failures`; nothing is inferred from a failed read (a lookup is `notFound` only
// on a 404, and every lookup is `unknown` when the lists it depends on are incomplete).
// What could not be read is recorded in the snapshot itself (`unreadNamespaces`,
// `clusterSecretsUnread`): the planner, not this file or its caller, decides what that
// withholds.
import {
  ARGOCD_SECRET_TYPE_LABEL,
  createSecretKeyTranslator,
  labelKeys,
  matchGlob,
} from '@argocd-cluster-registrar/core';
import { clusterSourceKey, recordedSourceKey } from '@argocd-cluster-registrar/core';
import type {
  Config,
  ObservedSecret,
  Snapshot,
  SourceCluster,
  SourceLookup,
  SourceNamespace,
  Translator,
} from '@argocd-cluster-registrar/core';
import { mapBounded } from '../concurrency.js';
import {
  candidateScope,
  failureMessage,
  Pass,
  type GatherFailure,
  type Outcome,
} from './gather-pass.js';
import {
  forget,
  incompleteReason,
  presentLookup,
  reusableLookup,
  unreadParts,
  uidsOf,
  type View,
} from './gather-view.js';
import {
  CLUSTER_API_ABSENT,
  discoverClusterApi,
  listClusters,
  lookUpCluster,
  toSourceCluster,
  type ClusterApi,
} from './capi-clusters.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { listNamespaces, listSecrets, readNamespace } from '../connection/kube-api.js';
import type { KubeNamespace, KubeSecret } from '../kube-objects.js';
import type { WatchedObject } from '../watch/list-watch-types.js';
import {
  byName,
  byNamespaceThenName,
  toObservedSecret,
  toSourceNamespace,
} from '../observed-objects.js';
import { NearMissRecord } from './near-misses.js';
import { managedNamespaceSelector } from './selectors.js';
import { createTranslationCache } from './translation-cache.js';

export type { GatherFailure } from './gather-pass.js';

export interface GatherResult {
  readonly snapshot: Snapshot;
  readonly failures: readonly GatherFailure[];
  /**
   * Things worth saying once that are not failures (Cluster sources on, but no Cluster API
   * CRDs): each is returned by the first gather that finds it, not again.
   */
  readonly notices?: readonly string[];
  /** Good news, said once at info level (the Cluster API CRDs were installed meanwhile). */
  readonly news?: readonly string[];
  /** API requests this gather made. */
  readonly requests: number;
}

export interface Gatherer {
  /** Lists everything; replaces the cached view. */
  full(): Promise<GatherResult>;
  /**
   * Re-reads those namespaces (+ their Secrets) and the target namespace's cluster Secrets,
   * reusing the cached rest; falls back to full() when nothing complete is cached.
   */
  refresh(namespaces: readonly string[]): Promise<GatherResult>;
  /** Memoised by Secret uid + resourceVersion + key + provider. */
  readonly translate: Translator;
}

/** Concurrent reads per pass: enough to hide latency, few enough to stay polite. */
const READ_CONCURRENCY = 16;
const PAGE_SIZE = 500;

export function createGatherer(access: KubeAccess, config: Config): Gatherer {
  const keys = labelKeys(config.labelPrefix);
  const managedSelector = managedNamespaceSelector(config);
  // Refusals name the real `<prefix>server` annotation, not a placeholder.
  const cache = createTranslationCache(
    createSecretKeyTranslator({ labelPrefix: config.labelPrefix }),
  );
  let view: View | undefined;
  const nearMisses = new NearMissRecord(config.providers); // messages only, never decisions

  const isManaged = (namespace: SourceNamespace): boolean =>
    namespace.labels[keys.managedBy] === config.managedBy;
  const isCandidateName = (name: string): boolean =>
    config.providers.some((p) => matchGlob(p.secretNamePattern, name));

  const listCandidates = async (
    pass: Pass,
    namespace: string,
  ): Promise<ObservedSecret[] | undefined> => {
    const secrets = await pass.listAll<KubeSecret>(candidateScope(namespace), (token) =>
      listSecrets(access, namespace, { limit: PAGE_SIZE, continue: token }),
    );
    if (secrets !== undefined) nearMisses.record(namespace, secrets);
    return secrets
      ?.filter((secret) => isCandidateName(secret.metadata?.name ?? ''))
      .map((secret) => toObservedSecret(secret, namespace));
  };

  // Cluster Secrets: ArgoCD's label (ours, foreign) plus ours (which adds demoted ones), by uid.
  const clusterSecretSelectors = [`${ARGOCD_SECRET_TYPE_LABEL}=cluster`, managedSelector];
  const clusterSecretScope = (labelSelector: string): string =>
    `list secrets (${labelSelector}) in ${config.targetNamespace}`;
  const clusterSecretsUnread = (
    pass: Pass,
    clusterSecrets: readonly ObservedSecret[] | undefined,
  ): string | undefined =>
    clusterSecrets === undefined
      ? failureMessage(pass, clusterSecretSelectors.map(clusterSecretScope))
      : undefined;
  const listClusterSecrets = async (pass: Pass): Promise<ObservedSecret[] | undefined> => {
    const namespace = config.targetNamespace;
    const [registered, owned] = await Promise.all(
      clusterSecretSelectors.map((labelSelector) =>
        pass.listAll<KubeSecret>(clusterSecretScope(labelSelector), (token) =>
          listSecrets(access, namespace, { labelSelector, limit: PAGE_SIZE, continue: token }),
        ),
      ),
    );
    if (registered === undefined || owned === undefined) return undefined;
    const byUid = new Map<string, ObservedSecret>();
    for (const secret of [...registered, ...owned]) {
      const observed = toObservedSecret(secret, namespace);
      byUid.set(observed.uid, observed);
    }
    return [...byUid.values()].sort(byNamespaceThenName);
  };

  const lookUp = async (pass: Pass, name: string): Promise<SourceLookup> => {
    if (name.includes('/')) {
      pass.requests += 1;
      return lookUpCluster(access, clusterApi, name);
    }
    const result = await pass.call(
      `get namespace ${name}`,
      () => readNamespace(access, name),
      true,
    );
    if (result.ok) return presentLookup(toSourceNamespace(result.value));
    if (result.failure.kind === 'not-found') return { state: 'notFound' };
    return { state: 'unknown', reason: result.failure.message };
  };

  /** Source namespaces named by owned registrations that are not among the managed ones. */
  const unmanagedSources = (
    clusterSecrets: readonly ObservedSecret[],
    managed: ReadonlyMap<string, SourceNamespace>,
  ): string[] => {
    const names = new Set<string>();
    for (const secret of clusterSecrets) {
      if (secret.labels[keys.managedBy] !== config.managedBy) continue;
      const source = recordedSourceKey(secret.labels, keys);
      if (source === undefined || managed.has(source) || clusters.has(source)) continue;
      // Cluster sources off: nothing is read of Cluster API objects, and the planner keeps
      // their registrations, saying why.
      if (source.includes('/') && !config.capiClusters) continue;
      names.add(source);
    }
    return [...names].sort();
  };

  // Cluster sources (opt-in): discovered on every full gather, so CRDs installed later are
  // picked up; that they are missing is said once.
  let clusterApi: ClusterApi = { state: 'absent' };
  let clusters = new Map<string, SourceCluster>();
  let saidAbsent = false;
  const gatherClusters = async (pass: Pass): Promise<string[]> => {
    clusters = new Map();
    if (!config.capiClusters) return [];
    pass.requests += 1;
    clusterApi = await discoverClusterApi(access);
    if (clusterApi.state === 'unknown') {
      pass.failures.push({ scope: 'discover cluster.x-k8s.io', failure: clusterApi.failure });
      return [];
    }
    if (clusterApi.state === 'absent') {
      const notice = saidAbsent ? [] : [CLUSTER_API_ABSENT];
      saidAbsent = true;
      return notice;
    }
    saidAbsent = false;
    const version = clusterApi.version;
    const listed = await pass.listAll<WatchedObject>('list clusters.cluster.x-k8s.io', (token) =>
      listClusters(access, version, {
        labelSelector: managedSelector,
        limit: PAGE_SIZE,
        continue: token,
      }),
    );
    for (const item of listed ?? []) {
      const cluster = toSourceCluster(item);
      clusters.set(clusterSourceKey(cluster.namespace, cluster.name), cluster);
    }
    return [];
  };

  const snapshotOf = (
    current: View,
    lookupNames: readonly string[],
    clusterSecretsReason: string | undefined,
  ): Snapshot => {
    const sourceLookups: Record<string, SourceLookup> = {};
    for (const name of lookupNames) {
      sourceLookups[name] = current.lookups.get(name) ?? {
        state: 'unknown',
        reason: 'not looked up',
      };
    }
    return {
      namespaces: [...current.namespaces.values()].sort(byName),
      ...(clusters.size === 0
        ? {}
        : { clusters: [...clusters.values()].sort(byNamespaceThenName) }),
      candidateSecrets: [...current.candidates.values()].flat().sort(byNamespaceThenName),
      clusterSecrets: current.clusterSecrets,
      sourceLookups,
      ...unreadParts(
        current,
        clusterSecretsReason,
        new Set([...clusters.values()].map((cluster) => cluster.namespace)),
      ),
      ...nearMisses.snapshotField(current.namespaces),
    };
  };

  const full = async (): Promise<GatherResult> => {
    const pass = new Pass();
    const notices = await gatherClusters(pass);
    const clustersFailed = pass.failures.length > 0;
    const namespaceList = await pass.listAll<KubeNamespace>('list namespaces', (token) =>
      listNamespaces(access, { labelSelector: managedSelector, limit: PAGE_SIZE, continue: token }),
    );
    const namespaces = new Map<string, SourceNamespace>();
    for (const item of namespaceList ?? []) {
      const namespace = toSourceNamespace(item);
      namespaces.set(namespace.name, namespace);
    }

    // The namespaces whose Secrets hold kubeconfigs: the managed ones and those of Clusters.
    const names = [
      ...new Set([...namespaces.keys(), ...[...clusters.values()].map((c) => c.namespace)]),
    ].sort();
    const [candidateLists, clusterSecrets] = await Promise.all([
      mapBounded(names, READ_CONCURRENCY, (name) => listCandidates(pass, name)),
      listClusterSecrets(pass),
    ]);
    const candidates = new Map<string, readonly ObservedSecret[]>();
    const failedCandidates = new Map<string, string>();
    names.forEach((name, index) => {
      const list = candidateLists[index];
      if (list === undefined)
        failedCandidates.set(name, failureMessage(pass, [candidateScope(name)]));
      else candidates.set(name, list);
    });

    const next: View = {
      namespaces,
      candidates,
      clusterSecrets: clusterSecrets ?? [],
      lookups: new Map(),
      failedCandidates,
    };
    const lookupNames = unmanagedSources(next.clusterSecrets, namespaces);
    const incomplete =
      incompleteReason(
        namespaceList === undefined,
        clusterSecrets === undefined,
        config.targetNamespace,
      ) ?? (clustersFailed ? 'the list of managed Clusters failed' : undefined);
    if (incomplete === undefined) {
      const lookups = await mapBounded(lookupNames, READ_CONCURRENCY, (name) => lookUp(pass, name));
      lookupNames.forEach((name, index) => next.lookups.set(name, lookups[index] as SourceLookup));
    } else {
      for (const name of lookupNames)
        next.lookups.set(name, { state: 'unknown', reason: incomplete });
    }

    cache.retain(uidsOf(candidates), new Set(candidates.keys()));
    // Only a complete view is worth reusing; an incomplete one forces the next refresh to list.
    view = incomplete === undefined ? next : undefined;
    return {
      snapshot: snapshotOf(next, lookupNames, clusterSecretsUnread(pass, clusterSecrets)),
      failures: pass.failures,
      requests: pass.requests,
      ...(notices.length === 0 ? {} : { notices }),
    };
  };

  const refresh = async (requested: readonly string[]): Promise<GatherResult> => {
    const current = view;
    // Cluster sources: a refresh by namespace names cannot tell which Clusters changed.
    if (current === undefined || config.capiClusters) return full();
    const pass = new Pass();
    const names = [...new Set([...requested, ...current.failedCandidates.keys()])].sort();

    // Re-read each namespace: still managed, no longer managed (label removed), or gone.
    const reads = await mapBounded(names, READ_CONCURRENCY, (name) =>
      pass.call(`get namespace ${name}`, () => readNamespace(access, name), true),
    );
    const freshLookups = new Map<string, SourceLookup>();
    const stillManaged: string[] = [];
    names.forEach((name, index) => {
      const read = reads[index] as Outcome<KubeNamespace>;
      if (read.ok) {
        const namespace = toSourceNamespace(read.value);
        freshLookups.set(name, presentLookup(namespace));
        if (isManaged(namespace)) {
          current.namespaces.set(name, namespace);
          stillManaged.push(name);
        } else {
          forget(current, name);
        }
      } else if (read.failure.kind === 'not-found') {
        freshLookups.set(name, { state: 'notFound' });
        forget(current, name);
      } else {
        // Unknown: keep what we had for it; nothing is decided from a failed read.
        freshLookups.set(name, { state: 'unknown', reason: read.failure.message });
      }
    });

    const [candidateLists, clusterSecrets] = await Promise.all([
      mapBounded(stillManaged, READ_CONCURRENCY, (name) => listCandidates(pass, name)),
      listClusterSecrets(pass),
    ]);
    stillManaged.forEach((name, index) => {
      const list = candidateLists[index];
      if (list === undefined) {
        current.failedCandidates.set(name, failureMessage(pass, [candidateScope(name)]));
      } else {
        current.candidates.set(name, list);
        current.failedCandidates.delete(name);
      }
    });
    if (clusterSecrets !== undefined) current.clusterSecrets = clusterSecrets;

    const lookupNames = unmanagedSources(current.clusterSecrets, current.namespaces);
    const incomplete = incompleteReason(
      false,
      clusterSecrets === undefined,
      config.targetNamespace,
    );
    const toLookUp: string[] = [];
    for (const name of lookupNames) {
      const fresh = freshLookups.get(name);
      const kept = current.lookups.get(name);
      if (incomplete !== undefined)
        current.lookups.set(name, { state: 'unknown', reason: incomplete });
      else if (fresh !== undefined) current.lookups.set(name, fresh);
      else if (kept !== undefined && reusableLookup(kept)) continue;
      else toLookUp.push(name);
    }
    const lookups = await mapBounded(toLookUp, READ_CONCURRENCY, (name) => lookUp(pass, name));
    toLookUp.forEach((name, index) => current.lookups.set(name, lookups[index] as SourceLookup));
    // Drop lookups nobody needs any more, so the cache tracks the registrations.
    const needed = new Set(lookupNames);
    for (const name of current.lookups.keys()) if (!needed.has(name)) current.lookups.delete(name);

    cache.retain(uidsOf(current.candidates), new Set(names));
    if (incomplete !== undefined) view = undefined;
    return {
      snapshot: snapshotOf(current, lookupNames, clusterSecretsUnread(pass, clusterSecrets)),
      failures: pass.failures,
      requests: pass.requests,
    };
  };

  return { full, refresh, translate: cache.translate };
}
