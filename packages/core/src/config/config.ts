// The configuration model: raw settings (flags, env vars, chart values, all strings) in,
// a validated Config out. Every problem is reported at once, as a value that names the
// setting and the accepted form, so start-up fails with one readable list.

import { CONFIG_DEFAULTS, type ConfigError, type ConfigInput, type ConfigResult } from './input.js';
import { providerSettings } from './provider-settings.js';
import { LABEL_PREFIX_FORM, MANAGED_BY_FORM, TARGET_NAMESPACE_FORM } from './forms.js';
import {
  booleanSetting,
  countSetting,
  display,
  durationSetting,
  stringSetting,
} from './settings.js';
import { formProblem, type FormCheck } from './form-checks.js';
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
  'execAllowedServers',
  'execAksServerIds',
  'execEksClusterNames',
  'execEksRoleArns',
  'drainOnTerminate',
  'capiClusters',
  'capiClusterNames',
  'capiClusterNameLabel',
  'probeChildren',
  'probeFailures',
  'kamajiSleep',
  'vclusterSleep',
]);

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

  const formed = (
    key: 'targetNamespace' | 'labelPrefix' | 'managedBy',
    form: readonly FormCheck[],
  ) => {
    const value = stringSetting(input, key, CONFIG_DEFAULTS[key], fail);
    const problem = value === undefined ? undefined : formProblem(form, value);
    if (problem !== undefined) fail(key, value, problem);
    return value;
  };
  const targetNamespace = formed('targetNamespace', TARGET_NAMESPACE_FORM);
  const labelPrefix = formed('labelPrefix', LABEL_PREFIX_FORM);
  const managedBy = formed('managedBy', MANAGED_BY_FORM);

  const intervalMs = durationSetting(input, 'interval', CONFIG_DEFAULTS.interval, fail);
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

  const execPolicy = execPolicySetting(input, fail);

  const drainOnTerminate = booleanSetting(
    input,
    'drainOnTerminate',
    CONFIG_DEFAULTS.drainOnTerminate,
    fail,
  );

  const capiClusters = booleanSetting(input, 'capiClusters', CONFIG_DEFAULTS.capiClusters, fail);
  const capiClusterNames = clusterNamesSetting(input, fail);
  const capiClusterNameLabel = booleanSetting(
    input,
    'capiClusterNameLabel',
    CONFIG_DEFAULTS.capiClusterNameLabel,
    fail,
  );

  const probeChildren = booleanSetting(input, 'probeChildren', CONFIG_DEFAULTS.probeChildren, fail);
  const probeFailures = countSetting(
    input,
    'probeFailures',
    CONFIG_DEFAULTS.probeFailures,
    PROBE_FAILURES_RANGE,
    fail,
  );

  const kamajiSleep = booleanSetting(input, 'kamajiSleep', CONFIG_DEFAULTS.kamajiSleep, fail);
  const vclusterSleep = booleanSetting(input, 'vclusterSleep', CONFIG_DEFAULTS.vclusterSleep, fail);

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
    execPolicy === undefined ||
    drainOnTerminate === undefined ||
    capiClusters === undefined ||
    capiClusterNames === undefined ||
    capiClusterNameLabel === undefined ||
    probeChildren === undefined ||
    probeFailures === undefined ||
    kamajiSleep === undefined ||
    vclusterSleep === undefined ||
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
      // With the global gate on, each provider carries it (and the allow-lists) too: a
      // Translator sees only the provider, and both gates must be on.
      providers: execCredentials
        ? providers.map((provider) => ({ ...provider, execCredentials, execPolicy }))
        : providers,
      intervalMs,
      demotedTtlMs,
      credentialRefreshWindowMs,
      execCredentials,
      execPolicy,
      drainOnTerminate,
      capiClusters,
      capiClusterNames,
      capiClusterNameLabel,
      probeChildren,
      probeFailures,
      kamajiSleep,
      vclusterSleep,
    },
  };
}

/** Consecutive failed probes before a child counts as unreachable. */
export const PROBE_FAILURES_RANGE = { min: 1, max: 100 } as const;

const CLUSTER_NAME_FORMS: readonly Config['capiClusterNames'][] = ['name', 'namespace-name'];

function clusterNamesSetting(
  input: ConfigInput,
  fail: (setting: string, value: unknown, message: string) => void,
): Config['capiClusterNames'] | undefined {
  const value: unknown = input.capiClusterNames ?? CONFIG_DEFAULTS.capiClusterNames;
  const form = CLUSTER_NAME_FORMS.find((candidate) => candidate === value);
  if (form === undefined) {
    fail('capiClusterNames', value, `must be one of ${CLUSTER_NAME_FORMS.join(', ')}`);
  }
  return form;
}

/** One line per error, for a start-up failure message: `interval "0s": must be at least 1s …`. */
export function formatConfigError(error: ConfigError): string {
  return `${error.setting} ${JSON.stringify(error.value)}: ${error.message}`;
}
