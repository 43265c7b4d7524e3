// Provider-list parsing: presets, `custom:<glob>=<key>[,<key>...][;exec]` entries and the
// legacy secretNamePattern/secretKey pair, each validated, with duplicates refused.

import type { Provider } from './types.js';
import {
  CONFIG_DEFAULTS,
  CUSTOM_FORM,
  LEGACY_DEFAULTS,
  PROVIDER_FORM,
  type ConfigInput,
  type Fail,
} from './config-input.js';
import { stringSetting } from './config-settings.js';
import { validateGlob } from './glob.js';
import { PROVIDER_PRESET_NAMES, PROVIDER_PRESETS } from './providers.js';

const SECRET_DATA_KEY = /^[-._a-zA-Z0-9]+$/;
type PresetName = (typeof PROVIDER_PRESET_NAMES)[number];

/** Parses one `--provider` entry. Exported for the CLI's per-flag help and for tests. */
export function parseProviderEntry(
  entry: string,
): { ok: true; provider: Provider } | { ok: false; message: string } {
  if ((PROVIDER_PRESET_NAMES as readonly string[]).includes(entry)) {
    return { ok: true, provider: PROVIDER_PRESETS[entry as PresetName] };
  }
  if (!entry.startsWith('custom:')) {
    return { ok: false, message: `unknown provider; expected ${PROVIDER_FORM}` };
  }
  const body = entry.slice('custom:'.length);
  const equals = body.indexOf('=');
  if (equals < 0) {
    return {
      ok: false,
      message: `a custom provider needs "=" between the Secret-name glob and its keys; expected ${CUSTOM_FORM}`,
    };
  }
  const pattern = body.slice(0, equals);
  const globProblem = secretNamePatternProblem(pattern);
  if (globProblem !== undefined) return { ok: false, message: globProblem };
  // Options follow the keys after ";" (a character no Secret key or name may hold).
  const [keyList = '', ...options] = body.slice(equals + 1).split(';');
  for (const option of options) {
    if (option !== 'exec') {
      return {
        ok: false,
        message: `${JSON.stringify(option)} is not a custom provider option; the only one is ;exec (allow exec translation); expected ${CUSTOM_FORM}`,
      };
    }
  }
  if (options.length > 1)
    return { ok: false, message: `lists ;exec twice; expected ${CUSTOM_FORM}` };
  const keys = keyList.split(',');
  for (const key of keys) {
    const keyProblem = secretKeyProblem(key);
    if (keyProblem !== undefined) return { ok: false, message: keyProblem };
  }
  if (new Set(keys).size !== keys.length) {
    return {
      ok: false,
      message: `lists a key twice; expected ${CUSTOM_FORM} with distinct keys`,
    };
  }
  return { ok: true, provider: customProvider(pattern, keys, options.length > 0) };
}
export function providerSettings(
  input: ConfigInput,
  fail: Fail,
  nameOf: (setting: keyof ConfigInput) => string,
): readonly Provider[] | undefined {
  const legacyGiven = input.secretNamePattern !== undefined || input.secretKey !== undefined;
  if (input.providers !== undefined && legacyGiven) {
    const legacy = [
      input.secretNamePattern !== undefined ? nameOf('secretNamePattern') : undefined,
      input.secretKey !== undefined ? nameOf('secretKey') : undefined,
    ].filter((name) => name !== undefined);
    fail(
      'providers',
      input.providers.join(' '),
      `cannot be combined with ${legacy.join(' and ')}; pick one: either list ${nameOf('providers')} (for example custom:${input.secretNamePattern ?? LEGACY_DEFAULTS.secretNamePattern}=${input.secretKey ?? LEGACY_DEFAULTS.secretKey}) or keep the legacy ${nameOf('secretNamePattern')}/${nameOf('secretKey')} pair without ${nameOf('providers')}`,
    );
    return undefined;
  }

  if (legacyGiven) {
    const pattern = stringSetting(
      input,
      'secretNamePattern',
      LEGACY_DEFAULTS.secretNamePattern,
      fail,
    );
    const key = stringSetting(input, 'secretKey', LEGACY_DEFAULTS.secretKey, fail);
    let valid = pattern !== undefined && key !== undefined;
    if (pattern !== undefined) {
      const problem = secretNamePatternProblem(pattern);
      if (problem !== undefined) {
        fail('secretNamePattern', pattern, problem);
        valid = false;
      }
    }
    if (key !== undefined) {
      const problem = secretKeyProblem(key);
      if (problem !== undefined) {
        fail('secretKey', key, problem);
        valid = false;
      }
    }
    return valid && pattern !== undefined && key !== undefined
      ? [customProvider(pattern, [key])]
      : undefined;
  }

  const entries: unknown = input.providers ?? CONFIG_DEFAULTS.providers;
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
  let valid = true;
  for (const entry of entries as unknown[]) {
    if (typeof entry !== 'string') {
      fail('providers', entry, `each provider must be a string: ${PROVIDER_FORM}`);
      valid = false;
      continue;
    }
    const parsed = parseProviderEntry(entry);
    if (!parsed.ok) {
      fail('providers', entry, parsed.message);
      valid = false;
      continue;
    }
    // Same glob and keys twice can only be a mistake: the second entry could never win.
    // Exec presets share a glob (CAPA and GKE both write `<cluster>-user-kubeconfig`) but
    // translate different plugins, so what a provider translates is part of its identity.
    const identity = `${parsed.provider.secretNamePattern}=${parsed.provider.keys.join(',')};${(parsed.provider.execClouds ?? []).join('+')}`;
    const earlier = seen.get(identity);
    if (earlier !== undefined) {
      fail(
        'providers',
        entry,
        earlier === entry
          ? 'is listed twice; list each provider once'
          : `duplicates ${earlier} (same Secret-name glob and keys); list each provider once`,
      );
      valid = false;
      continue;
    }
    seen.set(identity, entry);
    providers.push(parsed.provider);
  }
  return valid ? providers : undefined;
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

function secretNamePatternProblem(pattern: string): string | undefined {
  const form =
    'expected a glob over Secret names: * any run, ? one character, [...] a class (for example k3k-*-kubeconfig)';
  if (pattern === '') return `the Secret-name glob is empty; ${form}`;
  const problem = validateGlob(pattern);
  return problem === undefined
    ? undefined
    : `the Secret-name glob ${JSON.stringify(pattern)} is malformed (${problem}); ${form}`;
}

function secretKeyProblem(key: string): string | undefined {
  if (key.length > 0 && key.length <= 253 && SECRET_DATA_KEY.test(key)) return undefined;
  return `${JSON.stringify(key)} is not a Secret data key: expected 1-253 letters, digits, "-", "_" or "." (for example kubeconfig.yaml)`;
}
