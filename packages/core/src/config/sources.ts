// A source is a labelled namespace (one cluster each: k3k, vcluster, Kamaji) or a labelled
// Cluster API `Cluster` (many per namespace), keyed by one string: a namespace by its name, a
// Cluster by `<namespace>/<name>`. A namespace name never holds a `/`, so the keys never
// collide and every rule keyed by source holds without knowing its kind. Only parseSourceKey
// reads a key's text.

import type { Config } from '../common/config-types.js';
import type { LabelKeys } from './label-keys.js';

/** A source key, parsed: the namespace itself, or one Cluster in a namespace. */
export type SourceKey =
  | { readonly kind: 'Namespace'; readonly name: string }
  | { readonly kind: 'Cluster'; readonly namespace: string; readonly name: string };

/** The value of `<prefix>source-kind` on the registration of a Cluster. */
export const CLUSTER_SOURCE_KIND = 'Cluster';

/** The Cluster API group and resource the registrar reads Cluster sources from. */
export const CAPI_GROUP = 'cluster.x-k8s.io';
export const CAPI_CLUSTERS_RESOURCE = 'clusters';

/** The text of a source key: a namespace's name, or `<namespace>/<name>` of a Cluster. */
export function formatSourceKey(key: SourceKey): string {
  return key.kind === 'Namespace' ? key.name : `${key.namespace}/${key.name}`;
}

/** The text of a Cluster's source key: `<namespace>/<name>`. */
export function clusterSourceKey(namespace: string, name: string): string {
  return formatSourceKey({ kind: 'Cluster', namespace, name });
}

/** What the text of a source key names. */
export function parseSourceKey(text: string): SourceKey {
  const slash = text.indexOf('/');
  if (slash < 0) return { kind: 'Namespace', name: text };
  return { kind: 'Cluster', namespace: text.slice(0, slash), name: text.slice(slash + 1) };
}

/**
 * The source key an owned registration's labels record; `undefined` when they record none that
 * could be looked up (the planner then keeps the registration, saying why).
 */
export function recordedSourceKey(
  labels: Readonly<Record<string, string>>,
  keys: LabelKeys,
): string | undefined {
  const namespace = labels[keys.sourceNamespace];
  if (namespace === undefined || namespace === '') return undefined;
  const kind = labels[keys.sourceKind];
  if (kind === undefined) return namespace;
  const cluster = labels[keys.sourceCluster];
  if (kind !== CLUSTER_SOURCE_KIND || cluster === undefined || cluster === '') return undefined;
  return clusterSourceKey(namespace, cluster);
}

type NamingConfig = Pick<Config, 'capiClusterNames' | 'capiClusterNameLabel'>;

/** Under `namespace-name`, unless allowed, a Cluster's label could claim any namespace's name. */
export function clusterLabelIgnored(source: SourceKey, config: NamingConfig): boolean {
  return (
    source.kind === 'Cluster' &&
    config.capiClusterNames === 'namespace-name' &&
    !config.capiClusterNameLabel
  );
}

/**
 * The cluster name a source claims: its label, else a Cluster's name or `<namespace>.<name>`.
 * No namespace name holds a dot, so Clusters of two namespaces never get one name (with `-`,
 * `team-a`'s `prod` and `team`'s `a-prod` would). A namespace without a label claims none.
 */
export function claimedClusterName(
  source: SourceKey,
  labels: Readonly<Record<string, string>>,
  clusterKey: string,
  config: NamingConfig,
): string | undefined {
  const label = clusterLabelIgnored(source, config) ? undefined : labels[clusterKey];
  if (label !== undefined || source.kind === 'Namespace') return label;
  return config.capiClusterNames === 'namespace-name'
    ? `${source.namespace}.${source.name}`
    : source.name;
}

/** `namespace team-a` or `Cluster team-a/alpha`, as messages name a source. */
export function describeSource(key: string): string {
  return `${sourceNoun(key)} ${key}`;
}

/** A value a tenant wrote, for a message: JSON-quoted, DEL and C1 escaped too, cut to 64. */
export function quoted(value: string): string {
  const cut = value.length > 64 ? `${value.slice(0, 64)}…` : value;
  return JSON.stringify(cut).replace(
    /[\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Whether a source key names a Cluster (`<namespace>/<name>`) rather than a namespace. */
export function isClusterKey(key: string): boolean {
  return parseSourceKey(key).kind === 'Cluster';
}

/** What a source key names, as messages say it ("the Cluster is gone"). */
export function sourceNoun(key: string): 'namespace' | 'Cluster' {
  return isClusterKey(key) ? 'Cluster' : 'namespace';
}

/** How messages say a source is on its way out. */
export function sourceEnding(key: string): 'is terminating' | 'is being deleted' {
  return isClusterKey(key) ? 'is being deleted' : 'is terminating';
}

/** The namespace a source's Secrets live in. */
export function sourceNamespaceOf(key: string): string {
  const source = parseSourceKey(key);
  return source.kind === 'Cluster' ? source.namespace : source.name;
}

/**
 * A provider's pattern for one Cluster (`*-kubeconfig` → `alpha-kubeconfig`), so each Cluster
 * reads only its own kubeconfig. `undefined` unless the pattern holds one `*` and no other
 * wildcard: it could not tell the Clusters of one namespace apart, so it serves none of them.
 */
export function clusterSecretName(pattern: string, cluster: string): string | undefined {
  const split = splitPattern(pattern);
  return split === undefined ? undefined : `${split.prefix}${cluster}${split.suffix}`;
}

/** The Cluster a Secret name is the kubeconfig of under `pattern`, when it is one. */
export function clusterOfSecretName(pattern: string, secret: string): string | undefined {
  const split = splitPattern(pattern);
  if (split === undefined) return undefined;
  const { prefix, suffix } = split;
  if (secret.length <= prefix.length + suffix.length) return undefined;
  if (!secret.startsWith(prefix) || !secret.endsWith(suffix)) return undefined;
  return secret.slice(prefix.length, secret.length - suffix.length);
}

function splitPattern(pattern: string): { prefix: string; suffix: string } | undefined {
  const star = pattern.indexOf('*');
  if (star < 0 || pattern.includes('*', star + 1) || /[?[\]\\]/.test(pattern)) return undefined;
  return { prefix: pattern.slice(0, star), suffix: pattern.slice(star + 1) };
}
