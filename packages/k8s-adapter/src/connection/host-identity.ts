// This host's identity, recorded on every registration (core's plan/host-identity.ts): the
// cluster's own ID when it publishes one (KEP-2149's ClusterProperty `id.k8s.io`, group
// about.k8s.io), else the uid of its `kube-system` namespace, which lives as long as the
// cluster. Read once at start-up; `--host-id` replaces both.

import { formProblem, LABEL_VALUE_FORM } from '@argocd-cluster-registrar/core';
import { classifyApiError } from './api-failure.js';
import type { ApiFailure } from './api-failure.js';
import type { KubeAccess } from './kube-access.js';
import { readNamespace } from './kube-api.js';
import { kubeRequest } from './kube-http.js';

export const CLUSTER_PROPERTY_GROUP = 'about.k8s.io';
export const CLUSTER_ID_PROPERTY = 'id.k8s.io';

export type HostIdentity =
  | { readonly ok: true; readonly id: string; readonly from: string }
  | {
      readonly ok: false;
      readonly message: string;
      /** The request that failed, when one did (the caller may say it as a connection problem). */
      readonly failure?: ApiFailure;
    };

/** The ClusterProperty's value when it is served and set, else the kube-system uid. */
export async function readHostIdentity(access: KubeAccess): Promise<HostIdentity> {
  const property = await readClusterIdProperty(access);
  if (typeof property === 'object') return property;
  if (property !== undefined) {
    const problem = formProblem(LABEL_VALUE_FORM, property);
    if (problem === undefined)
      return { ok: true, id: property, from: `ClusterProperty ${CLUSTER_ID_PROPERTY}` };
    return {
      ok: false,
      message: `ClusterProperty ${CLUSTER_ID_PROPERTY} holds a value that ${problem}, so registrations cannot record it in a label; set --host-id to a label value that names this host`,
    };
  }
  try {
    const uid = (await readNamespace(access, 'kube-system')).metadata?.uid;
    if (uid !== undefined && uid !== '')
      return { ok: true, id: uid, from: 'namespace kube-system' };
    return { ok: false, message: 'namespace kube-system has no uid; set --host-id' };
  } catch (err) {
    const failure = classifyApiError(err);
    return {
      ok: false,
      message: `cannot read this host's identity (namespace kube-system: ${failure.message}); grant get on namespaces, or set --host-id`,
      failure,
    };
  }
}

/** The property's value; `undefined` when the group, the object or its value is absent. */
async function readClusterIdProperty(
  access: KubeAccess,
): Promise<string | undefined | HostIdentity> {
  try {
    const group = await kubeRequest<{ preferredVersion?: { version?: string } }>(access, {
      method: 'GET',
      path: `/apis/${CLUSTER_PROPERTY_GROUP}`,
    });
    const version = group.preferredVersion?.version;
    if (version === undefined || version === '') return undefined;
    const object = await kubeRequest<{ spec?: { value?: unknown } }>(access, {
      method: 'GET',
      path: `/apis/${CLUSTER_PROPERTY_GROUP}/${encodeURIComponent(version)}/clusterproperties/${CLUSTER_ID_PROPERTY}`,
    });
    const value = object.spec?.value;
    return typeof value === 'string' && value !== '' ? value : undefined;
  } catch (err) {
    const failure = classifyApiError(err);
    // Not served, not created, or not ours to read: the kube-system uid is as good an identity.
    if (failure.kind === 'not-found' || failure.kind === 'forbidden') return undefined;
    return {
      ok: false,
      message: `cannot read this host's identity (ClusterProperty ${CLUSTER_ID_PROPERTY}: ${failure.message}); retry, or set --host-id`,
      failure,
    };
  }
}
