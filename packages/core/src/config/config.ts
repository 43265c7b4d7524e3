// The configuration model: raw settings (flags, env vars, chart values, all strings) in,
// a validated Config out. Every problem is reported at once, as a value that names the
// setting and the accepted form, so start-up fails with one readable list.

import {
  CONFIG_DEFAULTS,
  LEGACY_DEFAULTS,
  type ConfigError,
  type ConfigInput,
  type ConfigResult,
  type Fail,
} from './input.js';
import { providerSettings } from './provider-settings.js';
import {
  LABEL_PREFIX_FORM,
  MANAGED_BY_FORM,
  SECRETREADER_PATH_FORM,
  TARGET_NAMESPACE_FORM,
} from './forms.js';
import {
  booleanSetting,
  countSetting,
  display,
  durationSetting,
  stringSetting,
} from './settings.js';
import { formProblem, type FormCheck } from './form-checks.js';
import { execPolicySetting } from './exec-policy.js';
import type { Config, ReferenceMode } from '../common/types.js';

export {
  CONFIG_DEFAULTS,
  LEGACY_DEFAULTS,
  PROVIDER_FORM,
  type ConfigError,
  type ConfigInput,
  type ConfigResult,
} from './input.js';
export { legacyCombinationProblem, parseProviderEntry } from './provider-settings.js';

export interface ParseConfigOptions {
  /**
   * How a message names another setting (default: its ConfigInput key), so a caller can
   * speak its own vocabulary: the CLI names flags, a values file its keys.
   */
  readonly nameOf?: (setting: keyof ConfigInput) => string;
}

type Scalars = Omit<Config, 'providers'>;

/** Each Config field but the providers, from its setting (the default when absent). */
const SCALARS: {
  readonly [K in keyof Scalars]: (input: ConfigInput, fail: Fail) => Scalars[K] | undefined;
} = {
  targetNamespace: (input, fail) => formed(input, 'targetNamespace', TARGET_NAMESPACE_FORM, fail),
  labelPrefix: (input, fail) => formed(input, 'labelPrefix', LABEL_PREFIX_FORM, fail),
  managedBy: (input, fail) => formed(input, 'managedBy', MANAGED_BY_FORM, fail),
  intervalMs: (input, fail) => durationSetting(input, 'interval', CONFIG_DEFAULTS.interval, fail),
  demotedTtlMs: (input, fail) =>
    durationSetting(input, 'demotedTTL', CONFIG_DEFAULTS.demotedTTL, fail),
  credentialRefreshWindowMs: (input, fail) =>
    durationSetting(
      input,
      'credentialRefreshWindow',
      CONFIG_DEFAULTS.credentialRefreshWindow,
      fail,
    ),
  execCredentials: (input, fail) =>
    booleanSetting(input, 'execCredentials', CONFIG_DEFAULTS.execCredentials, fail),
  execPolicy: execPolicySetting,
  drainOnTerminate: (input, fail) =>
    booleanSetting(input, 'drainOnTerminate', CONFIG_DEFAULTS.drainOnTerminate, fail),
  capiClusters: (input, fail) =>
    booleanSetting(input, 'capiClusters', CONFIG_DEFAULTS.capiClusters, fail),
  capiClusterNames: clusterNamesSetting,
  capiClusterNameLabel: (input, fail) =>
    booleanSetting(input, 'capiClusterNameLabel', CONFIG_DEFAULTS.capiClusterNameLabel, fail),
  probeChildren: (input, fail) =>
    booleanSetting(input, 'probeChildren', CONFIG_DEFAULTS.probeChildren, fail),
  probeFailures: (input, fail) =>
    countSetting(input, 'probeFailures', CONFIG_DEFAULTS.probeFailures, PROBE_FAILURES_RANGE, fail),
  probeIntervalMs: (input, fail) =>
    durationSetting(input, 'probeInterval', CONFIG_DEFAULTS.probeInterval, fail),
  kamajiSleep: (input, fail) =>
    booleanSetting(input, 'kamajiSleep', CONFIG_DEFAULTS.kamajiSleep, fail),
  vclusterSleep: (input, fail) =>
    booleanSetting(input, 'vclusterSleep', CONFIG_DEFAULTS.vclusterSleep, fail),
  referenceMode: referenceModeSetting,
  secretreaderPath: (input, fail) =>
    formed(input, 'secretreaderPath', SECRETREADER_PATH_FORM, fail),
  clusterProfiles: (input, fail) =>
    booleanSetting(input, 'clusterProfiles', CONFIG_DEFAULTS.clusterProfiles, fail),
  clusterProfileNamespace: (input, fail) => {
    // Unset or empty: the target namespace (its own reader reports a problem with it).
    const value = stringSetting(input, 'clusterProfileNamespace', '', fail);
    if (value !== '') return formed(input, 'clusterProfileNamespace', TARGET_NAMESPACE_FORM, fail);
    const target: unknown = input.targetNamespace;
    return typeof target === 'string' ? target : CONFIG_DEFAULTS.targetNamespace;
  },
  clusterManager: (input, fail) => formed(input, 'clusterManager', MANAGED_BY_FORM, fail),
};

