// The world cache's vocabulary: what it holds per kind, the changes it reports, the options
// a caller supplies and the reader it gets back (world-cache.ts says what is watched and why).
import type {
  ObservedSecret,
  SourceCluster,
  SourceNamespace,
} from '@argocd-cluster-registrar/core';
import type { ApiFailure } from '../connection/api-failure.js';
import type { KubeAccess } from '../connection/kube-access.js';
import type { ListWatchStats, ListWatchTiming } from '../watch/list-watch.js';
import type { ClusterApi } from '../connection/cluster-api.js';
/** A Secret whose name matches a provider's glob, as its metadata tells. */
export interface CandidateMeta {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
}

export interface NamespaceEntry {
  readonly resourceVersion: string;
  readonly namespace: SourceNamespace;
}

export interface ClusterEntry {
  readonly resourceVersion: string;
  readonly cluster: SourceCluster;
}

export interface ClusterSecretEntry {
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
  /**
   * Where the target namespace's cluster Secrets are watched, when not on the host (a target
   * in another cluster); default the host's access.
   */
  readonly targetAccess?: KubeAccess;
  /** What changed, as the watches saw it: the daemon plans the affected namespaces soon. */
  readonly onChange: (change: WorldChange) => void;
  readonly onError: (watch: string, failure: ApiFailure) => void;
  /**
   * A watch that was failing answers again (see ListWatchHandlers.onRecovered): a pass that
   * failed for want of it can retry.
   */
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
  /** Every watch lists again, one after another; settles when the last has listed or failed. */
  resync(): Promise<void>;
  stats(): Readonly<Record<WatchName, ListWatchStats>>;
  /** Whole cluster Secrets held in memory, both watches together: one per Secret. */
  wholeClusterSecrets(): number;
  stop(): void;
}
