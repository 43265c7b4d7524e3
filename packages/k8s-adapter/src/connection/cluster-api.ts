// The Cluster API calls, by name: which version of the `cluster.x-k8s.io` group is served
// (discovery), and Clusters listed or read as metadata only (`PartialObjectMetadata`: names,
// labels, uids, never spec or status). Here, below gather/ and write/, because both look a
// Cluster up (source-lookup.ts). With Cluster sources off, none of this sends a request: the
// registrar then needs no access to Cluster API objects.
import { CAPI_CLUSTERS_RESOURCE, CAPI_GROUP } from '@argocd-cluster-registrar/core';
import { classifyApiError } from './api-failure.js';
import type { ApiFailure } from './api-failure.js';
import type { KubeAccess } from './kube-access.js';
import type { ListPage } from './kube-api.js';
import { ACCEPT_METADATA, ACCEPT_METADATA_LIST, kubeRequest } from './kube-http.js';
import type { KubeList, PartialObjectMetadata } from '../kube-objects.js';

/** What discovery says of the Cluster API group. */
export type ClusterApi =
  | { readonly state: 'served'; readonly version: string }
  /** The group is not served: the CRDs are not installed. */
  | { readonly state: 'absent' }
  | { readonly state: 'unknown'; readonly failure: ApiFailure };

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
): Promise<KubeList<PartialObjectMetadata>> {
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
): Promise<PartialObjectMetadata> {
  return kubeRequest(access, {
    method: 'GET',
    path: `${clustersPath(version, namespace)}/${seg(name)}`,
    accept: ACCEPT_METADATA,
  });
}
