// The snapshot assembler: one pass over a world source (world-source.ts) makes a Snapshot.
// Read-only; every failure is a value in `failures`, and nothing is inferred from a failed
// read: what could not be read is recorded in the snapshot itself, and the planner decides
// what that withholds. Its steps, in order: bring the source up to date, index it, take the
// candidates (reading only those that changed), say what was unread, look up the sources of
// owned registrations that are not managed, and record near misses. What it keeps between
// passes: the lookups it may reuse, the near misses, the last candidate list.
import {
  CAPI_GROUP,
  clusterSecretName,
  isCandidate,
  labelKeys,
  selectorMatches,
} from '@argocd-cluster-registrar/core';
import type {
  Config,
  LabelKeys,
  ObservedSecret,
  SourceCluster,
  SourceNamespace,
} from '@argocd-cluster-registrar/core';
import { mapBounded } from '../concurrency.js';
import type { ChildProbes } from './child-probes.js';
import type { ProvisionerSleep } from './provisioner-sleep.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { NearMissRecord } from './near-misses.js';
import { byNamespaceThenName } from '../observed-objects.js';
import { Pass } from './gather-failure.js';
import { READ_CONCURRENCY, SourceLookups } from './source-lookups.js';
import type { TranslationCache, TranslationVariant } from './translation-cache.js';
import { whatWasUnread } from './unread.js';
import type { Unread } from './unread.js';
import type { CandidateMeta, GatherResult, WorldSource } from './world-source.js';

/** Said once when Cluster sources are on and the group is not served. */
export const CLUSTER_API_ABSENT = `Cluster sources are on (--capi-clusters), but the API server does not serve ${CAPI_GROUP} (the Cluster API CRDs are not installed); namespace sources are served meanwhile, and the daemon looks again on each full pass`;

/** Said (at info level) by the daemon's pass that finds the group served after all. */
export function clusterApiServed(version: string): string {
  return `Cluster sources are served now: the API server serves ${CAPI_GROUP}/${version}`;
}

/** The sources of one pass, indexed. */
interface WorldIndex {
  /** As the world source gave them (the index is rebuilt when they change). */
  readonly listedNamespaces: readonly SourceNamespace[];
  readonly listedClusters: readonly SourceCluster[];
  /** Those the target admits (all, without a selector). */
  readonly namespaces: readonly SourceNamespace[];
  readonly managed: ReadonlyMap<string, SourceNamespace>;
  readonly clusters: readonly SourceCluster[];
  /** `<namespace>/<name>` of each managed Cluster. */
  readonly clusterKeys: ReadonlySet<string>;
  /** Secret `<namespace>/<name>` → the Cluster it is the kubeconfig of. */
  readonly clusterSecrets: ReadonlyMap<string, SourceCluster>;
}

export class SnapshotAssembler {
  private readonly keys: LabelKeys;
  private readonly lookups: SourceLookups;
  /** Messages only, never decisions. */
  private readonly nearMisses: NearMissRecord;
  private saidAbsent = false;
  private index: WorldIndex | undefined;
  /** The last candidate list, and the source version it was made at when it can be reused. */
  private candidateList: readonly ObservedSecret[] = [];
  private candidatesAt: string | undefined;

  constructor(
    access: KubeAccess,
    private readonly config: Config,
    private readonly source: WorldSource,
    private readonly translations: TranslationCache,
    /** With `--probe-children`: what the probes of registered children found. */
    private readonly children?: ChildProbes,
    /** With `--kamaji-sleep` or `--vcluster-sleep`: what the provisioners' objects say. */
    private readonly sleep?: ProvisionerSleep,
  ) {
    this.keys = labelKeys(config.labelPrefix);
    this.lookups = new SourceLookups(access, config);
    this.nearMisses = new NearMissRecord(config.providers);
  }

  /** GETs of sources over the assembler's life. */
  get lookupsAsked(): number {
    return this.lookups.asked;
  }

  /** Sources changed (`undefined`: any may have): their lookups are asked again. */
  forget(names: readonly string[] | undefined): void {
    this.lookups.forget(names);
  }

