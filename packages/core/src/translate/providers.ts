// The choice of kubeconfig among a namespace's candidate Secrets, and its translation.

import { compareStrings } from '../common/compare-strings.js';
import type {
  CandidateRef,
  Config,
  ObservedSecret,
  Provider,
  Refusal,
  RefusalCode,
  Translation,
  TranslationResult,
} from '../common/types.js';
import { decodeBase64Text } from '../common/base64.js';
import { claimOf, describeMarks, type Claim } from '../config/provider-marks.js';
import { VCLUSTER_NAME_LABEL } from '../config/provider-presets.js';
import { translateKubeconfig, type TranslateContext } from './kubeconfig.js';
import { KUBECONFIG_LIMITS } from './kubeconfig-limits.js';
import { OVER_LIMIT_FIX, where } from './kubeconfig-structure.js';
import { clusterSecretName } from '../config/sources.js';
import { keyMissingMessage, namesAKubeconfig } from './near-misses.js';
import { inReferenceMode, type ReferenceSettings } from './reference-mode.js';

interface SelectOptions extends TranslateOptions {
  /** A Cluster API Cluster: each provider's pattern names its Secret exactly, or is skipped. */
  readonly clusterName?: string;
  /** The Secret the source names, the only candidate, and the annotation (key) that named it. */
  readonly pinned?: { readonly secret: string; readonly pinnedBy: string };
}

/** What a translation depends on besides the kubeconfig: a translation cache keys on both. */
export type TranslateOptions = Pick<TranslateContext, 'serverOverridden' | 'clusterSource'>;

export type Translator = (
  secret: ObservedSecret,
  key: string,
  provider: Provider,
  options?: TranslateOptions,
) => TranslationResult;

export interface SecretKeyTranslatorOptions {
  /** The label prefix in use, so refusals name the real `<prefix>server` annotation. */
  readonly labelPrefix?: string;
  /** Reference mode and the plugin's path; absent or `off`: credentials are copied. */
  readonly reference?: ReferenceSettings;
}

/** A translator that decodes `data[key]` (base64 as served) and translates it. */
export function createSecretKeyTranslator(settings: SecretKeyTranslatorOptions): Translator {
  return (secret, key, provider, options) => {
    const source = { namespace: secret.namespace, secret: secret.name, key };
    const refuse = (code: RefusalCode, message: string): TranslationResult => ({
      ok: false,
      refusal: { code, message: `${where(source)}: ${message}` },
    });
    const value = secret.data[key];
    if (value === undefined)
      return refuse(
        'kubeconfig-unreadable',
        `the Secret has no such key; store the kubeconfig under ${key}`,
      );
    // Decoding is a loop over every character (interpreted under the image's `--jitless`):
    // a value that cannot decode to a kubeconfig within the size limit is refused unread.
    if (value.length > Math.ceil(KUBECONFIG_LIMITS.maxLength / 3) * 4) {
      return refuse(
        'kubeconfig-over-limit',
        `the value is larger than ${KUBECONFIG_LIMITS.maxLength / 1024} KiB; ${OVER_LIMIT_FIX}`,
      );
    }
    const text = decodeBase64Text(value);
    if (text === undefined) {
      return refuse(
        'kubeconfig-unreadable',
        'the value is not UTF-8 text (a compressed or binary blob?); store the kubeconfig file itself',
      );
    }
    const reference = settings.reference;
    const translated = translateKubeconfig(text, {
      ...source,
      provider,
      ...options,
      ...(settings.labelPrefix !== undefined
        ? { serverAnnotation: `${settings.labelPrefix}server` }
        : {}),
      ...(provider.loopbackRewrite && secret.labels[VCLUSTER_NAME_LABEL] !== undefined
        ? { vcluster: secret.labels[VCLUSTER_NAME_LABEL] }
        : {}),
      ...(reference !== undefined && reference.mode !== 'off' ? { secretReaderFit: true } : {}),
    });
    if (!translated.ok || reference === undefined) return translated;
    // The reference names the candidate: always the source's own Secret in its own namespace.
    return inReferenceMode(translated.translation, source, reference);
  };
}

