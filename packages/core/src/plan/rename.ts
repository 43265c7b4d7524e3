// Renaming a namespace's cluster (changing its `<prefix>cluster` label). The old registration
// is demoted (ArgoCD stops seeing it, nothing is lost) only once the new name is registered,
// so the cluster never disappears from ArgoCD in between; reverting the label restores the
// demoted registration as it was, even without a usable kubeconfig. Demoted registrations
// expire after the demoted TTL (source-proof.ts).

import { demotedSecret, restoredSecret } from '../registration.js';
import { diffSecret } from '../render-diff.js';
import type { Action, DesiredSecret } from '../types.js';
import type { Registration } from './model.js';
import type { PassState } from './pass-state.js';
import { observedRef, sortedSecret } from './secret-fields.js';
import { vetoed } from './source-proof.js';

/**
 * What putting a demoted registration back writes, when its namespace claims that name again
 * but has no usable kubeconfig: the Secret as it was before demotion, on its old server.
 */
export function restoration(
  state: PassState,
  target: Registration | undefined,
  incumbent: boolean,
): { readonly desired: DesiredSecret; readonly server: string } | undefined {
  if (!incumbent || target === undefined || target.active || target.server === undefined)
    return undefined;
  return { desired: restoredSecret(target.secret, state.keys), server: target.server };
}

/**
 * The demotion of an active registration whose namespace now claims another name and has
 * registered it; `undefined` when it stays as it is.
 */
export function demotion(state: PassState, registration: Registration): Action | undefined {
  const source = registration.source;
  const subject = source.kind === 'managed' ? source.subject : undefined;
  if (
    subject === undefined ||
    subject.terminating ||
    subject.nameProblem !== undefined ||
    subject.cluster === undefined
  )
    return undefined;
  const supersededBy = subject.cluster;
  if (registration.pruneDisabled) {
    vetoed(state, registration, `namespace ${subject.namespace.name} now claims ${supersededBy}`);
    return undefined;
  }
  if (subject.claim === undefined) return undefined;
  const secret = sortedSecret(
    demotedSecret(registration.secret, state.keys, supersededBy, state.now),
  );
  return {
    kind: 'demote',
    cluster: registration.cluster,
    target: observedRef(registration.secret),
    secret,
    changes: diffSecret(registration.secret, secret),
    reason: { code: 'renamed', namespace: subject.namespace.name, supersededBy },
  };
}
