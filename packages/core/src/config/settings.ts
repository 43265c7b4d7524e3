// Readers of one setting each: its default when absent, `undefined` once a problem with it is
// reported. The written forms are checked by forms.ts.

import { CONFIG_DEFAULTS, LEGACY_DEFAULTS, type ConfigInput, type Fail } from './input.js';
import { INTERVAL_FORM, durationForm } from './forms.js';
import { DURATION_FORM, parseDuration } from './duration.js';
import { formProblem, type FormCheck } from './form-checks.js';

export type SettingReader<T> = (input: ConfigInput, fail: Fail) => T | undefined;

const DEFAULTS = { ...CONFIG_DEFAULTS, ...LEGACY_DEFAULTS };
type Defaults = typeof DEFAULTS;
/** The settings whose default is a `T`. */
type KeyOf<T> = { [K in keyof Defaults]: Defaults[K] extends T ? K : never }[keyof Defaults];

export function stringSetting(
  input: ConfigInput,
  key: KeyOf<string>,
  fail: Fail,
): string | undefined {
  const value: unknown = input[key];
  if (value === undefined) return DEFAULTS[key];
  if (typeof value === 'string') return value;
  fail(key, value, 'must be a string');
  return undefined;
}

export function booleanSetting(key: KeyOf<boolean>): SettingReader<boolean> {
  return (input, fail) => {
    const value: unknown = input[key];
    if (value === undefined) return DEFAULTS[key];
    if (typeof value === 'boolean') return value;
    fail(key, value, 'must be true or false');
    return undefined;
  };
}

/** `value` when it has its form; otherwise the problem is reported. */
export function checkForm(
  key: string,
  value: string | undefined,
  form: readonly FormCheck[],
  fail: Fail,
): string | undefined {
  const problem = value === undefined ? undefined : formProblem(form, value);
  if (problem === undefined) return value;
  fail(key, value, problem);
  return undefined;
}

/** A string setting that must also have its form (a namespace name, a label prefix, …). */
export function formedSetting(
  key: KeyOf<string>,
  form: readonly FormCheck[],
): SettingReader<string> {
  return (input, fail) => checkForm(key, stringSetting(input, key, fail), form, fail);
}

/** A setting that must be one of `values`. */
export function oneOfSetting<T extends string>(
  key: KeyOf<string>,
  values: readonly T[],
): SettingReader<T> {
  return (input, fail) => {
    const value: unknown = input[key] ?? DEFAULTS[key];
    const found = values.find((candidate) => candidate === value);
    if (found === undefined) fail(key, value, `must be one of ${values.join(', ')}`);
    return found;
  };
}

/** A duration in milliseconds; the periodic ones must be at least 1s. */
export function durationSetting(
  key: 'interval' | 'probeInterval' | 'demotedTTL' | 'credentialRefreshWindow',
): SettingReader<number> {
  const form = key === 'interval' || key === 'probeInterval' ? INTERVAL_FORM : durationForm();
  return (input, fail) => {
    const value: unknown = input[key];
    const text = value === undefined ? DEFAULTS[key] : value;
    if (typeof text !== 'string') {
      fail(key, value, `must be ${DURATION_FORM}`);
      return undefined;
    }
    if (checkForm(key, text, form, fail) === undefined) return undefined;
    const parsed = parseDuration(text);
    // Well-formed but beyond Go's range (about 290 years).
    if (!parsed.ok) fail(key, text, `must be ${DURATION_FORM}`);
    return parsed.ok ? parsed.ms : undefined;
  };
}

/** A whole number in [min, max], given as a number or as its decimal digits. */
export function countSetting(
  key: 'probeFailures',
  range: { readonly min: number; readonly max: number },
): SettingReader<number> {
  return (input, fail) => {
    const value: unknown = input[key];
    if (value === undefined) return DEFAULTS[key];
    const count =
      typeof value === 'number'
        ? value
        : typeof value === 'string' && /^\d{1,6}$/.test(value)
          ? Number(value)
          : NaN;
    if (!Number.isInteger(count) || count < range.min || count > range.max) {
      fail(key, value, `must be a whole number from ${range.min} to ${range.max}, e.g. 3`);
      return undefined;
    }
    return count;
  };
}

export function display(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    // undefined for functions and symbols, a throw for bigints and cycles: fall back to the type.
    const json = JSON.stringify(value) as string | undefined;
    return json ?? typeof value;
  } catch {
    return typeof value;
  }
}
