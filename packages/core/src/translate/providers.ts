// The choice of kubeconfig among a namespace's candidate Secrets, and its translation.

import { compareStrings } from '../shared/compare-strings.js';
import type {
  CandidateRef,
  ObservedSecret,
  Provider,
  Refusal,
  Translation,
  TranslationResult,
} from '../shared/types.js';
import { decodeBase64Text } from '../shared/base64.js';
import { matchGlob } from '../config/glob.js';
import { translateKubeconfig } from './kubeconfig.js';
import { KUBECONFIG_LIMITS } from './kubeconfig-limits.js';
import { OVER_LIMIT_FIX } from './kubeconfig-structure.js';
import { clusterSecretName } from '../config/sources.js';

export interface SelectOptions extends TranslateOptions {
  /**
   * Select for this Cluster API Cluster: each provider's pattern names exactly its Secret
   * (see clusterSecretName); providers whose pattern cannot are skipped.
   */
  readonly clusterName?: string;
}

export interface TranslateOptions {
  /**
   * The namespace sets `<prefix>server`, so the kubeconfig's own server is neither used nor
   * checked. A translation cache must key on this flag too.
   */
  readonly serverOverridden?: boolean;
  /**
   * The kubeconfig is a Cluster API Cluster's, so a refusal that suggests `<prefix>server`
   * names the Cluster's annotation rather than the namespace's. Changes only messages, but a
   * translation cache must key on it too.
   */
  readonly clusterSource?: boolean;
}

export type Translator = (
  secret: ObservedSecret,
  key: string,
  provider: Provider,
  options?: TranslateOptions,
) => TranslationResult;

export interface SecretKeyTranslatorOptions {
  /** The label prefix in use, so refusals name the real `<prefix>server` annotation. */
  readonly labelPrefix?: string;
}

/** A translator that decodes `data[key]` (base64 as served) and translates it. */
export function createSecretKeyTranslator(settings: SecretKeyTranslatorOptions): Translator {
  return (secret, key, provider, options) => {
    const where = `namespace ${secret.namespace}, Secret ${secret.name} key ${key}`;
    const value = secret.data[key];
    if (value === undefined) {
      return {
        ok: false,
        refusal: {
          code: 'kubeconfig-unreadable',
          message: `${where}: the Secret has no such key; store the kubeconfig under ${key}`,
        },
      };
    }
    // Decoding is a loop over every character (interpreted under the image's `--jitless`):
    // a value that cannot decode to a kubeconfig within the size limit is refused unread.
    if (value.length > Math.ceil(KUBECONFIG_LIMITS.maxLength / 3) * 4) {
      return {
        ok: false,
        refusal: {
          code: 'kubeconfig-over-limit',
          message: `${where}: the value is larger than ${KUBECONFIG_LIMITS.maxLength / 1024} KiB; ${OVER_LIMIT_FIX}`,
        },
      };
    }
    const text = decodeBase64Text(value);
    if (text === undefined) {
      return {
        ok: false,
        refusal: {
          code: 'kubeconfig-unreadable',
          message: `${where}: the value is not UTF-8 text (a compressed or binary blob?); store the kubeconfig file itself`,
        },
      };
    }
    return translateKubeconfig(text, {
      namespace: secret.namespace,
      secret: secret.name,
      provider,
      key,
      ...(options?.serverOverridden === true ? { serverOverridden: true } : {}),
      ...(options?.clusterSource === true ? { clusterSource: true } : {}),
      ...(settings.labelPrefix !== undefined
        ? { serverAnnotation: `${settings.labelPrefix}server` }
        : {}),
    });
  };
}

/** Decodes `data[key]` and translates it; refusals name the annotation by placeholder. */
export const translateSecretKey: Translator = createSecretKeyTranslator({});

export interface KubeconfigSelection {
  readonly chosen?: {
    readonly candidate: CandidateRef;
    readonly translation: Translation;
    readonly secret: ObservedSecret;
  };
  readonly rejected: readonly { readonly candidate: CandidateRef; readonly refusal: Refusal }[];
}

// Code-unit order, not locale order: plans must be byte-identical on every machine.

/**
 * Candidates: Secrets of `namespace` whose name matches a provider's glob and that carry one
 * of its keys (a name match alone is not a candidate: vcluster's `vc-config-<name>` holds no
 * kubeconfig and is skipped silently). Tried by provider precedence, then the provider's
 * preferred Secret type first, then Secret name; within a Secret, keys in declared order.
 * The first clean translation wins; every failure before it is kept with its reason.
 */
export function selectKubeconfig(
  namespace: string,
  secrets: readonly ObservedSecret[],
  providers: readonly Provider[],
  translate: Translator,
  selectOptions?: SelectOptions,
): KubeconfigSelection {
  const rejected: { candidate: CandidateRef; refusal: Refusal }[] = [];
  const own = secrets.filter((secret) => secret.namespace === namespace);
  const clusterName = selectOptions?.clusterName;
  const options: TranslateOptions | undefined =
    selectOptions?.serverOverridden === true || clusterName !== undefined
      ? {
          ...(selectOptions?.serverOverridden === true ? { serverOverridden: true } : {}),
          ...(clusterName !== undefined ? { clusterSource: true } : {}),
        }
      : undefined;
  for (const provider of providers) {
    const exact =
      clusterName === undefined
        ? undefined
        : clusterSecretName(provider.secretNamePattern, clusterName);
    if (clusterName !== undefined && exact === undefined) continue;
    const candidates = own
      .filter(
        (secret) =>
          (exact === undefined
            ? matchGlob(provider.secretNamePattern, secret.name)
            : secret.name === exact) &&
          provider.keys.some((key) => Object.hasOwn(secret.data, key)),
      )
      .sort((a, b) => {
        const preferred = provider.preferredSecretType;
        if (preferred !== undefined && (a.type === preferred) !== (b.type === preferred))
          return a.type === preferred ? -1 : 1;
        return compareStrings(a.name, b.name) || compareStrings(a.uid, b.uid);
      });
    for (const secret of candidates) {
      for (const key of provider.keys) {
        if (!Object.hasOwn(secret.data, key)) continue;
        const candidate: CandidateRef = {
          namespace,
          secret: secret.name,
          key,
          provider: provider.name,
        };
        const result = translate(secret, key, provider, options);
        if (result.ok)
          return { chosen: { candidate, translation: result.translation, secret }, rejected };
        rejected.push({ candidate, refusal: result.refusal });
      }
    }
  }
  return { rejected };
}
