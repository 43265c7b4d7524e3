// The daemon's world source: what the watches hold (world-cache.ts), so a pass costs no API
// request in steady state. A pass reads only what changed since the last: a candidate Secret
// whose resourceVersion moved (GET, translate, drop the data), and, for near misses, the
// Secrets of a namespace without a candidate when a Secret in it changed. Everything is
// re-listed only when a watch cannot resume and every resync period. A watch that is not in
// sync is a failure of the pass (`{ verb: 'watch' }`): the assembler withholds what rests on it.
import { sourceNamespaceOf } from '@argocd-cluster-registrar/core';
import type {
  Config,
  ObservedSecret,
  SourceCluster,
  SourceNamespace,
} from '@argocd-cluster-registrar/core';
import type { ClusterApi } from '../connection/cluster-api.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { listSecrets, readSecret, SECRET_PAGE_SIZE } from '../connection/kube-api.js';
import type { KubeSecret } from '../kube-objects.js';
import type { ListWatchStats } from '../watch/list-watch.js';
import { byName, byNamespaceThenName, toObservedSecret } from '../observed-objects.js';
import { startWorldCache } from './world-cache.js';
import type { WatchName, WorldCache, WorldCacheOptions } from './world-cache.js';
import { SnapshotAssembler } from './assembler.js';
import { ChildProbes } from './child-probes.js';
import { ProvisionerSleep } from './provisioner-sleep.js';
import type { Pass } from './gather-failure.js';
import { gathererTranslations } from './translation-cache.js';
import type { TranslationCache, TranslationVariant } from './translation-cache.js';
import type { CandidateMeta, Gatherer, WorldSource } from './world-source.js';

export class WatchedWorld implements WorldSource {
  secretReads = 0;
  nearMissLists = 0;
  private namespacesAt = -1;
  private namespaceList: readonly SourceNamespace[] = [];
  private clustersAt = -1;
  private clusterList: readonly SourceCluster[] = [];

  constructor(
    private readonly access: KubeAccess,
    private readonly cache: WorldCache,
    private readonly translations: TranslationCache,
  ) {}

  async begin(pass: Pass, fullPass: boolean): Promise<void> {
    // CRDs installed after start-up are found by the next full pass (one GET while missing).
    if (fullPass) await this.cache.rediscover();
    await this.cache.settled();
    for (const { watch, failure } of this.cache.unhealthy())
      pass.record({ verb: 'watch', watch }, failure);
  }

  namespaces(): readonly SourceNamespace[] {
    if (this.namespacesAt !== this.cache.version.namespaces) {
      this.namespaceList = [...this.cache.namespaces.values()]
        .map((entry) => entry.namespace)
        .sort(byName);
      this.namespacesAt = this.cache.version.namespaces;
    }
    return this.namespaceList;
  }
  clusters(): readonly SourceCluster[] {
    if (this.clustersAt !== this.cache.version.clusters) {
      this.clusterList = [...this.cache.clusters().values()]
        .map((entry) => entry.cluster)
        .sort(byNamespaceThenName);
      this.clustersAt = this.cache.version.clusters;
    }
    return this.clusterList;
  }
  clusterApi(): ClusterApi | undefined {
    return this.cache.clusterApi();
  }
  clusterSecrets(): readonly ObservedSecret[] {
    return this.cache.clusterSecrets();
  }
  candidates(): Iterable<CandidateMeta> {
    return this.cache.candidates.values();
  }
  ready(candidate: CandidateMeta, variant: TranslationVariant): ObservedSecret | undefined {
    return this.translations.current(candidate.uid, candidate.resourceVersion, variant);
  }
  async read(
    pass: Pass,
    candidate: CandidateMeta,
    variant: TranslationVariant,
  ): Promise<ObservedSecret | undefined> {
    const { namespace, name } = candidate;
    this.secretReads += 1;
    const read = await pass.call(
      { verb: 'get', kind: 'Secret', namespace, name },
      () => readSecret(this.access, namespace, name),
      // Gone since the event: the watch reports the deletion next.
      true,
    );
    if (read.ok) return this.translations.prepare(toObservedSecret(read.value, namespace), variant);
    if (read.failure.kind === 'not-found') return undefined;
    // A stale translation beats none while the read fails (deletions are withheld anyway).
    return this.translations.kept(candidate.uid);
  }
  version(): string {
    const { candidates, namespaces, clusters } = this.cache.version;
    return `${candidates}:${namespaces}:${clusters}`;
  }
  secretsVersion(namespace: string): string {
    return this.cache.secretsVersion(namespace);
  }
  secretsOf(pass: Pass, namespace: string): Promise<readonly KubeSecret[] | undefined> {
    return pass.listAll<KubeSecret>({ verb: 'list', kind: 'Secret', namespace }, (token) => {
      this.nearMissLists += 1;
      return listSecrets(this.access, namespace, { limit: SECRET_PAGE_SIZE, continue: token });
    });
  }
}

/** The world cache's options, handed through, and the gatherer's resync period. */
export interface WatchGathererOptions extends WorldCacheOptions {
  /** Every watch re-lists this often, whatever else happens (0: never). */
  readonly resyncPeriodMs: number;
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
  /** `/version` probes of children sent (`--probe-children`). */
  readonly probes: number;
  readonly watches: Readonly<Record<WatchName, ListWatchStats>>;
}

export interface WatchGatherer extends Gatherer {
  stats(): WatchGathererStats;
  stop(): void;
}

/** The daemon's gatherer: the watch cache as the assembler's world source. */
export function createWatchGatherer(
  access: KubeAccess,
  config: Config,
  options: WatchGathererOptions,
): WatchGatherer {
  const cache = startWorldCache(access, config, {
    ...options,
    onChange: (change) => {
      // A source that changed may answer a lookup differently now (the watches report only
      // after they have listed, which is after `assembled` exists).
      assembled.forget(change.all ? undefined : change.namespaces);
      options.onChange(change);
    },
  });
  const translations = gathererTranslations(config);
  const world = new WatchedWorld(access, cache, translations);
  const children = config.probeChildren
    ? new ChildProbes(config, { mode: 'background' })
    : undefined;
  const sleep = new ProvisionerSleep(access, config, {
    mode: 'watch',
    onChange: (namespaces) => {
      options.onChange({ all: false, namespaces });
    },
    onError: (signal, failure) => {
      options.onError(`${signal} sleep`, failure);
    },
  });
  const assembled = new SnapshotAssembler(
    access,
    config,
    world,
    translations,
    children,
    sleep.on ? sleep : undefined,
  );
  const prober = children?.start((sources) => {
    options.onChange({ all: false, namespaces: [...new Set(sources.map(sourceNamespaceOf))] });
  });
  const resyncTimer =
    options.resyncPeriodMs > 0
      ? setInterval(() => {
          void cache.resync();
        }, options.resyncPeriodMs).unref()
      : undefined;

  return {
    full: () => assembled.assemble(true),
    refresh: () => assembled.assemble(false),
    translate: translations.translate,
    stats() {
      const t = translations.stats();
      return {
        secretReads: world.secretReads,
        lookups: assembled.lookupsAsked,
        nearMissLists: world.nearMissLists,
        candidates: t.secrets,
        translations: t.translations,
        translationMisses: t.unprepared,
        clusterSecretCopies: cache.wholeClusterSecrets(),
        probes: children?.sent ?? 0,
        watches: cache.stats(),
      };
    },
    stop() {
      prober?.stop();
      sleep.stop();
      if (resyncTimer !== undefined) clearInterval(resyncTimer);
      cache.stop();
    },
  };
}
