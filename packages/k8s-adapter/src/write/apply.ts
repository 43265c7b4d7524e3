// Apply: execute the plan's actions verbatim and report each one's outcome. Never
// re-decides: a create never overwrites, an update or delete is conditional on the object
// the plan was made against, and a 409 or 404 is reported, not forced (the next pass
// re-plans from fresh data). One failed action never stops the others.

import { assertNever } from '@argocd-cluster-registrar/core';
import type { Action, ObservedSecret, Plan } from '@argocd-cluster-registrar/core';
import { classifyApiError } from '../connection/api-failure.js';
import type { ApiFailure } from '../connection/api-failure.js';
import { mapBounded } from '../concurrency.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { createSecret, deleteSecret, patchSecret } from '../connection/kube-api.js';
import { toSecretBody } from '../observed-objects.js';
import { requestBound } from '../connection/request-guard.js';
import type { RequestGuard } from '../connection/request-guard.js';
import { registrationPatch } from './secret-patch.js';
import { OPEN_FENCE, isLeadershipLost } from '../connection/write-fence.js';
import { recheckProof } from './write-proof.js';
import type { WriteFence } from '../connection/write-fence.js';

export type ActionStatus =
  | 'applied'
  | 'conflict'
  | 'not-found'
  | 'already-exists'
  | 'failed'
  | 'dry-run'
  /** Leadership was lost during the pass: this write, and every one after it, was never sent. */
  | 'not-attempted'
  /** A demote or delete whose proof no longer held at write time (stale plan): not sent. */
  | 'withheld';

export interface ActionResult {
  readonly action: Action;
  readonly status: ActionStatus;
  readonly failure?: ApiFailure;
}

export interface ApplyOptions {
  readonly dryRun: boolean;
  /** The registrar's label prefix: the labels and annotations under it are ours to change. */
  readonly labelPrefix: string;
  /**
   * The Secrets the plan was made from (the snapshot's cluster Secrets): an update patches
   * the difference between the observed Secret and the planned one, on our keys only.
   */
  readonly observed: readonly ObservedSecret[];
}

const WRITE_CONCURRENCY = 8;
const FIELD_MANAGER = 'argocd-cluster-registrar';

/**
 * Writes run concurrently, except that actions on the same Secret name keep their plan order
 * (a delete of a replaced registration must land before the create that reuses its name).
 *
 * Dry run uses the API server's own dry run, so admission and validation still speak; its
 * status is always 'dry-run', with the failure the real write would meet (if any) attached.
 * A forbidden or unreachable dry run therefore never fails a preview.
 */
export async function applyPlan(
  access: KubeAccess,
  plan: Plan,
  options: ApplyOptions,
): Promise<readonly ActionResult[]> {
  const results = new Array<ActionResult>(plan.actions.length);
  const observed = new Map(options.observed.map((secret) => [secret.uid, secret]));
  const writer: Writer = {
    access,
    options,
    observed,
    fence: access.writeFence ?? OPEN_FENCE,
    lost: false,
  };

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
      results[index] = await applyAction(writer, action);
    }
  });
  return results;
}

/** What one applyPlan call shares between its actions. */
interface Writer {
  readonly access: KubeAccess;
  readonly options: ApplyOptions;
  readonly observed: ReadonlyMap<string, ObservedSecret>;
  readonly fence: WriteFence;
  /** Set once the fence shut: the pass stops writing at once. */
  lost: boolean;
}

const NOT_ATTEMPTED: ApiFailure = {
  kind: 'transient',
  message: 'not sent: leadership was lost during the pass',
  retryable: true,
};

