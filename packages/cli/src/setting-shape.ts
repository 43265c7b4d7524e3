// What a setting is: its kind, the group --help lists it under, where the chart sets it and
// how its environment variable is named. The table of settings itself is settings.ts.

import type { ConfigInput } from '@argocd-cluster-registrar/core';

export type OutputFormat = 'text' | 'json';
export type LogFormat = 'auto' | 'text' | 'json';

export type SettingKind = 'string' | 'bool' | 'list' | 'enum' | 'duration' | 'addr';

export type SettingGroup =
  | 'Discovery'
  | 'Registration'
  | 'Timing'
  | 'Connection'
  | 'Run mode'
  | 'Status'
  | 'Output'
  | 'Runtime';

export const GROUPS: readonly SettingGroup[] = [
  'Discovery',
  'Registration',
  'Timing',
  'Connection',
  'Run mode',
  'Status',
  'Output',
  'Runtime',
];

/** Where the chart sets a flag: a value in values.yaml and what an example of it passes. */
export interface ChartValue {
  /** Dotted path in values.yaml. */
  readonly value: string;
  /** A non-default example to set the value to, and the flag value the chart passes for it. */
  readonly example:
    string | number | boolean | readonly string[] | readonly Readonly<Record<string, unknown>>[];
  readonly passes: string;
}

export interface Setting {
  /** Flag name without dashes; also the key of CliOptions.sources. */
  readonly name: string;
  readonly kind: SettingKind;
  readonly group: SettingGroup;
  readonly help: string;
  /** The environment variable; ACR_<UPPER_SNAKE> of the name. */
  readonly env: string;
  /** The core setting it feeds (validated by core's parseConfig), if any. */
  readonly configKey?: keyof ConfigInput;
  readonly chart?: ChartValue;
  /** Shown in --help; the effective default of core settings comes from core. */
  readonly defaultText?: string;
  readonly values?: readonly string[];
  readonly placeholder?: string;
  /** Example values for messages, all of them accepted (an interval is at least 1s). */
  readonly examples?: string;
  /** Set only through the environment (no flag). */
  readonly envOnly?: true;
  /** A one-letter form, as kubectl's: `-o json`, `-o=json`, `-ojson`. */
  readonly short?: string;
}

/** ACR_<UPPER_SNAKE> for a setting name. */
/** A row of the table of settings, as written: its variable is derived (envName). */
export type SettingRow = Omit<Setting, 'env'>;

export function envName(name: string): string {
  return `ACR_${name.toUpperCase().replace(/-/g, '_')}`;
}
