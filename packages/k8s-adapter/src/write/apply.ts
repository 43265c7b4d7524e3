// Apply: execute the plan's actions verbatim through a SecretWriter and report each one's
// outcome. Never re-decides: each action is one verb of the writer, and the writer it is
// given (plan-writer.ts) says whether that stores, dry-runs, fences or re-checks proofs.
// One failed action never stops the others.

import { assertNever } from '@argocd-cluster-registrar/core';
import type { Action, ObservedSecret, Plan } from '@argocd-cluster-registrar/core';
import type { ApiFailure } from '../connection/api-failure.js';
import { mapBounded } from '../concurrency.js';
import { registrationPatch } from './secret-patch.js';
import type { ActionStatus, SecretWriter, WriteOutcome } from './secret-writer.js';

export interface ActionResult {
  readonly action: Action;
  readonly status: ActionStatus;
  readonly failure?: ApiFailure;
}

export interface ApplyOptions {
  /** The registrar's label prefix: the labels and annotations under it are ours to change. */
  readonly labelPrefix: string;
  /**
   * The Secrets the plan was made from (the snapshot's cluster Secrets): an update patches
   * the difference between the observed Secret and the planned one, on our keys only.
   */
  readonly observed: readonly ObservedSecret[];
}

const WRITE_CONCURRENCY = 8;

/** Without the object the plan was made against there is no safe difference to send. */
const NOT_OBSERVED: WriteOutcome = {
  status: 'failed',
  failure: {
    kind: 'unknown',
    message: 'the Secret the plan was made against is not among the observed ones',
    retryable: true,
  },
};

/**
 * Writes run concurrently, except that actions on the same Secret name keep their plan order
 * (a delete of a replaced registration must land before the create that reuses its name).
 */
export async function applyPlan(
  writer: SecretWriter,
  plan: Plan,
  options: ApplyOptions,
): Promise<readonly ActionResult[]> {
  const results = new Array<ActionResult>(plan.actions.length);
  const observed = new Map(options.observed.map((secret) => [secret.uid, secret]));

  const chains = new Map<string, number[]>();
  plan.actions.forEach((action, index) => {
    const key = `${secretNamespace(action)}/${secretName(action)}`;
    const chain = chains.get(key);
    if (chain === undefined) chains.set(key, [index]);
    else chain.push(index);
  });

  await mapBounded([...chains.values()], WRITE_CONCURRENCY, async (chain) => {
    for (const index of chain) {
      const action = plan.actions[index] as Action;
      results[index] = { action, ...(await write(writer, action, observed, options)) };
    }
  });
  return results;
}

function write(
  writer: SecretWriter,
  action: Action,
  observed: ReadonlyMap<string, ObservedSecret>,
  options: ApplyOptions,
): Promise<WriteOutcome> {
  switch (action.kind) {
    case 'create':
      return writer.create(action);
    case 'update':
    case 'demote': {
      const before = observed.get(action.target.uid);
      if (before === undefined) return Promise.resolve(NOT_OBSERVED);
      // A merge patch of our keys only, carrying the observed uid and resourceVersion: the
      // API server refuses it (409) if the Secret changed or was replaced since we read it,
      // and leaves finalizers, ownerReferences and other owners' keys alone (secret-patch.ts).
      const patch = registrationPatch(action.target, before, action.secret, options.labelPrefix);
      return writer.patch(action, patch, before);
    }
    case 'delete':
      return writer.delete(action, observed.get(action.target.uid));
    default:
      return assertNever(action, 'action kind');
  }
}

function secretName(action: Action): string {
  return action.kind === 'create' ? action.secret.name : action.target.name;
}

function secretNamespace(action: Action): string {
  return action.kind === 'create' ? action.secret.namespace : action.target.namespace;
}
