// A Cluster API cluster as a user (and the tests' infrastructure provider) writes it: a
// Cluster, its KubeadmControlPlane and the infrastructure cluster, in one namespace. CAPI's
// controllers do the rest: the core controller adopts both references and reads the
// infrastructure's endpoint; KCP generates the cluster's certificates (`<cluster>-ca`, ...) and
// writes `<cluster>-kubeconfig` (type cluster.x-k8s.io/secret, key `value`) for the endpoint.

import type { V1Secret } from '@kubernetes/client-node';
import type { Capi } from './capi.js';
import { applyObjects } from './argocd-apps.js';
import { kubectl } from './argocd-tools.js';
import {
  TEST_CLUSTER_KIND,
  TEST_INFRASTRUCTURE_GROUP,
  TEST_INFRASTRUCTURE_VERSION,
  TEST_MACHINE_TEMPLATE_KIND,
} from './capi-infrastructure.js';

export interface CapiClusterSpec {
  readonly namespace: string;
  /** The Cluster's name: KCP's Secrets are `<name>-ca`, `<name>-kubeconfig`, ... */
  readonly name: string;
  /**
   * The cluster's API server as the infrastructure provider reports it: the Cluster's
   * controlPlaneEndpoint, and the server of the kubeconfig KCP writes.
   */
  readonly endpoint: { readonly host: string; readonly port: number };
  /** Labels of the Cluster object. */
  readonly labels?: Readonly<Record<string, string>>;
  /** The KubeadmControlPlane's Kubernetes version. Default v1.36.3. */
  readonly version?: string;
}

/** The PEM pair of the cluster CA that KCP generated (`<cluster>-ca`). */
export interface CapiClusterCa {
  readonly certPem: string;
  readonly keyPem: string;
}

const INFRA_API_VERSION = `${TEST_INFRASTRUCTURE_GROUP}/${TEST_INFRASTRUCTURE_VERSION}`;

/** The objects of one cluster, as a user writes them (no webhook defaults them here). */
export function capiClusterObjects(spec: CapiClusterSpec): object[] {
  const { namespace, name } = spec;
  return [
    {
      apiVersion: INFRA_API_VERSION,
      kind: TEST_CLUSTER_KIND,
      metadata: { name, namespace },
      spec: { controlPlaneEndpoint: { host: spec.endpoint.host, port: spec.endpoint.port } },
    },
    {
      apiVersion: INFRA_API_VERSION,
      kind: TEST_MACHINE_TEMPLATE_KIND,
      metadata: { name: `${name}-control-plane`, namespace },
      spec: { template: { spec: {} } },
    },
    {
      apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2',
      kind: 'KubeadmControlPlane',
      metadata: { name: `${name}-control-plane`, namespace },
      spec: {
        replicas: 1,
        version: spec.version ?? 'v1.36.3',
        machineTemplate: {
          spec: {
            infrastructureRef: {
              apiGroup: TEST_INFRASTRUCTURE_GROUP,
              kind: TEST_MACHINE_TEMPLATE_KIND,
              name: `${name}-control-plane`,
            },
          },
        },
        kubeadmConfigSpec: { format: 'cloud-config' },
      },
    },
    {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { name, namespace, ...(spec.labels ? { labels: { ...spec.labels } } : {}) },
      spec: {
        controlPlaneRef: {
          apiGroup: 'controlplane.cluster.x-k8s.io',
          kind: 'KubeadmControlPlane',
          name: `${name}-control-plane`,
        },
        infrastructureRef: {
          apiGroup: TEST_INFRASTRUCTURE_GROUP,
          kind: TEST_CLUSTER_KIND,
          name,
        },
      },
    },
  ];
}

/** A Secret in the namespace, or undefined when there is none. */
async function secret(capi: Capi, namespace: string, name: string): Promise<V1Secret | undefined> {
  const out = await kubectl(capi.plane, [
    'get',
    'secret',
    name,
    '--namespace',
    namespace,
    '--ignore-not-found',
    '--output',
    'json',
  ]);
  return out.trim() === '' ? undefined : (JSON.parse(out) as V1Secret);
}

