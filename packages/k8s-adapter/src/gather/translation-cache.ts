// Kubeconfig parsing is the expensive part of a pass; a Secret that has not changed since
// the last pass (same uid and resourceVersion) translates to the same result, so a
// steady-state pass re-parses nothing (docs/behaviour.md#budgets).
import type {
  ObservedSecret,
  Provider,
  TranslateOptions,
  TranslationResult,
  Translator,
} from '@argocd-cluster-registrar/core';

interface CachedSecret {
  readonly namespace: string;
  readonly resourceVersion: string;
  /** Keyed by `<key>\0<provider identity>\0<options>`. */
  readonly results: Map<string, TranslationResult>;
}

export interface TranslationCache {
  readonly translate: Translator;
  /** Drops every entry for a Secret in `namespaces` (all when omitted) whose uid is not in `seen`. */
  retain(seen: ReadonlySet<string>, namespaces?: ReadonlySet<string>): void;
  stats(): { readonly secrets: number; readonly hits: number; readonly misses: number };
}

export function createTranslationCache(translate: Translator): TranslationCache {
  const bySecretUid = new Map<string, CachedSecret>();
  const providerIds = new WeakMap<Provider, string>();
  let hits = 0;
  let misses = 0;

  // Two provider objects with the same settings translate alike; the identity covers every
  // field that can change a translation (e.g. loopbackRewrite).
  const providerId = (provider: Provider): string => {
    let id = providerIds.get(provider);
    if (id === undefined) {
      id = JSON.stringify([
        provider.name,
        provider.secretNamePattern,
        provider.keys,
        provider.preferredSecretType ?? '',
        provider.loopbackRewrite,
        provider.execClouds ?? [],
        provider.execCredentials === true,
      ]);
      providerIds.set(provider, id);
    }
    return id;
  };

  const cachedTranslate: Translator = (
    secret: ObservedSecret,
    key: string,
    provider: Provider,
    options?: TranslateOptions,
  ): TranslationResult => {
    let entry = bySecretUid.get(secret.uid);
    // A new resourceVersion invalidates every key of that Secret at once.
    if (entry?.resourceVersion !== secret.resourceVersion || entry.namespace !== secret.namespace) {
      entry = {
        namespace: secret.namespace,
        resourceVersion: secret.resourceVersion,
        results: new Map(),
      };
      bySecretUid.set(secret.uid, entry);
    }
    // A server override skips the kubeconfig's own server, so it translates differently.
    const overridden = options?.serverOverridden === true;
    const resultKey = `${key}\0${providerId(provider)}\0${overridden ? 'server-overridden' : ''}`;
    const cached = entry.results.get(resultKey);
    if (cached !== undefined) {
      hits += 1;
      return cached;
    }
    misses += 1;
    // Kept for as long as the Secret lives, so keep a compact copy: the translation's
    // strings are built by concatenation (ropes of thousands of small pieces), and a plain
    // copy holds ~2 KiB where the ropes held tens (measured in bench/api.bench.ts).
    const result = structuredClone(
      overridden
        ? translate(secret, key, provider, { serverOverridden: true })
        : translate(secret, key, provider),
    );
    entry.results.set(resultKey, result);
    return result;
  };

  return {
    translate: cachedTranslate,
    retain(seen, namespaces) {
      for (const [uid, entry] of bySecretUid) {
        if (seen.has(uid)) continue;
        if (namespaces === undefined || namespaces.has(entry.namespace)) bySecretUid.delete(uid);
      }
    },
    stats: () => ({ secrets: bySecretUid.size, hits, misses }),
  };
}
