// Readers of one setting each: its default when absent, `undefined` once a problem with it is
// reported. The written forms are checked by forms.ts.

import { CONFIG_DEFAULTS, type ConfigInput, type Fail } from './input.js';
import { INTERVAL_FORM, durationForm } from './forms.js';
import { DURATION_FORM, parseDuration } from './duration.js';
import { formProblem, type FormCheck } from './form-checks.js';

export type SettingReader<T> = (input: ConfigInput, fail: Fail) => T | undefined;

type Defaults = typeof CONFIG_DEFAULTS;
/** The settings whose default is a `T`. */
type KeyOf<T> = { [K in keyof Defaults]: Defaults[K] extends T ? K : never }[keyof Defaults];

/** A string or boolean setting: `undefined` when it is not of its fallback's type. */
function scalarSetting<T extends string | boolean>(
  input: ConfigInput,
  key: keyof ConfigInput,
  fallback: T,
  fail: Fail,
): T | undefined {
  const value: unknown = input[key];
  if (value === undefined) return fallback;
  if (typeof value === typeof fallback) return value as T;
  fail(key, value, typeof fallback === 'string' ? 'must be a string' : 'must be true or false');
  return undefined;
}

export function stringSetting(
  input: ConfigInput,
  key: keyof ConfigInput,
  fallback: string,
  fail: Fail,
): string | undefined {
  return scalarSetting(input, key, fallback, fail);
}

export function booleanSetting(key: KeyOf<boolean>): SettingReader<boolean> {
  return (input, fail) => scalarSetting<boolean>(input, key, CONFIG_DEFAULTS[key], fail);
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
  return (input, fail) =>
    checkForm(key, stringSetting(input, key, CONFIG_DEFAULTS[key], fail), form, fail);
}

/** A setting that must be one of `values`. */
export function oneOfSetting<T extends string>(
  key: KeyOf<string>,
  values: readonly T[],
): SettingReader<T> {
  return (input, fail) => {
    const value: unknown = input[key] ?? CONFIG_DEFAULTS[key];
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
    const text = value === undefined ? CONFIG_DEFAULTS[key] : value;
    if (typeof text !== 'string') {
      fail(key, value, `must be ${DURATION_FORM}`);
      return undefined;
    }
    const problem = formProblem(form, text);
    if (problem !== undefined) {
      fail(key, text, problem);
      return undefined;
    }
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
    if (value === undefined) return CONFIG_DEFAULTS[key];
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
