import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type {
  ObservedSecret,
  ProvisionerObject,
  Snapshot,
  SourceLookup,
  SourceNamespace,
} from '../common/types.js';
import { snapshotFromJson, snapshotToJson } from './snapshot-io.js';

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
const labels = fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), {
  maxKeys: 4,
});
const timestamp = fc.constantFrom('2026-11-29T17:00:00Z', '2025-01-01T00:00:00Z');

const namespaceArb: fc.Arbitrary<SourceNamespace> = fc.record(
  {
    name,
    uid: fc.uuid(),
    labels,
    annotations: labels,
    creationTimestamp: timestamp,
    deletionTimestamp: timestamp,
  },
  { requiredKeys: ['name', 'uid', 'labels', 'annotations', 'creationTimestamp'] },
);
const secretArb: fc.Arbitrary<ObservedSecret> = fc.record(
  {
    namespace: name,
    name,
    uid: fc.uuid(),
    resourceVersion: fc.nat().map(String),
    type: fc.constantFrom('Opaque', 'cluster.x-k8s.io/secret'),
    labels,
    annotations: labels,
    data: fc.dictionary(fc.string({ maxLength: 8 }), fc.base64String({ maxLength: 24 }), {
      maxKeys: 3,
    }),
    creationTimestamp: timestamp,
    // Provisioners' marks (k3k's controller reference) are read from these: a replayed
    // snapshot must choose the same kubeconfig Secrets as the pass it was saved from.
    ownerReferences: fc
      .uniqueArray(
        fc.record(
          {
            apiVersion: fc.constantFrom('k3k.io/v1beta1', 'v1'),
            kind: fc.constantFrom('Cluster', 'ConfigMap'),
            name,
            controller: fc.boolean(),
          },
          { requiredKeys: ['apiVersion', 'kind', 'name'] },
        ),
        {
          minLength: 1,
          maxLength: 2,
          selector: (ref) => `${ref.apiVersion}/${ref.kind}/${ref.name}`,
        },
      )
      .map((refs) =>
        [...refs].sort((a, b) =>
          `${a.apiVersion}/${a.kind}/${a.name}` < `${b.apiVersion}/${b.kind}/${b.name}` ? -1 : 1,
        ),
      ),
  },
  {
    requiredKeys: [
      'namespace',
      'name',
      'uid',
      'resourceVersion',
      'type',
      'labels',
      'annotations',
      'data',
    ],
  },
);
const lookupArb: fc.Arbitrary<SourceLookup> = fc.oneof(
  fc.record(
    {
      state: fc.constant('present' as const),
      uid: fc.uuid(),
      labels,
      deletionTimestamp: timestamp,
    },
    { requiredKeys: ['state', 'uid', 'labels'] },
  ),
  fc.constant({ state: 'notFound' as const }),
  fc.record({ state: fc.constant('unknown' as const), reason: fc.string() }),
);
const provisionerArb: fc.Arbitrary<ProvisionerObject> = fc.record(
  {
    kind: fc.constantFrom(
      'TenantControlPlane' as const,
      'StatefulSet' as const,
      'Deployment' as const,
    ),
    namespace: name,
    name,
    labels,
    annotations: labels,
    versionStatus: fc.constantFrom('Ready', 'Sleeping'),
  },
  { requiredKeys: ['kind', 'namespace', 'name', 'labels', 'annotations'] },
);
/** An object is one per kind, namespace and name, as in a cluster. */
const objectKey = (object: ProvisionerObject): string =>
  `${object.kind}/${object.namespace}/${object.name}`;
