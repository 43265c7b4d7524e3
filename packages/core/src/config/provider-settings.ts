// Provider-list parsing: presets, custom entries and the legacy secretNamePattern/secretKey
// pair, each validated, with duplicates refused.

import type { Provider } from '../common/types.js';
import {
  CONFIG_DEFAULTS,
  LEGACY_DEFAULTS,
  PROVIDER_FORM,
  type ConfigInput,
  type Fail,
} from './input.js';
import {
  PROVIDER_ENTRY_FORM,
  PROVIDER_LISTED_TWICE,
  SECRET_KEY_FORM,
  secretNamePatternForm,
} from './forms.js';
import { checkForm, stringSetting } from './settings.js';
import { formProblem } from './form-checks.js';
import { PROVIDER_PRESET_NAMES, PROVIDER_PRESETS, type PresetName } from './provider-presets.js';

/** Parses one `--provider` entry. Exported for the CLI's per-flag help and for tests. */
export function parseProviderEntry(
  entry: string,
): { ok: true; provider: Provider } | { ok: false; message: string } {
  // The form first (the chart checks the same): what follows may take it as given.
  const problem = formProblem(PROVIDER_ENTRY_FORM, entry);
  if (problem !== undefined) return { ok: false, message: problem };
  if ((PROVIDER_PRESET_NAMES as readonly string[]).includes(entry)) {
    return { ok: true, provider: PROVIDER_PRESETS[entry as PresetName] };
  }
  const [, pattern = '', keys = '', exec] = /^custom:([^=]*)=([^;]*)(;.*)?$/s.exec(entry) ?? [];
  return { ok: true, provider: customProvider(pattern, keys.split(','), exec !== undefined) };
}
/** Why `providers` and the legacy pair may not both be given (the chart says the same). */
export function legacyCombinationProblem(
  input: Pick<ConfigInput, 'secretNamePattern' | 'secretKey'>,
  nameOf: (setting: keyof ConfigInput) => string,
): string {
  const legacy = (['secretNamePattern', 'secretKey'] as const)
    .filter((key) => input[key] !== undefined)
    .map((key) => nameOf(key));
  return `cannot be combined with ${legacy.join(' and ')}; pick one: either list ${nameOf('providers')} (for example custom:${input.secretNamePattern ?? LEGACY_DEFAULTS.secretNamePattern}=${input.secretKey ?? LEGACY_DEFAULTS.secretKey}) or keep the legacy ${nameOf('secretNamePattern')}/${nameOf('secretKey')} pair without ${nameOf('providers')}`;
}

export function providerSettings(
  input: ConfigInput,
  fail: Fail,
  nameOf: (setting: keyof ConfigInput) => string,
): readonly Provider[] | undefined {
  const legacyGiven = input.secretNamePattern !== undefined || input.secretKey !== undefined;
  if (input.providers !== undefined && legacyGiven) {
    fail('providers', input.providers.join(' '), legacyCombinationProblem(input, nameOf));
    return undefined;
  }

  if (legacyGiven) {
    const pattern = stringSetting(input, 'secretNamePattern', fail);
    const key = stringSetting(input, 'secretKey', fail);
    const validPattern = checkForm('secretNamePattern', pattern, secretNamePatternForm(), fail);
    const validKey = checkForm('secretKey', key, SECRET_KEY_FORM, fail);
    return validPattern === undefined || validKey === undefined
      ? undefined
      : [customProvider(validPattern, [validKey])];
  }

  // With Cluster sources on and no provider written, Clusters also get CAPI's `<name>-kubeconfig`:
  // k3k alone would have every Cluster wait for `k3k-<name>-kubeconfig`.
  const entries: unknown =
    input.providers ??
    (input.capiClusters === true
      ? [...CONFIG_DEFAULTS.providers, 'capi']
      : CONFIG_DEFAULTS.providers);
  if (!Array.isArray(entries)) {
    fail('providers', entries, `must be a list of providers, each ${PROVIDER_FORM}`);
    return undefined;
  }
  if (entries.length === 0) {
    fail('providers', '', `must list at least one provider, each ${PROVIDER_FORM}`);
    return undefined;
  }
  const providers: Provider[] = [];
  const seen = new Map<string, string>();
  for (const entry of entries as unknown[]) {
    const provider = readProvider(entry, seen);
    if (typeof provider === 'string') fail('providers', entry, provider);
    else providers.push(provider);
  }
  return providers.length === entries.length ? providers : undefined;
}

/** One entry of the list as a provider, or what is wrong with it. */
function readProvider(entry: unknown, seen: Map<string, string>): Provider | string {
  if (typeof entry !== 'string') return `each provider must be a string: ${PROVIDER_FORM}`;
  const parsed = parseProviderEntry(entry);
  if (!parsed.ok) return parsed.message;
  // Same glob and keys twice can only be a mistake: the second entry could never win.
  // Exec presets share a glob (CAPA and GKE both write `<cluster>-user-kubeconfig`) but
  // translate different plugins, so what a provider translates is part of its identity.
  const { secretNamePattern, keys, execClouds = [] } = parsed.provider;
  const identity = `${secretNamePattern}=${keys.join(',')};${execClouds.join('+')}`;
  const earlier = seen.get(identity);
  if (earlier === entry) return PROVIDER_LISTED_TWICE;
  if (earlier !== undefined)
    return `duplicates ${earlier} (same Secret-name glob and keys); list each provider once`;
  seen.set(identity, entry);
  return parsed.provider;
}

function customProvider(
  secretNamePattern: string,
  keys: readonly string[],
  exec = false,
): Provider {
  // `;exec` allows every cloud the registrar translates: the kubeconfig's command picks one.
  return {
    name: 'custom',
    secretNamePattern,
    keys,
    loopbackRewrite: false,
    ...(exec ? { execClouds: ['aws', 'azure', 'gcp'] as const } : {}),
  };
}
