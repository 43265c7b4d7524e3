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
 * What else a namespace's near misses are for: its waiting Clusters and the Secrets its
 * Clusters pin, or the Secret it pins.
 */
export type NearMissesOf =
  | { readonly clusters: readonly string[]; readonly pins?: readonly string[] }
  | { readonly pinned: string };

/**
 * The near misses of a namespace: of a managed namespace without a candidate, or, given the
 * `waitingClusters` of a namespace of Cluster API Clusters, of the Secrets named for them
 * (other Clusters' Secrets there are candidates, and no hint for these). Given the Secret a
 * namespace's `<prefix>kubeconfig-secret` names (`pinned`), that Secret too when it exists
 * and no configured provider reads it, whatever else is there: the user chose it by name.
 */
export function nearMissesIn(
  secrets: readonly KubeSecret[],
  namespace: string,
  providers: readonly Provider[],
  of?: NearMissesOf,
): NearMissSecret[] {
  const waitingClusters = of !== undefined && 'clusters' in of ? of.clusters : undefined;
  if (of !== undefined && 'pinned' in of) {
    const { pinned } = of;
    const others = nearMissesIn(secrets, namespace, providers).filter((s) => s.name !== pinned);
    const found = pinnedUnread(secrets, namespace, providers, pinned);
    return found === undefined ? others : [found, ...others].slice(0, NEAR_MISS_RECORD_LIMIT);
  }
  if (of !== undefined && 'clusters' in of && of.pins !== undefined && of.pins.length > 0) {
    const pins = new Set(of.pins);
    const others = nearMissesIn(secrets, namespace, providers, { clusters: of.clusters });
    const found = [...pins].flatMap(
      (pin) => pinnedUnread(secrets, namespace, providers, pin) ?? [],
    );
    return [...found, ...others.filter((s) => !pins.has(s.name))]
      .sort((a, b) => compareStrings(a.name, b.name))
      .slice(0, NEAR_MISS_RECORD_LIMIT);
  }
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

/** The Secret a source pins by name, when it exists and no configured provider reads it. */
function pinnedUnread(
  secrets: readonly KubeSecret[],
  namespace: string,
  providers: readonly Provider[],
  pinned: string,
): NearMissSecret | undefined {
  const found = secrets.find((secret) => secret.metadata?.name === pinned);
  if (found === undefined) return undefined;
  const meta = {
    name: pinned,
    ...(found.metadata?.labels === undefined ? {} : { labels: found.metadata.labels }),
    ...ownerReferencesOf(found.metadata ?? {}),
  };
  if (claimedByAny(providers, meta)) return undefined;
  return { namespace, name: pinned, keys: Object.keys(found.data ?? {}) };
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
   * in a namespace of Clusters, of the Clusters waiting there, and in a namespace that pins a
   * Secret, of its pin: `version` must include them).
   */
  record(namespace: string, secrets: readonly KubeSecret[], version = '', of?: NearMissesOf): void {
    const near = nearMissesIn(secrets, namespace, this.providers, of);
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
