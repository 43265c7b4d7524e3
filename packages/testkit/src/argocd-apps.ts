// ArgoCD's view, read the way a user would read it: the Applications in ArgoCD's namespace,
// ApplicationSets and Applications created with kubectl, and the application controller's
// cluster connection metric.

import type { ControlPlane } from './control-plane.js';
import { kubectl, runChecked } from './argocd-tools.js';

type Plane = Pick<ControlPlane, 'kubeconfigPath'>;

/** The parts of an Application the tests read. */
export interface ArgoApplication {
  readonly name: string;
  readonly destinationServer: string | undefined;
  readonly destinationName: string | undefined;
}

interface ApplicationList {
  items: {
    metadata: { name: string };
    spec?: { destination?: { server?: string; name?: string } };
  }[];
}

/** Applications in the namespace, sorted by name. */
export async function listApplications(
  plane: Plane,
  namespace: string,
): Promise<ArgoApplication[]> {
  const out = await kubectl(plane, [
    'get',
    'applications.argoproj.io',
    '--namespace',
    namespace,
    '--output',
    'json',
  ]);
  return (JSON.parse(out) as ApplicationList).items
    .map((item) => ({
      name: item.metadata.name,
      destinationServer: item.spec?.destination?.server,
      destinationName: item.spec?.destination?.name,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Creates or updates objects (JSON) with server-side apply. */
export async function applyObjects(plane: Plane, objects: readonly object[]): Promise<void> {
  await kubectl(
    plane,
    ['apply', '--server-side', '--force-conflicts', '--field-manager=registrar-tests', '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
  );
}

/**
 * An ApplicationSet whose clusters generator selects the cluster Secrets carrying `labels`,
 * one Application `<prefix><cluster name>` per cluster. preserveResourcesOnDeletion: no repo
 * server runs, so a resources finalizer on a removed Application would wait forever.
 */
export function clustersApplicationSet(
  namespace: string,
  name: string,
  labels: Record<string, string>,
  appPrefix: string,
): object {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'ApplicationSet',
    metadata: { name, namespace },
    spec: {
      goTemplate: true,
      goTemplateOptions: ['missingkey=error'],
      generators: [{ clusters: { selector: { matchLabels: labels } } }],
      syncPolicy: { preserveResourcesOnDeletion: true },
      template: {
        metadata: { name: `${appPrefix}{{.name}}` },
        spec: {
          project: 'default',
          source: { repoURL: 'https://git.example/flux.git', path: '.', targetRevision: 'HEAD' },
          destination: { server: '{{.server}}', namespace: 'flux-system' },
        },
      },
    },
  };
}

/** A plain Application for a destination server (no sync: it only makes ArgoCD connect). */
export function destinationApplication(namespace: string, name: string, server: string): object {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace },
    spec: {
      project: 'default',
      source: { repoURL: 'https://git.example/apps.git', path: '.', targetRevision: 'HEAD' },
      destination: { server, namespace: 'default' },
    },
  };
}

/**
 * Asks the ApplicationSet controller to reconcile now (ArgoCD's refresh annotation). Its
 * cluster informer can lag a Secret event; the reconcile that event triggered then sees the
 * old clusters and the next is ArgoCD's 3-minute requeue. Users see the same lag.
 */
export async function refreshApplicationSet(
  plane: Plane,
  namespace: string,
  name: string,
): Promise<void> {
  await kubectl(plane, [
    'annotate',
    '--namespace',
    namespace,
    '--overwrite',
    `applicationset.argoproj.io/${name}`,
    'argocd.argoproj.io/application-set-refresh=true',
  ]);
}

/** argocd_cluster_connection_status per server, from the application controller's metrics. */
export async function clusterConnectionStatus(metricsPort: number): Promise<Map<string, number>> {
  const response = await fetch(`http://127.0.0.1:${String(metricsPort)}/metrics`);
  const text = await response.text();
  const statuses = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('argocd_cluster_connection_status{')) continue;
    const server = /server="([^"]*)"/.exec(line)?.[1];
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (server !== undefined) statuses.set(server, value);
  }
  return statuses;
}

/** What the application controller records about one cluster (its ClusterInfo). */
export interface ArgoClusterInfo {
  readonly server: string;
  readonly status: string | undefined;
  readonly message: string | undefined;
  readonly serverVersion: string | undefined;
  /** When ArgoCD last synchronized its cache of the cluster's resources. */
  readonly lastCacheSyncTime: string | undefined;
  /** When ArgoCD last wrote this info (every 10 seconds for every cluster it knows). */
  readonly modifiedAt: string | undefined;
}

/**
 * The application controller's cluster info, by server, as it keeps it in Redis (it refreshes
 * every cluster it knows every 10 seconds). Read with redis-cli, as a user could.
 */
export async function clusterInfos(redisPort: number): Promise<Map<string, ArgoClusterInfo>> {
  const cli = (args: readonly string[]): Promise<string> =>
    runChecked('redis-cli', ['-h', '127.0.0.1', '-p', String(redisPort), '--raw', ...args]);
  const keys = (await cli(['--scan', '--pattern', 'cluster|info|*']))
    .split('\n')
    .filter((k) => k !== '');
  const infos = new Map<string, ArgoClusterInfo>();
  for (const key of keys) {
    const text = (await cli(['GET', key])).trim();
    if (text === '') continue;
    const info = JSON.parse(text) as {
      connectionState?: { status?: string; message?: string; attemptedAt?: string };
      serverVersion?: string;
      cacheInfo?: { lastCacheSyncTime?: string };
    };
    // cluster|info|<server>|<cache version>
    const server = key.slice('cluster|info|'.length, key.lastIndexOf('|'));
    infos.set(server, {
      server,
      status: info.connectionState?.status,
      message: info.connectionState?.message,
      serverVersion: info.serverVersion,
      lastCacheSyncTime: info.cacheInfo?.lastCacheSyncTime,
      modifiedAt: info.connectionState?.attemptedAt,
    });
  }
  return infos;
}
