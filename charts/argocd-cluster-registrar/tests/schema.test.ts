// The values schema and the render-time checks: a stale or misspelled values file must fail
// `helm install` with a message that names the key, never be ignored.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { YAML, chartDir, template } from './chart-support.js';

async function rejection(values: Record<string, unknown>): Promise<string> {
  const result = await template(values);
  expect(result.code, `expected the render to fail for ${JSON.stringify(values)}`).not.toBe(0);
  return result.stderr;
}

const SCHEMA_HEADER = "values don't meet the specifications of the schema(s)";

describe('values.schema.json', () => {
  test('every object the chart defines refuses unknown keys', async () => {
    const schema = JSON.parse(
      await readFile(join(chartDir, 'values.schema.json'), 'utf8'),
    ) as unknown;
    const loose: string[] = [];
    const visit = (node: unknown, path: string): void => {
      if (node === null || typeof node !== 'object') return;
      const record = node as Record<string, unknown>;
      if (record['properties'] !== undefined && record['additionalProperties'] !== false)
        loose.push(path || '/');
      for (const [key, child] of Object.entries(record)) visit(child, `${path}/${key}`);
    };
    visit(schema, '');
    expect(loose).toEqual([]);
  });

  test('every key of values.yaml is declared (the defaults pass their own schema)', async () => {
    const values = YAML.parse(await readFile(join(chartDir, 'values.yaml'), 'utf8')) as Record<
      string,
      unknown
    >;
    const result = await template(values);
    expect(result.code, result.stderr).toBe(0);
  });

  test('an unknown top-level key is rejected by name', async () => {
    const stderr = await rejection({ targetNamespce: 'argocd' });
    expect(stderr).toContain(SCHEMA_HEADER);
    expect(stderr).toContain("at '': additional properties 'targetNamespce' not allowed");
  });

  test('an unknown nested key is rejected with its path', async () => {
    expect(await rejection({ metrics: { service: { enable: true } } })).toContain(
      "at '/metrics/service': additional properties 'enable' not allowed",
    );
    expect(await rejection({ leaderElection: { enable: true } })).toContain(
      "at '/leaderElection': additional properties 'enable' not allowed",
    );
    // A typo in a security setting must not silently weaken the pod.
    expect(await rejection({ securityContext: { readOnlyRootFileSystem: true } })).toContain(
      "at '/securityContext': additional properties 'readOnlyRootFileSystem' not allowed",
    );
  });

  test('wrong types are rejected with the expected type', async () => {
    expect(await rejection({ replicaCount: 'two' })).toContain(
      "at '/replicaCount': got string, want integer",
    );
    expect(await rejection({ dryRun: 'yes' })).toContain("at '/dryRun': got string, want boolean");
    expect(await rejection({ providers: 'k3k' })).toContain(
      "at '/providers': got string, want array",
    );
    expect(await rejection({ interval: 60 })).toContain("at '/interval': got number, want string");
  });

  test('malformed values are rejected with the accepted form', async () => {
    expect(await rejection({ interval: '60' })).toContain("at '/interval'");
    expect(await rejection({ labelPrefix: 'no-slash' })).toContain("at '/labelPrefix'");
    expect(await rejection({ providers: ['k3s'] })).toContain(
      "at '/providers/0': 'k3s' does not match pattern",
    );
    expect(await rejection({ logFormat: 'xml' })).toContain("at '/logFormat'");
    expect(await rejection({ metrics: { port: 70000 } })).toContain("at '/metrics/port'");
  });

  test.each([
    ['clusters', { clusters: ['dev', 'staging'] }],
    ['autoDiscovery', { autoDiscovery: true }],
    ['service', { service: { type: 'ClusterIP', port: 8080 } }],
  ])(
    'the 0.1.x value %s is rejected with a pointer to the migration guide',
    async (key, values) => {
      const stderr = await rejection(values);
      expect(stderr).toContain(
        `at '/${key}': value must be 'a 0.1.x value, removed in 0.2.0: delete it (`,
      );
      expect(stderr).toContain('see docs/migrating.md');
    },
  );
});

describe('combinations that make no sense fail the render', () => {
  test('legacy secretNamePattern/secretKey together with providers', async () => {
    const stderr = await rejection({
      providers: ['vcluster'],
      secretNamePattern: 'vc-*',
      secretKey: 'config',
    });
    expect(stderr).toContain(
      'secretNamePattern/secretKey (legacy) cannot be combined with providers [vcluster]',
    );
    expect(stderr).toContain('custom:vc-*=config');
  });

  test('several replicas without leader election', async () => {
    expect(await rejection({ replicaCount: 2 })).toContain(
      'replicaCount is 2 but leaderElection.enabled is false',
    );
  });

  test('a metrics Service without metrics', async () => {
    expect(await rejection({ metrics: { enabled: false, service: { enabled: true } } })).toContain(
      'metrics.service.enabled is true but metrics.enabled is false',
    );
  });

  test('an admission policy that nobody could satisfy', async () => {
    expect(await rejection({ admissionPolicy: { enabled: true, allowedGroups: [] } })).toContain(
      'allowedUsers and allowedGroups are both empty',
    );
  });

  test('no ServiceAccount to run as', async () => {
    expect(await rejection({ serviceAccount: { create: false } })).toContain(
      'serviceAccount.name must name',
    );
  });
});
