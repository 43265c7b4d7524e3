// The API calls the adapter makes, by name: core/v1 Namespaces, Secrets and Events, and
// coordination.k8s.io/v1 Leases. Each is one kubeRequest, or kubeWrite where the answer is not
// read (kube-http.ts).
import type { KubeAccess } from './kube-access.js';
import { MERGE_PATCH, kubeRequest, kubeWrite } from './kube-http.js';
import type { Query } from './kube-http.js';
import type { KubeEvent, KubeLease, KubeList, KubeNamespace, KubeSecret } from '../kube-objects.js';
import type { RequestGuard } from './request-guard.js';

/**
 * Items per list page: a page is what one read holds in memory at once, and tenants write the
 * objects listed. Kubernetes limits an object's annotations to 256 KiB in total, the bulk of
 * what a tenant can put in a namespace's, a Cluster's or a Secret's metadata: 100 of those
 * stay near 25 MiB.
 */
export const LIST_PAGE_SIZE = 100;

/** Items per page of whole Secrets, whose data can add up to 1 MiB each: about 25 MiB. */
export const SECRET_PAGE_SIZE = 25;

export interface ListPage {
  readonly labelSelector?: string;
  readonly limit?: number;
  /** The previous page's continue token; undefined for the first page. */
  readonly continue?: string | undefined;
}

/** Query parameters of a write: fieldManager, and the API server's own dry run. */
export interface WriteQuery {
  readonly fieldManager?: string;
  readonly dryRun?: boolean;
}

const seg = encodeURIComponent;
const secretsOf = (namespace: string): string => `/api/v1/namespaces/${seg(namespace)}/secrets`;
const leasesOf = (namespace: string): string =>
  `/apis/coordination.k8s.io/v1/namespaces/${seg(namespace)}/leases`;

function writeQuery(query: WriteQuery): Query {
  return { fieldManager: query.fieldManager, dryRun: query.dryRun === true ? 'All' : undefined };
}

export function readNamespace(
  access: KubeAccess,
  name: string,
  guard?: RequestGuard,
): Promise<KubeNamespace> {
  return kubeRequest(access, { method: 'GET', path: `/api/v1/namespaces/${seg(name)}` }, guard);
}

export function listNamespaces(
  access: KubeAccess,
  page: ListPage,
): Promise<KubeList<KubeNamespace>> {
  return kubeRequest(access, { method: 'GET', path: '/api/v1/namespaces', query: { ...page } });
}

export function listSecrets(
  access: KubeAccess,
  namespace: string,
  page: ListPage,
): Promise<KubeList<KubeSecret>> {
  return kubeRequest(access, { method: 'GET', path: secretsOf(namespace), query: { ...page } });
}

export function readSecret(
  access: KubeAccess,
  namespace: string,
  name: string,
): Promise<KubeSecret> {
  return kubeRequest(access, { method: 'GET', path: `${secretsOf(namespace)}/${seg(name)}` });
}

export function createSecret(
  access: KubeAccess,
  namespace: string,
  body: KubeSecret,
  query: WriteQuery,
  guard?: RequestGuard,
): Promise<void> {
  return kubeWrite(
    access,
    { method: 'POST', path: secretsOf(namespace), query: writeQuery(query), body },
    guard,
  );
}

/** A JSON merge patch (RFC 7386). */
export function patchSecret(
  access: KubeAccess,
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
      path: `${secretsOf(namespace)}/${seg(name)}`,
      query: writeQuery(query),
      body: patch,
      contentType: MERGE_PATCH,
    },
    guard,
  );
}

/** What a delete is conditional on: the API server answers 409 unless both still match. */
export interface DeletePreconditions {
  readonly uid: string;
  readonly resourceVersion: string;
}

/**
 * With a body, the API server reads DeleteOptions from it and ignores the query string: the
 * dry run has to travel in the body too, or a "dry run" deletes for real.
 */
export function deleteSecret(
  access: KubeAccess,
  namespace: string,
  name: string,
  preconditions: DeletePreconditions,
  query: WriteQuery,
  guard?: RequestGuard,
): Promise<void> {
  return kubeWrite(
    access,
    {
      method: 'DELETE',
      path: `${secretsOf(namespace)}/${seg(name)}`,
      query: writeQuery(query),
      body: { preconditions, ...(query.dryRun === true ? { dryRun: ['All'] } : {}) },
    },
    guard,
  );
}

export function readEvent(
  access: KubeAccess,
  namespace: string,
  name: string,
  guard?: RequestGuard,
): Promise<Partial<KubeEvent>> {
  return kubeRequest(
    access,
    { method: 'GET', path: `/api/v1/namespaces/${seg(namespace)}/events/${seg(name)}` },
    guard,
  );
}

export function patchEvent(
  access: KubeAccess,
  namespace: string,
  name: string,
  patch: unknown,
  guard?: RequestGuard,
): Promise<void> {
  return kubeWrite(
    access,
    {
      method: 'PATCH',
      path: `/api/v1/namespaces/${seg(namespace)}/events/${seg(name)}`,
      body: patch,
      contentType: MERGE_PATCH,
    },
    guard,
  );
}

export function createEvent(
  access: KubeAccess,
  namespace: string,
  body: KubeEvent,
  guard?: RequestGuard,
): Promise<void> {
  return kubeWrite(
    access,
    { method: 'POST', path: `/api/v1/namespaces/${seg(namespace)}/events`, body },
    guard,
  );
}

export function readLease(
  access: KubeAccess,
  namespace: string,
  name: string,
  guard?: RequestGuard,
): Promise<KubeLease> {
  return kubeRequest(access, { method: 'GET', path: `${leasesOf(namespace)}/${seg(name)}` }, guard);
}

export function createLease(
  access: KubeAccess,
  namespace: string,
  body: KubeLease,
  guard?: RequestGuard,
): Promise<KubeLease> {
  return kubeRequest(access, { method: 'POST', path: leasesOf(namespace), body }, guard);
}

/** Conditional on the body's metadata.resourceVersion, when it carries one. */
export function replaceLease(
  access: KubeAccess,
  namespace: string,
  name: string,
  body: KubeLease,
  guard?: RequestGuard,
): Promise<KubeLease> {
  return kubeRequest(
    access,
    { method: 'PUT', path: `${leasesOf(namespace)}/${seg(name)}`, body },
    guard,
  );
}
