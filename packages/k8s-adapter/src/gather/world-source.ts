// One reader interface over the two places a snapshot's world comes from, as
// controller-runtime's split client puts one reader over a cache and a live source: the
// one-shot lister (listed-world.ts: lists everything, for `--once` and `status`) and the
// daemon's watch cache (watched-world.ts: what the watches hold, reads only what changed).
// A source only reads; what the reads mean (lookups, what was unread, near misses) is the
// assembler's (assembler.ts), once for both.
import type {
  ObservedSecret,
  SourceCluster,
  SourceNamespace,
  Snapshot,
  Translator,
} from '@argocd-cluster-registrar/core';
import type { ClusterApi } from '../connection/cluster-api.js';
import type { KubeSecret } from '../kube-objects.js';
import type { CandidateMeta } from './world-cache.js';
import type { GatherFailure, Pass } from './gather-failure.js';
import type { TranslationVariant } from './translation-cache.js';

export type { CandidateMeta } from './world-cache.js';

export interface WorldSource {
  /**
   * Brings the source up to date for one pass; a read that failed is recorded in `pass`. A
   * full pass also asks discovery again while cluster.x-k8s.io is not served.
   */
  begin(pass: Pass, fullPass: boolean): Promise<void>;
  /** Managed namespaces, sorted by name (the same array while they are unchanged). */
  namespaces(): readonly SourceNamespace[];
  /** Managed Clusters, sorted (empty with Cluster sources off; the same array while unchanged). */
  clusters(): readonly SourceCluster[];
  /** What discovery said of cluster.x-k8s.io; `undefined` with Cluster sources off. */
  clusterApi(): ClusterApi | undefined;
  /** The target namespace's cluster Secrets (ArgoCD's label or ours), sorted. */
  clusterSecrets(): readonly ObservedSecret[];
  /** Every Secret a provider's glob matches, in the namespaces the source reads. */
  candidates(): Iterable<CandidateMeta>;
  /** The candidate as the planner sees it, when it needs no read this pass. */
  ready(candidate: CandidateMeta, variant: TranslationVariant): ObservedSecret | undefined;
  /** Reads a candidate that is not ready; `undefined` when it is gone. */
  read(
    pass: Pass,
    candidate: CandidateMeta,
    variant: TranslationVariant,
  ): Promise<ObservedSecret | undefined>;
  /** Moves whenever candidates(), namespaces() or clusters() may hold something new. */
  version(): string;
  /** Moves whenever a Secret in this managed namespace may have changed (near misses). */
  secretsVersion(namespace: string): string;
  /** Every Secret of the namespace (near misses); `undefined` when the list failed. */
  secretsOf(pass: Pass, namespace: string): Promise<readonly KubeSecret[] | undefined>;
}

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
  /** The `cluster.x-k8s.io` version discovery found served, when it did. */
  readonly clusterApiVersion?: string;
}

export interface Gatherer {
  /** A pass after which nothing is reused that a full read would ask again. */
  full(): Promise<GatherResult>;
  /** A pass that reuses what cannot have changed (see source-lookups.ts). */
  refresh(): Promise<GatherResult>;
  /** Memoised by Secret uid + resourceVersion + key + provider (translation-cache.ts). */
  readonly translate: Translator;
}
