// Conversions between the API server's objects and the planner's plain, serialisable view.

import type {
  DesiredSecret,
  ObservedSecret,
  OwnerReference,
  SourceCluster,
  SourceLookup,
  SourceNamespace,
  Timestamp,
} from '@argocd-cluster-registrar/core';
import type {
  KubeNamespace,
  KubeSecret,
  ObjectMeta,
  PartialObjectMetadata,
} from './kube-objects.js';

/**
 * The API server's RFC 3339 strings are kept as they are (second precision,
 * `2026-11-29T17:00:00Z`), which the planner compares; a Date is written in that form too.
 */
export function toTimestamp(value: Date | string | undefined): Timestamp | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (Number.isNaN(value.getTime())) return undefined;
  return value.toISOString().replace(/\.000Z$/, 'Z');
}

export function toSourceNamespace(namespace: KubeNamespace): SourceNamespace {
  const meta = namespace.metadata ?? {};
  const deletionTimestamp = toTimestamp(meta.deletionTimestamp);
  return {
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    // Lets the planner repeat a settled plan while the namespace is unchanged.
    ...(meta.resourceVersion !== undefined ? { resourceVersion: meta.resourceVersion } : {}),
    labels: { ...(meta.labels ?? {}) },
    annotations: { ...(meta.annotations ?? {}) },
    creationTimestamp: toTimestamp(meta.creationTimestamp) ?? '',
    ...(deletionTimestamp !== undefined ? { deletionTimestamp } : {}),
  };
}

export function toSourceCluster(object: PartialObjectMetadata): SourceCluster {
  // The same metadata a namespace's view is made of, plus the Cluster's namespace.
  return {
    namespace: object.metadata?.namespace ?? '',
    ...toSourceNamespace(object),
  };
}

/** A lookup's answer when the source was found. */
export function presentLookup(namespace: SourceNamespace): SourceLookup {
  return {
    state: 'present',
    uid: namespace.uid,
    labels: namespace.labels,
    ...(namespace.deletionTimestamp !== undefined
      ? { deletionTimestamp: namespace.deletionTimestamp }
      : {}),
  };
}

export function toObservedSecret(secret: KubeSecret, fallbackNamespace: string): ObservedSecret {
  const meta = secret.metadata ?? {};
  const creationTimestamp = toTimestamp(meta.creationTimestamp);
  return {
    namespace: meta.namespace ?? fallbackNamespace,
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    resourceVersion: meta.resourceVersion ?? '',
    type: secret.type ?? 'Opaque',
    labels: { ...(meta.labels ?? {}) },
    annotations: { ...(meta.annotations ?? {}) },
    data: { ...(secret.data ?? {}) },
    ...(creationTimestamp !== undefined ? { creationTimestamp } : {}),
    ...ownerReferencesOf(meta),
  };
}

/**
 * Who controls the object, as far as provisioners' marks need it (config/provider-marks.ts
 * in core); absent when there are none, so snapshots of plain Secrets stay as they were.
 */
export function ownerReferencesOf(meta: ObjectMeta): { ownerReferences?: OwnerReference[] } {
  const owners = meta.ownerReferences;
  if (owners === undefined || owners.length === 0) return {};
  return {
    ownerReferences: owners.map((owner) => ({
      apiVersion: owner.apiVersion ?? '',
      kind: owner.kind ?? '',
      name: owner.name ?? '',
      ...(owner.controller === true ? { controller: true } : {}),
    })),
  };
}

/** The object we send: exactly the planner's desired Secret, plus the preconditions given. */
export function toSecretBody(
  desired: DesiredSecret,
  preconditions?: { uid: string; resourceVersion: string },
): KubeSecret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: desired.name,
      namespace: desired.namespace,
      labels: { ...desired.labels },
      annotations: { ...desired.annotations },
      ...(preconditions
        ? { uid: preconditions.uid, resourceVersion: preconditions.resourceVersion }
        : {}),
    },
    type: desired.type,
    data: { ...desired.data },
  };
}

export function byName<T extends { readonly name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export function byNamespaceThenName<
  T extends { readonly namespace: string; readonly name: string },
>(a: T, b: T): number {
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  return byName(a, b);
}
