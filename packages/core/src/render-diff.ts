// Field-level diff for the preview: what an action changes; certificates shown as
// fingerprints, other credentials concealed (sensitive-display.ts). The planner attaches it to every create, update and demote; the renderers
// show it.

import { decodeBase64Text } from './base64.js';
import {
  canonicalJson,
  isObject,
  readConfig,
  tlsOf,
  type JsonObject,
} from './cluster-config-json.js';
import { compareStrings } from './compare-strings.js';
import { REGISTRATION_DATA_KEYS } from './registration.js';
import { fingerprint } from './sha256.js';
import { sensitiveDisplay } from './sensitive-display.js';
import type { DesiredSecret, FieldChange, Labels, ObservedSecret } from './types.js';

const CONFIG_FIELDS: readonly { readonly path: readonly string[]; readonly sensitive: boolean }[] =
  [
    { path: ['username'], sensitive: false },
    { path: ['password'], sensitive: true },
    { path: ['bearerToken'], sensitive: true },
    { path: ['tlsClientConfig', 'insecure'], sensitive: false },
    { path: ['tlsClientConfig', 'serverName'], sensitive: false },
    { path: ['tlsClientConfig', 'caData'], sensitive: true },
    { path: ['tlsClientConfig', 'certData'], sensitive: true },
    { path: ['tlsClientConfig', 'keyData'], sensitive: true },
    { path: ['proxyUrl'], sensitive: false },
  ];

const KNOWN_CONFIG_KEYS: ReadonlySet<string> = new Set([
  'tlsClientConfig',
  ...CONFIG_FIELDS.map(({ path }) => path[path.length - 1] ?? ''),
]);

/** What changes between `before` (absent for a create) and `after`; credentials never in clear. */
export function diffSecret(
  before: ObservedSecret | undefined,
  after: DesiredSecret,
): FieldChange[] {
  const changes: FieldChange[] = [];
  const push = (
    field: string,
    from: string | undefined,
    to: string | undefined,
    sensitive: boolean,
  ): void => {
    if (from === to) return;
    const show = (value: string): string => (sensitive ? sensitiveDisplay(field, value) : value);
    changes.push({
      field,
      ...(from === undefined ? {} : { before: show(from) }),
      ...(to === undefined ? {} : { after: show(to) }),
      sensitive,
    });
  };
  for (const key of REGISTRATION_DATA_KEYS) {
    if (key === 'config') continue;
    const from = before?.data[key];
    const to = after.data[key];
    if (from === to) continue;
    push(`data.${key}`, decodedOrFingerprint(from), decodedOrFingerprint(to), false);
  }
  if (before?.data['config'] !== after.data['config']) {
    const from = before === undefined ? {} : readConfig(before.data['config']);
    const to = readConfig(after.data['config']);
    if (from === undefined || to === undefined) {
      push('data.config', before?.data['config'], after.data['config'], true);
    } else {
      for (const { path, sensitive } of CONFIG_FIELDS) {
        push(`config.${path.join('.')}`, configValue(from, path), configValue(to, path), sensitive);
      }
      // Fields this registrar never writes (an exec block, say) disappear; show that they do.
      for (const [scope, fromObject, toObject] of [
        ['config', from, to],
        ['config.tlsClientConfig', tlsOf(from), tlsOf(to)],
      ] as const) {
        for (const key of Object.keys(fromObject).sort(compareStrings)) {
          if (!KNOWN_CONFIG_KEYS.has(key))
            push(
              `${scope}.${key}`,
              canonicalJson(fromObject[key]),
              toObject[key] === undefined ? undefined : canonicalJson(toObject[key]),
              true,
            );
        }
      }
    }
  }
  diffRecord(changes, 'labels', before?.labels ?? {}, after.labels);
  diffRecord(changes, 'annotations', before?.annotations ?? {}, after.annotations);
  return changes;
}

function diffRecord(changes: FieldChange[], scope: string, before: Labels, after: Labels): void {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort(compareStrings);
  for (const key of keys) {
    const from = before[key];
    const to = after[key];
    if (from === to) continue;
    changes.push({
      field: `${scope}.${key}`,
      ...(from === undefined ? {} : { before: from }),
      ...(to === undefined ? {} : { after: to }),
      sensitive: false,
    });
  }
}

function decodedOrFingerprint(encoded: string | undefined): string | undefined {
  if (encoded === undefined) return undefined;
  return decodeBase64Text(encoded) ?? `(not base64: ${fingerprint(encoded)})`;
}

function configValue(config: JsonObject, path: readonly string[]): string | undefined {
  let value: unknown = config;
  for (const key of path) value = isObject(value) ? value[key] : undefined;
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : canonicalJson(value);
}
