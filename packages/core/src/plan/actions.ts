// What is written: a create for a won claim on a new name, an update when a won claim's
// registration differs (taken over, restored, or changed), nothing when it is up to date or
// its credential-only change waits; then, for every other registration we own, a demotion
// (rename.ts) or a deletion on proof (source-proof.ts). Everything sorted once at the end.

import { actionTarget } from './action-target.js';
import { compareStrings } from '../common/compare-strings.js';
import { stampCredentials } from '../translate/registration.js';
import type { Action, DesiredSecret, Warning } from '../common/types.js';
import { compareRegistration } from './compare.js';
import { deferral } from './credential-churn.js';
import { withholdClaimWrite, withholdRemoval } from './input-completeness.js';
import { drainage } from './drain.js';
import type { Claim, Registration, Subject } from './model.js';
import type { PassState } from './pass-state.js';
import { demotion } from './rename.js';
import { keptRegistrationPause } from './pause.js';
import { sortedSecret, updateOf } from './secret-fields.js';
import { deletion } from './source-proof.js';

export function emitClaimActions(state: PassState, won: ReadonlyMap<Subject, Claim>): void {
  for (const claim of won.values()) {
    const action = claimWrite(state, claim);
    if (action === undefined) continue;
    if (action.kind === 'update') state.written.add(claim.subject);
    state.actions.push(action);
  }
}

const stamped = (state: PassState, secret: DesiredSecret): DesiredSecret =>
  stampCredentials(secret, state.keys, state.stamp);

/** What a won claim writes; `undefined` when it is up to date, withheld or deferred. */
function claimWrite(state: PassState, claim: Claim): Action | undefined {
  const { cluster, target } = claim;
  const namespace = claim.subject.source.name;
  if (target === undefined) {
    if (withholdClaimWrite(state, claim, 'created')) return undefined;
    const secret = sortedSecret(stamped(state, claim.desired));
    return { kind: 'create', cluster, secret, reason: { code: 'new-registration', namespace } };
  }
  if (!claim.incumbent) {
    if (withholdClaimWrite(state, claim, 'taken over')) return undefined;
    const previousNamespace = target.sourceName ?? '(unknown)';
    const reason = { code: 'taken-over', namespace, previousNamespace } as const;
    return updateOf(cluster, target.secret, stamped(state, claim.desired), reason);
  }
  const comparison = compareRegistration(target.secret, claim.desired);
  if (comparison.equal) return undefined;
  const secret = comparison.credentialsChanged
    ? stamped(state, comparison.desired)
    : comparison.desired;
  if (!target.active) {
    if (withholdClaimWrite(state, claim, 'restored')) return undefined;
    return updateOf(cluster, target.secret, secret, { code: 'restored-from-demotion', namespace });
  }
  if (comparison.credentialsOnly && claim.translation !== undefined) {
    const deferred = deferral(state, target.secret, comparison.registeredCertificate);
    if (deferred !== undefined) {
      state.deferred.set(claim.subject, deferred);
      return undefined;
    }
  }
  // The one update that may proceed without a complete list keeps name and server
  // (input-completeness.ts).
  if (
    comparison.reason === 'server-changed' &&
    withholdClaimWrite(state, claim, 'given its new server')
  )
    return undefined;
  return updateOf(cluster, target.secret, secret, { code: comparison.reason, namespace });
}

export function emitRegistrationActions(state: PassState, won: ReadonlyMap<Subject, Claim>): void {
  const targeted = new Set<Registration | undefined>();
  for (const claim of won.values()) targeted.add(claim.target);
  for (const registration of state.registrations) {
    // Written by a claim, or claimed by its own namespace (kept even when that claim failed,
    // but paused and woken as its source and child say: pause.ts).
    if (targeted.has(registration)) continue;
    if (registration.role === 'incumbent') {
      const paused = keptRegistrationPause(state, registration, won);
      if (paused !== undefined) state.actions.push(paused);
      continue;
    }
    // Only a rename moves an active registration aside; a gone or demoted one may be deleted.
    // A terminating namespace's registration is drained first, when drain is on (drain.ts).
    const action =
      drainage(state, registration) ??
      (registration.source.kind === 'gone' || !registration.active
        ? deletion(state, registration)
        : demotion(state, registration));
    if (action !== undefined && !withholdRemoval(state, registration, action))
      state.actions.push(action);
  }
}

const ACTION_ORDER: Readonly<Record<Action['kind'], number>> = {
  create: 0,
  update: 1,
  demote: 2,
  delete: 3,
};

export function compareActions(a: Action, b: Action): number {
  return (
    ACTION_ORDER[a.kind] - ACTION_ORDER[b.kind] ||
    compareStrings(a.cluster, b.cluster) ||
    compareStrings(actionTarget(a).name, actionTarget(b).name)
  );
}

export function compareWarnings(a: Warning, b: Warning): number {
  return (
    compareStrings(a.namespace ?? '', b.namespace ?? '') ||
    compareStrings(a.code, b.code) ||
    compareStrings(a.secret ?? '', b.secret ?? '') ||
    compareStrings(a.message, b.message)
  );
}