/** The translator a configuration asks for: its label prefix in messages, its reference mode. */
export function configuredTranslator(
  config: Pick<Config, 'labelPrefix' | 'referenceMode' | 'secretreaderPath'>,
): Translator {
  return createSecretKeyTranslator({
    labelPrefix: config.labelPrefix,
    reference: { mode: config.referenceMode, command: config.secretreaderPath },
  });
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

const ref = (
  namespace: string,
  { name }: ObservedSecret,
  key: string,
  { name: provider }: Provider,
) => ({ namespace, secret: name, key, provider }) satisfies CandidateRef;
/** Marks first, then the preferred Secret type. */
const rank = (provider: Provider, { secret, claim }: { secret: ObservedSecret; claim: Claim }) =>
  (claim === 'marks' ? 0 : 2) + (secret.type === provider.preferredSecretType ? 0 : 1);

/**
 * Candidates: Secrets of `namespace` that a provider reads (by marks or name) and that carry
 * one of its keys (vcluster's `vc-config-<name>` holds none). Tried by provider precedence,
 * then marks before name only (what the provisioner guarantees beats a name that happens to
 * fit), preferred Secret type, name; keys in declared order. The first clean translation wins;
 * every failure before it is kept. With no candidate, a Secret a provider reads that has a
 * kubeconfig-named key but none of the provider's is refused (`kubeconfig-key-missing`).
 */
export function selectKubeconfig(
  namespace: string,
  secrets: readonly ObservedSecret[],
  providers: readonly Provider[],
  translate: Translator,
  selectOptions?: SelectOptions,
): KubeconfigSelection {
  const rejected: { candidate: CandidateRef; refusal: Refusal }[] = [];
  const keyMissing: { candidate: CandidateRef; refusal: Refusal }[] = [];
  const pinned = selectOptions?.pinned;
  const own = secrets.filter(
    (secret) =>
      secret.namespace === namespace && (pinned === undefined || secret.name === pinned.secret),
  );
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
    // A Cluster's Secret is named after it exactly; marks say which provisioner, not which Cluster.
    if (clusterName !== undefined && (exact === undefined || provider.marks?.only === true))
      continue;
    const candidates: { secret: ObservedSecret; claim: Claim }[] = [];
    for (const secret of own) {
      const claim: Claim | undefined =
        exact === undefined
          ? claimOf(provider, secret)
          : secret.name === exact
            ? 'name'
            : undefined;
      if (claim === undefined) continue;
      if (provider.keys.some((key) => Object.hasOwn(secret.data, key)))
        candidates.push({ secret, claim });
      else if (Object.keys(secret.data).some(namesAKubeconfig)) {
        const keys = Object.keys(secret.data);
        keyMissing.push({
          candidate: ref(namespace, secret, provider.keys[0] ?? '', provider),
          refusal: {
            code: 'kubeconfig-key-missing',
            message: `namespace ${secret.namespace}: ${keyMissingMessage({ ...secret, keys }, provider)}`,
          },
        });
      }
    }
    candidates.sort(
      (a, b) =>
        rank(provider, a) - rank(provider, b) ||
        compareStrings(a.secret.name, b.secret.name) ||
        compareStrings(a.secret.uid, b.secret.uid),
    );
    for (const { secret, claim } of candidates) {
      for (const key of provider.keys) {
        if (!Object.hasOwn(secret.data, key)) continue;
        const candidate = ref(namespace, secret, key, provider);
        const result = translate(secret, key, provider, options);
        if (result.ok) {
          const chosenBy = whyChosen(provider, claim, pinned?.pinnedBy);
          return {
            chosen: {
              candidate: { ...candidate, chosenBy },
              translation: result.translation,
              secret,
            },
            rejected,
          };
        }
        rejected.push({ candidate, refusal: result.refusal });
      }
    }
  }
  // A kubeconfig under another key is refused only when nothing else could register the
  // source: a glob like `vc-*` or a provisioner's marks also take in Secrets that are no
  // kubeconfig, and beside a usable (or refused) candidate they are noise.
  return { rejected: rejected.length > 0 ? rejected : keyMissing };
}

/** Why the chosen candidate was chosen, as the plan says it. */
function whyChosen(provider: Provider, claim: Claim, pinnedBy: string | undefined): string {
  if (pinnedBy !== undefined) return `named by the ${pinnedBy} annotation`;
  const which =
    claim === 'marks' && provider.marks !== undefined
      ? `${describeMarks(provider.marks)}, as ${provider.name} writes its kubeconfig Secrets`
      : `its name matches ${provider.secretNamePattern}`;
  return `the first usable candidate of the ${provider.name} provider (${which})`;
}
