// Spokes of a hub, for the hub-and-spoke e2e: a host plane with its child API server, whose
// registrar daemon writes into the hub's ArgoCD namespace through the kubeconfig Secret
// scripts/hub-kubeconfig printed for it (applied on the host, as a user would, and read back
// into a file, as the chart's mount of targets[].kubeconfigSecret does), optionally through a
// fault proxy in front of the hub.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { coreApi, kubectl, startFaultProxy, uniqueName } from '@argocd-cluster-registrar/testkit';
import type { ControlPlane, FaultProxy, Hub } from '@argocd-cluster-registrar/testkit';
import { CHILD_HOST, PREFIX, kubeconfigYaml, putSecret, startReadyDaemon } from './e2e.js';
import type { RunningDaemon, World } from './e2e.js';

export interface Spoke {
  readonly name: string;
  /** The spoke as the e2e helpers know a host: its plane, child and managed-by. */
  readonly world: World;
  /** Between this spoke and the hub, when its link goes through one. */
  readonly proxy: FaultProxy | undefined;
  /** The target's kubeconfig (the hub as this spoke reaches it), owner-only. */
  readonly hubKubeconfigPath: string;
  readonly targetsFile: string;
  /** Writes the targets file: one target, the hub's ArgoCD namespace. */
  target(options?: { readonly nameTemplate?: string; readonly selector?: string }): Promise<void>;
  /** Starts the spoke's daemon with the targets file, once ready. */
  start(extra?: readonly string[]): Promise<RunningDaemon>;
  readonly daemons: RunningDaemon[];
}

export interface SpokeOptions {
  readonly name: string;
  readonly host: ControlPlane;
  readonly child: ControlPlane;
  /** Every spoke of a hub shares the chart's managedBy: ownership is managedBy and host. */
  readonly managedBy: string;
  readonly throughProxy: boolean;
  /** A private directory for the spoke's files. */
  readonly scratch: string;
}

export async function connectSpoke(hub: Hub, options: SpokeOptions): Promise<Spoke> {
  const { host, child, name, managedBy } = options;
  const proxy = options.throughProxy ? await startFaultProxy(hub.plane) : undefined;
  const hostApi = coreApi(host);
  // The registrar's namespace on the spoke, where the kubeconfig Secret is applied.
  const registrar = uniqueName('registrar');
  await hostApi.createNamespace({ body: { metadata: { name: registrar } } });
  const manifest = await hub.kubeconfigSecret(name, {
    server: proxy?.server ?? hub.plane.server,
  });
  await kubectl(host, ['apply', '--namespace', registrar, '-f', '-'], manifest);
  const secret = await hostApi.readNamespacedSecret({
    namespace: registrar,
    name: 'hub-kubeconfig',
  });
  const hubKubeconfigPath = join(options.scratch, `${name}-hub.kubeconfig`);
  await writeFile(hubKubeconfigPath, Buffer.from(secret.data?.['kubeconfig'] ?? '', 'base64'), {
    mode: 0o600,
  });
  const targetsFile = join(options.scratch, `${name}-targets.json`);
  const world: World = {
    host,
    child,
    hostApi,
    childApi: coreApi(child),
    target: hub.namespace,
    managedBy,
    baseArgs: ['--kubeconfig', host.kubeconfigPath, '--managed-by', managedBy],
  };
  const daemons: RunningDaemon[] = [];
  const spoke: Spoke = {
    name,
    world,
    proxy,
    hubKubeconfigPath,
    targetsFile,
    daemons,
    target: async (target = {}) => {
      const entry = {
        name: 'hub',
        namespace: hub.namespace,
        kubeconfig: hubKubeconfigPath,
        ...target,
      };
      await writeFile(targetsFile, JSON.stringify({ targets: [entry] }), { mode: 0o600 });
    },
    start: async (extra = []) => {
      // The hub's write policy admits a spoke only with the host identity its entry names:
      // by default, its name.
      const { daemon } = await startReadyDaemon(world, [
        '--targets-file',
        targetsFile,
        '--host-id',
        name,
        ...extra,
      ]);
      daemons.push(daemon);
      return daemon;
    },
  };
  await spoke.target();
  return spoke;
}

/** The server a spoke's child cluster is registered under: its own name, reachable by ArgoCD. */
export function childServerOf(spoke: Spoke, cluster: string): string {
  return `https://${cluster}.${CHILD_HOST}:${new URL(spoke.world.child.server).port}`;
}

/** A source namespace on the spoke, labelled for its registrar, holding a k3k kubeconfig. */
export async function spokeSource(
  spoke: Spoke,
  cluster: string,
  options: { readonly name?: string; readonly labels?: Record<string, string> } = {},
): Promise<string> {
  const name = options.name ?? uniqueName(`${spoke.name}-src`);
  await spoke.world.hostApi.createNamespace({
    body: {
      metadata: {
        name,
        labels: {
          [`${PREFIX}managed-by`]: spoke.world.managedBy,
          [`${PREFIX}cluster`]: cluster,
          ...(options.labels ?? {}),
        },
      },
    },
  });
  await putSecret(spoke.world.hostApi, name, `k3k-${cluster}-kubeconfig`, {
    'kubeconfig.yaml': kubeconfigYaml(spoke.world.child, { server: childServerOf(spoke, cluster) }),
  });
  return name;
}

/** Every Secret in the hub's ArgoCD namespace, by name. */
export async function hubSecrets(hubApi: CoreV1Api, hub: Hub): Promise<Map<string, V1Secret>> {
  const list = await hubApi.listNamespacedSecret({ namespace: hub.namespace });
  return new Map(list.items.map((s) => [s.metadata?.name ?? '', s]));
}
