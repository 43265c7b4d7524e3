// Near misses for the planner's messages (core's near-misses.ts decides what counts): in a
// namespace whose Secrets hold no kubeconfig candidate, the Secrets that almost are one.
// Only names and key names are kept, never a value, and only a few per namespace.

import { compareStrings } from '@argocd-cluster-registrar/core';
import type { KubeSecret } from '../kube-objects.js';
import { ownerReferencesOf } from '../observed-objects.js';
import {
  claimedByAny,
  clusterSecretName,
  isCandidate,
  isNearMiss,
  namedForCluster,
  NEAR_MISS_RECORD_LIMIT,
  type NearMissSecret,
  type Provider,
} from '@argocd-cluster-registrar/core';

/**
 * The near misses of a namespace: of a managed namespace without a candidate, or, given the
 * `waitingClusters` of a namespace of Cluster API Clusters, of the Secrets named for them
 * (other Clusters' Secrets there are candidates, and no hint for these).
 */
export function nearMissesIn(
  secrets: readonly KubeSecret[],
  namespace: string,
  providers: readonly Provider[],
  waitingClusters?: readonly string[],
): NearMissSecret[] {
  const named = secrets.map((secret) => ({
    name: secret.metadata?.name ?? '',
    ...(secret.metadata?.labels === undefined ? {} : { labels: secret.metadata.labels }),
    ...ownerReferencesOf(secret.metadata ?? {}),
    keys: Object.keys(secret.data ?? {}),
  }));
  const hints =
    waitingClusters === undefined
      ? named.some((secret) => isCandidate(secret, providers))
        ? []
        : // Secrets a configured provider reads are candidate Secrets in the snapshot already.
          named.filter((secret) => !claimedByAny(providers, secret))
      : named.filter((secret) =>
          waitingClusters.some(
            (cluster) =>
              namedForCluster(secret.name, cluster) &&
              // The names its providers read it from are its candidate Secrets already.
              !providers.some(
                (provider) =>
                  clusterSecretName(provider.secretNamePattern, cluster) === secret.name,
              ),
          ),
        );
  return hints
    .filter((secret) => isNearMiss(secret, providers))
    .sort((a, b) => compareStrings(a.name, b.name))
    .slice(0, NEAR_MISS_RECORD_LIMIT)
    .map((secret) => ({ namespace, name: secret.name, keys: secret.keys }));
}

/**
 * The near misses of the last Secret list of each namespace, kept between passes. The
 * snapshot assembler records through it for both world sources, so `--once`, `status` and the
 * daemon name the same Secrets: after a list of a namespace without a candidate whose Secrets
 * changed since (`version`: each pass for the one-shot lister, see world-cache.ts for the
 * daemon's).
 */
export class NearMissRecord {
  private readonly byNamespace = new Map<string, readonly NearMissSecret[]>();
  private readonly versions = new Map<string, string>();

  constructor(private readonly providers: readonly Provider[]) {}

  /**
   * After a successful list of a namespace's Secrets, made at `version` of its Secrets (and,
   * in a namespace of Clusters, of the Clusters waiting there, which `version` must include).
   */
  record(
    namespace: string,
    secrets: readonly KubeSecret[],
    version = '',
    waitingClusters?: readonly string[],
  ): void {
    const near = nearMissesIn(secrets, namespace, this.providers, waitingClusters);
    this.versions.set(namespace, version);
    if (near.length === 0) this.byNamespace.delete(namespace);
    else this.byNamespace.set(namespace, near);
  }

  /** Whether the namespace was recorded at this version of its Secrets. */
  current(namespace: string, version: string): boolean {
    return this.versions.get(namespace) === version;
  }

  /** A namespace whose near misses no longer matter (it has a candidate now). */
  forget(namespace: string): void {
    this.byNamespace.delete(namespace);
    this.versions.delete(namespace);
  }

  /** The snapshot field for the `managed` namespaces (the others are forgotten). */
  snapshotField(managed: { has(namespace: string): boolean }): { nearMisses?: NearMissSecret[] } {
    for (const name of this.versions.keys()) if (!managed.has(name)) this.forget(name);
    const near = [...this.byNamespace.values()]
      .flat()
      .sort((a, b) => compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name));
    return near.length === 0 ? {} : { nearMisses: near };
  }
}
