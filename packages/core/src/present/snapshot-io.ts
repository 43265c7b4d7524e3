// Saving and loading a Snapshot as JSON, so a plan can be reproduced without a cluster (a bug
// report, a regression fixture, the demo). The output is canonical (fixed key order, maps and
// lists sorted), so equal snapshots serialise to equal bytes and diff cleanly. Loading checks
// every field and names the first bad one; fields added later are optional, so older snapshots
// still load. One description of the format (SNAPSHOT) drives both directions, so a field
// cannot be written one way and read another. A saved snapshot holds the kubeconfig Secrets as
// served: it is as sensitive as they are.

import { compareStrings } from '../common/compare-strings.js';
import { isObject, type JsonObject } from '../translate/cluster-config-json.js';
import type { Snapshot } from '../common/types.js';

export const SNAPSHOT_FORMAT_VERSION = '1';

export type SnapshotReadResult =
  | { readonly ok: true; readonly snapshot: Snapshot }
  | { readonly ok: false; readonly error: string };

/**
 * A field's shape. `order` lists the fields a list is sorted by (none: the items themselves);
 * `expected` is what an error says a keyed object should have been.
 */
type Shape =
  | { readonly kind: 'string' }
  | { readonly kind: 'count' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'oneOf'; readonly values: readonly string[] }
  | { readonly kind: 'list'; readonly of: Shape; readonly order: readonly string[] }
  | { readonly kind: 'keyed'; readonly of: Shape; readonly expected: string }
  | { readonly kind: 'object'; readonly fields: Fields }
  | { readonly kind: 'variants'; readonly tag: string; readonly variants: Record<string, Fields> };

/**
 * A field of an object: required unless marked. `optional` fields are written when present;
 * `nonEmpty` ones only when they hold something, so snapshots without them keep their old
 * bytes (and one read back without them has none).
 */
type Field = Shape & { readonly presence?: 'optional' | 'nonEmpty' };
type Fields = Readonly<Record<string, Field>>;

const STRING: Shape = { kind: 'string' };
const STRINGS: Shape = { kind: 'keyed', of: STRING, expected: 'an object of strings' };
const list = (of: Shape, ...order: string[]): Shape => ({ kind: 'list', of, order });
const object = (fields: Fields): Shape => ({ kind: 'object', fields });
const optional = (shape: Shape): Field => ({ ...shape, presence: 'optional' });
const nonEmpty = (shape: Shape): Field => ({ ...shape, presence: 'nonEmpty' });

const NAMESPACE_FIELDS: Fields = {
  name: STRING,
  uid: STRING,
  labels: STRINGS,
  annotations: STRINGS,
  creationTimestamp: STRING,
  deletionTimestamp: optional(STRING),
};

const SECRET = object({
  namespace: STRING,
  name: STRING,
  uid: STRING,
  resourceVersion: STRING,
  type: STRING,
  labels: STRINGS,
  annotations: STRINGS,
  data: STRINGS,
  creationTimestamp: optional(STRING),
  // Provisioners' marks (config/provider-marks.ts) read them, so a replay chooses as live did.
  ownerReferences: optional(
    list(
      object({
        apiVersion: STRING,
        kind: STRING,
        name: STRING,
        controller: optional({ kind: 'boolean' }),
      }),
      'apiVersion',
      'kind',
      'name',
    ),
  ),
});

const PROVISIONER = object({
  kind: { kind: 'oneOf', values: ['TenantControlPlane', 'StatefulSet', 'Deployment'] },
  namespace: STRING,
  name: STRING,
  labels: STRINGS,
  annotations: STRINGS,
  versionStatus: optional(STRING),
});
const PROVISIONERS = optional(list(PROVISIONER, 'namespace', 'kind', 'name'));

