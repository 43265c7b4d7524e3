// The Cluster API calls, by name: which version of the `cluster.x-k8s.io` group is served
// (discovery), and Clusters listed or read as metadata only (`PartialObjectMetadata`: names,
// labels, uids, never spec or status). Here, below gather/ and write/, because both look a
// Cluster up: the gatherers for a source no watch covers, the writer for a proof re-checked
// right before a deletion. With Cluster sources off, none of this sends a request: the
// registrar then needs no access to Cluster API objects.
import { CAPI_CLUSTERS_RESOURCE, CAPI_GROUP } from '@argocd-cluster-registrar/core';
import type { SourceLookup } from '@argocd-cluster-registrar/core';
import { classifyApiError } from './api-failure.js';
import type { ApiFailure } from './api-failure.js';
import type { KubeAccess } from './kube-access.js';
import type { ListPage } from './kube-api.js';
import { ACCEPT_METADATA, ACCEPT_METADATA_LIST, kubeRequest } from './kube-http.js';
import type { KubeList, PartialObjectMetadata } from '../kube-objects.js';
import { presentLookup, toSourceCluster } from '../observed-objects.js';

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

/**
 * The lookup of one Cluster by its source key (`<namespace>/<name>`). A 404 is proof only
 * because discovery has just said the group is served: the object (or its namespace) is
 * gone. With the group absent nothing is proven (CRDs can be missing for a moment during an
 * upgrade).
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
