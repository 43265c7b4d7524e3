// Saving and loading a Snapshot as JSON, so a plan can be reproduced without a cluster (a bug
// report, a regression fixture, the demo). The output is canonical: fixed key order, maps and
// lists sorted, so equal snapshots serialise to equal bytes and diff cleanly. Loading checks
// every field and names the first bad one. A saved snapshot holds the kubeconfig Secrets as
// served: it is as sensitive as they are. What a gather could not read (`unreadNamespaces`,
// `clusterSecretsUnread`) is written only when something was unread, and is optional when
// reading, so snapshots saved before those fields existed still load (as complete ones).

import { compareStrings } from '../common/compare-strings.js';
import type {
  ChildProbe,
  Labels,
  NearMissSecret,
  ObservedSecret,
  ProvisionerObject,
  SleepSignal,
  Snapshot,
  SourceCluster,
  SourceLookup,
  SourceNamespace,
  UnreadNamespace,
} from '../common/types.js';

export const SNAPSHOT_FORMAT_VERSION = '1';

export type SnapshotReadResult =
  | { readonly ok: true; readonly snapshot: Snapshot }
  | { readonly ok: false; readonly error: string };

/** Canonical JSON (two-space indent, trailing newline) with `snapshotVersion` first. */
export function snapshotToJson(snapshot: Snapshot): string {
  const document = {
    snapshotVersion: SNAPSHOT_FORMAT_VERSION,
    namespaces: [...snapshot.namespaces].sort(byName).map(canonicalNamespace),
    // Only when there are any: snapshots without Cluster sources keep their old bytes.
    ...(snapshot.clusters === undefined || snapshot.clusters.length === 0
      ? {}
      : { clusters: [...snapshot.clusters].sort(byNamespacedName).map(canonicalCluster) }),
    candidateSecrets: [...snapshot.candidateSecrets].sort(bySecret).map(canonicalSecret),
    clusterSecrets: [...snapshot.clusterSecrets].sort(bySecret).map(canonicalSecret),
    sourceLookups: Object.fromEntries(
      Object.keys(snapshot.sourceLookups)
        .sort()
        .flatMap((name) => {
          const lookup = snapshot.sourceLookups[name];
          return lookup === undefined ? [] : [[name, canonicalLookup(lookup)]];
        }),
    ),
    ...(snapshot.unreadNamespaces === undefined || snapshot.unreadNamespaces.length === 0
      ? {}
      : {
          unreadNamespaces: [...snapshot.unreadNamespaces]
            .sort((a, b) => compareStrings(a.name, b.name) || compareStrings(a.reason, b.reason))
            .map((entry) => ({ name: entry.name, reason: entry.reason })),
        }),
    ...(snapshot.clusterSecretsUnread === undefined
      ? {}
      : { clusterSecretsUnread: snapshot.clusterSecretsUnread }),
    // Only when there are any: snapshots without near misses keep their old bytes.
    ...(snapshot.nearMisses === undefined || snapshot.nearMisses.length === 0
      ? {}
      : { nearMisses: [...snapshot.nearMisses].sort(byNearMiss).map(canonicalNearMiss) }),
    // Only with probing on: snapshots without probes keep their old bytes.
    ...(snapshot.children === undefined
      ? {}
      : {
          children: Object.fromEntries(
            Object.keys(snapshot.children)
              .sort()
              .flatMap((key) => {
                const probe = snapshot.children?.[key];
                return probe === undefined ? [] : [[key, canonicalProbe(probe)]];
              }),
          ),
        }),
    // Only with a sleep signal on.
    ...(snapshot.provisioners === undefined
      ? {}
      : {
          provisioners: Object.fromEntries(
            (Object.keys(snapshot.provisioners) as SleepSignal[]).sort().flatMap((signal) => {
              const objects = snapshot.provisioners?.[signal];
              return objects === undefined
                ? []
                : [[signal, [...objects].sort(byProvisionerObject).map(canonicalProvisioner)]];
            }),
          ),
        }),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

function canonicalProvisioner(object: ProvisionerObject): ProvisionerObject {
  return {
    kind: object.kind,
    namespace: object.namespace,
    name: object.name,
    labels: sortedRecord(object.labels),
    annotations: sortedRecord(object.annotations),
    ...(object.versionStatus === undefined ? {} : { versionStatus: object.versionStatus }),
  };
}

const byProvisionerObject = (a: ProvisionerObject, b: ProvisionerObject): number =>
  compareStrings(a.namespace, b.namespace) ||
  compareStrings(a.kind, b.kind) ||
  compareStrings(a.name, b.name);

function canonicalProbe(probe: ChildProbe): ChildProbe {
  return {
    failures: probe.failures,
    ...(probe.version === undefined ? {} : { version: probe.version }),
    ...(probe.error === undefined ? {} : { error: probe.error }),
    ...(probe.failingSince === undefined ? {} : { failingSince: probe.failingSince }),
  };
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
    return { ok: true, snapshot: readSnapshot(parsed) };
  } catch (error) {
    if (error instanceof SnapshotFieldError) return { ok: false, error: error.message };
    throw error;
  }
}

// ---------------------------------------------------------------------------------------
// Writing

function canonicalNamespace(namespace: SourceNamespace): SourceNamespace {
  return {
    name: namespace.name,
    uid: namespace.uid,
    labels: sortedRecord(namespace.labels),
    annotations: sortedRecord(namespace.annotations),
    creationTimestamp: namespace.creationTimestamp,
    ...(namespace.deletionTimestamp === undefined
      ? {}
      : { deletionTimestamp: namespace.deletionTimestamp }),
  };
}

function canonicalCluster(cluster: SourceCluster): SourceCluster {
  return { namespace: cluster.namespace, ...canonicalNamespace(cluster) };
}

function byNamespacedName(a: SourceCluster, b: SourceCluster): number {
  return compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name);
}

