// The one-shot world source (`--once`, `status`): each pass lists everything afresh, so it
// holds nothing between passes but what it listed last. Candidates are handed to the planner
// whole (a saved snapshot replays from them); the translation cache memoises what the
// planner asks of them. Of other Secrets it keeps only names and key names, for near misses.
import { ARGOCD_SECRET_TYPE_LABEL, CAPI_GROUP, claimedByAny } from '@argocd-cluster-registrar/core';
import type {
  Config,
  ObservedSecret,
  SourceCluster,
  SourceNamespace,
} from '@argocd-cluster-registrar/core';
import { discoverClusterApi, listClusters } from '../connection/cluster-api.js';
import type { ClusterApi } from '../connection/cluster-api.js';
import { mapBounded } from '../concurrency.js';
import type { KubeAccess } from '../connection/kube-access.js';
import {
  LIST_PAGE_SIZE,
  listNamespaces,
  listSecrets,
  SECRET_PAGE_SIZE,
} from '../connection/kube-api.js';
import type { KubeNamespace, KubeSecret, PartialObjectMetadata } from '../kube-objects.js';
import {
  ownerReferencesOf,
  byName,
  byNamespaceThenName,
  toObservedSecret,
  toSourceCluster,
  toSourceNamespace,
} from '../observed-objects.js';
import { managedNamespaceSelector } from './selectors.js';
import { SnapshotAssembler } from './assembler.js';
import { ChildProbes } from './child-probes.js';
import { ProvisionerSleep } from './provisioner-sleep.js';
import type { Pass } from './gather-failure.js';
import { READ_CONCURRENCY } from './source-lookups.js';
import { gathererTranslations } from './translation-cache.js';
import type { CandidateMeta, Gatherer, WorldSource } from './world-source.js';

export class ListedWorld implements WorldSource {
  private passes = 0;
  private api: ClusterApi | undefined;
  private namespaceList: readonly SourceNamespace[] = [];
  private clusterList: readonly SourceCluster[] = [];
  private targetSecrets: readonly ObservedSecret[] = [];
  private candidateSecrets = new Map<string, ObservedSecret>();
  /** Per listed namespace, its Secrets' names and key names (values never kept). */
  private secretKeys = new Map<string, readonly KubeSecret[]>();

  constructor(
    private readonly access: KubeAccess,
    private readonly config: Config,
    /** Where the target's cluster Secrets are read: the host, or a target's own cluster. */
    private readonly targetAccess: KubeAccess = access,
  ) {}

  async begin(pass: Pass): Promise<void> {
    this.passes += 1;
    this.candidateSecrets = new Map();
    this.secretKeys = new Map();
    await this.listClusters(pass);
    await this.listNamespaces(pass);
    // The namespaces whose Secrets hold kubeconfigs: the managed ones and those of Clusters.
    const names = [
      ...new Set([
        ...this.namespaceList.map((namespace) => namespace.name),
        ...this.clusterList.map((cluster) => cluster.namespace),
      ]),
    ].sort();
    await Promise.all([
      mapBounded(names, READ_CONCURRENCY, (name) => this.listSecretsIn(pass, name)),
      this.listClusterSecrets(pass),
    ]);
  }

  namespaces(): readonly SourceNamespace[] {
    return this.namespaceList;
  }
  clusters(): readonly SourceCluster[] {
    return this.clusterList;
  }
  clusterApi(): ClusterApi | undefined {
    return this.api;
  }
  clusterSecrets(): readonly ObservedSecret[] {
    return this.targetSecrets;
  }
  candidates(): Iterable<CandidateMeta> {
    return this.candidateSecrets.values();
  }
  ready(candidate: CandidateMeta): ObservedSecret | undefined {
    return this.candidateSecrets.get(candidate.uid);
  }
  read(_pass: Pass, candidate: CandidateMeta): Promise<ObservedSecret | undefined> {
    return Promise.resolve(this.ready(candidate));
  }
  version(): string {
    return `listed ${this.passes}`;
  }
  secretsVersion(): string {
    return this.version();
  }
  secretsOf(_pass: Pass, namespace: string): Promise<readonly KubeSecret[] | undefined> {
    return Promise.resolve(this.secretKeys.get(namespace));
  }

