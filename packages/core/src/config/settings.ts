// Per-setting validation: reading one string, duration or boolean setting (its default when
// absent); the written forms are checked by forms.ts.

import type { ConfigInput, Fail } from './input.js';
import { INTERVAL_FORM, durationForm } from './forms.js';
import { DURATION_FORM, parseDuration } from './duration.js';
import { formProblem } from './form-checks.js';

type StringKey =
  | 'targetNamespace'
  | 'labelPrefix'
  | 'managedBy'
  | 'secretNamePattern'
  | 'secretKey'
  | 'secretreaderPath'
  | 'clusterProfileNamespace'
  | 'clusterManager';
export function stringSetting(
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
export function durationSetting(
  input: ConfigInput,
  key: 'interval' | 'probeInterval' | 'demotedTTL' | 'credentialRefreshWindow',
  fallback: string,
  fail: Fail,
): number | undefined {
  const value: unknown = input[key];
  const text = value === undefined ? fallback : value;
  if (typeof text !== 'string') {
    fail(key, value, `must be ${DURATION_FORM}`);
    return undefined;
  }
  const periodic = key === 'interval' || key === 'probeInterval';
  const problem = formProblem(periodic ? INTERVAL_FORM : durationForm(), text);
  if (problem !== undefined) {
    fail(key, text, problem);
    return undefined;
  }
  const parsed = parseDuration(text);
  if (!parsed.ok) {
    // Well-formed but beyond Go's range (about 290 years).
    fail(key, text, `must be ${DURATION_FORM}`);
    return undefined;
  }
  return parsed.ms;
}
export function booleanSetting(
  input: ConfigInput,
  key:
    | 'execCredentials'
    | 'drainOnTerminate'
    | 'capiClusters'
    | 'capiClusterNameLabel'
    | 'probeChildren'
    | 'kamajiSleep'
    | 'vclusterSleep'
    | 'clusterProfiles',
  fallback: boolean,
  fail: Fail,
): boolean | undefined {
  const value: unknown = input[key];
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  fail(key, value, 'must be true or false');
  return undefined;
}
/** A whole number in [min, max], given as a number or as its decimal digits. */
export function countSetting(
  input: ConfigInput,
  key: 'probeFailures',
  fallback: number,
  range: { readonly min: number; readonly max: number },
  fail: Fail,
): number | undefined {
  const value: unknown = input[key];
  if (value === undefined) return fallback;
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
