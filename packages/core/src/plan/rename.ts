// Renaming a namespace's cluster (changing its `<prefix>cluster` label). The old registration
// is demoted (ArgoCD stops seeing it, nothing is lost) only once the new name's registration
// is *observed* in a snapshot, never in the plan that creates, takes over or restores it:
// writes fail independently, and a plan whose create failed while its demotion succeeded
// would drop the cluster from ArgoCD. Until then the old registration is `moving`: kept
// active, and no other namespace may take it over either (that would drop it just the same).
// Reverting the label restores the demoted registration as it was, even without a usable
// kubeconfig. Demoted registrations expire after the demoted TTL (source-proof.ts).

import { demotedSecret } from '../translate/relabel.js';
import { compareStrings } from '../common/compare-strings.js';
import type { Action, FollowUp, Refusal } from '../common/types.js';
import type { Registration } from './model.js';
import type { PassState } from './pass-state.js';
import { observedRef, sortedSecret } from './secret-fields.js';
import { vetoed } from './source-proof.js';
import { describeSource, sourceNoun } from '../config/sources.js';

/**
 * An active registration whose namespace now claims another name, while no registration of
 * that name recorded for the namespace (name + uid) is observed yet: it must stay.
 */
export function awaitsSuccessor(registration: Registration): boolean {
  if (registration.role !== 'releasable' || !registration.active) return false;
  const source = registration.source;
  if (source.kind !== 'managed') return false;
  return !source.subject.registrations.some((observed) => observed.role === 'incumbent');
}

/** `name-claimed`: the name is still the registration of a namespace renamed away from it. */
export function movingRefusal(state: PassState, target: Registration): Refusal {
  const source = target.source;
  const owner = source.kind === 'managed' ? source.subject : undefined;
  const next = owner?.cluster ?? '(unknown)';
  const key = owner?.source.name ?? target.sourceName ?? '(unknown)';
  const them = sourceNoun(key) === 'Cluster' ? 'sources' : 'namespaces';
  return {
    code: 'name-claimed',
    message: `${target.secret.name} is still the registration of ${describeSource(key)}, which now claims ${next}; it is handed over once ${next} is registered, so ArgoCD never loses that cluster meanwhile (if the two ${them} swapped names, rename one of them to a third name first)`,
    sourceMessage: `cluster name ${JSON.stringify(target.cluster)} is still registered for another source, which is being renamed; it is handed over once that source's new name is registered`,
  };
}

/**
 * The demotion of an active registration whose namespace now claims another name whose
 * registration is observed (role `releasable`); `undefined` when it stays as it is.
 */
export function demotion(state: PassState, registration: Registration): Action | undefined {
  const source = registration.source;
  if (source.kind !== 'managed') return undefined;
  const subject = source.subject;
  const supersededBy = subject.cluster;
  if (subject.terminating || subject.nameProblem !== undefined || supersededBy === undefined)
    return undefined;
  if (registration.pruneDisabled) {
    vetoed(
      state,
      registration,
      `${describeSource(subject.source.name)} now claims ${supersededBy}`,
    );
    return undefined;
  }
  if (registration.role !== 'releasable') return undefined;
  const secret = sortedSecret(
    demotedSecret(registration.secret, state.keys, supersededBy, state.now),
  );
  return {
    kind: 'demote',
    cluster: registration.cluster,
    target: observedRef(registration.secret),
    before: registration.secret,
    secret,
    reason: { code: 'renamed', namespace: subject.source.name, supersededBy },
  };
}

/**
 * The demotions a further round plans once this plan's writes are observed: each `moving`
 * registration whose source's new registration this plan writes (and that nothing vetoes).
 */
export function followUps(
  registrations: readonly Registration[],
  actions: readonly Action[],
): FollowUp[] {
  const writes = new Map<string, Extract<Action, { kind: 'create' | 'update' }>>();
  for (const action of actions)
    if (action.kind === 'create' || action.kind === 'update')
      writes.set(action.reason.namespace, action);
  const found: FollowUp[] = [];
  for (const registration of registrations) {
    const source = registration.source;
    if (registration.role !== 'moving' || registration.pruneDisabled) continue;
    if (source.kind !== 'managed' || source.subject.terminating) continue;
    const key = source.subject.source.name;
    const write = writes.get(key);
    if (write === undefined) continue;
    found.push({
      kind: 'demote',
      cluster: registration.cluster,
      secret: registration.secret.name,
      source: key,
      after: { kind: write.kind, cluster: write.cluster, secret: write.secret.name },
    });
  }
  return found.sort((a, b) => compareStrings(a.secret, b.secret));
}
