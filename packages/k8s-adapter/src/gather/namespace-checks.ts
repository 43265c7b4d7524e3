// Questions about namespaces whose answers only shape a message. Whether the target namespace
// exists, asked once at start-up: a registrar pointed at a namespace that is not there would
// plan every registration, fail every write with a 404, and (in `status`) show rows as if
// all were well; one GET says it first, by name. And which managed-by values namespaces
// carry, for a `status` that found nothing under its own.
import { compareStrings } from '@argocd-cluster-registrar/core';
import { classifyApiError } from '../connection/api-failure.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { LIST_PAGE_SIZE, listNamespaces, readNamespace } from '../connection/kube-api.js';
import { ACCEPT_METADATA_LIST, kubeRequest } from '../connection/kube-http.js';
import type { KubeList, PartialObjectMetadata } from '../kube-objects.js';

/**
 * 'missing' only on a 404: any other failure (no connection, forbidden) proves nothing, and
 * the pass that follows reports it as it reports every read.
 */
export async function targetNamespaceState(
  access: KubeAccess,
  name: string,
): Promise<'present' | 'missing' | 'unknown'> {
  try {
    await readNamespace(access, name);
    return 'present';
  } catch (err) {
    return classifyApiError(err).kind === 'not-found' ? 'missing' : 'unknown';
  }
}

/**
 * The values of the `key` label on namespaces, most frequent first; empty when a list fails.
 * Every page is read (only the counts are kept): the value a typo is close to can be on any
 * page of a busy cluster.
 */
export async function listManagedByValues(access: KubeAccess, key: string): Promise<string[]> {
  try {
    const counts = new Map<string, number>();
    let token: string | undefined;
    do {
      const page = await listNamespaces(access, {
        labelSelector: key,
        limit: LIST_PAGE_SIZE,
        ...(token === undefined ? {} : { continue: token }),
      });
      for (const item of page.items ?? []) {
        const value = item.metadata?.labels?.[key];
        if (value !== undefined) counts.set(value, (counts.get(value) ?? 0) + 1);
      }
      token = page.metadata?.continue || undefined;
    } while (token !== undefined);
    return [...counts]
      .sort(([a, x], [b, y]) => y - x || compareStrings(a, b))
      .map(([value]) => value);
  } catch {
    return [];
  }
}

/** A registration found by its labels: where it is, and the cluster name it records. */
export interface FoundRegistration {
  readonly namespace: string;
  readonly name: string;
  readonly cluster: string | undefined;
}

/**
 * Every Secret of the cluster carrying these labels (metadata only), by namespace and name;
 * `undefined` when the list fails. For `status`: registrations of this host in namespaces no
 * target writes any more, which nothing else reads.
 */
export async function listLabelledSecrets(
  access: KubeAccess,
  labelSelector: string,
  clusterKey: string,
): Promise<FoundRegistration[] | undefined> {
  try {
    const found: FoundRegistration[] = [];
    let token: string | undefined;
    do {
      const page = await kubeRequest<KubeList<PartialObjectMetadata>>(access, {
        method: 'GET',
        path: '/api/v1/secrets',
        query: { labelSelector, limit: LIST_PAGE_SIZE, continue: token },
        accept: ACCEPT_METADATA_LIST,
      });
      for (const item of page.items ?? []) {
        const meta = item.metadata ?? {};
        found.push({
          namespace: meta.namespace ?? '',
          name: meta.name ?? '',
          cluster: meta.labels?.[clusterKey],
        });
      }
      token = page.metadata?.continue || undefined;
    } while (token !== undefined);
    return found.sort(
      (a, b) => compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name),
    );
  } catch {
    return undefined;
  }
}
