// The writer half of the client for registration Secrets: one method per verb, each sending
// one request and reporting its outcome as data. What differs between a real write and a
// dry run is a wrapper around these verbs, never a branch where they are called (as
// controller-runtime wraps its client): the dry-run writer adds the API server's own dry
// run to every verb, the fenced writer checks the Lease before each one, and the proven
// writer (write-proof.ts) re-checks a demotion's or deletion's proof.

import type { Action, ObservedSecret } from '@argocd-cluster-registrar/core';
import { classifyApiError } from '../connection/api-failure.js';
import type { ApiFailure } from '../connection/api-failure.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { createSecret, deleteSecret, patchSecret } from '../connection/kube-api.js';
import { toSecretBody } from '../observed-objects.js';
import type { RequestGuard } from '../connection/request-guard.js';
import type { SecretMergePatch } from './secret-patch.js';
import { isLeadershipLost } from '../connection/write-fence.js';
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

/** What one write came to. */
export interface WriteOutcome {
  readonly status: ActionStatus;
  readonly failure?: ApiFailure;
}

export type CreateAction = Extract<Action, { readonly kind: 'create' }>;
export type PatchAction = Extract<Action, { readonly kind: 'update' | 'demote' }>;
export type DeleteAction = Extract<Action, { readonly kind: 'delete' }>;

export interface WriteOptions {
  /** The API server's own dry run: admission and validation speak, nothing is stored. */
  readonly dryRun?: boolean;
  /** Runs right before the request is sent; throwing stops it (the write fence). */
  readonly beforeSend?: () => void;
}

/** `before`: the Secret the plan was made against, as the snapshot holds it. */
export interface SecretWriter {
  create(action: CreateAction, options?: WriteOptions): Promise<WriteOutcome>;
  /** An update or demotion, as a merge patch of our keys (secret-patch.ts). */
  patch(
    action: PatchAction,
    patch: SecretMergePatch,
    before: ObservedSecret,
    options?: WriteOptions,
  ): Promise<WriteOutcome>;
  delete(
    action: DeleteAction,
    before: ObservedSecret | undefined,
    options?: WriteOptions,
  ): Promise<WriteOutcome>;
}

const FIELD_MANAGER = 'argocd-cluster-registrar';
const APPLIED: WriteOutcome = { status: 'applied' };
/** Why a write was not sent: every writer behind the fence says the same. */
export const LEADERSHIP_LOST: ApiFailure = {
  kind: 'transient',
  message: 'not sent: leadership was lost during the pass',
  retryable: true,
};
const NOT_ATTEMPTED: WriteOutcome = { status: 'not-attempted', failure: LEADERSHIP_LOST };

/**
 * The verbs themselves: each one request through `access`, conditional on the object the
 * plan was made against (a create never overwrites; a patch and a delete carry its uid and
 * resourceVersion), and a 409 or 404 reported, not forced.
 */
export function secretWriter(access: KubeAccess): SecretWriter {
  const sending = (options: WriteOptions = {}) => {
    const guard: RequestGuard =
      options.beforeSend === undefined ? {} : { beforeSend: options.beforeSend };
    return { query: { fieldManager: FIELD_MANAGER, dryRun: options.dryRun === true }, guard };
  };
  return {
    create: (action, options) => {
      const { query, guard } = sending(options);
      const { secret } = action;
      return outcome(() =>
        createSecret(access, secret.namespace, toSecretBody(secret), query, guard),
      );
    },
    patch: async (action, patch, _before, options) => {
      const { query, guard } = sending(options);
      const { target } = action;
      const result = await outcome(() =>
        patchSecret(access, target.namespace, target.name, patch, query, guard),
      );
      return result.failure === undefined ? result : (uidPrecondition(result.failure) ?? result);
    },
    delete: (action, _before, options) => {
      const { query, guard } = sending(options);
      const { target } = action;
      const preconditions = { uid: target.uid, resourceVersion: target.resourceVersion };
      return outcome(() =>
        deleteSecret(access, target.namespace, target.name, preconditions, query, guard),
      );
    },
  };
}

/** Every verb as the API server's dry run: its answer reported, nothing stored. */
export function dryRunSecrets(writer: SecretWriter): SecretWriter {
  return {
    create: async (action, options) =>
      asDryRun(await writer.create(action, { ...options, dryRun: true })),
    patch: async (action, patch, before, options) =>
      asDryRun(await writer.patch(action, patch, before, { ...options, dryRun: true })),
    delete: async (action, before, options) =>
      asDryRun(await writer.delete(action, before, { ...options, dryRun: true })),
  };
}

/**
 * Every verb behind the write fence: checked before the write is prepared, and again by the
 * request itself right before it is sent. Once the fence shuts, this writer sends nothing
 * more (make one per pass).
 */
export function fencedSecrets(writer: SecretWriter, fence: WriteFence): SecretWriter {
  let lost = false;
  const fenced = async (
    options: WriteOptions | undefined,
    send: (options: WriteOptions) => Promise<WriteOutcome>,
  ): Promise<WriteOutcome> => {
    if (lost || !fence.holds()) {
      lost = true;
      return NOT_ATTEMPTED;
    }
    const inner = options?.beforeSend;
    const result = await send({
      ...options,
      beforeSend: () => {
        inner?.();
        fence.check();
      },
    });
    if (result.status === 'not-attempted') lost = true;
    return result;
  };
  return {
    create: (action, options) => fenced(options, (o) => writer.create(action, o)),
    patch: (action, patch, before, options) =>
      fenced(options, (o) => writer.patch(action, patch, before, o)),
    delete: (action, before, options) => fenced(options, (o) => writer.delete(action, before, o)),
  };
}

async function outcome(send: () => Promise<unknown>): Promise<WriteOutcome> {
  try {
    await send();
    return APPLIED;
  } catch (err) {
    if (isLeadershipLost(err)) return NOT_ATTEMPTED;
    const failure = classifyApiError(err);
    return { status: statusOf(failure), failure };
  }
}

/**
 * A merge patch carries the observed uid as a precondition, and the API server answers a
 * different uid with 422 on `metadata.uid` rather than 409: the Secret was replaced since it
 * was read, which is a conflict (re-plan from fresh data), not an invalid request.
 */
export function uidPrecondition(failure: ApiFailure): WriteOutcome | undefined {
  if (
    failure.kind !== 'invalid' ||
    failure.causes?.some((c) => c.field === 'metadata.uid') !== true
  )
    return undefined;
  return {
    status: 'conflict',
    failure: {
      kind: 'conflict',
      status: 409,
      message: `409 Conflict: the Secret was replaced since it was read (uid precondition)`,
      retryable: true,
    },
  };
}

function asDryRun({ failure }: WriteOutcome): WriteOutcome {
  return failure === undefined ? { status: 'dry-run' } : { status: 'dry-run', failure };
}

/** The status a failed write reports, for every writer. */
export function statusOf(failure: ApiFailure): ActionStatus {
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
