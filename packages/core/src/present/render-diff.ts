// Field-level diff for the preview: what an action changes, computed by the renderers from
// the action's before and after (the planner only decides; a daemon that never prints a plan
// never pays for a diff); certificates shown as fingerprints, other credentials concealed
// (sensitive-display.ts).

import { decodeBase64Text } from '../common/base64.js';
import {
  canonicalJson,
  isObject,
  readConfig,
  tlsOf,
  type JsonObject,
} from '../translate/cluster-config-json.js';
import { compareStrings } from '../common/compare-strings.js';
import { REGISTRATION_DATA_KEYS } from '../translate/registration.js';
import { fingerprint } from './sha256.js';
import {
  execArgsDisplay,
  PUBLIC_EXEC_ENV,
  sensitiveDisplay,
  urlDisplay,
} from './sensitive-display.js';
import type { Action, DesiredSecret, FieldChange, ObservedSecret } from '../common/types.js';
import { assertNever } from '../common/assert-never.js';

// Config fields diffed one by one, each with its field name built once, not for every diff.
const CONFIG_FIELDS = [
  { path: ['username'], sensitive: false },
  { path: ['password'], sensitive: true },
  { path: ['bearerToken'], sensitive: true },
  { path: ['tlsClientConfig', 'insecure'], sensitive: false },
  { path: ['tlsClientConfig', 'serverName'], sensitive: false },
  { path: ['tlsClientConfig', 'caData'], sensitive: true },
  { path: ['tlsClientConfig', 'certData'], sensitive: true },
  { path: ['tlsClientConfig', 'keyData'], sensitive: true },
  { path: ['proxyUrl'], sensitive: false },
  // ArgoCD's exec forms: names and ARNs, no credential (ArgoCD gets those from its own
  // identity). An exec block's args and env are diffed below: a registration the registrar
  // did not write may carry a credential in them.
  { path: ['awsAuthConfig', 'clusterName'], sensitive: false },
  { path: ['awsAuthConfig', 'roleARN'], sensitive: false },
  { path: ['execProviderConfig', 'command'], sensitive: false },
  { path: ['execProviderConfig', 'apiVersion'], sensitive: false },
  // Reference mode: where ArgoCD's plugin reads the kubeconfig (names, never its content).
  { path: ['execProviderConfig', 'provideClusterInfo'], sensitive: false },
  { path: ['execProviderConfig', 'config', 'name'], sensitive: false },
  { path: ['execProviderConfig', 'config', 'namespace'], sensitive: false },
  { path: ['execProviderConfig', 'config', 'key'], sensitive: false },
  { path: ['execProviderConfig', 'config', 'context'], sensitive: false },
].map((entry) => ({ ...entry, field: `config.${entry.path.join('.')}` }));

const DATA_FIELDS = REGISTRATION_DATA_KEYS.filter((key) => key !== 'config').map((key) => ({
  key,
  field: `data.${key}`,
}));

const KNOWN_CONFIG_KEYS: ReadonlySet<string> = new Set([
  'tlsClientConfig',
  'awsAuthConfig',
  'execProviderConfig',
  'args',
  'env',
  'config',
  ...CONFIG_FIELDS.map(({ path }) => path[path.length - 1] ?? ''),
]);

/** Gives each action's field changes to a renderer: {@link describeChanges}, or a test's own. */
export type ChangeDescriber = (action: Action) => readonly FieldChange[];

/** What a write changes; nothing for a deletion (the whole registration goes). */
export function describeChanges(action: Action): readonly FieldChange[] {
  switch (action.kind) {
    case 'create':
      return diffSecret(undefined, action.secret);
    case 'update':
    case 'demote':
      return diffSecret(action.before, action.secret);
    case 'delete':
      return [];
    default:
      return assertNever(action, 'action kind');
  }
}

/** What changes between `before` (absent for a create) and `after`; credentials never in clear. */
export function diffSecret(
  before: ObservedSecret | undefined,
  after: DesiredSecret,
): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const { key, field } of DATA_FIELDS) {
    const from = before?.data[key];
    const to = after.data[key];
    if (from === to) continue;
    push(changes, field, decodedOrFingerprint(from), decodedOrFingerprint(to), false);
  }
  if (before?.data['config'] !== after.data['config']) {
    const from = before === undefined ? {} : readConfig(before.data['config']);
    const to = readConfig(after.data['config']);
    if (from === undefined || to === undefined) {
      push(changes, 'data.config', before?.data['config'], after.data['config'], true);
    } else {
      diffConfig(changes, from, to);
    }
  }
  diffKeys(changes, 'labels', before?.labels ?? {}, after.labels);
  diffKeys(changes, 'annotations', before?.annotations ?? {}, after.annotations);
  return changes;
}

