// A small structured logger: JSON lines in-cluster (for log pipelines), readable text with
// key=value fields on a terminal. Logs go to stderr so --once output on stdout stays clean.
// Field values are scrubbed by name, so a credential can never reach a log line by accident.

import { parseSourceKey } from '@argocd-cluster-registrar/core';
import type { LogFormat } from './settings.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  readonly format: 'text' | 'json';
  readonly level: LogLevel;
  readonly write?: (line: string) => void;
  readonly color?: boolean;
  readonly now?: () => Date;
}

const RANK: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 };

// Field names whose values are credential material (ArgoCD config keys, kubeconfig keys,
// Secret payloads). Matched case-insensitively on the last path segment.
const SENSITIVE =
  /^(bearertoken|token|password|keydata|certdata|cadata|client-key-data|client-certificate-data|data|config|kubeconfig|authorization|secret-data)$/i;

export const REDACTED = '(sensitive value)';

/** auto → json in-cluster (KUBERNETES_SERVICE_HOST set), text otherwise. */
export function resolveLogFormat(
  flag: LogFormat,
  env: Readonly<Record<string, string | undefined>>,
): 'text' | 'json' {
  if (flag !== 'auto') return flag;
  return env['KUBERNETES_SERVICE_HOST'] !== undefined && env['KUBERNETES_SERVICE_HOST'] !== ''
    ? 'json'
    : 'text';
}

export function createLogger(options: LoggerOptions, bound: LogFields = {}): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const now = options.now ?? (() => new Date());
  const emit = (level: LogLevel, message: string, fields: LogFields | undefined): void => {
    if (RANK[level] < RANK[options.level]) return;
    const merged = scrub({ ...bound, ...(fields ?? {}) });
    const time = now();
    if (options.format === 'json') {
      write(`${JSON.stringify({ time: time.toISOString(), level, msg: message, ...merged })}\n`);
    } else {
      write(`${formatText(time, level, message, merged, options.color ?? false)}\n`);
    }
  };
  return {
    debug: (message, fields) => {
      emit('debug', message, fields);
    },
    info: (message, fields) => {
      emit('info', message, fields);
    },
    warn: (message, fields) => {
      emit('warn', message, fields);
    },
    error: (message, fields) => {
      emit('error', message, fields);
    },
    child: (fields) => createLogger(options, { ...bound, ...fields }),
  };
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};

function scrub(fields: LogFields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    out[key] = SENSITIVE.test(key) ? REDACTED : normalise(value);
  }
  return out;
}

function normalise(value: unknown): unknown {
  if (value instanceof Error) return value.message;
  if (Array.isArray(value)) return value.map(normalise);
  if (value !== null && typeof value === 'object') return scrub(value as LogFields);
  return value;
}

const LEVEL_TEXT: Readonly<Record<LogLevel, string>> = {
  debug: 'DEBUG',
  info: 'INFO ',
  warn: 'WARN ',
  error: 'ERROR',
};
const LEVEL_COLOR: Readonly<Record<LogLevel, string>> = {
  debug: '\x1b[90m',
  info: '\x1b[36m',
  warn: '\x1b[33m',
  error: '\x1b[31m',
};

function formatText(
  time: Date,
  level: LogLevel,
  message: string,
  fields: Record<string, unknown>,
  color: boolean,
): string {
  const clock = `${pad(time.getHours())}:${pad(time.getMinutes())}:${pad(time.getSeconds())}.${String(time.getMilliseconds()).padStart(3, '0')}`;
  const levelText = color ? `${LEVEL_COLOR[level]}${LEVEL_TEXT[level]}\x1b[0m` : LEVEL_TEXT[level];
  const pairs = Object.entries(fields).map(
    ([key, value]) => `${color ? `\x1b[2m${key}=\x1b[0m` : `${key}=`}${formatValue(value)}`,
  );
  return [clock, levelText, message, ...pairs].join(' ');
}

function formatValue(value: unknown): string {
  // JSON.stringify yields undefined for functions and symbols, whatever its declared type says.
  const text =
    typeof value === 'string'
      ? value
      : ((JSON.stringify(value) as string | undefined) ?? String(value));
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text);
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * The fields that name a source in a log line: `namespace`, and for a Cluster also
 * `sourceCluster` (as `status -o json` names it), so `namespace` is always a namespace and a
 * query on it finds every source there.
 */
export function sourceLogFields(key: string | undefined): {
  namespace: string | undefined;
  sourceCluster?: string;
} {
  if (key === undefined) return { namespace: undefined };
  const source = parseSourceKey(key);
  return source.kind === 'Cluster'
    ? { namespace: source.namespace, sourceCluster: source.name }
    : { namespace: source.name };
}
