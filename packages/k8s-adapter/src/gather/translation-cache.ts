// Kubeconfig parsing is the expensive part of a pass; a Secret that has not changed since the
// last pass (same uid and resourceVersion) translates to the same result, so a steady-state
// pass re-parses nothing (docs/behaviour.md#budgets). One cache for both world sources:
// - the one-shot lister hands the planner whole Secrets, and `translate` memoises what the
//   planner asks of them;
// - the watch cache `prepare`s a freshly read candidate instead: every translation the
//   planner can ask of it (each provider that reads it, by glob or by marks, each of that
//   provider's keys it holds) is made at once and kept, and the planner is handed the Secret
//   without its data (its candidate keys, each with an empty value), so the daemon keeps no
//   kubeconfig between passes.
// Core is unchanged: it sees an ObservedSecret and a Translator, as with a full read.
import { claimOf, configuredTranslator } from '@argocd-cluster-registrar/core';
import type {
  Config,
  ObservedSecret,
  Provider,
  TranslateOptions,
  TranslationResult,
  Translator,
} from '@argocd-cluster-registrar/core';

/**
 * What a translation depends on besides the Secret, from its source: whether it overrides
 * the server (`<prefix>server`: the kubeconfig's own server is not checked), and whether it
 * is a Cluster (a refusal then names the Cluster's annotation, not the namespace's).
 */
export interface TranslationVariant {
  readonly serverOverridden: boolean;
  readonly clusterSource: boolean;
}

/** A variant (or the planner's options, which have its shape) as a number from 0 to 3. */
const codeOf = (variant: TranslateOptions | undefined): number =>
  (variant?.serverOverridden === true ? 1 : 0) | (variant?.clusterSource === true ? 2 : 0);

const optionsOf = (code: number): TranslateOptions | undefined =>
  code === 0
    ? undefined
    : {
        ...((code & 1) !== 0 ? { serverOverridden: true } : {}),
        ...((code & 2) !== 0 ? { clusterSource: true } : {}),
      };

/** One translation kept: of `key`, by the provider at `provider`, for a variant (codeOf). */
interface KeptTranslation {
  readonly provider: number;
  readonly key: string;
  readonly variant: number;
  readonly result: TranslationResult;
}

/**
 * What a Secret costs to keep: its version, its translations (nearly always one; a list,
 * not a Map and a Set, which cost a few hundred bytes more per candidate at 10,000 clusters)
 * and, once prepared, the Secret without its data.
 */
interface CacheEntry {
  readonly resourceVersion: string;
  readonly results: KeptTranslation[];
  /** As handed to the planner after `prepare`: `data` holds the key names, empty. */
  prepared: ObservedSecret | undefined;
  /** The variants prepared so far: bit `1 << codeOf(variant)` for each. */
  variants: number;
}

export interface TranslationCache {
  readonly translate: Translator;
  /** The prepared Secret for `uid` when it was read at `resourceVersion` with `variant`. */
  current(
    uid: string,
    resourceVersion: string,
    variant: TranslationVariant,
  ): ObservedSecret | undefined;
  /** Translates a freshly read Secret for `variant`, keeps the results and drops the data. */
  prepare(secret: ObservedSecret, variant: TranslationVariant): ObservedSecret;
  /** The prepared Secret for `uid`, whatever its version (a stale answer beats none). */
  kept(uid: string): ObservedSecret | undefined;
  /** Forgets every Secret whose uid is not in `live`. */
  retain(live: ReadonlySet<string>): void;
  stats(): {
    readonly secrets: number;
    readonly translations: number;
    readonly hits: number;
    /** Translations asked of a prepared Secret that were not prepared: must stay 0. */
    readonly unprepared: number;
  };
}

/**
 * The cache a gatherer plans with, over core's translator for the configured label prefix:
 * refusals name the real `<prefix>server` annotation, not a placeholder.
 */
export function gathererTranslations(
  config: Pick<Config, 'labelPrefix' | 'providers' | 'referenceMode' | 'secretreaderPath'>,
): TranslationCache {
  return createTranslationCache(configuredTranslator(config), config.providers);
}

/**
 * `providers`: the configuration's, which the planner hands back; others are told apart by
 * every field that can change a translation (providerIdentity).
 */
export function createTranslationCache(
  translate: Translator,
  providers: readonly Provider[] = [],
): TranslationCache {
  return new KeptTranslations(translate, providers);
}

/** Where a translation is kept: of `key`, by the provider at `provider`, for a variant. */
type Slot = Omit<KeptTranslation, 'result'>;

const sameSlot = (kept: Slot, at: Slot): boolean =>
  kept.provider === at.provider && kept.key === at.key && kept.variant === at.variant;

/**
 * Every field that can change a translation, the exec gates included: a provider that refuses
 * an exec kubeconfig must not hand its refusal to one that translates it.
 */
function providerIdentity(provider: Provider): string {
  return JSON.stringify([
    provider.name,
    provider.secretNamePattern,
    provider.marks ?? null,
    provider.keys,
    provider.preferredSecretType ?? '',
    provider.loopbackRewrite,
    provider.execClouds ?? [],
    provider.execCredentials === true,
    provider.execPolicy ?? null,
  ]);
}

/**
 * Numbers the providers translations are asked for: the configuration's by the object itself
 * (the planner hands them back), any other by its identity, numbered once first seen.
 */
class ProviderNumbers {
  private readonly known: Provider[];
  private readonly identities: (string | undefined)[] = [];

  constructor(configured: readonly Provider[]) {
    this.known = [...configured];
  }

  provider(number: number): Provider {
    return this.known[number] as Provider;
  }

