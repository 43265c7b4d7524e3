// The writer half of the client: what a pass hands its plan to. Dry run is a writer too
// (as controller-runtime's dry-run client wraps its writer), so the code that runs a pass
// never asks whether it is a dry run: it writes to whichever writer it was given. Each
// writer is applyPlan over a SecretWriter built from wrappers (write/secret-writer.ts).

import type { ObservedSecret, Plan } from '@argocd-cluster-registrar/core';
import { applyPlan } from './apply.js';
import type { ActionResult } from './apply.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { OPEN_FENCE } from '../connection/write-fence.js';
import { provenSecrets } from './write-proof.js';
import type { ProofConfig } from './write-proof.js';
import { dryRunSecrets, fencedSecrets, secretWriter } from './secret-writer.js';

export interface PlanWriter {
  /** False for a dry run: its results say what would happen, nothing was written. */
  readonly persists: boolean;
  /**
   * One result per action, in plan order. `observed` is the snapshot's cluster Secrets, the
   * ones the plan was made from: an update patches only its difference on our keys.
   */
  write(plan: Plan, observed: readonly ObservedSecret[]): Promise<readonly ActionResult[]>;
}

/**
 * Writes the plan to the API server (through `access`, fenced when it carries a fence): a
 * demotion or deletion only while its proof still holds (write-proof.ts), re-read where the
 * sources are (`sourceAccess`: the host, also when the target is in another cluster).
 */
export function createApplier(
  access: KubeAccess,
  config: ProofConfig,
  sourceAccess: KubeAccess = access,
): PlanWriter {
  const { labelPrefix } = config;
  return {
    persists: true,
    write: (plan, observed) => {
      // One fenced writer per pass: once the fence shuts, the rest of the pass sends nothing.
      const proven = provenSecrets(secretWriter(access), sourceAccess, config);
      const writer = fencedSecrets(proven, access.writeFence ?? OPEN_FENCE);
      return applyPlan(writer, plan, { labelPrefix, observed });
    },
  };
}

export interface DryRunOptions {
  /** The registrar's label prefix (what an update may change). */
  readonly labelPrefix: string;
  /**
   * Ask the API server to validate each write with its own dry run (admission and
   * validation speak, nothing is stored). Without it nothing is sent at all.
   */
  readonly validateWith?: KubeAccess;
}

/**
 * Never writes: every result has status 'dry-run', with the failure a real write would meet
 * (if any) attached, so a forbidden or unreachable dry run never fails a preview. It needs
 * no fence and no proof re-check: nothing it sends is stored.
 */
export function createDryRunWriter(options: DryRunOptions): PlanWriter {
  const access = options.validateWith;
  const { labelPrefix } = options;
  return {
    persists: false,
    write: async (plan, observed) =>
      access === undefined
        ? plan.actions.map((action) => ({ action, status: 'dry-run' as const }))
        : applyPlan(dryRunSecrets(secretWriter(access)), plan, { labelPrefix, observed }),
  };
}

/**
 * What the API server said of one dry-run write: it would store it (`accepted`), it would
 * refuse it (`rejected`: a missing namespace, a conflict, invalid data — applying this plan
 * would fail), or it could not say (`not-validated`: the dry run's own credentials may not
 * write, or the server was unreachable; the registrar's own credentials may well pass).
 */
export type DryRunVerdict =
  | { readonly verdict: 'accepted' }
  | { readonly verdict: 'rejected'; readonly reason: string }
  | { readonly verdict: 'not-validated'; readonly reason: string };

export function dryRunVerdict(result: ActionResult): DryRunVerdict {
  const failure = result.failure;
  if (failure === undefined) return { verdict: 'accepted' };
  switch (failure.kind) {
    case 'not-found':
    case 'conflict':
    case 'already-exists':
    case 'invalid':
      return { verdict: 'rejected', reason: failure.message };
    case 'unknown':
      // An answer with a status (400, 413…) is the server refusing the object itself.
      return failure.status === undefined
        ? { verdict: 'not-validated', reason: failure.message }
        : { verdict: 'rejected', reason: failure.message };
    case 'forbidden':
    case 'unauthorized':
    case 'transient':
      return { verdict: 'not-validated', reason: failure.message };
  }
}
