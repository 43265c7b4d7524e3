// The configuration model: raw settings (flags, env vars, chart values, all strings) in,
// a validated Config out. Every problem is reported at once, as a value that names the
// setting and the accepted form, so start-up fails with one readable list.

import type { Config, Provider } from './types.js';
import { DURATION_FORM, parseDuration } from './duration.js';
import { validateGlob } from './glob.js';
import { PROVIDER_PRESET_NAMES, PROVIDER_PRESETS } from './providers.js';

export interface ConfigInput {
  targetNamespace?: string;
  labelPrefix?: string;
  managedBy?: string;
  /** Legacy (seed) setting: one provider's Secret-name glob. Cannot be combined with `providers`. */
  secretNamePattern?: string;
  /** Legacy (seed) setting: the key inside the Secret. Cannot be combined with `providers`. */
  secretKey?: string;
  /**
   * In precedence order: a preset (`k3k`, `vcluster`, `kamaji`, `capi`, `capa-eks`,
   * `capz-aks`, `gke`) or `custom:<glob>=<key>[,<key>...][;exec]` (`;exec`: the provider
   * allows exec translation, the provider half of the two exec gates).
   */
  providers?: readonly string[];
  interval?: string;
  demotedTTL?: string;
  credentialRefreshWindow?: string;
  /** The global exec gate (`--exec-credentials`, chart `execCredentials`); default false. */
  execCredentials?: boolean;
  /** Drain before deregistration (`--drain-on-terminate`, chart `drainOnTerminate`); default false. */
  drainOnTerminate?: boolean;
}

export interface ConfigError {
  /** The ConfigInput key (the CLI maps it to its flag, env var or chart value). */
  readonly setting: string;
  /** The offending value as given (for `providers`, the one bad entry). */
  readonly value: string;
  /** What is wrong and the accepted form; does not repeat the setting name. */
  readonly message: string;
}

export type ConfigResult =
  | { readonly ok: true; readonly config: Config }
  | { readonly ok: false; readonly errors: readonly ConfigError[] };

export const CONFIG_DEFAULTS = {
  targetNamespace: 'argocd',
  labelPrefix: 'argocd-cluster-registrar/',
  managedBy: 'cluster-registrar',
  providers: ['k3k'],
  interval: '60s',
  // A demoted (renamed-away) registration is kept a week so a reverted label restores it.
  demotedTTL: '168h',
  credentialRefreshWindow: '0s',
  execCredentials: false,
  drainOnTerminate: false,
} as const satisfies Required<Omit<ConfigInput, 'secretNamePattern' | 'secretKey'>>;

/**
 * What the legacy pair means when only one of them is given (the seed's defaults, which are
 * also the k3k preset). They are not applied unless one of the two is set: the default
 * provider list is `[k3k]`.
 */
export const LEGACY_DEFAULTS = {
  secretNamePattern: 'k3k-*-kubeconfig',
  secretKey: 'kubeconfig.yaml',
} as const;

export const PROVIDER_FORM =
  'one of k3k, vcluster, kamaji, capi, capa-eks, capz-aks, gke, or custom:<glob>=<key>[,<key>...][;exec] (for example custom:*-kubeconfig=value)';

const CUSTOM_FORM = 'custom:<glob>=<key>[,<key>...][;exec]';

const KNOWN_SETTINGS: ReadonlySet<string> = new Set([
  'targetNamespace',
  'labelPrefix',
  'managedBy',
  'secretNamePattern',
  'secretKey',
  'providers',
  'interval',
  'demotedTTL',
  'credentialRefreshWindow',
  'execCredentials',
  'drainOnTerminate',
]);

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const SECRET_DATA_KEY = /^[-._a-zA-Z0-9]+$/;
type PresetName = (typeof PROVIDER_PRESET_NAMES)[number];

const MIN_INTERVAL_MS = 1000;
const INTERVAL_EXAMPLES = 'such as 30s, 60s, 1m30s or 5m';

export interface ParseConfigOptions {
  /**
   * How a message names another setting (default: its ConfigInput key), so a caller can
   * speak its own vocabulary: the CLI names flags, a values file its keys.
   */
  readonly nameOf?: (setting: keyof ConfigInput) => string;
}