/** Validates every setting and returns either a Config or all the errors found. */
export function parseConfig(input: ConfigInput, options: ParseConfigOptions = {}): ConfigResult {
  const nameOf = options.nameOf ?? ((setting: keyof ConfigInput): string => setting);
  const errors: ConfigError[] = [];
  const fail: Fail = (setting, value, message) => {
    errors.push({ setting, value: display(value), message });
  };
  failUnknownSettings(input, fail);
  const read = Object.fromEntries(
    Object.entries(SCALARS).map(([field, setting]) => [field, setting(input, fail)]),
  );
  const providers = providerSettings(input, fail, nameOf);
  if (errors.length > 0 || providers === undefined || Object.values(read).includes(undefined)) {
    return { ok: false, errors };
  }
  // Every reader returned its field's value (none undefined, checked above).
  const { targetNamespace, labelPrefix, managedBy, ...rest } = read as unknown as Scalars;
  return {
    ok: true,
    config: {
      targetNamespace,
      labelPrefix,
      managedBy,
      // With the global gate on, each provider carries it (and the allow-lists) too: a
      // Translator sees only the provider, and both gates must be on.
      providers: rest.execCredentials
        ? providers.map((provider) => ({
            ...provider,
            execCredentials: true,
            execPolicy: rest.execPolicy,
          }))
        : providers,
      ...rest,
    },
  };
}

/** Every setting ConfigInput knows. */
const KNOWN_SETTINGS = Object.keys({ ...CONFIG_DEFAULTS, ...LEGACY_DEFAULTS });

/** A stale values file or a typo must fail loudly, never be ignored. */
function failUnknownSettings(input: ConfigInput, fail: Fail): void {
  for (const [key, value] of Object.entries(input)) {
    if (!KNOWN_SETTINGS.includes(key)) {
      fail(key, value, `unknown setting; known settings are ${KNOWN_SETTINGS.join(', ')}`);
    }
  }
}

/** A string setting that must also have its form (a namespace name, a label prefix, …). */
function formed(
  input: ConfigInput,
  key:
    | 'targetNamespace'
    | 'labelPrefix'
    | 'managedBy'
    | 'secretreaderPath'
    | 'clusterProfileNamespace'
    | 'clusterManager',
  form: readonly FormCheck[],
  fail: Fail,
): string | undefined {
  const value = stringSetting(input, key, CONFIG_DEFAULTS[key], fail);
  const problem = value === undefined ? undefined : formProblem(form, value);
  if (problem !== undefined) fail(key, value, problem);
  return value;
}

/** Consecutive failed probes before a child counts as unreachable. */
export const PROBE_FAILURES_RANGE = { min: 1, max: 100 } as const;

const CLUSTER_NAME_FORMS: readonly Config['capiClusterNames'][] = ['name', 'namespace-name'];

function clusterNamesSetting(
  input: ConfigInput,
  fail: Fail,
): Config['capiClusterNames'] | undefined {
  const value: unknown = input.capiClusterNames ?? CONFIG_DEFAULTS.capiClusterNames;
  const form = CLUSTER_NAME_FORMS.find((candidate) => candidate === value);
  if (form === undefined) {
    fail('capiClusterNames', value, `must be one of ${CLUSTER_NAME_FORMS.join(', ')}`);
  }
  return form;
}

const REFERENCE_MODES: readonly ReferenceMode[] = ['off', 'on', 'on-or-copy'];

function referenceModeSetting(input: ConfigInput, fail: Fail): ReferenceMode | undefined {
  const value: unknown = input.referenceMode ?? CONFIG_DEFAULTS.referenceMode;
  const mode = REFERENCE_MODES.find((candidate) => candidate === value);
  if (mode === undefined) {
    fail('referenceMode', value, `must be one of ${REFERENCE_MODES.join(', ')}`);
  }
  return mode;
}

/** One line per error, for a start-up failure message: `interval "0s": must be at least 1s …`. */
export function formatConfigError(error: ConfigError): string {
  return `${error.setting} ${JSON.stringify(error.value)}: ${error.message}`;
}