const snapshotArb: fc.Arbitrary<Snapshot> = fc.record(
  {
    namespaces: fc.array(namespaceArb, { maxLength: 4 }),
    candidateSecrets: fc.array(secretArb, { maxLength: 4 }),
    clusterSecrets: fc.array(secretArb, { maxLength: 4 }),
    sourceLookups: fc.dictionary(name, lookupArb, { maxKeys: 3 }),
    // What a gather could not read: saved only when something was.
    unreadNamespaces: fc.uniqueArray(fc.record({ name, reason: fc.string() }), {
      selector: (entry) => entry.name,
      minLength: 1,
      maxLength: 3,
    }),
    clusterSecretsUnread: fc.string(),
    children: fc.dictionary(
      name,
      fc.record(
        {
          failures: fc.nat({ max: 9 }),
          version: fc.constantFrom('v1.31.2', 'v1.33.0+k3s1'),
          error: fc.string(),
          failingSince: timestamp,
        },
        { requiredKeys: ['failures'] },
      ),
      { maxKeys: 3 },
    ),
    provisioners: fc.record(
      {
        kamaji: fc.uniqueArray(provisionerArb, { maxLength: 3, selector: objectKey }),
        vcluster: fc.uniqueArray(provisionerArb, { maxLength: 3, selector: objectKey }),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['namespaces', 'candidateSecrets', 'clusterSecrets', 'sourceLookups'] },
);

function read(text: string): Snapshot {
  const result = snapshotFromJson(text);
  if (!result.ok) throw new Error(result.error);
  return result.snapshot;
}

function errorOf(document: unknown): string {
  const result = snapshotFromJson(JSON.stringify(document));
  if (result.ok) throw new Error('expected an error');
  return result.error;
}

const example: Snapshot = {
  namespaces: [
    {
      name: 'k3k-b',
      uid: 'u2',
      labels: { z: '1', a: '2' },
      annotations: {},
      creationTimestamp: '2026-11-29T17:00:00Z',
    },
    {
      name: 'k3k-a',
      uid: 'u1',
      labels: {},
      annotations: {},
      creationTimestamp: '2026-11-29T17:00:00Z',
      deletionTimestamp: '2026-11-29T18:00:00Z',
    },
  ],
  candidateSecrets: [],
  clusterSecrets: [
    {
      namespace: 'argocd',
      name: 'cluster-a',
      uid: 's1',
      resourceVersion: '9',
      type: 'Opaque',
      labels: {},
      annotations: {},
      data: { server: 'aHR0cHM6Ly9h', name: 'YQ==' },
    },
  ],
  sourceLookups: { gone: { state: 'notFound' }, flaky: { state: 'unknown', reason: 'timeout' } },
};

describe('snapshotToJson', () => {
  it('writes a versioned, canonical document', () => {
    expect(snapshotToJson(example)).toBe(`{
  "snapshotVersion": "1",
  "namespaces": [
    {
      "name": "k3k-a",
      "uid": "u1",
      "labels": {},
      "annotations": {},
      "creationTimestamp": "2026-11-29T17:00:00Z",
      "deletionTimestamp": "2026-11-29T18:00:00Z"
    },
    {
      "name": "k3k-b",
      "uid": "u2",
      "labels": {
        "a": "2",
        "z": "1"
      },
      "annotations": {},
      "creationTimestamp": "2026-11-29T17:00:00Z"
    }
  ],
  "candidateSecrets": [],
  "clusterSecrets": [
    {
      "namespace": "argocd",
      "name": "cluster-a",
      "uid": "s1",
      "resourceVersion": "9",
      "type": "Opaque",
      "labels": {},
      "annotations": {},
      "data": {
        "name": "YQ==",
        "server": "aHR0cHM6Ly9h"
      }
    }
  ],
  "sourceLookups": {
    "flaky": {
      "state": "unknown",
      "reason": "timeout"
    },
    "gone": {
      "state": "notFound"
    }
  }
}
`);
  });

  it('round-trips: loading what was saved and saving again gives the same bytes', () => {
    fc.assert(
      fc.property(snapshotArb, (snapshot) => {
        const saved = snapshotToJson(snapshot);
        expect(snapshotToJson(read(saved))).toBe(saved);
      }),
    );
  });

  it('loads every field it saved', () => {
    fc.assert(
      fc.property(snapshotArb, (snapshot) => {
        const loaded = read(snapshotToJson(snapshot));
        // Lists come back sorted; as sets they hold exactly what was saved, optional fields included.
        expect(loaded.sourceLookups).toEqual(snapshot.sourceLookups);
        expect(loaded.namespaces).toHaveLength(snapshot.namespaces.length);
        expect(new Set(loaded.namespaces)).toEqual(new Set(snapshot.namespaces));
        expect(new Set(loaded.candidateSecrets)).toEqual(new Set(snapshot.candidateSecrets));
        expect(new Set(loaded.clusterSecrets)).toEqual(new Set(snapshot.clusterSecrets));
        expect(new Set(loaded.unreadNamespaces)).toEqual(new Set(snapshot.unreadNamespaces));
        expect(loaded.clusterSecretsUnread).toBe(snapshot.clusterSecretsUnread);
        expect(loaded.children).toEqual(snapshot.children);
        for (const signal of ['kamaji', 'vcluster'] as const) {
          const saved = snapshot.provisioners?.[signal];
          const back = loaded.provisioners?.[signal];
          expect(back === undefined ? undefined : new Set(back)).toEqual(
            saved === undefined ? undefined : new Set(saved),
          );
        }
      }),
    );
  });

  it('records what could not be read, and leaves it out when everything was', () => {
    const incomplete = JSON.parse(
      snapshotToJson({
        ...example,
        unreadNamespaces: [{ name: 'k3k-b', reason: 'forbidden' }],
        clusterSecretsUnread: 'timed out',
      }),
    ) as Record<string, unknown>;
    expect(incomplete['unreadNamespaces']).toEqual([{ name: 'k3k-b', reason: 'forbidden' }]);
    expect(incomplete['clusterSecretsUnread']).toBe('timed out');
    expect(Object.keys(JSON.parse(snapshotToJson(example)) as object)).toEqual([
      'snapshotVersion',
      'namespaces',
      'candidateSecrets',
      'clusterSecrets',
      'sourceLookups',
    ]);
  });

  it('gives the same bytes whatever the order of lists and keys', () => {
    fc.assert(
      fc.property(snapshotArb, fc.nat(), (snapshot, seed) => {
        const rotate = <T>(items: readonly T[]): T[] => {
          const at = items.length === 0 ? 0 : seed % items.length;
          return [...items.slice(at), ...items.slice(0, at)].reverse();
        };
        const reversedKeys = <V>(record: Readonly<Record<string, V>>): Record<string, V> =>
          Object.fromEntries(Object.entries(record).reverse());
        const shuffled: Snapshot = {
          namespaces: rotate(snapshot.namespaces).map((ns) => ({
            ...ns,
            labels: reversedKeys(ns.labels),
          })),
          candidateSecrets: rotate(snapshot.candidateSecrets).map((s) => ({
            ...s,
            data: reversedKeys(s.data),
          })),
          clusterSecrets: rotate(snapshot.clusterSecrets),
          sourceLookups: reversedKeys(snapshot.sourceLookups),
          ...(snapshot.unreadNamespaces === undefined
            ? {}
            : { unreadNamespaces: rotate(snapshot.unreadNamespaces) }),
          ...(snapshot.clusterSecretsUnread === undefined
            ? {}
            : { clusterSecretsUnread: snapshot.clusterSecretsUnread }),
          ...(snapshot.children === undefined ? {} : { children: reversedKeys(snapshot.children) }),
          ...(snapshot.provisioners === undefined
            ? {}
            : {
                provisioners: Object.fromEntries(
                  Object.entries(snapshot.provisioners)
                    .reverse()
                    .map(([signal, objects]) => [signal, rotate(objects)]),
                ),
              }),
        };
        expect(snapshotToJson(shuffled)).toBe(snapshotToJson(snapshot));
      }),
    );
  });
});

describe('snapshotFromJson', () => {
  const document = JSON.parse(snapshotToJson(example)) as Record<string, unknown>;

  it('loads a snapshot saved before unread parts were recorded, as a complete one', () => {
    const loaded = read(JSON.stringify(document));
    expect(loaded.unreadNamespaces).toBeUndefined();
    expect(loaded.clusterSecretsUnread).toBeUndefined();
  });

  it('names a bad entry of what could not be read by its path', () => {
    const result = snapshotFromJson(
      JSON.stringify({ ...document, unreadNamespaces: [{ name: 'a', reason: 7 }] }),
    );
    expect(result).toEqual({
      ok: false,
      error: 'unreadNamespaces[0].reason: expected a string, got number 7',
    });
  });

  it('refuses text that is not JSON', () => {
    const result = snapshotFromJson('{"snapshotVersion":');
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.error).toMatch(/^not JSON: /);
  });

  it('refuses a missing or different format version', () => {
    expect(errorOf({ ...document, snapshotVersion: undefined })).toBe(
      'snapshotVersion: expected "1", got nothing',
    );
    expect(errorOf({ ...document, snapshotVersion: '2' })).toBe(
      'snapshotVersion: this version reads snapshot format "1" only, not "2"',
    );
    expect(errorOf({ ...document, snapshotVersion: 1 })).toBe(
      'snapshotVersion: expected "1", got number 1',
    );
    expect(errorOf([])).toBe('the document: expected an object, got a list');
  });

  it('names the bad field by its path', () => {
    const namespaces = document['namespaces'] as Record<string, unknown>[];
    const secrets = document['clusterSecrets'] as Record<string, unknown>[];
    expect(
      errorOf({ ...document, namespaces: [namespaces[0], { ...namespaces[1], uid: 7 }] }),
    ).toBe('namespaces[1].uid: expected a string, got number 7');
    expect(
      errorOf({
        ...document,
        namespaces: [{ ...namespaces[0], labels: { 'app.kubernetes.io/name': true } }],
      }),
    ).toBe('namespaces[0].labels["app.kubernetes.io/name"]: expected a string, got boolean true');
    expect(errorOf({ ...document, clusterSecrets: [{ ...secrets[0], data: 'YQ==' }] })).toBe(
      'clusterSecrets[0].data: expected an object of strings, got a string',
    );
    expect(errorOf({ ...document, candidateSecrets: {} })).toBe(
      'candidateSecrets: expected a list, got an object',
    );
    expect(errorOf({ ...document, sourceLookups: { x: { state: 'gone' } } })).toBe(
      'sourceLookups["x"].state: expected one of "present", "notFound", "unknown", got a string',
    );
    expect(errorOf({ ...document, sourceLookups: { x: { state: 'present', labels: {} } } })).toBe(
      'sourceLookups["x"].uid: expected a string, got nothing',
    );
  });

  it('refuses unknown fields rather than ignore a typo', () => {
    const namespaces = document['namespaces'] as Record<string, unknown>[];
    expect(
      errorOf({ ...document, namespaces: [{ ...namespaces[0], deletionTimeStamp: 'x' }] }),
    ).toBe(
      'namespaces[0].deletionTimeStamp: unknown field; expected one of name, uid, labels, annotations, creationTimestamp, deletionTimestamp',
    );
    expect(errorOf({ ...document, sourceLookups: { x: { state: 'notFound', uid: 'u' } } })).toBe(
      'sourceLookups["x"].uid: unknown field; expected one of state',
    );
  });

  it('never quotes a misplaced string, which may be a kubeconfig', () => {
    const secrets = document['clusterSecrets'] as Record<string, unknown>[];
    expect(
      errorOf({
        ...document,
        clusterSecrets: [{ ...secrets[0], labels: 'client-key-data: c2VjcmV0' }],
      }),
    ).not.toContain('c2VjcmV0');
  });
});

describe('near misses in a snapshot', () => {
  const nearMisses = [
    { namespace: 'team-b', name: 'vc-beta', keys: ['config', 'certificate'] },
    { namespace: 'team-a', name: 'vc-alpha', keys: ['config'] },
  ];

  it('are saved sorted (keys too) and loaded back; a snapshot without them keeps its bytes', () => {
    const saved = snapshotToJson({ ...example, nearMisses });
    const loaded = read(saved);
    expect(loaded.nearMisses).toEqual([
      { namespace: 'team-a', name: 'vc-alpha', keys: ['config'] },
      { namespace: 'team-b', name: 'vc-beta', keys: ['certificate', 'config'] },
    ]);
    expect(snapshotToJson(loaded)).toBe(saved);
    expect(snapshotToJson({ ...example, nearMisses: [] })).toBe(snapshotToJson(example));
    expect(read(snapshotToJson(example)).nearMisses).toBeUndefined();
  });

  it('are checked field by field', () => {
    const document = JSON.parse(snapshotToJson(example)) as Record<string, unknown>;
    expect(
      errorOf({ ...document, nearMisses: [{ namespace: 'a', name: 'vc-a', keys: [1] }] }),
    ).toBe('nearMisses[0].keys[0]: expected a string, got number 1');
    expect(
      errorOf({ ...document, nearMisses: [{ namespace: 'a', name: 'vc-a', keys: [], data: {} }] }),
    ).toBe('nearMisses[0].data: unknown field; expected one of namespace, name, keys');
  });
});
