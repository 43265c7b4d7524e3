// The chart in hub mode (hub.enabled): the cluster whose ArgoCD spokes' registrars write into
// gets, per spoke, an identity and nothing of the registrar. Renders asserted on the parsed
// objects; hub-mode-e2e.test.ts proves the identity on a real API server.

import { describe, expect, test } from 'vitest';
import { RELEASE_NAMESPACE, find, render, rulesOf, template } from './chart-support.js';
import type { Manifest } from './chart-support.js';

const FULLNAME = 'acr-argocd-cluster-registrar';
const TWO_SPOKES = { hub: { enabled: true, spokes: [{ name: 'host-a' }, { name: 'host-b' }] } };

const kinds = (manifests: readonly Manifest[]): string[] =>
  manifests.map((m) => `${m.kind}/${m.metadata.name}`).sort();

describe('hub mode', () => {
  test('renders per spoke only a ServiceAccount, its token Secret, a Role, a RoleBinding and the write policy', async () => {
    const manifests = await render(TWO_SPOKES);
    const perSpoke = (spoke: string): string[] => [
      `Role/${FULLNAME}-${spoke}`,
      `RoleBinding/${FULLNAME}-${spoke}`,
      `Secret/${FULLNAME}-${spoke}-token`,
      `ServiceAccount/${FULLNAME}-${spoke}`,
      `ValidatingAdmissionPolicy/${FULLNAME}-${spoke}-writes`,
      `ValidatingAdmissionPolicyBinding/${FULLNAME}-${spoke}-writes`,
    ];
    expect(kinds(manifests)).toEqual([...perSpoke('host-a'), ...perSpoke('host-b')].sort());
    // Nothing cluster-wide but the policies, nothing that runs.
    expect(manifests.filter((m) => /^(ClusterRole|Deployment|Service$)/.test(m.kind))).toEqual([]);
  });

  test('every option of the registrar stays off the hub, even when switched on', async () => {
    const manifests = await render({
      ...TWO_SPOKES,
      leaderElection: { enabled: true },
      replicaCount: 2,
      metrics: {
        service: { enabled: true },
        serviceMonitor: { enabled: true },
        prometheusRule: { enabled: true },
        dashboard: { enabled: true },
      },
      capiClusters: true,
    });
    expect(kinds(manifests).every((k) => k.includes('-host-a') || k.includes('-host-b'))).toBe(
      true,
    );
  });

  test("the Role grants the spoke, in the ArgoCD namespace only, what an installed registrar's watches and writes use there", async () => {
    const installed = await render({ targetNamespace: 'argocd' });
    const hub = await render({
      ...TWO_SPOKES,
      hub: { ...TWO_SPOKES.hub, argocdNamespace: 'gitops' },
    });
    const role = find(hub, 'Role', `${FULLNAME}-host-a`);
    expect(role?.metadata.namespace).toBe('gitops');
    // The writer's verbs are the installed Role's; the watches' are the ClusterRole's list and
    // watch on Secrets (its get reads kubeconfig Secrets in source namespaces: never at a hub).
    const writes = rulesOf(find(installed, 'Role')).find((r) => r.resources.includes('secrets'));
    const reads = rulesOf(find(installed, 'ClusterRole')).find((r) =>
      r.resources.includes('secrets'),
    );
    expect(rulesOf(role)).toEqual([
      {
        apiGroups: [''],
        resources: ['secrets'],
        verbs: [...(reads?.verbs.filter((v) => v !== 'get') ?? []), ...(writes?.verbs ?? [])],
      },
    ]);
    expect(rulesOf(role)[0]?.verbs).toEqual(['list', 'watch', 'create', 'patch', 'delete']);
  });

  test("the binding names the spoke's ServiceAccount; the token Secret is that account's", async () => {
    const manifests = await render(TWO_SPOKES);
    const binding = find(manifests, 'RoleBinding', `${FULLNAME}-host-b`);
    expect(binding?.metadata.namespace).toBe(RELEASE_NAMESPACE);
    expect(binding?.['subjects']).toEqual([
      { kind: 'ServiceAccount', name: `${FULLNAME}-host-b`, namespace: RELEASE_NAMESPACE },
    ]);
    expect(binding?.['roleRef']).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: `${FULLNAME}-host-b`,
    });
    const token = find(manifests, 'Secret', `${FULLNAME}-host-b-token`);
    expect(token?.['type']).toBe('kubernetes.io/service-account-token');
    expect(token?.metadata.namespace).toBe(RELEASE_NAMESPACE);
    expect(token?.metadata.annotations).toMatchObject({
      'kubernetes.io/service-account.name': `${FULLNAME}-host-b`,
    });
    // scripts/hub-kubeconfig finds it by these labels.
    expect(token?.metadata.labels).toMatchObject({
      'app.kubernetes.io/instance': 'acr',
      'app.kubernetes.io/component': 'hub-identity',
      'argocd-cluster-registrar/hub-spoke': 'host-b',
    });
    const account = find(manifests, 'ServiceAccount', `${FULLNAME}-host-b`);
    expect(account?.['automountServiceAccountToken']).toBe(false);
  });

  test("each spoke's write policy matches its own account and requires its managed-by and host identity", async () => {
    const manifests = await render({
      managedBy: 'fleet',
      hub: {
        enabled: true,
        spokes: [{ name: 'host-a' }, { name: 'host-b', managedBy: 'b-team', hostId: 'uid-b' }],
      },
    });
    const spec = (spoke: string) =>
      find(manifests, 'ValidatingAdmissionPolicy', `${FULLNAME}-${spoke}-writes`)?.['spec'] as {
        matchConditions: { expression: string }[];
        variables: { name: string; expression: string }[];
        validations: { expression: string }[];
      };
    expect(spec('host-a').matchConditions[0]?.expression).toBe(
      `request.userInfo.username == "system:serviceaccount:${RELEASE_NAMESPACE}:${FULLNAME}-host-a"`,
    );
    const owned = (spoke: string): string =>
      spec(spoke).variables.find((v) => v.name === 'ownedAfter')?.expression ?? '';
    expect(owned('host-a')).toContain(
      '[?"argocd-cluster-registrar/managed-by"].orValue(\'\') == "fleet"',
    );
    expect(owned('host-b')).toContain('== "b-team"');
    // Spokes share a managed-by; the host identity keeps one from another's registrations.
    const host = (id: string) => `[?"argocd-cluster-registrar/host-id"].orValue('') == "${id}"`;
    expect(owned('host-a')).toContain(host('host-a'));
    expect(owned('host-b')).toContain(host('uid-b'));
    const before = spec('host-b').variables.find((v) => v.name === 'ownedBefore')?.expression;
    expect(before).toContain(`oldObject.metadata.?labels${host('uid-b')}`);
    expect(spec('host-a').validations[0]?.expression).toContain(
      `request.namespace == "${RELEASE_NAMESPACE}"`,
    );
    const off = await render({ ...TWO_SPOKES, registrarPolicy: { enabled: false } });
    expect(off.filter((m) => m.kind.startsWith('ValidatingAdmission'))).toEqual([]);
  });

  test.each([
    [{ hub: { enabled: true } }, 'hub.spokes is empty'],
    [
      { hub: { enabled: true, spokes: [{ name: 'a', managedBy: 'x' }, { name: 'a' }] } },
      'hub.spokes lists "a" twice',
    ],
    [
      { hub: { enabled: true, spokes: [{ name: 'Host_A' }] } },
      "/hub/spokes/0/name': 'Host_A' does not match",
    ],
    [{ hub: { enabled: true, spokes: [{ nmae: 'a' }] } }, 'nmae'],
    [{ hub: { enabled: true, spokes: [{ name: 'a' }] }, clusters: ['x'] }, '0.1.x value'],
  ])('%j fails the render: %s', async (values, message) => {
    const result = await template(values);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(message);
  });
});
