// Near misses: in a namespace without a kubeconfig candidate, the Secrets that almost are one
// (another provider's, the configured name with other keys, a configured key under another
// name). They shape only the message of a waiting or stale namespace, never a decision. Names
// and key names only: a Secret's values are never recorded or printed.

import { allowsExec, providerLabel } from './exec/gates.js';
import { compareStrings } from '../common/compare-strings.js';
import { claimOf, describeMarks, type SecretMeta } from '../config/provider-marks.js';
import { matchGlob } from '../config/glob.js';
import { clusterSecretName } from '../config/sources.js';
import { PROVIDER_PRESETS } from '../config/provider-presets.js';
import type { Provider } from '../common/types.js';

const PRESETS: readonly Provider[] = Object.values(PROVIDER_PRESETS);

/** The gatherer keeps at most this many per namespace: a hint, not an inventory. */
export const NEAR_MISS_RECORD_LIMIT = 8;
/** A message names at most this many. */
const NAMED_LIMIT = 3;
const KEYS_SHOWN = 10;

/** A Secret as far as near misses are concerned (the marks only decide what is a candidate). */
export interface SecretKeys extends SecretMeta {
  readonly keys: readonly string[];
}

/** A configured provider reads the Secret (by marks or glob) and it has one of its keys. */
export function isCandidate(secret: SecretKeys, providers: readonly Provider[]): boolean {
  return providers.some(
    (provider) =>
      claimOf(provider, secret) !== undefined &&
      provider.keys.some((key) => secret.keys.includes(key)),
  );
}

/** A non-candidate worth recording: any preset's or provider's glob or key matches it. */
export function isNearMiss(secret: SecretKeys, providers: readonly Provider[]): boolean {
  return [...PRESETS, ...providers].some(
    (provider) =>
      matchGlob(provider.secretNamePattern, secret.name) ||
      provider.keys.some((key) => secret.keys.includes(key)),
  );
}

type Kind = 'provider' | 'key' | 'name';
const RANK: Readonly<Record<Kind, number>> = { provider: 0, key: 1, name: 2 };

interface Classified {
  readonly kind: Kind;
  readonly secret: SecretKeys;
  readonly provider: Provider;
  /** The key that matched (provider and name near misses). */
  readonly key?: string;
}

/** Whether `provider`'s glob matches the name, or for a Cluster, gives exactly this name. */
function reads(provider: Provider, name: string, cluster: string | undefined): boolean {
  return cluster === undefined
    ? matchGlob(provider.secretNamePattern, name)
    : clusterSecretName(provider.secretNamePattern, cluster) === name;
}

function classify(
  secret: SecretKeys,
  providers: readonly Provider[],
  cluster: string | undefined,
): Classified | undefined {
  const configured = new Set(providers.map((provider) => provider.name));
  // The most specific glob wins: `x-user-kubeconfig` is what capa-eks and gke read (an exec
  // user kubeconfig), though capi's `*-kubeconfig` matches it too and refuses exec.
  let best: Classified | undefined;
  for (const preset of PRESETS) {
    const key = preset.keys.find((candidate) => secret.keys.includes(candidate));
    if (key === undefined || configured.has(preset.name)) continue;
    if (!reads(preset, secret.name, cluster)) continue;
    if (best === undefined || specificity(preset) > specificity(best.provider))
      best = { kind: 'provider', secret, provider: preset, key };
  }
  if (best !== undefined) return best;
  for (const provider of providers)
    if (reads(provider, secret.name, cluster)) return { kind: 'key', secret, provider };
  for (const provider of providers) {
    const key = provider.keys.find((candidate) => secret.keys.includes(candidate));
    // A Cluster is read from one name per provider: one whose glob names none is no hint.
    const named =
      cluster === undefined || clusterSecretName(provider.secretNamePattern, cluster) !== undefined;
    if (key !== undefined && named) return { kind: 'name', secret, provider, key };
  }
  return undefined;
}

/** How much of a name a provider's glob fixes: its characters that are not wildcards. */
const specificity = (provider: Provider): number =>
  provider.secretNamePattern.replace(/[*?]/g, '').length;

/** A custom entry reading `key` of `glob`, keeping `;exec` when `like` allows exec. */
const customEntry = (glob: string, key: string, like: Provider): string =>
  `custom:${glob}=${key}${allowsExec(like) ? ';exec' : ''}`;

/** The flag and chart value for `entry`; a custom glob is quoted so the shell leaves it alone. */
function suggestion(entry: string): string {
  const custom = entry.startsWith('custom:');
  return `\`--provider ${custom ? `'${entry}'` : entry}\` (chart value \`providers: [${custom ? JSON.stringify(entry) : entry}]\`)`;
}

