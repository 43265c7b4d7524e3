// The cluster inventory's calls, by name: which version of `multicluster.x-k8s.io` is served
// (discovery), and ClusterProfiles listed, created, patched (metadata and spec, or status
// through its subresource) and deleted in the inventory namespace. Nothing here is sent unless
// profiles are on.
import { classifyApiError } from './api-failure.js';
import type { ApiFailure } from './api-failure.js';
import type { KubeAccess } from './kube-access.js';
import type { ListPage, WriteQuery } from './kube-api.js';
import { MERGE_PATCH, kubeRequest, kubeWrite } from './kube-http.js';
import type { RequestGuard } from './request-guard.js';
import type { KubeList, ObjectMeta } from '../kube-objects.js';

export const INVENTORY_GROUP = 'multicluster.x-k8s.io';

/** What discovery says of the inventory group, and the version written. */
export type InventoryApi =
  | { readonly state: 'served'; readonly version: string }
  /** The group is not served (the CRD is not installed), or only in a version we do not write. */
  | { readonly state: 'absent'; readonly why: string }
  | { readonly state: 'unknown'; readonly failure: ApiFailure };

/** A ClusterProfile as the API server's JSON has it. */
export interface KubeClusterProfile {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    readonly displayName?: string;
    readonly clusterManager?: { readonly name?: string };
  };
  readonly status?: Readonly<Record<string, unknown>>;
}

const seg = encodeURIComponent;

/**
 * v1alpha1 is written whenever it is served (every consumer reads it); v1alpha2 only when it
 * is the only version served. Anything else is not a version we know how to write.
 */
export async function discoverInventory(access: KubeAccess): Promise<InventoryApi> {
  try {
    const group = await kubeRequest<{ versions?: readonly { version?: string }[] }>(access, {
      method: 'GET',
      path: `/apis/${INVENTORY_GROUP}`,
    });
    const served = (group.versions ?? []).map((v) => v.version ?? '');
    if (served.includes('v1alpha1')) return { state: 'served', version: 'v1alpha1' };
    if (served.length === 1 && served[0] === 'v1alpha2')
      return { state: 'served', version: 'v1alpha2' };
    return {
      state: 'absent',
      why:
        served.length === 0
          ? `${INVENTORY_GROUP} is not served`
          : `${INVENTORY_GROUP} is served only as ${served.join(', ')}, which the registrar does not write`,
    };
  } catch (err) {
    const failure = classifyApiError(err);
    return failure.kind === 'not-found'
      ? {
          state: 'absent',
          why: `${INVENTORY_GROUP} is not served (the ClusterProfile CRD is not installed)`,
        }
      : { state: 'unknown', failure };
  }
}

export function clusterProfilesPath(version: string, namespace: string): string {
  return `/apis/${INVENTORY_GROUP}/${seg(version)}/namespaces/${seg(namespace)}/clusterprofiles`;
}

export function listClusterProfiles(
  access: KubeAccess,
  version: string,
  namespace: string,
  page: ListPage,
): Promise<KubeList<KubeClusterProfile>> {
  return kubeRequest(access, {
    method: 'GET',
    path: clusterProfilesPath(version, namespace),
    query: { ...page },
  });
}

function writeQuery(query: WriteQuery): Record<string, string | undefined> {
  return { fieldManager: query.fieldManager, dryRun: query.dryRun === true ? 'All' : undefined };
}

export function createClusterProfile(
  access: KubeAccess,
  version: string,
  namespace: string,
  body: KubeClusterProfile,
  query: WriteQuery,
  guard?: RequestGuard,
): Promise<KubeClusterProfile> {
  return kubeRequest(
    access,
    {
      method: 'POST',
      path: clusterProfilesPath(version, namespace),
      query: writeQuery(query),
      body,
    },
    guard,
  );
}

/** A merge patch of the object; the answer is the object as stored. */
export function patchClusterProfile(
  access: KubeAccess,
  version: string,
  namespace: string,
  name: string,
  patch: unknown,
  query: WriteQuery,
  guard?: RequestGuard,
): Promise<KubeClusterProfile> {
  return kubeRequest(
    access,
    {
      method: 'PATCH',
      path: `${clusterProfilesPath(version, namespace)}/${seg(name)}`,
      query: writeQuery(query),
      body: patch,
      contentType: MERGE_PATCH,
    },
    guard,
  );
}

/**
 * A merge patch of the status subresource. Its answer is not read: nothing after it needs the
 * stored object (a cold start writes one per profile, and decoding each would only be garbage).
 */
export function patchClusterProfileStatus(
  access: KubeAccess,
  version: string,
  namespace: string,
  name: string,
  patch: unknown,
  query: WriteQuery,
  guard?: RequestGuard,
): Promise<void> {
  return kubeWrite(
    access,
    {
      method: 'PATCH',
      path: `${clusterProfilesPath(version, namespace)}/${seg(name)}/status`,
      query: writeQuery(query),
      body: patch,
      contentType: MERGE_PATCH,
    },
    guard,
  );
}

export function deleteClusterProfile(
  access: KubeAccess,
  version: string,
  namespace: string,
  name: string,
  preconditions: { readonly uid: string; readonly resourceVersion: string },
  query: WriteQuery,
  guard?: RequestGuard,
): Promise<void> {
  return kubeWrite(
    access,
    {
      method: 'DELETE',
      path: `${clusterProfilesPath(version, namespace)}/${seg(name)}`,
      query: writeQuery(query),
      body: { preconditions, ...(query.dryRun === true ? { dryRun: ['All'] } : {}) },
    },
    guard,
  );
}
