// consumerAccess: the read-only Role and RoleBinding per source namespace for the consumers of
// referenced kubeconfig Secrets, and reference mode's two settings reaching the daemon. The
// Role is the plugin's minimum: get (it never lists or watches) on Secrets, by name when the
// names are given; nothing outside the listed namespaces, nothing for anyone else.

import { describe, expect, test } from 'vitest';
import { containerOf, render, rulesOf, template } from './chart-support.js';
import type { Manifest } from './chart-support.js';

const ARGOCD = { name: 'argocd-application-controller', namespace: 'argocd' };
const KUEUE = { name: 'kueue-controller-manager', namespace: 'kueue-system' };

const consumerObjects = (manifests: readonly Manifest[]): Manifest[] =>
  manifests.filter((m) => m.metadata.name.endsWith('-consumer'));

describe('consumerAccess', () => {
  test('renders nothing by default', async () => {
    expect(consumerObjects(await render())).toEqual([]);
  });

  test('one Role with get on Secrets (by name when given) and one RoleBinding per namespace', async () => {
    const manifests = await render({
      consumerAccess: {
        serviceAccounts: [ARGOCD, KUEUE],
        namespaces: ['team-a', { name: 'team-b', secretNames: ['k3k-dev-kubeconfig'] }],
      },
    });
    const objects = consumerObjects(manifests);
    const at = (kind: string, namespace: string): Manifest | undefined =>
      objects.find((m) => m.kind === kind && m.metadata.namespace === namespace);
    expect(objects).toHaveLength(4);
    const [roleA, bindingA, roleB, bindingB] = [
      at('Role', 'team-a'),
      at('RoleBinding', 'team-a'),
      at('Role', 'team-b'),
      at('RoleBinding', 'team-b'),
    ];
    expect(rulesOf(roleA)).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]);
    expect(rulesOf(roleB)).toEqual([
      {
        apiGroups: [''],
        resources: ['secrets'],
        resourceNames: ['k3k-dev-kubeconfig'],
        verbs: ['get'],
      },
    ]);
    for (const [binding, role] of [
      [bindingA, roleA],
      [bindingB, roleB],
    ] as const) {
      expect(binding?.['roleRef']).toEqual({
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'Role',
        name: role?.metadata.name,
      });
      expect(binding?.['subjects']).toEqual([
        { kind: 'ServiceAccount', ...ARGOCD },
        { kind: 'ServiceAccount', ...KUEUE },
      ]);
    }
    // No cluster-wide grant, and the registrar's own roles are unchanged.
    expect(objects.some((m) => m.kind.startsWith('Cluster'))).toBe(false);
    expect(rulesOf(manifests.find((m) => m.kind === 'ClusterRole'))).toEqual(
      rulesOf((await render()).find((m) => m.kind === 'ClusterRole')),
    );
  });

  test('half a configuration fails, saying what to add', async () => {
    const noNamespaces = await template({ consumerAccess: { serviceAccounts: [ARGOCD] } });
    expect(noNamespaces.code).not.toBe(0);
    expect(noNamespaces.stderr).toContain('consumerAccess.namespaces is empty');
    const noAccounts = await template({ consumerAccess: { namespaces: ['team-a'] } });
    expect(noAccounts.code).not.toBe(0);
    expect(noAccounts.stderr).toContain('consumerAccess.serviceAccounts is empty');
    const unknown = await template({
      consumerAccess: { serviceAccounts: [ARGOCD], namespaces: [{ name: 'team-a' }] },
    });
    expect(unknown.code).not.toBe(0);
  });
});

describe('reference mode', () => {
  test('passes referenceMode and secretreaderPath to the daemon', async () => {
    const args = containerOf(
      await render({ referenceMode: 'on', secretreaderPath: '/plugins/kubeconfig-secretreader' }),
    ).args;
    expect(args).toContain('--reference-mode=on');
    expect(args).toContain('--secretreader-path=/plugins/kubeconfig-secretreader');
    expect(containerOf(await render()).args).toContain('--reference-mode=off');
  });

  test('refuses a plugin path ArgoCD would resolve against its working directory', async () => {
    const result = await template({ secretreaderPath: 'plugins/kubeconfig-secretreader' });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('must be an absolute path');
  });
});
