// Cluster API `Cluster` objects as sources (opt-in, Config.capiClusters): finding the served
// version of the `cluster.x-k8s.io` group, listing and reading Clusters as metadata only
// (`PartialObjectMetadata`: names, labels, uids, never spec or status), and telling from a
// registration's labels which source it records. With Cluster sources off, none of this
// sends a request: the registrar then needs no access to Cluster API objects.
import { CAPI_CLUSTERS_RESOURCE, CAPI_GROUP } from '@argocd-cluster-registrar/core';
import type { SourceCluster, SourceLookup } from '@argocd-cluster-registrar/core';
import { classifyApiError } from '../connection/api-failure.js';
import type { ApiFailure } from '../connection/api-failure.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { kubeRequest } from '../connection/kube-http.js';
import type { KubeList } from '../kube-objects.js';
import type { ListPage } from '../connection/kube-api.js';
import type { WatchedObject } from '../watch/list-watch-types.js';
import { presentLookup, toSourceNamespace } from '../observed-objects.js';
import { ACCEPT_METADATA, ACCEPT_METADATA_LIST } from '../watch/raw-request.js';

/** What discovery says of the Cluster API group. */
export type ClusterApi =
  | { readonly state: 'served'; readonly version: string }
  /** The group is not served: the CRDs are not installed. */
  | { readonly state: 'absent' }
  | { readonly state: 'unknown'; readonly failure: ApiFailure };

/** Said once when Cluster sources are on and the group is not served. */
export const CLUSTER_API_ABSENT = `Cluster sources are on (--capi-clusters), but the API server does not serve ${CAPI_GROUP} (the Cluster API CRDs are not installed); namespace sources are served meanwhile, and the daemon looks again on each full pass`;

/** Said (at info level) by the daemon's pass that finds the group served after all. */
export function clusterApiServed(version: string): string {
  return `Cluster sources are served now: the API server serves ${CAPI_GROUP}/${version}`;
}

const seg = encodeURIComponent;

/** The preferred served version of `cluster.x-k8s.io`, one GET of its discovery document. */
export async function discoverClusterApi(access: KubeAccess): Promise<ClusterApi> {
  try {
    const group = await kubeRequest<{ preferredVersion?: { version?: string } }>(access, {
      method: 'GET',
      path: `/apis/${CAPI_GROUP}`,
    });
    const version = group.preferredVersion?.version;
    if (version === undefined || version === '') return { state: 'absent' };
    return { state: 'served', version };
  } catch (err) {
    const failure = classifyApiError(err);
    return failure.kind === 'not-found' ? { state: 'absent' } : { state: 'unknown', failure };
  }
}

/** The collection path of Clusters, cluster-wide or in one namespace. */
export function clustersPath(version: string, namespace?: string): string {
  const base = `/apis/${CAPI_GROUP}/${seg(version)}`;
  return namespace === undefined
    ? `${base}/${CAPI_CLUSTERS_RESOURCE}`
    : `${base}/namespaces/${seg(namespace)}/${CAPI_CLUSTERS_RESOURCE}`;
}

export function listClusters(
  access: KubeAccess,
  version: string,
  page: ListPage,
): Promise<KubeList<WatchedObject>> {
  return kubeRequest(access, {
    method: 'GET',
    path: clustersPath(version),
    query: { ...page },
    accept: ACCEPT_METADATA_LIST,
  });
}

export function readCluster(
  access: KubeAccess,
  version: string,
  namespace: string,
  name: string,
): Promise<WatchedObject> {
  return kubeRequest(access, {
    method: 'GET',
    path: `${clustersPath(version, namespace)}/${seg(name)}`,
    accept: ACCEPT_METADATA,
  });
}

export function toSourceCluster(object: WatchedObject): SourceCluster {
  // The same metadata a namespace's view is made of, plus the Cluster's namespace.
  return {
    namespace: object.metadata?.namespace ?? '',
    ...toSourceNamespace(object),
  };
}

/**
 * The lookup of one Cluster by its source key. A 404 is proof only because discovery has
 * just said the group is served: the object (or its namespace) is gone. With the group
 * absent nothing is proven (CRDs can be missing for a moment during an upgrade).
 */
export async function lookUpCluster(
  access: KubeAccess,
  api: ClusterApi,
  key: string,
): Promise<SourceLookup> {
  if (api.state === 'absent')
    return { state: 'unknown', reason: `${CAPI_GROUP} is not served (no Cluster API CRDs)` };
  if (api.state === 'unknown')
    return {
      state: 'unknown',
      reason: `discovery of ${CAPI_GROUP} failed: ${api.failure.message}`,
    };
  const slash = key.indexOf('/');
  try {
    return presentLookup(
      toSourceCluster(
        await readCluster(access, api.version, key.slice(0, slash), key.slice(slash + 1)),
      ),
    );
  } catch (err) {
    const failure = classifyApiError(err);
    if (failure.kind === 'not-found') return { state: 'notFound' };
    return { state: 'unknown', reason: failure.message };
  }
}