async function applyAction(writer: Writer, action: Action): Promise<ActionResult> {
  const { access, options, observed } = writer;
  const dryRun = options.dryRun;
  const query = { fieldManager: FIELD_MANAGER, dryRun };
  // A dry run writes nothing, so it needs no fence.
  const fence = dryRun ? OPEN_FENCE : writer.fence;
  if (writer.lost || !fence.holds()) {
    writer.lost = true;
    return { action, status: 'not-attempted', failure: NOT_ATTEMPTED };
  }
  // The fence is checked again by the request itself, right before it is sent.
  const send: RequestGuard = {
    ...requestBound(access),
    beforeSend: () => {
      fence.check();
    },
  };
  try {
    if (!dryRun) {
      const proof = await recheckProof(
        access,
        action,
        action.kind === 'create' ? undefined : observed.get(action.target.uid),
        options.labelPrefix,
      );
      if (!proof.holds) {
        return {
          action,
          status: 'withheld',
          failure: { kind: 'conflict', message: proof.why, retryable: true },
        };
      }
    }
    switch (action.kind) {
      case 'create':
        await createSecret(
          access,
          action.secret.namespace,
          toSecretBody(action.secret),
          query,
          send,
        );
        break;
      case 'update':
      case 'demote': {
        const before = observed.get(action.target.uid);
        if (before === undefined) {
          // Without the object the plan was made against there is no safe difference to send.
          return {
            action,
            status: 'failed',
            failure: {
              kind: 'unknown',
              message: 'the Secret the plan was made against is not among the observed ones',
              retryable: true,
            },
          };
        }
        // A merge patch of our keys only, carrying the observed uid and resourceVersion: the
        // API server refuses it (409) if the Secret changed or was replaced since we read it,
        // and leaves finalizers, ownerReferences and other owners' keys alone (secret-patch.ts).
        await patchSecret(
          access,
          action.target.namespace,
          action.target.name,
          registrationPatch(action.target, before, action.secret, options.labelPrefix),
          query,
          send,
        );
        break;
      }
      case 'delete':
        // With a body, the API server reads DeleteOptions from it and ignores the query
        // string: dryRun has to travel in the body, or a "dry run" deletes for real.
        await deleteSecret(
          access,
          action.target.namespace,
          action.target.name,
          {
            preconditions: {
              uid: action.target.uid,
              resourceVersion: action.target.resourceVersion,
            },
            ...(dryRun ? { dryRun: ['All'] } : {}),
          },
          { dryRun },
          send,
        );
        break;
      default:
        return assertNever(action, 'action kind');
    }
    return { action, status: dryRun ? 'dry-run' : 'applied' };
  } catch (err) {
    if (isLeadershipLost(err)) {
      writer.lost = true;
      return { action, status: 'not-attempted', failure: NOT_ATTEMPTED };
    }
    const failure = preconditionFailure(action, classifyApiError(err));
    return { action, status: dryRun ? 'dry-run' : statusOf(failure), failure };
  }
}

/**
 * A merge patch carries the observed uid as a precondition, and the API server answers a
 * different uid with 422 on `metadata.uid` rather than 409: the Secret was replaced since it
 * was read, which is a conflict (re-plan from fresh data), not an invalid request.
 */
function preconditionFailure(action: Action, failure: ApiFailure): ApiFailure {
  if (
    (action.kind === 'update' || action.kind === 'demote') &&
    failure.kind === 'invalid' &&
    failure.message.includes('metadata.uid')
  ) {
    return {
      kind: 'conflict',
      status: 409,
      message: `409 Conflict: the Secret was replaced since it was read (uid precondition)`,
      retryable: true,
    };
  }
  return failure;
}

function statusOf(failure: ApiFailure): ActionStatus {
  switch (failure.kind) {
    case 'conflict':
      return 'conflict';
    case 'not-found':
      return 'not-found';
    case 'already-exists':
      return 'already-exists';
    default:
      return 'failed';
  }
}

function secretName(action: Action): string {
  return action.kind === 'create' ? action.secret.name : action.target.name;
}

function secretNamespace(action: Action): string {
  return action.kind === 'create' ? action.secret.namespace : action.target.namespace;
}
