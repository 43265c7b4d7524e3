// A mistyped `--managed-by` manages nothing and says nothing: every source waits unseen. The
// values other namespaces carry under the managed-by label say what was meant; `status`
// prints them when it finds nothing, `--once` and the daemon warn at start-up.

import { labelKeys } from '@argocd-cluster-registrar/core';
import type { Config } from '@argocd-cluster-registrar/core';
import { listManagedByValues } from '@argocd-cluster-registrar/k8s-adapter';
import type { KubeAccess } from '@argocd-cluster-registrar/k8s-adapter';
import { closest } from './values.js';

export interface ManagedByValues {
  /** The managed-by label key. */
  readonly key: string;
  /** Whether any namespace carries the configured value. */
  readonly inUse: boolean;
  /** The other values namespaces carry, most frequent first. */
  readonly others: readonly string[];
  /** The other value within a few edits of the configured one, if any. */
  readonly near: string | undefined;
}

export async function managedByValues(
  access: KubeAccess,
  config: Config,
): Promise<ManagedByValues> {
  const key = labelKeys(config.labelPrefix).managedBy;
  const values = await listManagedByValues(access, key);
  const others = values.filter((value) => value !== config.managedBy);
  return {
    key,
    inUse: others.length < values.length,
    others,
    near: closest(config.managedBy, others, 3),
  };
}

/** `did you mean --managed-by team? Namespaces carry <prefix>managed-by=team.` */
export const didYouMean = (values: ManagedByValues, near: string): string =>
  `did you mean --managed-by ${near}? Namespaces carry ${values.key}=${near}.`;

/**
 * The start-up warning of `--once` and the daemon: no namespace carries the configured value
 * and one carries a value close to it. `setting` names the setting as it was given.
 */
export async function managedByWarning(
  access: KubeAccess,
  config: Config,
  setting: string,
): Promise<string | undefined> {
  const values = await managedByValues(access, config);
  if (values.inUse || values.near === undefined) return undefined;
  return `${setting} ${JSON.stringify(config.managedBy)}: no namespace is labelled ${values.key}=${config.managedBy}; ${didYouMean(values, values.near)}`;
}
