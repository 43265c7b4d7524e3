// The metadata-only variants of an existing registration (its data is never touched): demoted,
// restored and drained.

import {
  ARGOCD_CLUSTER_SECRET_TYPE,
  ARGOCD_SECRET_TYPE_LABEL,
  hasPrefix,
  type LabelKeys,
} from '../config/label-keys.js';
import type { DesiredSecret, Labels, ObservedSecret } from '../common/types.js';
import { formatTimestamp } from './registration.js';

/** ArgoCD stops seeing the registration; everything needed to restore it stays on it. */
export function demotedSecret(
  existing: ObservedSecret,
  keys: LabelKeys,
  supersededBy: string,
  now: number,
): DesiredSecret {
  const labels = {
    ...without(existing.labels, [ARGOCD_SECRET_TYPE_LABEL]),
    [keys.orphanedSecretType]:
      existing.labels[ARGOCD_SECRET_TYPE_LABEL] ?? ARGOCD_CLUSTER_SECRET_TYPE,
    [keys.supersededBy]: supersededBy,
  };
  // RFC 3339 holds colons, which label values cannot: the timestamp is an annotation.
  const annotations = { ...existing.annotations, [keys.staleSince]: formatTimestamp(now) };
  return relabelled(existing, labels, annotations);
}

/** A demoted registration put back exactly as it was before demotion. */
export function restoredSecret(existing: ObservedSecret, keys: LabelKeys): DesiredSecret {
  const labels = {
    ...without(existing.labels, [keys.orphanedSecretType, keys.supersededBy]),
    [ARGOCD_SECRET_TYPE_LABEL]:
      existing.labels[keys.orphanedSecretType] ?? ARGOCD_CLUSTER_SECRET_TYPE,
  };
  const annotations = without(existing.annotations, [keys.staleSince]);
  return relabelled(existing, labels, annotations);
}

/** The existing registration with other labels and annotations; its data stays as it is. */
function relabelled(existing: ObservedSecret, labels: Labels, annotations: Labels): DesiredSecret {
  return {
    namespace: existing.namespace,
    name: existing.name,
    type: 'Opaque',
    labels,
    annotations,
    data: existing.data,
  };
}

function without(record: Labels, drop: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => !drop.includes(key)));
}

/** The registration without its copied labels; data, annotations and other labels as they are. */
export function drainedSecret(existing: ObservedSecret, keys: LabelKeys): DesiredSecret {
  const labels = Object.fromEntries(
    Object.entries(existing.labels).filter(
      ([key]) => !hasPrefix(keys, key) || keys.reserved.has(key),
    ),
  );
  return relabelled(existing, labels, existing.annotations);
}
