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

  // The API server refuses a binding with both Deny and Warn (admission-e2e.test.ts shows it);
  // the schema refuses the values first, before anything is installed.
  test('validationActions: only the combinations the API server accepts', async () => {
    for (const policy of ['admissionPolicy', 'registrarPolicy']) {
      for (const actions of [
        ['Deny', 'Warn'],
        ['Warn', 'Audit', 'Deny'],
      ])
        expect(await rejection({ [policy]: { validationActions: actions } })).toContain(
          `at '/${policy}/validationActions'`,
        );
      for (const actions of [['Deny'], ['Deny', 'Audit'], ['Warn', 'Audit'], ['Audit']]) {
        const result = await template({ [policy]: { validationActions: actions } });
        expect(result.code, `${policy} ${actions.join(',')}: ${result.stderr}`).toBe(0);
      }
    }
  });

  test('wrong types are rejected with the expected type', async () => {
    expect(await rejection({ replicaCount: 'two' })).toContain(
      "at '/replicaCount': got string, want integer",
    );
    expect(await rejection({ dryRun: 'yes' })).toContain("at '/dryRun': got string, want boolean");
    expect(await rejection({ providers: 'k3k' })).toContain(
      "at '/providers': got string, want array",
    );
    // A number where a duration belongs gets the CLI's message, not the schema's type error.
    expect(await rejection({ interval: 60 })).toContain(
      'values: interval "60": must be a Go duration such as 500ms, 60s, 1m30s or 168h',
    );
  });

  // The registrar's own settings say what the CLI says (settings-parity.test.ts proves each
  // against the CLI); the chart's own values have their own messages.
  test.each([
    [
      { interval: '60' },
      'values: interval "60": must be a Go duration such as 500ms, 60s, 1m30s or 168h (units ns, us, ms, s, m, h)',
    ],
    [
      { interval: '500ms' },
      'values: interval "500ms": must be at least 1s, such as 30s, 60s, 1m30s or 5m',
    ],
    [
      { resyncPeriod: '30s' },
      'values: resyncPeriod "30s": must be at least 1m, as each re-list reads every Secret\'s metadata; such as 5m, 10m, 30m or 1h',
    ],
    [
      { resyncPeriod: '10' },
      'values: resyncPeriod "10": must be a Go duration such as 500ms, 60s, 1m30s or 168h (units ns, us, ms, s, m, h)',
    ],
    [
      { targetNamespace: 'a'.repeat(64) },
      `values: targetNamespace "${'a'.repeat(64)}": must be a namespace name`,
    ],
    [
      { labelPrefix: 'no-slash' },
      'values: labelPrefix "no-slash": must end in "/" (did you mean no-slash/?); expected a DNS subdomain followed by "/"',
    ],
    [
      { providers: ['vcluster', 'k3s'] },
      'values: providers "k3s": unknown provider; expected one of k3k, vcluster, kamaji, kamaji-generated, capi, capa-eks, capz-aks, gke, or custom:<glob>=<key>[,<key>...][;exec] (for example custom:*-kubeconfig=value)',
    ],
    [
      { providers: ['custom:k3k-[=kubeconfig'] },
      'values: providers "custom:k3k-[=kubeconfig": the Secret-name glob "k3k-[" is malformed (unterminated character class: add the closing "]")',
    ],
    [
      { image: { digest: 'sha256:abc' } },
      'values: image.digest "sha256:abc" is not an image digest: write sha256: followed by 64 lower-case hex digits',
    ],
  ])('a malformed value is refused by name, with its form: %j', async (values, message) => {
    const stderr = await rejection(values);
    expect(stderr).toContain(message);
    // Never the raw pattern.
    expect(stderr).not.toContain('does not match pattern');
  });

  test('well-formed values of those kinds pass', async () => {
    const result = await template({
      interval: '1m30s',
      demotedTTL: '0',
      credentialRefreshWindow: '1.5h',
      targetNamespace: 'argo-cd',
      labelPrefix: 'registrar.example.com/',
      managedBy: 'Team_A.prod',
      providers: ['kamaji', 'custom:*-kubeconfig=value,config', 'capa-eks', 'capz-aks', 'gke'],
      image: { digest: `sha256:${'ab'.repeat(32)}` },
    });
    expect(result.code, result.stderr).toBe(0);
  });

  test('enums and ranges read as they are (the schema says what it wants)', async () => {
    expect(await rejection({ logFormat: 'xml' })).toContain(
      "at '/logFormat': value must be one of 'auto', 'text', 'json'",
    );
    expect(await rejection({ execCredentials: 'yes' })).toContain(
      "at '/execCredentials': got string, want boolean",
    );
    expect(await rejection({ metrics: { port: 70000 } })).toContain(
      "at '/metrics/port': maximum: got 70,000, want 65,535",
    );
  });

  test.each([
    [
      'clusters',
      { clusters: ['dev', 'staging'] },
      'clusters are now found through namespace labels: label each namespace with argocd-cluster-registrar/managed-by and argocd-cluster-registrar/cluster',
    ],
    ['autoDiscovery', { autoDiscovery: true }, 'discovery through namespace labels is always on'],
    [
      'service',
      { service: { type: 'ClusterIP', port: 8080 } },
      'the metrics endpoint has its own optional Service, metrics.service',
    ],
  ])(
    'the 0.1.x value %s is refused with what replaced it and the migration text shipped with the chart',
    async (key, values, replacement) => {
      const stderr = await rejection(values);
      expect(stderr).toContain(
        `values: ${key} is a 0.1.x value, removed in 0.2.0: delete it (${replacement}). How to migrate: see "Migrating from 0.1.x" in the chart's README (helm show readme <chart>)`,
      );
      const readme = await readFile(join(chartDir, 'README.md'), 'utf8');
      expect(readme).toContain('\n## Migrating from 0.1.x\n');
      expect(readme).toContain(`\`${key}\``);
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
      'values: providers "vcluster": cannot be combined with secretNamePattern and secretKey',
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
    expect(await rejection({ admissionPolicy: { allowedGroups: [] } })).toContain(
      'allowedUsers, allowedGroups and allowedServiceAccounts are all empty',
    );
    const result = await template({
      admissionPolicy: {
        allowedGroups: [],
        allowedServiceAccounts: [{ namespace: 'a', name: 'b' }],
      },
    });
    expect(result.code, result.stderr).toBe(0);
  });

  test('no ServiceAccount to run as', async () => {
    expect(await rejection({ serviceAccount: { create: false } })).toContain(
      'serviceAccount.name must name',
    );
  });
});
