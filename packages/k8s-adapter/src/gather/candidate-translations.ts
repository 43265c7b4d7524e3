// Candidate kubeconfig Secrets, read once per resourceVersion and kept without their data.
// When a candidate is fetched, every translation the planner can ask of it (each provider
// whose glob matches its name, each of that provider's keys it holds) is made at once and
// kept; the Secret handed to the planner carries its keys with empty values, so the data
// itself is dropped. The planner's translator is then served from what was kept, keyed by
// uid + resourceVersion + key + provider + whether the namespace overrides the server.
// Core is unchanged: it sees an ObservedSecret and a Translator, as with a full read.
import { createSecretKeyTranslator, matchGlob } from '@argocd-cluster-registrar/core';
import type {
  Config,
  ObservedSecret,
  Provider,
  TranslateOptions,
  TranslationResult,
  Translator,
} from '@argocd-cluster-registrar/core';

/** One translation kept: of `key`, by the provider at `provider`, for a `variant`. */
interface KeptTranslation {
  readonly provider: number;
  readonly key: string;
  readonly variant: boolean;
  readonly result: TranslationResult;
}

/**
 * What a candidate Secret costs to keep: its identity, its key names and its translations
 * (nearly always one; a list, not a Map and a Set, which cost a few hundred bytes more per
 * candidate at 10,000 clusters).
 */
interface PreparedCandidate {
  /** As handed to the planner: `data` holds the candidate keys, each with an empty value. */
  readonly secret: ObservedSecret;
  readonly results: KeptTranslation[];
  /** The serverOverridden variants translated so far: bit 1 false, bit 2 true. */
  variants: number;
}

const variantBit = (variant: boolean): number => (variant ? 2 : 1);

function keptResult(
  entry: PreparedCandidate,
  provider: number,
  key: string,
  variant: boolean,
): TranslationResult | undefined {
  for (const kept of entry.results)
    if (kept.provider === provider && kept.key === key && kept.variant === variant)
      return kept.result;
  return undefined;
}

export interface CandidateTranslations {
  readonly translate: Translator;
  /** The kept candidate for `uid` when it was read at `resourceVersion` with `variant`. */
  current(uid: string, resourceVersion: string, variant: boolean): ObservedSecret | undefined;
  /** Translates a freshly read Secret for `variant` and keeps the results, not the data. */
  prepare(secret: ObservedSecret, variant: boolean): ObservedSecret;
  /** The kept candidate for `uid`, whatever its version (a stale answer beats none on a failed read). */
  kept(uid: string): ObservedSecret | undefined;
  /** Forgets every candidate whose uid is not in `live`. */
  retain(live: ReadonlySet<string>): void;
  stats(): { readonly candidates: number; readonly translations: number; readonly misses: number };
}

export function createCandidateTranslations(config: Config): CandidateTranslations {
  // Refusals name the real `<prefix>server` annotation, not a placeholder.
  const base = createSecretKeyTranslator({ labelPrefix: config.labelPrefix });
  const providers = config.providers;
  const byUid = new Map<string, PreparedCandidate>();
  let translations = 0;
  let misses = 0;

  // The planner hands back the Provider objects of the config it was given: the daemon's.
  const indexOf = (provider: Provider): number => {
    const exact = providers.indexOf(provider);
    if (exact >= 0) return exact;
    return providers.findIndex(
      (p) =>
        p.name === provider.name &&
        p.secretNamePattern === provider.secretNamePattern &&
        p.keys.join('\0') === provider.keys.join('\0'),
    );
  };

  const translate: Translator = (
    secret: ObservedSecret,
    key: string,
    provider: Provider,
    options?: TranslateOptions,
  ): TranslationResult => {
    const variant = options?.serverOverridden === true;
    const entry = byUid.get(secret.uid);
    const kept =
      entry !== undefined && entry.secret.resourceVersion === secret.resourceVersion
        ? keptResult(entry, indexOf(provider), key, variant)
        : undefined;
    if (kept !== undefined) return kept;
    // The gatherer prepares every candidate of a snapshot before planning, so this is a
    // broken invariant; answered with a refusal the next read cures, never with a guess.
    misses += 1;
    return {
      ok: false,
      refusal: {
        code: 'kubeconfig-unreadable',
        message: `namespace ${secret.namespace}, Secret ${secret.name} key ${key}: not read yet; it is read on the next pass`,
      },
    };
  };

  const prepare = (secret: ObservedSecret, variant: boolean): ObservedSecret => {
    const previous = byUid.get(secret.uid);
    const entry: PreparedCandidate =
      previous !== undefined && previous.secret.resourceVersion === secret.resourceVersion
        ? previous
        : { secret: elide(secret, providers), results: [], variants: 0 };
    const options = variant ? { serverOverridden: true } : undefined;
    providers.forEach((provider, index) => {
      if (!matchGlob(provider.secretNamePattern, secret.name)) return;
      for (const key of provider.keys) {
        if (!Object.hasOwn(secret.data, key)) continue;
        // A compact copy: the translation's strings are built by concatenation (ropes of
        // thousands of small pieces) and would otherwise hold tens of KiB each.
        const result = structuredClone(base(secret, key, provider, options));
        const at = entry.results.findIndex(
          (kept) => kept.provider === index && kept.key === key && kept.variant === variant,
        );
        const kept = { provider: index, key, variant, result };
        if (at >= 0) entry.results[at] = kept;
        else entry.results.push(kept);
        translations += 1;
      }
    });
    entry.variants |= variantBit(variant);
    byUid.set(secret.uid, entry);
    return entry.secret;
  };

  return {
    translate,
    current(uid, resourceVersion, variant) {
      const entry = byUid.get(uid);
      if (entry === undefined || entry.secret.resourceVersion !== resourceVersion) return undefined;
      return (entry.variants & variantBit(variant)) !== 0 ? entry.secret : undefined;
    },
    prepare,
    kept: (uid) => byUid.get(uid)?.secret,
    retain(live) {
      for (const uid of byUid.keys()) if (!live.has(uid)) byUid.delete(uid);
    },
    stats: () => ({ candidates: byUid.size, translations, misses }),
  };
}

/**
 * The Secret without its data: the candidate keys stay, so the planner sees which it holds.
 * A Secret that holds none of them keeps all its key names instead: the near-miss message
 * names them ("its keys: kubeconfig"), as it does from a full read.
 */
function elide(secret: ObservedSecret, providers: readonly Provider[]): ObservedSecret {
  const data: Record<string, string> = {};
  for (const provider of providers) {
    if (!matchGlob(provider.secretNamePattern, secret.name)) continue;
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
  };
}
