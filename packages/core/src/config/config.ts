// Raw settings (flags, env vars, chart values) in, a validated Config out. Every problem is
// reported at once, naming the setting and the accepted form, so start-up fails with one list.

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
  checkForm,
  formedSetting,
  oneOfSetting,
  stringSetting,
  type SettingReader,
} from './settings.js';
import { execPolicySetting } from './exec-policy.js';
import type { Config } from '../common/types.js';

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
  /** How a message names another setting (default: its ConfigInput key): a flag, a values key. */
  readonly nameOf?: (setting: keyof ConfigInput) => string;
}

type Scalars = Omit<Config, 'providers'>;

const KNOWN_SETTINGS = Object.keys({ ...CONFIG_DEFAULTS, ...LEGACY_DEFAULTS });

/** Each Config field but the providers, from its setting (the default when absent). */
const SCALARS: { readonly [K in keyof Scalars]: SettingReader<Scalars[K]> } = {
  targetNamespace: formedSetting('targetNamespace', TARGET_NAMESPACE_FORM),
  labelPrefix: formedSetting('labelPrefix', LABEL_PREFIX_FORM),
  managedBy: formedSetting('managedBy', MANAGED_BY_FORM),
  intervalMs: durationSetting('interval'),
  demotedTtlMs: durationSetting('demotedTTL'),
  credentialRefreshWindowMs: durationSetting('credentialRefreshWindow'),
  execCredentials: booleanSetting('execCredentials'),
  execPolicy: execPolicySetting,
  drainOnTerminate: booleanSetting('drainOnTerminate'),
  capiClusters: booleanSetting('capiClusters'),
  capiClusterNames: oneOfSetting('capiClusterNames', ['name', 'namespace-name']),
  capiClusterNameLabel: booleanSetting('capiClusterNameLabel'),
  probeChildren: booleanSetting('probeChildren'),
  probeFailures: countSetting('probeFailures', { min: 1, max: 100 }),
  probeIntervalMs: durationSetting('probeInterval'),
  kamajiSleep: booleanSetting('kamajiSleep'),
  vclusterSleep: booleanSetting('vclusterSleep'),
  referenceMode: oneOfSetting('referenceMode', ['off', 'on', 'on-or-copy']),
  secretreaderPath: formedSetting('secretreaderPath', SECRETREADER_PATH_FORM),
  clusterProfiles: booleanSetting('clusterProfiles'),
  clusterProfileNamespace: (input, fail) => {
    // Unset or empty: the target namespace (its own reader reports a problem with it).
    const value = stringSetting(input, 'clusterProfileNamespace', fail);
    if (value !== '')
      return checkForm('clusterProfileNamespace', value, TARGET_NAMESPACE_FORM, fail);
    const target: unknown = input.targetNamespace;
    return typeof target === 'string' ? target : CONFIG_DEFAULTS.targetNamespace;
  },
  clusterManager: formedSetting('clusterManager', MANAGED_BY_FORM),
};

/** Validates every setting and returns either a Config or all the errors found. */
export function parseConfig(input: ConfigInput, options: ParseConfigOptions = {}): ConfigResult {
  const nameOf = options.nameOf ?? ((setting: keyof ConfigInput): string => setting);
  const errors: ConfigError[] = [];
  const fail: Fail = (setting, value, message) => {
    errors.push({ setting, value: display(value), message });
  };
  // A stale values file or a typo must fail loudly, never be ignored.
  for (const [key, value] of Object.entries(input)) {
    if (!KNOWN_SETTINGS.includes(key))
      fail(key, value, `unknown setting; known settings are ${KNOWN_SETTINGS.join(', ')}`);
  }
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
      // A Translator sees only the provider: it carries the global gate and allow-lists too.
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

/** One line per error, for a start-up failure message: `interval "0s": must be at least 1s …`. */
export function formatConfigError(error: ConfigError): string {
  return `${error.setting} ${JSON.stringify(error.value)}: ${error.message}`;
}