  async assemble(fullPass: boolean): Promise<GatherResult> {
    const pass = new Pass();
    await this.source.begin(pass, fullPass);
    const world = this.indexed();
    const { notices, news } = this.notices();
    const candidateSecrets = await this.candidates(pass, world);
    const clusterSecrets = this.source.clusterSecrets();
    const unread = whatWasUnread(pass.failures, this.config.targetNamespace, [
      ...world.namespaces.map((namespace) => namespace.name),
      ...world.clusters.map((cluster) => cluster.namespace),
    ]);
    const names = this.lookups.unmanagedSources(clusterSecrets, world.managed, world.clusterKeys);
    const sourceLookups = await this.lookups.lookUp(
      pass,
      names,
      unread,
      this.source.clusterApi(),
      fullPass,
    );
    const nearMissNamespaces = await this.recordNearMisses(pass, world, candidateSecrets, unread);
    const api = this.source.clusterApi();
    const children = await this.probed(clusterSecrets);
    const provisioners = await this.sleep?.read(fullPass);
    notices.push(...(this.sleep?.notices() ?? []));
    pass.failures.push(...(this.sleep?.failures() ?? []));
    return {
      snapshot: {
        namespaces: world.namespaces,
        ...(world.clusters.length === 0 ? {} : { clusters: world.clusters }),
        candidateSecrets,
        clusterSecrets,
        sourceLookups,
        ...(unread.unreadNamespaces === undefined
          ? {}
          : { unreadNamespaces: unread.unreadNamespaces }),
        ...(unread.clusterSecretsUnread === undefined
          ? {}
          : { clusterSecretsUnread: unread.clusterSecretsUnread }),
        ...this.nearMisses.snapshotField(nearMissNamespaces),
        ...(children === undefined ? {} : { children }),
        ...(provisioners === undefined ? {} : { provisioners }),
      },
      failures: pass.failures,
      requests: pass.requests,
      ...(notices.length === 0 ? {} : { notices }),
      ...(news.length === 0 ? {} : { news }),
      ...(api?.state === 'served' ? { clusterApiVersion: api.version } : {}),
    };
  }

  /** The registrations to probe are the ones just read; a one-shot run probes them now. */
  private async probed(
    clusterSecrets: readonly ObservedSecret[],
  ): Promise<GatherResult['snapshot']['children']> {
    const children = this.children;
    if (children === undefined) return undefined;
    children.track(clusterSecrets);
    if (children.inPass) await children.probeDue();
    return children.observed();
  }

  /** Rebuilt only when the source hands over other namespaces or Clusters. */
  private indexed(): WorldIndex {
    const listedNamespaces = this.source.namespaces();
    const listedClusters = this.source.clusters();
    const last = this.index;
    if (last?.listedNamespaces === listedNamespaces && last.listedClusters === listedClusters)
      return last;
    // A target's selector admits some sources; the others are looked up like any unmanaged
    // source, so their registrations in this target rest on a proof as always.
    const selector = this.config.target?.selector;
    const admits = (labels: Readonly<Record<string, string>>): boolean =>
      selector === undefined || selectorMatches(selector, labels);
    const namespaces =
      last?.listedNamespaces === listedNamespaces
        ? last.namespaces
        : selector === undefined
          ? listedNamespaces
          : listedNamespaces.filter((namespace) => admits(namespace.labels));
    const clusters =
      selector === undefined
        ? listedClusters
        : listedClusters.filter((cluster) => admits(cluster.labels));
    const managed =
      last?.namespaces === namespaces
        ? last.managed
        : new Map(namespaces.map((namespace) => [namespace.name, namespace]));
    const clusterKeys = new Set<string>();
    const clusterSecrets = new Map<string, SourceCluster>();
    for (const cluster of clusters) {
      clusterKeys.add(`${cluster.namespace}/${cluster.name}`);
      for (const provider of this.config.providers) {
        const name = clusterSecretName(provider.secretNamePattern, cluster.name);
        if (name !== undefined) clusterSecrets.set(`${cluster.namespace}/${name}`, cluster);
      }
    }
    this.index = {
      listedNamespaces,
      listedClusters,
      namespaces,
      managed,
      clusters,
      clusterKeys,
      clusterSecrets,
    };
    return this.index;
  }

  /**
   * Cluster sources are on but their CRDs are not served: said once, until they are; and
   * once more, as news, when a later pass finds them served.
   */
  private notices(): { notices: string[]; news: string[] } {
    const api = this.source.clusterApi();
    const absent = api?.state === 'absent';
    const notices = absent && !this.saidAbsent ? [CLUSTER_API_ABSENT] : [];
    const news = api?.state === 'served' && this.saidAbsent ? [clusterApiServed(api.version)] : [];
    this.saidAbsent = absent;
    return { notices, news };
  }

  /**
   * The candidates of managed namespaces and the kubeconfigs of managed Clusters; a candidate
   * whose version moved is read (and translated) again, the others are taken as they are.
   */
  private async candidates(pass: Pass, world: WorldIndex): Promise<readonly ObservedSecret[]> {
    const chosen: ObservedSecret[] = [];
    const toRead: { candidate: CandidateMeta; variant: TranslationVariant }[] = [];
    for (const candidate of this.source.candidates()) {
      const namespace = world.managed.get(candidate.namespace);
      const owner =
        namespace ?? world.clusterSecrets.get(`${candidate.namespace}/${candidate.name}`);
      if (owner === undefined) continue;
      // A `<prefix>server` override translates differently: a source that gains or loses
      // one has its candidates read again, once. A Cluster's refusals name its annotation.
      const variant: TranslationVariant = {
        serverOverridden: owner.annotations[this.keys.server] !== undefined,
        clusterSource: namespace === undefined,
      };
      const ready = this.source.ready(candidate, variant);
      if (ready !== undefined) chosen.push(ready);
      else toRead.push({ candidate, variant });
    }
    const version = this.source.version();
    if (toRead.length === 0 && version === this.candidatesAt) return this.candidateList;
    const read = await mapBounded(toRead, READ_CONCURRENCY, ({ candidate, variant }) =>
      this.source.read(pass, candidate, variant),
    );
    for (const secret of read) if (secret !== undefined) chosen.push(secret);
    this.translations.retain(new Set(chosen.map((secret) => secret.uid)));
    this.candidateList = chosen.sort(byNamespaceThenName);
    // A list with reads still to repeat is not reused as is.
    this.candidatesAt = pass.failures.length === 0 && toRead.length === 0 ? version : undefined;
    return this.candidateList;
  }