function canonicalSecret(secret: ObservedSecret): ObservedSecret {
  return {
    namespace: secret.namespace,
    name: secret.name,
    uid: secret.uid,
    resourceVersion: secret.resourceVersion,
    type: secret.type,
    labels: sortedRecord(secret.labels),
    annotations: sortedRecord(secret.annotations),
    data: sortedRecord(secret.data),
    ...(secret.creationTimestamp === undefined
      ? {}
      : { creationTimestamp: secret.creationTimestamp }),
  };
}

function canonicalNearMiss(near: NearMissSecret): NearMissSecret {
  return { namespace: near.namespace, name: near.name, keys: [...near.keys].sort(compareStrings) };
}

function canonicalLookup(lookup: SourceLookup): SourceLookup {
  switch (lookup.state) {
    case 'present':
      return {
        state: 'present',
        uid: lookup.uid,
        labels: sortedRecord(lookup.labels),
        ...(lookup.deletionTimestamp === undefined
          ? {}
          : { deletionTimestamp: lookup.deletionTimestamp }),
      };
    case 'notFound':
      return { state: 'notFound' };
    case 'unknown':
      return { state: 'unknown', reason: lookup.reason };
  }
}

// Object.fromEntries defines own properties, so even a `__proto__` key survives.
function sortedRecord(record: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compareStrings(a, b)));
}

const byName = (
  a: { readonly name: string; readonly uid: string },
  b: { readonly name: string; readonly uid: string },
): number => compareStrings(a.name, b.name) || compareStrings(a.uid, b.uid);
const bySecret = (a: ObservedSecret, b: ObservedSecret): number =>
  compareStrings(a.namespace, b.namespace) ||
  compareStrings(a.name, b.name) ||
  compareStrings(a.uid, b.uid);
const byNearMiss = (a: NearMissSecret, b: NearMissSecret): number =>
  compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name);

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

type Json = Readonly<Record<string, unknown>>;

function object(value: unknown, path: string, allowed: readonly string[]): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    bad(path, 'an object', value);
  const record = value as Json;
  // Unknown fields are refused: a typo must not silently turn into a missing optional field.
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) {
      throw new SnapshotFieldError(
        `${join(path, key)}: unknown field; expected one of ${allowed.join(', ')}`,
      );
    }
  }
  return record;
}

function list(value: unknown, path: string): readonly unknown[] {
  if (!Array.isArray(value)) bad(path, 'a list', value);
  return value as readonly unknown[];
}

function string(record: Json, key: string, path: string): string {
  const value = record[key];
  if (typeof value !== 'string') bad(join(path, key), 'a string', value);
  return value;
}

function optionalString(record: Json, key: string, path: string): string | undefined {
  return record[key] === undefined ? undefined : string(record, key, path);
}

function stringMap(record: Json, key: string, path: string): Labels {
  const at = join(path, key);
  const value = record[key];
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    bad(at, 'an object of strings', value);
  const entries = Object.entries(value as Json);
  for (const [name, entry] of entries) {
    if (typeof entry !== 'string') bad(`${at}[${JSON.stringify(name)}]`, 'a string', entry);
  }
  return Object.fromEntries(entries) as Labels;
}

