// The one table of settings: each row names a setting's flag, environment variable, chart
// value, kind, default and help (its rows: settings-finding-and-writing.ts and
// settings-running.ts, in that order). The argv parser (flags.ts), the environment reader
// (env.ts), --help (help.ts) and the chart's values test are all derived from it, so a
// setting cannot be added to one of them and forgotten in another.

import type { ConfigInput } from '@argocd-cluster-registrar/core';
import { envName, type Setting, type SettingRow } from './setting-shape.js';
import { FINDING_AND_WRITING_ROWS } from './settings-finding-and-writing.js';
import { RUNNING_ROWS } from './settings-running.js';

export {
  GROUPS,
  envName,
  type ChartValue,
  type LogFormat,
  type OutputFormat,
  type Setting,
  type SettingGroup,
  type SettingKind,
} from './setting-shape.js';

const ROWS: readonly SettingRow[] = [...FINDING_AND_WRITING_ROWS, ...RUNNING_ROWS];

export const SETTINGS: readonly Setting[] = ROWS.map((row) => ({ ...row, env: envName(row.name) }));

/** The settings that are flags (every setting but the environment-only ones). */
export const FLAGS: readonly Setting[] = SETTINGS.filter((s) => s.envOnly !== true);

const BY_NAME = new Map(SETTINGS.map((s) => [s.name, s]));
const BY_CONFIG_KEY = new Map(
  SETTINGS.flatMap((s) => (s.configKey !== undefined ? [[s.configKey, s] as const] : [])),
);

export function settingNamed(name: string): Setting | undefined {
  return BY_NAME.get(name);
}

/** The flag that sets a core setting (a ConfigInput key, as core's errors name it). */
export function flagForSetting(setting: string): string {
  const base = setting.replace(/\[\d+\]$/, '');
  return (
    BY_CONFIG_KEY.get(base as keyof ConfigInput)?.name ??
    base.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
  );
}

/** "--name" when given as a flag, "ACR_NAME (for --name)" when given through the environment. */
export function describeSource(name: string, source: 'flag' | 'env' | undefined): string {
  const setting = settingNamed(name);
  if (source !== 'env' || setting === undefined) return `--${name}`;
  return setting.envOnly === true ? setting.env : `${setting.env} (for --${name})`;
}