/** Validates every setting and returns either a Config or all the errors found. */
export function parseConfig(input: ConfigInput, options: ParseConfigOptions = {}): ConfigResult {
  const nameOf = options.nameOf ?? ((setting: keyof ConfigInput): string => setting);
  const errors: ConfigError[] = [];
  const fail = (setting: string, value: unknown, message: string): void => {
    errors.push({ setting, value: display(value), message });
  };

  // A stale values file or a typo must fail loudly, never be ignored.
  for (const key of Object.keys(input)) {
    if (!KNOWN_SETTINGS.has(key)) {
      fail(
        key,
        (input as Record<string, unknown>)[key],
        `unknown setting; known settings are ${[...KNOWN_SETTINGS].join(', ')}`,
      );
    }
  }

  const targetNamespace = stringSetting(
    input,
    'targetNamespace',
    CONFIG_DEFAULTS.targetNamespace,
    fail,
  );
  if (targetNamespace !== undefined && !isDnsLabel(targetNamespace)) {
    fail(
      'targetNamespace',
      targetNamespace,
      'must be a namespace name: a DNS-1123 label (lower-case letters, digits and "-", starting and ending with a letter or digit, at most 63 characters)',
    );
  }

  const labelPrefix = stringSetting(input, 'labelPrefix', CONFIG_DEFAULTS.labelPrefix, fail);
  if (labelPrefix !== undefined) {
    const problem = labelPrefixProblem(labelPrefix);
    if (problem !== undefined) fail('labelPrefix', labelPrefix, problem);
  }

  const managedBy = stringSetting(input, 'managedBy', CONFIG_DEFAULTS.managedBy, fail);
  if (managedBy !== undefined && !isLabelValue(managedBy)) {
    fail(
      'managedBy',
      managedBy,
      'must be a non-empty label value: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit',
    );
  }

  const intervalMs = durationSetting(input, 'interval', CONFIG_DEFAULTS.interval, fail);
  if (intervalMs !== undefined && intervalMs < MIN_INTERVAL_MS) {
    fail('interval', input.interval, `must be at least 1s, ${INTERVAL_EXAMPLES}`);
  }
  const demotedTtlMs = durationSetting(input, 'demotedTTL', CONFIG_DEFAULTS.demotedTTL, fail);
  const credentialRefreshWindowMs = durationSetting(
    input,
    'credentialRefreshWindow',
    CONFIG_DEFAULTS.credentialRefreshWindow,
    fail,
  );

  const execCredentials = booleanSetting(
    input,
    'execCredentials',
    CONFIG_DEFAULTS.execCredentials,
    fail,
  );

  const drainOnTerminate = booleanSetting(
    input,
    'drainOnTerminate',
    CONFIG_DEFAULTS.drainOnTerminate,
    fail,
  );

  const providers = providerSettings(input, fail, nameOf);

  if (
    errors.length > 0 ||
    targetNamespace === undefined ||
    labelPrefix === undefined ||
    managedBy === undefined ||
    intervalMs === undefined ||
    demotedTtlMs === undefined ||
    credentialRefreshWindowMs === undefined ||
    execCredentials === undefined ||
    drainOnTerminate === undefined ||
    providers === undefined
  ) {
    return { ok: false, errors };
  }
  return {
    ok: true,
    config: {
      targetNamespace,
      labelPrefix,
      managedBy,
      // With the global gate on, each provider carries it too: a Translator sees only the
      // provider, and both gates must be on.
      providers: execCredentials
        ? providers.map((provider) => ({ ...provider, execCredentials }))
        : providers,
      intervalMs,
      demotedTtlMs,
      credentialRefreshWindowMs,
      execCredentials,
      drainOnTerminate,
    },
  };
}

/** One line per error, for a start-up failure message: `interval "0s": must be at least 1s …`. */
export function formatConfigError(error: ConfigError): string {
  return `${error.setting} ${JSON.stringify(error.value)}: ${error.message}`;
}

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

// ---------------------------------------------------------------------------------------

type Fail = (setting: string, value: unknown, message: string) => void;

function providerSettings(
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

function labelPrefixProblem(prefix: string): string | undefined {
  const form =
    'expected a DNS subdomain followed by "/" (for example argocd-cluster-registrar/ or registrar.example.com/)';
  if (!prefix.endsWith('/')) {
    const suggestion = isDnsSubdomain(prefix) ? ` (did you mean ${prefix}/?)` : '';
    return `must end in "/"${suggestion}; ${form}`;
  }
  const domain = prefix.slice(0, -1);
  if (!isDnsSubdomain(domain)) return `is not a valid label-key prefix; ${form}`;
  return undefined;
}

function isDnsLabel(text: string): boolean {
  return text.length <= 63 && DNS_LABEL.test(text);
}

function isDnsSubdomain(text: string): boolean {
  return text.length > 0 && text.length <= 253 && text.split('.').every(isDnsLabel);
}

function isLabelValue(text: string): boolean {
  return text.length <= 63 && LABEL_VALUE.test(text);
}

type StringKey =
  'targetNamespace' | 'labelPrefix' | 'managedBy' | 'secretNamePattern' | 'secretKey';

function stringSetting(
  input: ConfigInput,
  key: StringKey,
  fallback: string,
  fail: Fail,
): string | undefined {
  const value: unknown = input[key];
  if (value === undefined) return fallback;
  if (typeof value === 'string') return value;
  fail(key, value, 'must be a string');
  return undefined;
}

function durationSetting(
  input: ConfigInput,
  key: 'interval' | 'demotedTTL' | 'credentialRefreshWindow',
  fallback: string,
  fail: Fail,
): number | undefined {
  const value: unknown = input[key];
  const text = value === undefined ? fallback : value;
  if (typeof text !== 'string') {
    fail(key, value, `must be ${DURATION_FORM}`);
    return undefined;
  }
  const parsed = parseDuration(text);
  if (!parsed.ok) {
    // A sign is the one mistake worth naming: "-5s" looks like a duration.
    const expected =
      key === 'interval' ? `a Go duration of at least 1s, ${INTERVAL_EXAMPLES}` : DURATION_FORM;
    fail(
      key,
      text,
      /^-\d/.test(text) ? `must not be negative; expected ${expected}` : `must be ${DURATION_FORM}`,
    );
    return undefined;
  }
  return parsed.ms;
}

function booleanSetting(
  input: ConfigInput,
  key: 'execCredentials' | 'drainOnTerminate',
  fallback: boolean,
  fail: Fail,
): boolean | undefined {
  const value: unknown = input[key];
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  fail(key, value, 'must be true or false');
  return undefined;
}

function display(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    // undefined for functions and symbols, a throw for bigints and cycles: fall back to the type.
    const json = JSON.stringify(value) as string | undefined;
    return json ?? typeof value;
  } catch {
    return typeof value;
  }
}