function keysText(keys: readonly string[]): string {
  if (keys.length === 0) return 'it has no keys';
  const shown = [...keys].sort().slice(0, KEYS_SHOWN).join(', ');
  return `its keys: ${shown}${keys.length > KEYS_SHOWN ? ', …' : ''}`;
}

function phrase(near: Classified, providers: readonly Provider[], cluster?: string): string {
  const { secret, provider } = near;
  switch (near.kind) {
    case 'provider': {
      const others = providers.map(providerLabel);
      const alike = PRESETS.filter(
        (preset) =>
          preset.name !== provider.name && preset.secretNamePattern === provider.secretNamePattern,
      ).map((preset) => preset.name);
      const exec = allowsExec(provider)
        ? ` with \`--exec-credentials\` (its exec plugin is translated into ArgoCD's own form)${alike.length === 0 ? '' : `, or ${alike.join(' or ')} if that is the cloud it signs in to`}`
        : '';
      return `Secret ${secret.name} (${keysText(secret.keys)}) matches the ${provider.name} provider (${provider.secretNamePattern} with ${provider.keys.join(' or ')}), which is not configured; add it with ${suggestion(provider.name)}${exec}, keeping ${others.join(' and ')} in the list if other namespaces need ${others.length === 1 ? 'it' : 'them'}`;
    }
    case 'key': {
      const wanted = provider.keys.join(' or ');
      // A Secret read by its provisioner's marks may have any name: a custom entry names it.
      const byName = matchGlob(provider.secretNamePattern, secret.name);
      const readBy =
        byName || provider.marks === undefined
          ? `matches ${provider.secretNamePattern} of the ${providerLabel(provider)} provider`
          : `is read by the ${providerLabel(provider)} provider (${describeMarks(provider.marks)})`;
      const head = `Secret ${secret.name} ${readBy} but has no key ${wanted} (${keysText(secret.keys)}); store the kubeconfig under ${provider.keys[0] ?? wanted}`;
      if (secret.keys.length === 0) return head;
      const key = secret.keys.length === 1 ? (secret.keys[0] ?? '<key>') : '<key>';
      const glob = byName ? provider.secretNamePattern : secret.name;
      return `${head}, or read ${secret.keys.length === 1 ? `key ${key}` : 'the key that holds it'} with ${suggestion(customEntry(glob, key, provider))}`;
    }
    case 'name': {
      const key = near.key ?? '<key>';
      const wanted =
        cluster === undefined ? undefined : clusterSecretName(provider.secretNamePattern, cluster);
      if (wanted !== undefined)
        return `Secret ${secret.name} has key ${key}, but the ${providerLabel(provider)} provider reads Cluster ${cluster ?? ''}'s kubeconfig from ${wanted}; rename it to ${wanted}`;
      return `Secret ${secret.name} has key ${key}, but its name does not match ${provider.secretNamePattern} of the ${providerLabel(provider)} provider; rename it to match, or read it with ${suggestion(customEntry(secret.name, key, provider))}`;
    }
  }
}

/**
 * Whether a key's name says it holds a kubeconfig: `config`, `value` (what the vcluster and
 * Cluster API presets read) or any name with `kubeconfig` in it. Not `admin.conf` and the
 * like: vcluster's and k3k's other Secrets, under the provisioner's own marks, hold those.
 */
export function namesAKubeconfig(key: string): boolean {
  const lower = key.toLowerCase();
  return lower === 'config' || lower === 'value' || lower.includes('kubeconfig');
}

/** The refusal for a Secret a provider reads without its keys: key names, never values. */
export function keyMissingMessage(secret: SecretKeys, provider: Provider): string {
  return phrase({ kind: 'key', secret, provider }, [provider]);
}

/**
 * Whether a Secret's name is about this Cluster: the Cluster's name as a whole `-`-separated
 * part of it (`alpha-user-kubeconfig`, `vc-alpha`), not within another name (`alphabet-…`).
 */
export function namedForCluster(name: string, cluster: string): boolean {
  return `-${name}-`.includes(`-${cluster}-`);
}

/**
 * The near misses among a source's Secrets, most useful first, as one phrase. For a Cluster
 * API `cluster`, only the Secrets named for it, and the names its providers read it from.
 */
export function describeNearMisses(
  secrets: readonly SecretKeys[],
  providers: readonly Provider[],
  cluster?: string,
): string | undefined {
  const classified = secrets
    .filter((secret) => cluster === undefined || namedForCluster(secret.name, cluster))
    .map((secret) => classify(secret, providers, cluster))
    .filter((near): near is Classified => near !== undefined)
    .sort((a, b) => RANK[a.kind] - RANK[b.kind] || compareStrings(a.secret.name, b.secret.name));
  if (classified.length === 0) return undefined;
  const named = classified.slice(0, NAMED_LIMIT).map((near) => phrase(near, providers, cluster));
  const more = classified.length - named.length;
  return `${named.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}