const SNAPSHOT: Fields = {
  namespaces: list(object(NAMESPACE_FIELDS), 'name', 'uid'),
  clusters: nonEmpty(list(object({ namespace: STRING, ...NAMESPACE_FIELDS }), 'namespace', 'name')),
  candidateSecrets: list(SECRET, 'namespace', 'name', 'uid'),
  clusterSecrets: list(SECRET, 'namespace', 'name', 'uid'),
  sourceLookups: {
    kind: 'keyed',
    expected: 'an object keyed by source (namespace, or namespace/name)',
    of: {
      kind: 'variants',
      tag: 'state',
      variants: {
        present: { uid: STRING, labels: STRINGS, deletionTimestamp: optional(STRING) },
        notFound: {},
        unknown: { reason: STRING },
      },
    },
  },
  unreadNamespaces: nonEmpty(list(object({ name: STRING, reason: STRING }), 'name', 'reason')),
  clusterSecretsUnread: optional(STRING),
  nearMisses: nonEmpty(
    list(object({ namespace: STRING, name: STRING, keys: list(STRING) }), 'namespace', 'name'),
  ),
  // Only with a sleep signal on: written whenever present, even empty.
  provisioners: optional(object({ kamaji: PROVISIONERS, vcluster: PROVISIONERS })),
  // Only with probing on: written whenever present, even empty.
  children: optional({
    kind: 'keyed',
    expected: 'an object',
    of: object({
      failures: { kind: 'count' },
      version: optional(STRING),
      error: optional(STRING),
      failingSince: optional(STRING),
    }),
  }),
};

