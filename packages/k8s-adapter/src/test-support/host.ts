// Shared set-up for the adapter's integration tests: the run's real host plane (started by
// the testkit's global setup), a KubeAccess loaded the way the CLI loads one, and a Config
// whose managedBy is unique per test file, so files never see each other's namespaces.

import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { V1Secret } from '@kubernetes/client-node';
import type { ObservedSecret } from '@argocd-cluster-registrar/core';
import {
  coreApi,
  mintToken,
  rbacApi,
  testHostPlane,
  tokenKubeConfig,
  uniqueName,
} from '@argocd-cluster-registrar/testkit';
import type { ControlPlane } from '@argocd-cluster-registrar/testkit';
import { EMPTY_EXEC_POLICY, PROVIDER_PRESETS } from '@argocd-cluster-registrar/core';
import type { Config } from '@argocd-cluster-registrar/core';
import { loadKubeAccess } from '../connection/kube-access.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { kubeClusterFromText } from '../connection/kube-config.js';
import type { KubeSecret } from '../kube-objects.js';
import { toObservedSecret } from '../observed-objects.js';

export const PREFIX = 'argocd-cluster-registrar/';
export const MANAGED_BY_KEY = `${PREFIX}managed-by`;

export interface Host {
  readonly plane: ControlPlane;
  readonly access: KubeAccess;
  /** Admin client for arranging and checking state behind the adapter's back. */
  readonly core: CoreV1Api;
}

export async function host(): Promise<Host> {
  const plane = await testHostPlane();
  return {
    plane,
    access: loadKubeAccess({ kubeconfig: plane.kubeconfigPath }),
    core: coreApi(plane),
  };
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  const targetNamespace = uniqueName('argocd');
  return {
    targetNamespace,
    labelPrefix: PREFIX,
    managedBy: uniqueName('registrar'),
    providers: [PROVIDER_PRESETS.k3k, PROVIDER_PRESETS.vcluster],
    intervalMs: 60_000,
    demotedTtlMs: 7 * 24 * 3600_000,
    credentialRefreshWindowMs: 0,
    execCredentials: false,
    execPolicy: EMPTY_EXEC_POLICY,
    drainOnTerminate: false,
    capiClusters: false,
    capiClusterNames: 'name',
    capiClusterNameLabel: false,
    probeChildren: false,
    probeFailures: 3,
    // Probed once an interval, so a test's probe timing is the interval's alone.
    probeIntervalMs: 60_000,
    kamajiSleep: false,
    vclusterSleep: false,
    referenceMode: 'off',
    secretreaderPath: 'kubeconfig-secretreader',
    clusterProfiles: false,
    clusterProfileNamespace: targetNamespace,
    clusterManager: 'argocd-cluster-registrar',
    ...overrides,
  };
}

export async function createNamespace(
  core: CoreV1Api,
  name: string,
  labels: Record<string, string> = {},
): Promise<string> {
  const created = await core.createNamespace({ body: { metadata: { name, labels } } });
  return created.metadata?.uid ?? '';
}

export function opaque(
  name: string,
  labels: Record<string, string>,
  data: Record<string, string>,
): V1Secret {
  return {
    metadata: { name, labels },
    type: 'Opaque',
    data: Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
    ),
  };
}

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };

/**
 * A KubeAccess authenticated as a fresh ServiceAccount bound to a ClusterRole with exactly
 * `rules`, so tests can provoke real 403s; `namespaced` adds a Role with its rules in each of
 * its namespaces only (RBAC only allows: a namespace left out is one where they are denied).
 */
export async function restrictedAccess(
  h: Host,
  namespace: string,
  rules: Rule[],
  namespaced?: { readonly namespaces: readonly string[]; readonly rules: Rule[] },
): Promise<KubeAccess> {
  const name = uniqueName('restricted');
  const rbac: RbacAuthorizationV1Api = rbacApi(h.plane);
  await h.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  await rbac.createClusterRole({ body: { metadata: { name }, rules } });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
  });
  for (const where of namespaced?.namespaces ?? []) {
    await rbac.createNamespacedRole({
      namespace: where,
      body: { metadata: { name }, rules: namespaced?.rules ?? [] },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: where,
      body: {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects: [{ kind: 'ServiceAccount', name, namespace }],
      },
    });
  }
  const token = await mintToken(h.plane, namespace, name, 3600);
  return {
    cluster: kubeClusterFromText(tokenKubeConfig(h.plane, token, name).exportConfig()),
    source: `service account ${name}`,
  };
}

/** A KubeAccess from kubeconfig text (a fault proxy's, say). */
export function accessFromText(kubeconfig: string, source: string): KubeAccess {
  return { cluster: kubeClusterFromText(kubeconfig), source };
}

/**
 * A Secret client-node read (its timestamps are Dates, which toTimestamp writes in the API
 * server's form), as the gatherer observes it.
 */
export function observedFrom(secret: V1Secret, namespace: string): ObservedSecret {
  return toObservedSecret(secret as unknown as KubeSecret, namespace);
}
