// The chart's two ValidatingAdmissionPolicies, proven on a real API server: rendered with the
// chart's defaults, applied, and then exercised by ServiceAccounts whose RBAC allows every
// write, so that each refusal here comes from a policy. A plane of its own: the source policy is
// cluster-wide, and Cluster API's CRDs must not reach the shared host plane.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  installCapiCrds,
  kubectl,
  mintToken,
  startControlPlane,
  tokenKubeConfig,
  uniqueName,
} from '@argocd-cluster-registrar/testkit';
import type { ControlPlane } from '@argocd-cluster-registrar/testkit';
import { eventually } from '../../../packages/cli/src/test-support/e2e.js';
import { render, run, toolsBinDir, YAML } from './chart-support.js';
import type { Manifest, RunResult } from './chart-support.js';

const PREFIX = 'argocd-cluster-registrar/';
const TENANT_RULES = `
  - apiGroups: [""]
    resources: [namespaces, namespaces/status, namespaces/finalize, secrets]
    verbs: [get, list, create, update, patch, delete]
  - apiGroups: [cluster.x-k8s.io]
    resources: [clusters, clusters/status]
    verbs: [get, list, create, update, patch, delete]`;

let plane: ControlPlane | undefined;
let scratch = '';

beforeAll(async () => {
  plane = await startControlPlane(`admission-${String(process.pid)}`, {
    ownerPid: process.pid,
  });
  await installCapiCrds(plane);
  scratch = await mkdtemp(join(tmpdir(), 'acr-admission-e2e-'));
});

afterAll(async () => {
  await plane?.stop();
  if (scratch !== '') await rm(scratch, { recursive: true, force: true });
});

function thePlane(): ControlPlane {
  if (plane === undefined) throw new Error('no plane');
  return plane;
}

async function applyAsAdmin(manifests: readonly Manifest[]): Promise<void> {
  await kubectl(
    thePlane(),
    ['apply', '-f', '-'],
    manifests.map((m) => `---\n${YAML.stringify(m)}`).join(''),
  );
}

/** kubectl as one identity: its exit code and output, never thrown. */
type As = (args: readonly string[], input?: string) => Promise<RunResult>;

/** A ServiceAccount in `namespace` with a ClusterRole of `rules` (YAML), and kubectl as it. */
async function identity(namespace: string, name: string, rules: string): Promise<As> {
  await kubectl(
    thePlane(),
    ['apply', '-f', '-'],
    `
apiVersion: v1
kind: ServiceAccount
metadata: { name: ${name}, namespace: ${namespace} }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: ${namespace}-${name} }
rules:${rules}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: ${namespace}-${name} }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ${namespace}-${name} }
subjects: [{ kind: ServiceAccount, name: ${name}, namespace: ${namespace} }]
`,
  );
  const token = await mintToken(thePlane(), namespace, name);
  const path = join(scratch, `${namespace}-${name}.kubeconfig`);
  await writeFile(path, tokenKubeConfig(thePlane(), token, name).exportConfig(), { mode: 0o600 });
  const bin = join(await toolsBinDir(), 'kubectl');
  return (args, input) =>
    run(bin, ['--kubeconfig', path, ...args], input === undefined ? {} : { input });
}

/** kubectl as the plane's admin (system:masters), never thrown. */
async function asAdmin(args: readonly string[], input?: string): Promise<RunResult> {
  return run(
    join(await toolsBinDir(), 'kubectl'),
    ['--kubeconfig', thePlane().kubeconfigPath, ...args],
    input === undefined ? {} : { input },
  );
}

function expectAllowed(what: string, result: RunResult): void {
  expect(result.code, `${what} should be allowed: ${result.stderr}`).toBe(0);
}

/** Refused by the named policy (not by RBAC, which allows it), with its message. */
function expectDenied(what: string, result: RunResult, policy: string, ...words: string[]): void {
  expect(result.code, `${what} should be denied`).not.toBe(0);
  expect(result.stderr, what).toContain(`ValidatingAdmissionPolicy '${policy}'`);
  for (const word of words) expect(result.stderr, what).toContain(word);
}