  /**
   * The Secrets of a managed namespace without a candidate are listed for their near misses,
   * only when they may have changed since they were (a waiting namespace costs the daemon no
   * request in steady state); never in a namespace whose candidates were not read. So are
   * those of a namespace whose `<prefix>kubeconfig-secret` names a Secret that is no candidate:
   * whether that Secret exists decides between waiting for it and refusing the annotation.
   */
  private async recordNearMisses(
    pass: Pass,
    world: WorldIndex,
    candidates: readonly ObservedSecret[],
    unread: Unread,
  ): Promise<ReadonlySet<string>> {
    const served = new Set<string>();
    const servedClusters = new Set<SourceCluster>();
    const candidateNames = new Set<string>();
    for (const secret of candidates) {
      candidateNames.add(`${secret.namespace}/${secret.name}`);
      if (!isCandidate({ ...secret, keys: Object.keys(secret.data) }, this.config.providers))
        continue;
      served.add(secret.namespace);
      const cluster = world.clusterSecrets.get(`${secret.namespace}/${secret.name}`);
      if (cluster !== undefined) servedClusters.add(cluster);
    }
    // A namespace of Clusters is listed for the Clusters in it that have no candidate, and for
    // those whose `<prefix>kubeconfig-secret` names a Secret that is no candidate (as a
    // namespace's pin, below).
    const waiting = new Map<string, string[]>();
    const clusterPins = new Map<string, string[]>();
    const add = (map: Map<string, string[]>, key: string, value: string): void => {
      const values = map.get(key);
      if (values === undefined) map.set(key, [value]);
      else values.push(value);
    };
    for (const cluster of world.clusters) {
      const pinned = cluster.annotations[this.keys.kubeconfigSecret];
      if (pinned !== undefined && !candidateNames.has(`${cluster.namespace}/${pinned}`))
        add(clusterPins, cluster.namespace, pinned);
      if (!servedClusters.has(cluster)) add(waiting, cluster.namespace, cluster.name);
    }
    for (const namespace of clusterPins.keys())
      if (!waiting.has(namespace)) waiting.set(namespace, []);
    const unreadNames = new Set((unread.unreadNamespaces ?? []).map((entry) => entry.name));
    const toList: { name: string; clusters?: string[] }[] = [];
    // A namespace's pin that names no candidate (a valid name or not: core refuses those).
    const pins = new Map<string, string>();
    for (const { name, annotations } of world.namespaces) {
      const pinned = annotations[this.keys.kubeconfigSecret];
      if (pinned !== undefined && !candidateNames.has(`${name}/${pinned}`)) pins.set(name, pinned);
    }
    const versionOf = (name: string, clusters?: readonly string[]): string =>
      clusters === undefined
        ? `${this.source.secretsVersion(name)} ${pins.get(name) ?? ''}`
        : `${this.source.secretsVersion(name)} ${clusters.join(',')} ${(clusterPins.get(name) ?? []).join(',')}`;
    for (const { name } of world.namespaces) {
      if (served.has(name) && !pins.has(name)) this.nearMisses.forget(name);
      else if (!unreadNames.has(name) && !this.nearMisses.current(name, versionOf(name)))
        toList.push({ name });
    }
    for (const [name, clusters] of waiting)
      if (
        !world.managed.has(name) &&
        !unreadNames.has(name) &&
        !this.nearMisses.current(name, versionOf(name, clusters))
      )
        toList.push({ name, clusters });
    await mapBounded(toList, READ_CONCURRENCY, async ({ name, clusters }) => {
      const version = versionOf(name, clusters);
      const secrets = await this.source.secretsOf(pass, name);
      const pinned = pins.get(name);
      if (secrets === undefined) return;
      const clusterPinned = clusterPins.get(name);
      this.nearMisses.record(
        name,
        secrets,
        version,
        clusters !== undefined
          ? { clusters, ...(clusterPinned === undefined ? {} : { pins: clusterPinned }) }
          : pinned !== undefined
            ? { pinned }
            : undefined,
      );
    });
    return new Set([...world.managed.keys(), ...waiting.keys()]);
  }
}