/** Canonical JSON (two-space indent, trailing newline) with `snapshotVersion` first. */
export function snapshotToJson(snapshot: Snapshot): string {
  const document = { snapshotVersion: SNAPSHOT_FORMAT_VERSION, ...writeFields(SNAPSHOT, snapshot) };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Parses and validates a saved snapshot; the error names the offending field by path. */
export function snapshotFromJson(text: string): SnapshotReadResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      error: `not JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  try {
    const root = record(parsed, '');
    const version = root['snapshotVersion'];
    if (version !== SNAPSHOT_FORMAT_VERSION) {
      if (typeof version === 'string' && /^\d{1,6}$/.test(version)) {
        throw new SnapshotFieldError(
          `snapshotVersion: this version reads snapshot format "${SNAPSHOT_FORMAT_VERSION}" only, not "${version}"`,
        );
      }
      bad('snapshotVersion', `"${SNAPSHOT_FORMAT_VERSION}"`, version);
    }
    // The description above is Snapshot's saved part: the round-trip tests hold them together.
    return { ok: true, snapshot: readFields(SNAPSHOT, root, '', ['snapshotVersion']) as Snapshot };
  } catch (error) {
    if (error instanceof SnapshotFieldError) return { ok: false, error: error.message };
    throw error;
  }
}

// ---------------------------------------------------------------------------------------
// Writing

function write(shape: Shape, value: unknown): unknown {
  switch (shape.kind) {
    case 'string':
    case 'count':
    case 'boolean':
    case 'oneOf':
      return value;
    case 'list': {
      const items = [...(value as readonly unknown[])];
      const key = (item: unknown, field: string): string =>
        String(field === '' ? item : (item as JsonObject)[field]);
      const order = shape.order.length === 0 ? [''] : shape.order;
      items.sort((a, b) => {
        for (const field of order) {
          const by = compareStrings(key(a, field), key(b, field));
          if (by !== 0) return by;
        }
        return 0;
      });
      return items.map((item) => write(shape.of, item));
    }
    // Object.fromEntries defines own properties, so even a `__proto__` key survives.
    case 'keyed':
      return Object.fromEntries(
        Object.entries(value as JsonObject)
          .filter(([, entry]) => entry !== undefined)
          .sort(([a], [b]) => compareStrings(a, b))
          .map(([key, entry]) => [key, write(shape.of, entry)]),
      );
    case 'object':
      return writeFields(shape.fields, value as JsonObject);
    case 'variants': {
      const tag = (value as JsonObject)[shape.tag] as string;
      return { [shape.tag]: tag, ...writeFields(shape.variants[tag] ?? {}, value as JsonObject) };
    }
  }
}

function writeFields(fields: Fields, value: object): Record<string, unknown> {
  const written: Record<string, unknown> = {};
  for (const [name, shape] of Object.entries(fields)) {
    const field = (value as JsonObject)[name];
    if (!omitted(shape, field)) written[name] = write(shape, field);
  }
  return written;
}

/** Left out of the document: absent and not required, or `nonEmpty` and an empty list. */
function omitted(shape: Field, value: unknown): boolean {
  if (shape.presence === 'nonEmpty' && Array.isArray(value)) return value.length === 0;
  return value === undefined && shape.presence !== undefined;
}

// ---------------------------------------------------------------------------------------
// Reading

class SnapshotFieldError extends Error {}

function bad(path: string, expected: string, value: unknown): never {
  throw new SnapshotFieldError(
    `${path === '' ? 'the document' : path}: expected ${expected}, got ${describeValue(value)}`,
  );
}

// Never quotes a string: a misplaced one may be a kubeconfig.
function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number' || typeof value === 'boolean')
    return `${typeof value} ${String(value)}`;
  return typeof value;
}

function record(value: unknown, path: string, expected = 'an object'): JsonObject {
  return isObject(value) ? value : bad(path, expected, value);
}

function join(path: string, key: string): string {
  if (!/^[A-Za-z_$][\w$]*$/.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path === '' ? key : `${path}.${key}`;
}

function read(shape: Shape, value: unknown, path: string): unknown {
  switch (shape.kind) {
    case 'string':
      return typeof value === 'string' ? value : bad(path, 'a string', value);
    case 'count':
      return typeof value === 'number' && Number.isInteger(value) && value >= 0
        ? value
        : bad(path, 'a whole number', value);
    case 'boolean':
      return typeof value === 'boolean' ? value : bad(path, 'true or false', value);
    case 'oneOf':
      return typeof value === 'string' && shape.values.includes(value)
        ? value
        : bad(path, shape.values.join(', '), value);
    case 'list':
      if (!Array.isArray(value)) bad(path, 'a list', value);
      return (value as readonly unknown[]).map((item, i) => read(shape.of, item, `${path}[${i}]`));
    case 'keyed':
      return Object.fromEntries(
        Object.entries(record(value, path, shape.expected)).map(([key, entry]) => [
          key,
          read(shape.of, entry, `${path}[${JSON.stringify(key)}]`),
        ]),
      );
    case 'object':
      return readFields(shape.fields, record(value, path), path);
    case 'variants': {
      const fields = record(value, path);
      const tag = fields[shape.tag];
      const variant =
        typeof tag === 'string' && Object.hasOwn(shape.variants, tag)
          ? shape.variants[tag]
          : undefined;
      if (variant === undefined) {
        const names = Object.keys(shape.variants).map((name) => `"${name}"`);
        return bad(join(path, shape.tag), `one of ${names.join(', ')}`, tag);
      }
      return { [shape.tag]: tag, ...readFields(variant, fields, path, [shape.tag]) };
    }
  }
}

function readFields(fields: Fields, value: JsonObject, path: string, also: string[] = []): object {
  const allowed = [...also, ...Object.keys(fields)];
  // Unknown fields are refused: a typo must not silently turn into a missing optional field.
  const unknown = Object.keys(value).find((key) => !allowed.includes(key));
  if (unknown !== undefined) {
    throw new SnapshotFieldError(
      `${join(path, unknown)}: unknown field; expected one of ${allowed.join(', ')}`,
    );
  }
  const result: Record<string, unknown> = {};
  for (const [name, shape] of Object.entries(fields)) {
    const field = value[name];
    if (!omitted(shape, field)) result[name] = read(shape, field, join(path, name));
  }
  return result;
}