async function labelsOf(...resource: string[]): Promise<Record<string, string>> {
  const result = await asAdmin(['get', ...resource, '-o', 'json']);
  expectAllowed(`get ${resource.join(' ')}`, result);
  const object = JSON.parse(result.stdout) as { metadata: { labels?: Record<string, string> } };
  return object.metadata.labels ?? {};
}

/** Waits until the API server enforces a freshly applied policy: `probe` stops succeeding. */
async function enforced(what: string, probe: () => Promise<RunResult>): Promise<RunResult> {
  return eventually(
    async () => {
      const result = await probe();
      return result.code === 0 ? undefined : result;
    },
    `${what} to be enforced`,
    30_000,
    250,
  );
}

describe('the source policy (admissionPolicy, on by default)', () => {
  let policy = '';
  let tenant: As;
  let operator: As;
  const guardedLabels = ['managed-by', 'cluster', 'project', 'cluster-resources', 'team'];
  const guardedAnnotations = ['server', 'tls-server-name', 'namespaces', 'notes'];

  beforeAll(async () => {
    const operatorName = uniqueName('operator');
    const manifests = await render(
      {
        admissionPolicy: { allowedServiceAccounts: [{ namespace: 'default', name: operatorName }] },
      },
      { release: uniqueName('acr'), namespace: 'default' },
    );
    const policies = manifests.filter((m) => m.kind.startsWith('ValidatingAdmissionPolicy'));
    policy = policies.find((m) => m.metadata.name.endsWith('-source-keys'))?.metadata.name ?? '';
    await applyAsAdmin(policies);
    tenant = await identity('default', uniqueName('tenant'), TENANT_RULES);
    operator = await identity('default', operatorName, TENANT_RULES);
    await enforced('the source policy', () =>
      tenant(
        ['create', '--dry-run=server', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: uniqueName('probe'), labels: { [`${PREFIX}cluster`]: 'x' } },
        }),
      ),
    );
  });

  test('a tenant may not create a namespace that carries a guarded key, but may create one without', async () => {
    const name = uniqueName('ns');
    const body = (labels: Record<string, string>): string =>
      JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
    expectDenied(
      'create with the cluster label',
      await tenant(['create', '-f', '-'], body({ [`${PREFIX}cluster`]: 'stolen' })),
      policy,
      `label ${PREFIX}cluster`,
      `only the identities listed in the admissionPolicy values`,
    );
    expectAllowed('create without', await tenant(['create', '-f', '-'], body({ unrelated: 'a' })));
  });

  test('a tenant may neither add, change nor remove any key under the prefix on a namespace; other keys stay its to edit', async () => {
    const name = uniqueName('ns');
    expectAllowed('create', await tenant(['create', 'namespace', name]));
    for (const key of guardedLabels)
      expectDenied(
        `add label ${key}`,
        await tenant(['label', 'namespace', name, `${PREFIX}${key}=x`]),
        policy,
        `label ${PREFIX}${key}`,
      );
    for (const key of guardedAnnotations)
      expectDenied(
        `add annotation ${key}`,
        await tenant(['annotate', 'namespace', name, `${PREFIX}${key}=https://x.example`]),
        policy,
        `annotation ${PREFIX}${key}`,
      );
    expectAllowed('label unrelated', await tenant(['label', 'namespace', name, 'team=a']));
    expectAllowed('annotate unrelated', await tenant(['annotate', 'namespace', name, 'note=b']));

    // The operator's ServiceAccount may set them all.
    expectAllowed(
      'operator labels',
      await operator(['label', 'namespace', name, ...guardedLabels.map((k) => `${PREFIX}${k}=a`)]),
    );
    expectAllowed(
      'operator annotates',
      await operator([
        'annotate',
        'namespace',
        name,
        ...guardedAnnotations.map((k) => `${PREFIX}${k}=a`),
      ]),
    );
    // Once set, the tenant can change other keys (the guarded ones ride along unchanged)...
    expectAllowed(
      'relabel unrelated',
      await tenant(['label', '--overwrite', 'namespace', name, 'team=b']),
    );
    // ...but neither change nor remove a guarded one.
    expectDenied(
      'change the cluster label',
      await tenant(['label', '--overwrite', 'namespace', name, `${PREFIX}cluster=other`]),
      policy,
    );
    expectDenied(
      'remove the managed-by label',
      await tenant(['label', 'namespace', name, `${PREFIX}managed-by-`]),
      policy,
      `label ${PREFIX}managed-by`,
    );
    expectDenied(
      'remove the server annotation',
      await tenant(['annotate', 'namespace', name, `${PREFIX}server-`]),
      policy,
      `annotation ${PREFIX}server`,
    );
    expect((await labelsOf(`namespace/${name}`))[`${PREFIX}cluster`]).toBe('a');
  });

  test("a namespace's status and finalize subresources carry its labels, and are guarded too", async () => {
    const name = uniqueName('ns');
    expectAllowed('create', await tenant(['create', 'namespace', name]));
    const patch = JSON.stringify({ metadata: { labels: { [`${PREFIX}cluster`]: 'stolen' } } });
    // As the operator: the API server does store a label sent through the status subresource.
    expectAllowed(
      'operator labels through status',
      await operator([
        'patch',
        'namespace',
        name,
        '--subresource=status',
        '--type=merge',
        '-p',
        patch.replace('stolen', 'set-by-operator'),
      ]),
    );
    expect((await labelsOf(`namespace/${name}`))[`${PREFIX}cluster`]).toBe('set-by-operator');
    expectDenied(
      'tenant labels through status',
      await tenant([
        'patch',
        'namespace',
        name,
        '--subresource=status',
        '--type=merge',
        '-p',
        patch,
      ]),
      policy,
    );
    // finalize: a PUT of the whole Namespace (kubectl has no --subresource for it).
    const current = JSON.parse(
      (await asAdmin(['get', 'namespace', name, '-o', 'json'])).stdout,
    ) as { metadata: { labels?: Record<string, string> } };
    current.metadata.labels = { ...current.metadata.labels, [`${PREFIX}cluster`]: 'stolen' };
    expectDenied(
      'tenant labels through finalize',
      await tenant(
        ['replace', '--raw', `/api/v1/namespaces/${name}/finalize`, '-f', '-'],
        JSON.stringify(current),
      ),
      policy,
    );
    expect((await labelsOf(`namespace/${name}`))[`${PREFIX}cluster`]).toBe('set-by-operator');
  });

  test('the same on Cluster API Clusters, in every served version', async () => {
    const namespace = uniqueName('fleet');
    expectAllowed('create namespace', await asAdmin(['create', 'namespace', namespace]));
    const cluster = (name: string, version: string, labels: Record<string, string>): string =>
      JSON.stringify({
        apiVersion: `cluster.x-k8s.io/${version}`,
        kind: 'Cluster',
        metadata: { namespace, name, labels },
        // No Cluster API controller runs here; a paused, empty spec is enough.
        spec: { paused: true },
      });
    const served = (
      await kubectl(thePlane(), [
        'get',
        'crd',
        'clusters.cluster.x-k8s.io',
        '-o',
        'jsonpath={.spec.versions[?(@.served==true)].name}',
      ])
    )
      .trim()
      .split(/\s+/);
    expect(served).toContain('v1beta2');
    for (const version of served) {
      expectDenied(
        `create a ${version} Cluster with the managed-by label`,
        await tenant(
          ['create', '-f', '-'],
          cluster(uniqueName('c'), version, { [`${PREFIX}managed-by`]: 'cluster-registrar' }),
        ),
        policy,
        `Cluster ${namespace}/`,
        `label ${PREFIX}managed-by`,
      );
    }
    const name = uniqueName('c');
    const resource = `clusters.cluster.x-k8s.io/${name}`;
    expectAllowed(
      'create without',
      await tenant(['create', '-f', '-'], cluster(name, 'v1beta2', { unrelated: 'a' })),
    );
    for (const key of guardedLabels)
      expectDenied(
        `add label ${key}`,
        await tenant(['label', '-n', namespace, resource, `${PREFIX}${key}=x`]),
        policy,
      );
    for (const key of guardedAnnotations)
      expectDenied(
        `add annotation ${key}`,
        await tenant(['annotate', '-n', namespace, resource, `${PREFIX}${key}=x`]),
        policy,
      );
    for (const version of served)
      expectDenied(
        `add the cluster label through ${version}`,
        await tenant([
          'label',
          '-n',
          namespace,
          `clusters.${version}.cluster.x-k8s.io/${name}`,
          `${PREFIX}cluster=stolen`,
        ]),
        policy,
      );
    expectAllowed('label unrelated', await tenant(['label', '-n', namespace, resource, 'team=a']));
    expectAllowed(
      'operator labels',
      await operator(['label', '-n', namespace, resource, `${PREFIX}cluster=alpha`]),
    );
    expectDenied(
      'change it',
      await tenant(['label', '--overwrite', '-n', namespace, resource, `${PREFIX}cluster=beta`]),
      policy,
    );
    expectDenied(
      'remove it',
      await tenant(['label', '-n', namespace, resource, `${PREFIX}cluster-`]),
      policy,
    );
    // A Cluster's status subresource drops metadata changes before admission sees them: the
    // request may succeed, but the label does not change.
    await tenant([
      'patch',
      '-n',
      namespace,
      resource,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ metadata: { labels: { [`${PREFIX}cluster`]: 'stolen' } } }),
    ]);
    expect((await labelsOf('-n', namespace, resource))[`${PREFIX}cluster`]).toBe('alpha');
  });
});