  numberOf(provider: Provider): number {
    const exact = this.known.indexOf(provider);
    if (exact >= 0) return exact;
    const id = providerIdentity(provider);
    for (let i = 0; i < this.known.length; i++) {
      this.identities[i] ??= providerIdentity(this.known[i] as Provider);
      if (this.identities[i] === id) return i;
    }
    this.known.push(provider);
    this.identities[this.known.length - 1] = id;
    return this.known.length - 1;
  }
}

class KeptTranslations implements TranslationCache {
  readonly translate: Translator;
  private readonly numbers: ProviderNumbers;
  private readonly byUid = new Map<string, CacheEntry>();
  private translations = 0;
  private hits = 0;
  private unprepared = 0;

  constructor(
    private readonly translator: Translator,
    private readonly providers: readonly Provider[],
  ) {
    this.numbers = new ProviderNumbers(providers);
    this.translate = (secret, key, provider, options) =>
      this.answer(secret, {
        provider: this.numbers.numberOf(provider),
        key,
        variant: codeOf(options),
      });
  }

  current(
    uid: string,
    resourceVersion: string,
    variant: TranslationVariant,
  ): ObservedSecret | undefined {
    const entry = this.byUid.get(uid);
    if (entry?.prepared === undefined || entry.resourceVersion !== resourceVersion)
      return undefined;
    return (entry.variants & (1 << codeOf(variant))) !== 0 ? entry.prepared : undefined;
  }

  /** Every translation the planner can ask of `secret` for `variant`, made now. */
  prepare(secret: ObservedSecret, prepared: TranslationVariant): ObservedSecret {
    const entry = this.entryFor(secret);
    const variant = codeOf(prepared);
    entry.prepared ??= elide(secret, this.providers);
    for (const [provider, candidate] of this.providers.entries()) {
      if (claimOf(candidate, secret) === undefined) continue;
      for (const key of candidate.keys)
        if (Object.hasOwn(secret.data, key)) this.keep(entry, secret, { provider, key, variant });
    }
    entry.variants |= 1 << variant;
    return entry.prepared;
  }

  kept(uid: string): ObservedSecret | undefined {
    return this.byUid.get(uid)?.prepared;
  }

  retain(live: ReadonlySet<string>): void {
    for (const uid of this.byUid.keys()) if (!live.has(uid)) this.byUid.delete(uid);
  }

  stats(): ReturnType<TranslationCache['stats']> {
    const { byUid, translations, hits, unprepared } = this;
    return { secrets: byUid.size, translations, hits, unprepared };
  }

  /** A kept translation; else, for a Secret never prepared (a full read), one made now. */
  private answer(secret: ObservedSecret, at: Slot): TranslationResult {
    const entry = this.entryFor(secret);
    const kept = entry.results.find((candidate) => sameSlot(candidate, at));
    if (kept !== undefined) {
      this.hits += 1;
      return kept.result;
    }
    if (entry.prepared !== secret) return this.keep(entry, secret, at);
    // The gatherer prepares every candidate of a snapshot before planning, so this is a
    // broken invariant; answered with a refusal the next read cures, never with a guess.
    this.unprepared += 1;
    return {
      ok: false,
      refusal: {
        code: 'kubeconfig-unreadable',
        message: `namespace ${secret.namespace}, Secret ${secret.name} key ${at.key}: not read yet; it is read on the next pass`,
      },
    };
  }

  /** A new resourceVersion invalidates every key of that Secret at once. */
  private entryFor(secret: ObservedSecret): CacheEntry {
    const previous = this.byUid.get(secret.uid);
    if (previous?.resourceVersion === secret.resourceVersion) return previous;
    const entry: CacheEntry = {
      resourceVersion: secret.resourceVersion,
      results: [],
      prepared: undefined,
      variants: 0,
    };
    this.byUid.set(secret.uid, entry);
    return entry;
  }

  private keep(entry: CacheEntry, secret: ObservedSecret, at: Slot): TranslationResult {
    const provider = this.numbers.provider(at.provider);
    // Kept for as long as the Secret lives, so keep a compact copy: the translation's
    // strings are built by concatenation (ropes of thousands of small pieces), and a plain
    // copy holds ~2 KiB where the ropes held tens (measured in bench/api.bench.ts).
    const result = structuredClone(
      this.translator(secret, at.key, provider, optionsOf(at.variant)),
    );
    const index = entry.results.findIndex((kept) => sameSlot(kept, at));
    if (index >= 0) entry.results[index] = { ...at, result };
    else entry.results.push({ ...at, result });
    this.translations += 1;
    return result;
  }
}

/**
 * The Secret without its data: the candidate keys stay, so the planner sees which it holds.
 * A Secret that holds none of them keeps all its key names instead: the near-miss message
 * names them ("its keys: kubeconfig"), as it does from a full read.
 */
function elide(secret: ObservedSecret, providers: readonly Provider[]): ObservedSecret {
  const data: Record<string, string> = {};
  for (const provider of providers) {
    if (claimOf(provider, secret) === undefined) continue;
    for (const key of provider.keys) if (Object.hasOwn(secret.data, key)) data[key] = '';
  }
  if (Object.keys(data).length === 0) for (const key of Object.keys(secret.data)) data[key] = '';
  return {
    namespace: secret.namespace,
    name: secret.name,
    uid: secret.uid,
    resourceVersion: secret.resourceVersion,
    type: secret.type,
    labels: secret.labels,
    // Annotations can hold a whole copy of the Secret (kubectl's last-applied-configuration),
    // and the planner does not read a candidate's.
    annotations: {},
    data,
    ...(secret.creationTimestamp !== undefined
      ? { creationTimestamp: secret.creationTimestamp }
      : {}),
    // The planner checks the provisioners' marks again.
    ...(secret.ownerReferences !== undefined ? { ownerReferences: secret.ownerReferences } : {}),
  };
}
