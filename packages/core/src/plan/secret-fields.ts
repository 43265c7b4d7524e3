// Small readers and shapers of Secrets shared by the steps: decoded data fields, the
// reference an action names, the key order every written Secret gets, and the update action.

import { decodeBase64Text } from '../common/base64.js';
import { sortedRecord } from '../common/compare-strings.js';
import { normaliseServer } from '../common/server-address.js';
import type {
  Action,
  DesiredSecret,
  ObservedRef,
  ObservedSecret,
  UpdateReason,
} from '../common/types.js';

export function readData(secret: Pick<ObservedSecret, 'data'>, key: string): string | undefined {
  const encoded = secret.data[key];
  return encoded === undefined ? undefined : decodeBase64Text(encoded);
}

/** Normalised `data.server`, `undefined` when absent, not base64 or empty. */
export function readServer(secret: ObservedSecret): string | undefined {
  const text = readData(secret, 'server');
  return text === undefined || text === '' ? undefined : normaliseServer(text);
}

/** The reference alone, of an observed Secret or ClusterProfile. */
export function observedRef(object: ObservedRef): ObservedRef {
  return {
    namespace: object.namespace,
    name: object.name,
    uid: object.uid,
    resourceVersion: object.resourceVersion,
  };
}

/** Labels, annotations and data in key order, so a plan prints the same on every run. */
export function sortedSecret(secret: DesiredSecret): DesiredSecret {
  return {
    ...secret,
    labels: sortedRecord(secret.labels),
    annotations: sortedRecord(secret.annotations),
    data: sortedRecord(secret.data),
  };
}

export function updateOf(
  cluster: string,
  before: ObservedSecret,
  secret: DesiredSecret,
  reason: UpdateReason,
): Action {
  return {
    kind: 'update',
    cluster,
    target: observedRef(before),
    before,
    secret: sortedSecret(secret),
    reason,
  };
}