/** What CAPI reports about the cluster, for failure messages (conditions only, no secrets). */
async function capiState(capi: Capi, namespace: string, name: string): Promise<string> {
  const conditions =
    '{range .items[*]}{.kind}/{.metadata.name}: {range .status.conditions[*]}{.type}={.status} ({.reason}: {.message}); {end}{"\\n"}{end}';
  return kubectl(capi.plane, [
    'get',
    `clusters.cluster.x-k8s.io/${name}`,
    `kubeadmcontrolplanes.controlplane.cluster.x-k8s.io/${name}-control-plane`,
    '--namespace',
    namespace,
    '--output',
    `jsonpath=${conditions}`,
  ]).catch((err: unknown) => String(err));
}

/**
 * Waits until KCP has written `<cluster>-kubeconfig` (one whose uid is not `otherThan`, to
 * wait for a re-written one) and returns it.
 */
export async function waitForCapiKubeconfig(
  capi: Capi,
  namespace: string,
  cluster: string,
  options: { readonly otherThan?: string; readonly timeoutMs?: number } = {},
): Promise<V1Secret> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    const found = await secret(capi, namespace, `${cluster}-kubeconfig`);
    if (found !== undefined && found.metadata?.uid !== options.otherThan) return found;
    if (Date.now() > deadline) {
      throw new Error(
        `KCP wrote no ${namespace}/${cluster}-kubeconfig in time\n${await capiState(capi, namespace, cluster)}\n${capi.logs()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Pauses the Cluster (`spec.paused: true`, which CAPI's controllers honour) and waits until its
 * KubeadmControlPlane reports the pause (condition Paused=True), so KCP no longer writes the
 * cluster's Secrets: a test may then delete `<cluster>-kubeconfig` without KCP writing it again.
 * The condition is written by a KCP reconcile that saw the pause, after any earlier reconcile of
 * that KubeadmControlPlane ended (controller-runtime never runs two of one object at once).
 */
export async function pauseCapiCluster(
  capi: Capi,
  namespace: string,
  cluster: string,
  timeoutMs = 60_000,
): Promise<void> {
  await kubectl(capi.plane, [
    'patch',
    `clusters.cluster.x-k8s.io/${cluster}`,
    '--namespace',
    namespace,
    '--type=merge',
    '--patch',
    JSON.stringify({ spec: { paused: true } }),
  ]);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const paused = await kubectl(capi.plane, [
      'get',
      `kubeadmcontrolplanes.controlplane.cluster.x-k8s.io/${cluster}-control-plane`,
      '--namespace',
      namespace,
      '--output',
      'jsonpath={.status.conditions[?(@.type=="Paused")].status}',
    ]);
    if (paused.trim() === 'True') return;
    if (Date.now() > deadline) {
      throw new Error(
        `KCP did not report ${namespace}/${cluster} paused in time\n${await capiState(capi, namespace, cluster)}\n${capi.logs()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Creates a Cluster, its KubeadmControlPlane and the infrastructure cluster in `namespace`
 * (which must exist), reports the infrastructure provisioned, and waits for the kubeconfig
 * Secret KCP writes. Several clusters may share a namespace.
 */
export async function createCapiCluster(capi: Capi, spec: CapiClusterSpec): Promise<V1Secret> {
  await applyObjects(capi.plane, capiClusterObjects(spec));
  // What an infrastructure provider reports once its cluster exists (status subresource).
  await kubectl(capi.plane, [
    'patch',
    `${TEST_CLUSTER_KIND.toLowerCase()}s.${TEST_INFRASTRUCTURE_GROUP}`,
    spec.name,
    '--namespace',
    spec.namespace,
    '--subresource=status',
    '--type=merge',
    '--patch',
    JSON.stringify({ status: { initialization: { provisioned: true } } }),
  ]);
  return waitForCapiKubeconfig(capi, spec.namespace, spec.name);
}

/** The cluster CA KCP generated for `cluster` (`<cluster>-ca`: tls.crt, tls.key). */
export async function capiClusterCa(
  capi: Capi,
  namespace: string,
  cluster: string,
): Promise<CapiClusterCa> {
  const ca = await secret(capi, namespace, `${cluster}-ca`);
  const cert = ca?.data?.['tls.crt'];
  const key = ca?.data?.['tls.key'];
  if (cert === undefined || key === undefined)
    throw new Error(`${namespace}/${cluster}-ca holds no tls.crt and tls.key`);
  return {
    certPem: Buffer.from(cert, 'base64').toString('utf8'),
    keyPem: Buffer.from(key, 'base64').toString('utf8'),
  };
}
