// Per-setting validation: reading one string, duration or boolean setting (its default when
// absent), and the DNS-label, label-value and label-prefix rules the plain settings follow.

import type { ConfigInput, Fail } from './config-input.js';
import { DURATION_FORM, parseDuration } from './duration.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

export const MIN_INTERVAL_MS = 1000;
export const INTERVAL_EXAMPLES = 'such as 30s, 60s, 1m30s or 5m';

export function labelPrefixProblem(prefix: string): string | undefined {
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

export function isDnsLabel(text: string): boolean {
  return text.length <= 63 && DNS_LABEL.test(text);
}

function isDnsSubdomain(text: string): boolean {
  return text.length > 0 && text.length <= 253 && text.split('.').every(isDnsLabel);
}

export function isLabelValue(text: string): boolean {
  return text.length <= 63 && LABEL_VALUE.test(text);
}

type StringKey =
  'targetNamespace' | 'labelPrefix' | 'managedBy' | 'secretNamePattern' | 'secretKey';
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
export function booleanSetting(
  input: ConfigInput,
  key: 'execCredentials' | 'drainOnTerminate' | 'capiClusters',
  fallback: boolean,
  fail: Fail,
): boolean | undefined {
  const value: unknown = input[key];
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  fail(key, value, 'must be true or false');
  return undefined;
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