function diffConfig(changes: FieldChange[], from: JsonObject, to: JsonObject): void {
  for (const { path, sensitive, field } of CONFIG_FIELDS) {
    push(changes, field, configValue(from, path), configValue(to, path), sensitive);
  }
  const fromExec = objectAt(from, 'execProviderConfig');
  const toExec = objectAt(to, 'execProviderConfig');
  diffExecArgs(changes, fromExec['args'], toExec['args']);
  const fromEnv = objectAt(fromExec, 'env');
  const toEnv = objectAt(toExec, 'env');
  diffKeys(changes, 'config.execProviderConfig.env', fromEnv, toEnv, PUBLIC_EXEC_ENV);
  // Fields this registrar never writes disappear; show that they do.
  for (const [scope, fromObject, toObject] of [
    ['config', from, to],
    ['config.tlsClientConfig', tlsOf(from), tlsOf(to)],
    ['config.awsAuthConfig', objectAt(from, 'awsAuthConfig'), objectAt(to, 'awsAuthConfig')],
    ['config.execProviderConfig', fromExec, toExec],
  ] as const) {
    for (const key of Object.keys(fromObject).sort(compareStrings)) {
      if (!KNOWN_CONFIG_KEYS.has(key))
        push(changes, `${scope}.${key}`, json(fromObject[key]), json(toObject[key]), true);
    }
  }
}

/**
 * Records a change of `field` unless `from` and `to` are equal. Literals in the key order of
 * FieldChange rather than spreads and closures: a create's diff is built for every namespace.
 */
function push(
  changes: FieldChange[],
  field: string,
  from: string | undefined,
  to: string | undefined,
  sensitive: boolean,
): void {
  if (from === to) return;
  if (from === undefined) {
    if (to !== undefined) changes.push({ field, after: show(field, to, sensitive), sensitive });
    return;
  }
  const shownFrom = show(field, from, sensitive);
  changes.push(
    to === undefined
      ? { field, before: shownFrom, sensitive }
      : { field, before: shownFrom, after: show(field, to, sensitive), sensitive },
  );
}

/** Fields holding a URL whose user-info may be a credential (hand-edited registrations). */
const URL_FIELDS: ReadonlySet<string> = new Set(['data.server', 'config.proxyUrl']);

function show(field: string, value: string, sensitive: boolean): string {
  if (sensitive) return sensitiveDisplay(field, value);
  return URL_FIELDS.has(field) ? urlDisplay(value) : value;
}

/** Each key of either side as `<scope>.<key>`; with `publicKeys` (env), the others concealed. */
function diffKeys(
  changes: FieldChange[],
  scope: string,
  before: JsonObject,
  after: JsonObject,
  publicKeys?: ReadonlySet<string>,
): void {
  const beforeKeys = Object.keys(before);
  // A create has nothing before: its keys are the new record's (no union to build).
  const keys =
    beforeKeys.length === 0
      ? Object.keys(after)
      : [...new Set([...beforeKeys, ...Object.keys(after)])];
  keys.sort(compareStrings);
  for (const key of keys) {
    const sensitive = publicKeys !== undefined && !publicKeys.has(key);
    push(changes, `${scope}.${key}`, text(before[key]), text(after[key]), sensitive);
  }
}

function objectAt(config: JsonObject, key: string): JsonObject {
  const value = config[key];
  return isObject(value) ? value : {};
}

/** An exec block's args: in clear when every word is public on both sides, else concealed. */
function diffExecArgs(changes: FieldChange[], from: unknown, to: unknown): void {
  const isPublic = (args: unknown): boolean =>
    args === undefined ||
    (Array.isArray(args) &&
      args.every((arg) => typeof arg === 'string') &&
      execArgsDisplay(args).every((arg, index) => arg === args[index]));
  const sensitive = !(isPublic(from) && isPublic(to));
  push(changes, 'config.execProviderConfig.args', json(from), json(to), sensitive);
}

function decodedOrFingerprint(encoded: string | undefined): string | undefined {
  if (encoded === undefined) return undefined;
  return decodeBase64Text(encoded) ?? `(not base64: ${fingerprint(encoded)})`;
}

function configValue(config: JsonObject, path: readonly string[]): string | undefined {
  let value: unknown = config;
  for (const key of path) value = isObject(value) ? value[key] : undefined;
  return text(value);
}

/** A config value as shown: a string as it is, anything else as JSON. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : json(value);
}

function json(value: unknown): string | undefined {
  return value === undefined ? undefined : canonicalJson(value);
}
