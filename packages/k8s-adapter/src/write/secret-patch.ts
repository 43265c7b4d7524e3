// Field ownership: what an update of a registration Secret may touch. A registration is
// shared: ArgoCD, admission webhooks, backup tools and people add finalizers,
// ownerReferences, labels and annotations. A full replace would strip all of that, so an
// update is a JSON merge patch (RFC 7386) that names only the keys the registrar owns.
//
// Why a merge patch and not server-side apply: with apply, what a write removes depends on
// the managedFields history (registrations written by older versions with create/replace
// are owned by an "Update" manager, so apply would never remove our stale keys from them),
// and a person's `kubectl label` on one of our keys would make every later apply a
// conflict until it is forced. A merge patch is computed from the object the plan was made
// against and carries its resourceVersion, so the API server refuses it (409) if anything
// changed since: what it writes is exactly the difference, and nothing else is touched.

import {
  ARGOCD_SECRET_TYPE_LABEL,
  ARGOCD_SKIP_RECONCILE_ANNOTATION,
  REGISTRATION_DATA_KEYS,
  labelKeys,
} from '@argocd-cluster-registrar/core';
import type {
  DesiredSecret,
  Labels,
  ObservedRef,
  ObservedSecret,
} from '@argocd-cluster-registrar/core';

/** Any other data key on a registration (ArgoCD's `shard`, say) is an operator's: never patched. */
const OWNED_DATA_KEYS: ReadonlySet<string> = new Set(REGISTRATION_DATA_KEYS);

export interface SecretMergePatch {
  readonly metadata: {
    /** Preconditions: the API server answers 409 unless both still match. */
    readonly uid: string;
    readonly resourceVersion: string;
    readonly labels?: Readonly<Record<string, string | null>>;
    readonly annotations?: Readonly<Record<string, string | null>>;
  };
  readonly type?: string;
  readonly data?: Readonly<Record<string, string | null>>;
}

/** Labels and annotations under our prefix, and ArgoCD's selector label (demotion moves it). */
export function ownsMetadataKey(labelPrefix: string, key: string): boolean {
  return key.startsWith(labelPrefix) || key === ARGOCD_SECRET_TYPE_LABEL;
}

/**
 * The patch that turns `observed` into `desired` on the keys we own: owned keys that differ
 * are set, owned keys the plan dropped are deleted (null), everything else is left out.
 */
export function registrationPatch(
  target: ObservedRef,
  observed: ObservedSecret,
  desired: DesiredSecret,
  labelPrefix: string,
): SecretMergePatch {
  const owned = (key: string): boolean => ownsMetadataKey(labelPrefix, key);
  // ArgoCD's skip-reconcile is ours while our pause reason sits beside it, before or after
  // (the planner keeps one someone else set, and sets it only where nobody has).
  const pauseReason = labelKeys(labelPrefix).pauseReason;
  const pauseIsOurs =
    observed.annotations[pauseReason] !== undefined ||
    desired.annotations[pauseReason] !== undefined;
  const ownedAnnotation = (key: string): boolean =>
    owned(key) || (pauseIsOurs && key === ARGOCD_SKIP_RECONCILE_ANNOTATION);
  const labels = difference(observed.labels, desired.labels, owned);
  const annotations = difference(observed.annotations, desired.annotations, ownedAnnotation);
  const data = difference(observed.data, desired.data, (key) => OWNED_DATA_KEYS.has(key));
  return {
    metadata: {
      uid: target.uid,
      resourceVersion: target.resourceVersion,
      ...(labels !== undefined ? { labels } : {}),
      ...(annotations !== undefined ? { annotations } : {}),
    },
    ...(observed.type !== desired.type ? { type: desired.type } : {}),
    ...(data !== undefined ? { data } : {}),
  };
}

function difference(
  before: Labels,
  after: Labels,
  owned: (key: string) => boolean,
): Record<string, string | null> | undefined {
  const patch: Record<string, string | null> = {};
  let changed = false;
  for (const key in after) {
    const value = after[key];
    if (value !== undefined && owned(key) && before[key] !== value) {
      patch[key] = value;
      changed = true;
    }
  }
  for (const key in before) {
    if (owned(key) && after[key] === undefined) {
      patch[key] = null;
      changed = true;
    }
  }
  return changed ? patch : undefined;
}