function join(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key)
    ? path === ''
      ? key
      : `${path}.${key}`
    : `${path}[${JSON.stringify(key)}]`;
}

const NAMESPACE_FIELDS = [
  'name',
  'uid',
  'labels',
  'annotations',
  'creationTimestamp',
  'deletionTimestamp',
];
const SECRET_FIELDS = [
  'namespace',
  'name',
  'uid',
  'resourceVersion',
  'type',
  'labels',
  'annotations',
  'data',
  'creationTimestamp',
];

function readSnapshot(value: unknown): Snapshot {
  const root = object(value, '', [
    'snapshotVersion',
    'namespaces',
    'clusters',
    'candidateSecrets',
    'clusterSecrets',
    'sourceLookups',
    'unreadNamespaces',
    'clusterSecretsUnread',
    'nearMisses',
    'children',
    'provisioners',
  ]);
  const version = root['snapshotVersion'];
  if (version !== SNAPSHOT_FORMAT_VERSION) {
    if (typeof version === 'string' && /^\d{1,6}$/.test(version)) {
      throw new SnapshotFieldError(
        `snapshotVersion: this version reads snapshot format "${SNAPSHOT_FORMAT_VERSION}" only, not "${version}"`,
      );
    }
    bad('snapshotVersion', `"${SNAPSHOT_FORMAT_VERSION}"`, version);
  }
  const lookups = root['sourceLookups'];
  if (typeof lookups !== 'object' || lookups === null || Array.isArray(lookups)) {
    bad('sourceLookups', 'an object keyed by source (namespace, or namespace/name)', lookups);
  }
  const sourceLookups: Record<string, SourceLookup> = {};
  for (const [name, lookup] of Object.entries(lookups as Json)) {
    sourceLookups[name] = readLookup(lookup, `sourceLookups[${JSON.stringify(name)}]`);
  }
  const unreadNamespaces: UnreadNamespace[] =
    root['unreadNamespaces'] === undefined
      ? []
      : list(root['unreadNamespaces'], 'unreadNamespaces').map((entry, i) => {
          const path = `unreadNamespaces[${i}]`;
          const record = object(entry, path, ['name', 'reason']);
          return { name: string(record, 'name', path), reason: string(record, 'reason', path) };
        });
  const clusterSecretsUnread = optionalString(root, 'clusterSecretsUnread', '');
  return {
    namespaces: list(root['namespaces'], 'namespaces').map((entry, i) =>
      readNamespace(entry, `namespaces[${i}]`),
    ),
    ...(root['clusters'] === undefined
      ? {}
      : {
          clusters: list(root['clusters'], 'clusters').map((entry, i) =>
            readCluster(entry, `clusters[${i}]`),
          ),
        }),
    candidateSecrets: list(root['candidateSecrets'], 'candidateSecrets').map((entry, i) =>
      readSecret(entry, `candidateSecrets[${i}]`),
    ),
    clusterSecrets: list(root['clusterSecrets'], 'clusterSecrets').map((entry, i) =>
      readSecret(entry, `clusterSecrets[${i}]`),
    ),
    sourceLookups,
    ...(unreadNamespaces.length === 0 ? {} : { unreadNamespaces }),
    ...(clusterSecretsUnread === undefined ? {} : { clusterSecretsUnread }),
    ...(root['nearMisses'] === undefined
      ? {}
      : {
          nearMisses: list(root['nearMisses'], 'nearMisses').map((entry, i) =>
            readNearMiss(entry, `nearMisses[${i}]`),
          ),
        }),
    ...(root['children'] === undefined ? {} : { children: readChildren(root['children']) }),
    ...(root['provisioners'] === undefined
      ? {}
      : { provisioners: readProvisioners(root['provisioners']) }),
  };
}

const PROVISIONER_KINDS: readonly ProvisionerObject['kind'][] = [
  'TenantControlPlane',
  'StatefulSet',
  'Deployment',
];

