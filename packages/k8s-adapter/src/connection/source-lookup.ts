// The one lookup of a source by its key, for the gatherers (a source that owned registrations
// record and no list or watch covers) and for the write-time proof (the source looked up again
// right before a demote or delete). The planner deletes only on a definite `notFound`, so a
// 404 is one only when it answers the question asked: a namespace's, or a Cluster's while
// discovery says the Cluster API group is served (CRDs can be missing for a moment during an
// upgrade). A Cluster is never read as a namespace of its key: without a served group it is
// `unknown`.
import { CAPI_GROUP, parseSourceKey } from '@argocd-cluster-registrar/core';
import type { SourceLookup } from '@argocd-cluster-registrar/core';
import { classifyApiError } from './api-failure.js';
import type { ApiFailure } from './api-failure.js';
import { readCluster } from './cluster-api.js';
import type { ClusterApi } from './cluster-api.js';
import type { KubeAccess } from './kube-access.js';
import { readNamespace } from './kube-api.js';
import { presentLookup, toSourceCluster, toSourceNamespace } from '../observed-objects.js';

export interface SourceAnswer {
  readonly lookup: SourceLookup;
  /** Whether a request was sent: none is for a Cluster while no served group is known. */
  readonly sent: boolean;
  /** The request's failure, when it failed otherwise than with a 404. */
  readonly failure?: ApiFailure;
}

/** `api`: what discovery last said of the Cluster API group (`undefined`: not asked yet). */
export async function lookUpSource(
  access: KubeAccess,
  key: string,
  api: ClusterApi | undefined,
): Promise<SourceAnswer> {
  const source = parseSourceKey(key);
  let read: () => Promise<SourceLookup>;
  if (source.kind === 'Namespace') {
    read = async () => presentLookup(toSourceNamespace(await readNamespace(access, source.name)));
  } else if (api?.state === 'served') {
    const { version } = api;
    read = async () =>
      presentLookup(
        toSourceCluster(await readCluster(access, version, source.namespace, source.name)),
      );
  } else {
    return { lookup: { state: 'unknown', reason: unservedReason(api) }, sent: false };
  }
  try {
    return { lookup: await read(), sent: true };
  } catch (err) {
    const failure = classifyApiError(err);
    if (failure.kind === 'not-found') return { lookup: { state: 'notFound' }, sent: true };
    return { lookup: { state: 'unknown', reason: failure.message }, sent: true, failure };
  }
}

function unservedReason(api: Exclude<ClusterApi, { state: 'served' }> | undefined): string {
  if (api === undefined) return `discovery of ${CAPI_GROUP} has not answered yet`;
  if (api.state === 'absent') return `${CAPI_GROUP} is not served (no Cluster API CRDs)`;
  return `discovery of ${CAPI_GROUP} failed: ${api.failure.message}`;
}