describe("the registrar policy (registrarPolicy, on by default): the registrar's ServiceAccount writes only its own registrations", () => {
  let policy = '';
  let registrar: As;
  let target = '';
  const managedBy = 'cluster-registrar';
  const secret = (name: string, labels: Record<string, string>, type = 'Opaque'): string =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      type,
      metadata: { name, namespace: target, labels },
      stringData: { name: 'x', server: 'https://x.example' },
    });
  const owned = { 'argocd.argoproj.io/secret-type': 'cluster', [`${PREFIX}managed-by`]: managedBy };

  beforeAll(async () => {
    target = uniqueName('argocd');
    const releaseNamespace = uniqueName('registrar');
    for (const name of [target, releaseNamespace])
      expectAllowed('create namespace', await asAdmin(['create', 'namespace', name]));
    const manifests = await render(
      { targetNamespace: target, managedBy, admissionPolicy: { enabled: false } },
      { release: uniqueName('acr'), namespace: releaseNamespace },
    );
    const policies = manifests.filter((m) => m.kind.startsWith('ValidatingAdmissionPolicy'));
    policy = policies[0]?.metadata.name ?? '';
    await applyAsAdmin(policies);
    // The chart's ServiceAccount, with RBAC that would let it write any Secret anywhere: the
    // policy alone must hold it to its registrations.
    const serviceAccount = manifests.find((m) => m.kind === 'ServiceAccount')?.metadata.name ?? '';
    registrar = await identity(releaseNamespace, serviceAccount, TENANT_RULES);
    await enforced('the registrar policy', () =>
      registrar(['create', '-f', '-', '--dry-run=server'], secret('argocd-secret', {})),
    );
    for (const [name, labels] of [
      ['argocd-secret', {}],
      [
        'cluster-foreign',
        { 'argocd.argoproj.io/secret-type': 'cluster', [`${PREFIX}managed-by`]: 'someone-else' },
      ],
    ] as const)
      expectAllowed('admin creates', await asAdmin(['create', '-f', '-'], secret(name, labels)));
  });

  test('may not create, change or delete argocd-secret or a foreign cluster Secret', async () => {
    for (const name of ['argocd-secret', 'cluster-foreign']) {
      expectDenied(
        `patch ${name}`,
        await registrar([
          'patch',
          'secret',
          '-n',
          target,
          name,
          '--type=merge',
          '-p',
          '{"data":{"x":"eA=="}}',
        ]),
        policy,
        `Secret ${target}/${name}`,
      );
      expectDenied(
        `take ${name} over`,
        await registrar([
          'label',
          '--overwrite',
          'secret',
          '-n',
          target,
          name,
          `${PREFIX}managed-by=${managedBy}`,
        ]),
        policy,
      );
      expectDenied(
        `delete ${name}`,
        await registrar(['delete', 'secret', '-n', target, name]),
        policy,
      );
    }
    expectDenied(
      'create argocd-secret, even labelled as its own',
      await registrar(['create', '-f', '-'], secret('argocd-secret-2', owned)),
      policy,
    );
    expectDenied(
      'create an unlabelled cluster Secret',
      await registrar(
        ['create', '-f', '-'],
        secret('cluster-unowned', { 'argocd.argoproj.io/secret-type': 'cluster' }),
      ),
      policy,
    );
    expectDenied(
      'create a token Secret a token would be minted into',
      await registrar(
        ['create', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Secret',
          type: 'kubernetes.io/service-account-token',
          metadata: {
            name: 'cluster-token',
            namespace: target,
            labels: owned,
            annotations: { 'kubernetes.io/service-account.name': 'default' },
          },
        }),
      ),
      policy,
    );
  });

  test('may create, patch and delete its own cluster-* registrations, but not disown one', async () => {
    expectAllowed('create', await registrar(['create', '-f', '-'], secret('cluster-own', owned)));
    expectAllowed(
      'patch (a demotion)',
      await registrar([
        'label',
        'secret',
        '-n',
        target,
        'cluster-own',
        'argocd.argoproj.io/secret-type-',
      ]),
    );
    expectDenied(
      'disown',
      await registrar(['label', 'secret', '-n', target, 'cluster-own', `${PREFIX}managed-by-`]),
      policy,
    );
    expectAllowed('delete', await registrar(['delete', 'secret', '-n', target, 'cluster-own']));
  });

  test('other identities are not affected', async () => {
    expectAllowed(
      'the admin patches argocd-secret',
      await asAdmin(['label', 'secret', '-n', target, 'argocd-secret', 'x=y']),
    );
  });
});

describe('validationActions on the API server', () => {
  test('a binding with both Deny and Warn is refused (the chart schema refuses the values first)', async () => {
    const manifests = await render(
      { registrarPolicy: { validationActions: ['Warn'] }, admissionPolicy: { enabled: false } },
      { release: uniqueName('acr'), namespace: 'default' },
    );
    const binding = manifests.find((m) => m.kind === 'ValidatingAdmissionPolicyBinding');
    if (binding === undefined) throw new Error('no binding');
    const withBoth = {
      ...binding,
      spec: { ...(binding['spec'] as object), validationActions: ['Deny', 'Warn'] },
    };
    const result = await asAdmin(
      ['create', '--dry-run=server', '-f', '-'],
      JSON.stringify(withBoth),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('validationActions');
    expect(result.stderr).toMatch(/Deny.*Warn|Warn.*Deny/);
    for (const actions of [
      ['Warn', 'Audit'],
      ['Deny', 'Audit'],
    ]) {
      const accepted = await asAdmin(
        ['create', '--dry-run=server', '-f', '-'],
        JSON.stringify({
          ...binding,
          spec: { ...(binding['spec'] as object), validationActions: actions },
        }),
      );
      expectAllowed(actions.join(','), accepted);
    }
  });
});