function readProvisioners(value: unknown): NonNullable<Snapshot['provisioners']> {
  const signals = object(value, 'provisioners', ['kamaji', 'vcluster']);
  const read: {
    -readonly [K in keyof NonNullable<Snapshot['provisioners']>]: ProvisionerObject[];
  } = {};
  for (const signal of ['kamaji', 'vcluster'] as const) {
    if (signals[signal] === undefined) continue;
    read[signal] = list(signals[signal], `provisioners.${signal}`).map((entry, i) => {
      const path = `provisioners.${signal}[${i}]`;
      const record = object(entry, path, [
        'kind',
        'namespace',
        'name',
        'labels',
        'annotations',
        'versionStatus',
      ]);
      const kind = record['kind'];
      if (!PROVISIONER_KINDS.includes(kind as ProvisionerObject['kind']))
        bad(join(path, 'kind'), PROVISIONER_KINDS.join(', '), kind);
      const versionStatus = optionalString(record, 'versionStatus', path);
      return {
        kind: kind as ProvisionerObject['kind'],
        namespace: string(record, 'namespace', path),
        name: string(record, 'name', path),
        labels: stringMap(record, 'labels', path),
        annotations: stringMap(record, 'annotations', path),
        ...(versionStatus === undefined ? {} : { versionStatus }),
      };
    });
  }
  return read;
}

function readChildren(value: unknown): Record<string, ChildProbe> {
  const children = object(value, 'children', Object.keys(value ?? {}));
  const read: Record<string, ChildProbe> = {};
  for (const [key, entry] of Object.entries(children)) {
    const path = `children[${JSON.stringify(key)}]`;
    const record = object(entry, path, ['failures', 'version', 'error', 'failingSince']);
    const failures = record['failures'];
    if (typeof failures !== 'number' || !Number.isInteger(failures) || failures < 0)
      bad(join(path, 'failures'), 'a whole number', failures);
    const version = optionalString(record, 'version', path);
    const error = optionalString(record, 'error', path);
    const failingSince = optionalString(record, 'failingSince', path);
    read[key] = {
      failures,
      ...(version === undefined ? {} : { version }),
      ...(error === undefined ? {} : { error }),
      ...(failingSince === undefined ? {} : { failingSince }),
    };
  }
  return read;
}

function readNearMiss(value: unknown, path: string): NearMissSecret {
  const record = object(value, path, ['namespace', 'name', 'keys']);
  const keys = list(record['keys'], join(path, 'keys')).map((key, i) =>
    typeof key === 'string' ? key : bad(`${join(path, 'keys')}[${i}]`, 'a string', key),
  );
  return { namespace: string(record, 'namespace', path), name: string(record, 'name', path), keys };
}

function readNamespace(
  value: unknown,
  path: string,
  allowed: readonly string[] = NAMESPACE_FIELDS,
): SourceNamespace {
  const record = object(value, path, allowed);
  const deletionTimestamp = optionalString(record, 'deletionTimestamp', path);
  return {
    name: string(record, 'name', path),
    uid: string(record, 'uid', path),
    labels: stringMap(record, 'labels', path),
    annotations: stringMap(record, 'annotations', path),
    creationTimestamp: string(record, 'creationTimestamp', path),
    ...(deletionTimestamp === undefined ? {} : { deletionTimestamp }),
  };
}

function readCluster(value: unknown, path: string): SourceCluster {
  const record = object(value, path, ['namespace', ...NAMESPACE_FIELDS]);
  return {
    namespace: string(record, 'namespace', path),
    ...readNamespace(value, path, ['namespace', ...NAMESPACE_FIELDS]),
  };
}

function readSecret(value: unknown, path: string): ObservedSecret {
  const record = object(value, path, SECRET_FIELDS);
  const creationTimestamp = optionalString(record, 'creationTimestamp', path);
  return {
    namespace: string(record, 'namespace', path),
    name: string(record, 'name', path),
    uid: string(record, 'uid', path),
    resourceVersion: string(record, 'resourceVersion', path),
    type: string(record, 'type', path),
    labels: stringMap(record, 'labels', path),
    annotations: stringMap(record, 'annotations', path),
    data: stringMap(record, 'data', path),
    ...(creationTimestamp === undefined ? {} : { creationTimestamp }),
  };
}

function readLookup(value: unknown, path: string): SourceLookup {
  const state = object(value, path, ['state', 'uid', 'labels', 'deletionTimestamp', 'reason'])[
    'state'
  ];
  switch (state) {
    case 'present': {
      const record = object(value, path, ['state', 'uid', 'labels', 'deletionTimestamp']);
      const deletionTimestamp = optionalString(record, 'deletionTimestamp', path);
      return {
        state,
        uid: string(record, 'uid', path),
        labels: stringMap(record, 'labels', path),
        ...(deletionTimestamp === undefined ? {} : { deletionTimestamp }),
      };
    }
    case 'notFound':
      object(value, path, ['state']);
      return { state };
    case 'unknown':
      return { state, reason: string(object(value, path, ['state', 'reason']), 'reason', path) };
    default:
      return bad(join(path, 'state'), 'one of "present", "notFound", "unknown"', state);
  }
}