  /** Cluster sources (opt-in): discovered on every pass, so CRDs installed later are found. */
  private async listClusters(pass: Pass): Promise<void> {
    this.clusterList = [];
    if (!this.config.capiClusters) return;
    pass.requests += 1;
    this.api = await discoverClusterApi(this.access);
    if (this.api.state === 'unknown')
      pass.record({ verb: 'discover', group: CAPI_GROUP }, this.api.failure);
    if (this.api.state !== 'served') return;
    const version = this.api.version;
    const listed = await pass.listAll<PartialObjectMetadata>(
      { verb: 'list', kind: 'Cluster' },
      (token) =>
        listClusters(this.access, version, {
          labelSelector: managedNamespaceSelector(this.config),
          limit: LIST_PAGE_SIZE,
          continue: token,
        }),
    );
    this.clusterList = (listed ?? []).map(toSourceCluster).sort(byNamespaceThenName);
  }

  private async listNamespaces(pass: Pass): Promise<void> {
    const listed = await pass.listAll<KubeNamespace>({ verb: 'list', kind: 'Namespace' }, (token) =>
      listNamespaces(this.access, {
        labelSelector: managedNamespaceSelector(this.config),
        limit: LIST_PAGE_SIZE,
        continue: token,
      }),
    );
    this.namespaceList = (listed ?? []).map(toSourceNamespace).sort(byName);
  }

  private async listSecretsIn(pass: Pass, namespace: string): Promise<void> {
    const secrets = await pass.listAll<KubeSecret>(
      { verb: 'list', kind: 'Secret', namespace },
      (token) => listSecrets(this.access, namespace, { limit: SECRET_PAGE_SIZE, continue: token }),
    );
    if (secrets === undefined) return;
    const providers = this.config.providers;
    const keysOnly: KubeSecret[] = [];
    for (const secret of secrets) {
      const name = secret.metadata?.name ?? '';
      const meta = secret.metadata ?? {};
      keysOnly.push({
        metadata: {
          name,
          ...(meta.labels === undefined ? {} : { labels: meta.labels }),
          ...ownerReferencesOf(meta),
        },
        data: emptied(secret.data),
      });
      const observed = toObservedSecret(secret, namespace);
      if (!claimedByAny(providers, observed)) continue;
      this.candidateSecrets.set(observed.uid, observed);
    }
    this.secretKeys.set(namespace, keysOnly);
  }

  /** ArgoCD's label (ours, foreign) plus ours (which adds demoted ones), merged by uid. */
  private async listClusterSecrets(pass: Pass): Promise<void> {
    const namespace = this.config.targetNamespace;
    const selectors = [
      `${ARGOCD_SECRET_TYPE_LABEL}=cluster`,
      managedNamespaceSelector(this.config),
    ];
    const lists = await Promise.all(
      selectors.map((labelSelector) =>
        pass.listAll<KubeSecret>(
          { verb: 'list', kind: 'Secret', namespace, labelSelector },
          (token) =>
            listSecrets(this.targetAccess, namespace, {
              labelSelector,
              limit: LIST_PAGE_SIZE,
              continue: token,
            }),
        ),
      ),
    );
    const byUid = new Map<string, ObservedSecret>();
    for (const list of lists) {
      if (list === undefined) {
        this.targetSecrets = [];
        return;
      }
      for (const secret of list) {
        const observed = toObservedSecret(secret, namespace);
        byUid.set(observed.uid, observed);
      }
    }
    this.targetSecrets = [...byUid.values()].sort(byNamespaceThenName);
  }
}

function emptied(data: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const key of Object.keys(data ?? {})) keys[key] = '';
  return keys;
}

/**
 * The one-shot gatherer: every pass lists the world. Sources are read on the host (`access`),
 * always: proof of a source's absence is this host's to give. The cluster Secrets are read
 * where the target is (`targetAccess`, default the host).
 */
export function createGatherer(
  access: KubeAccess,
  config: Config,
  targetAccess: KubeAccess = access,
): Gatherer {
  const translations = gathererTranslations(config);
  const world = new ListedWorld(access, config, targetAccess);
  const children = config.probeChildren ? new ChildProbes(config, { mode: 'in-pass' }) : undefined;
  const sleep = new ProvisionerSleep(access, config, { mode: 'list' });
  const assembler = new SnapshotAssembler(
    access,
    config,
    world,
    translations,
    children,
    sleep.on ? sleep : undefined,
  );
  return {
    full: () => assembler.assemble(true),
    refresh: () => assembler.assemble(false),
    translate: translations.translate,
  };
}
