// What incomplete input withholds, decided here alone so the preview shows what apply does:
// - A namespace whose Secrets were not read gets no verdict that rests on them (no `stale`,
//   no `waiting`): it is reported `unchanged`, `input-incomplete`, with the read failure, and
//   its registration stays as it is. It claims nothing this pass, but keeps a name it holds,
//   and a younger newcomer does not take a name it may have won (claims.ts, incumbency.ts).
// - Without a complete list of the target namespace's cluster Secrets, a hidden one may hold
//   the name or server a write would use (ArgoCD then sees duplicates), or be the Secret a
//   create would collide with: nothing is created, taken over, restored, given a new server,
//   demoted or deleted. Only an update of an observed registration that keeps its name and
//   server proceeds: conditional on its resourceVersion, it changes only the Secret we saw and
//   brings ArgoCD no name or server it did not already have.

import { compareStrings } from '../common/compare-strings.js';
import { parseTimestamp } from '../translate/registration.js';
import { describeSource, sourceNamespaceOf } from '../config/sources.js';
import type { Action } from '../common/types.js';
import type { Claim, Registration, Subject } from './model.js';
import type { BuiltClaims } from './claims.js';
import { warn, type PassState } from './pass-state.js';

/** The outcome message of a namespace whose Secrets could not be listed. */
export function unreadMessage(subject: Subject, kept: readonly string[]): string {
  const what =
    kept.length === 0
      ? 'nothing is registered or changed for it'
      : `${kept.join(', ')} is kept as it is`;
  return `the Secrets of namespace ${sourceNamespaceOf(subject.source.name)} could not be listed (${subject.unread ?? ''}); ${what} until they can be read`;
}

/**
 * Newcomer claims on a name that an older namespace with unread Secrets also claims: that
 * namespace may have a usable kubeconfig and so be the one the name belongs to. Dropped for
 * this pass (their namespaces are reported withheld); incumbents are never dropped.
 */
export function withholdContestedClaims(
  state: PassState,
  { claims, refused }: BuiltClaims,
): readonly Claim[] {
  const unreadClaimants = new Map<string, Subject>();
  for (const subject of state.subjects) {
    const cluster = subject.cluster;
    if (subject.unread === undefined || subject.terminating || subject.nameProblem !== undefined)
      continue;
    if (cluster === undefined || refused.has(subject)) continue;
    if (state.nameWinners.get(cluster)?.subject.source.name === subject.source.name) continue; // holds it already
    const other = unreadClaimants.get(cluster);
    if (other === undefined || older(subject, other)) unreadClaimants.set(cluster, subject);
  }
  if (unreadClaimants.size === 0) return claims;
  return claims.filter((claim) => {
    const unread = unreadClaimants.get(claim.cluster);
    if (claim.incumbent || unread === undefined || !older(unread, claim.subject)) return true;
    state.withheld.set(
      claim.subject,
      `${describeSource(unread.source.name)} is older and also claims ${JSON.stringify(claim.cluster)}, but its Secrets could not be listed (${unread.unread ?? ''}); the name is settled once they can be read`,
    );
    return false;
  });
}

function older(a: Subject, b: Subject): boolean {
  const at = parseTimestamp(a.source.creationTimestamp) ?? Number.MAX_SAFE_INTEGER;
  const bt = parseTimestamp(b.source.creationTimestamp) ?? Number.MAX_SAFE_INTEGER;
  return at < bt || (at === bt && compareStrings(a.source.name, b.source.name) < 0);
}

/**
 * Whether a won claim's write is withheld because the target namespace's cluster Secrets were
 * not all read (see the top of this file); records why for the namespace's outcome.
 */
export function withholdClaimWrite(
  state: PassState,
  claim: Claim,
  written: 'created' | 'taken over' | 'restored' | 'given its new server',
): boolean {
  const unread = state.snapshot.clusterSecretsUnread;
  if (unread === undefined) return false;
  state.withheld.set(
    claim.subject,
    `the cluster Secrets of ${state.config.targetNamespace} could not be listed (${unread}), and one of them may already use this name or server; ${claim.desired.name} is not ${written} until they can be read`,
  );
  return true;
}

/**
 * Whether a demotion or deletion is withheld because the target namespace's cluster Secrets
 * were not all read; says so in a warning, so the preview lists what waits.
 */
export function withholdRemoval(
  state: PassState,
  registration: Registration,
  action: Action,
): boolean {
  const unread = state.snapshot.clusterSecretsUnread;
  // A drain is a conditional update of an observed Secret: it adds no name or server.
  if (unread === undefined || (action.kind !== 'demote' && action.kind !== 'delete')) return false;
  const verb = action.kind === 'demote' ? 'demoted' : 'deleted';
  warn(
    state,
    'input-incomplete',
    `${registration.secret.name} would be ${verb} (${action.reason.code}), but the cluster Secrets of ${state.config.targetNamespace} could not be listed (${unread}); it is kept until they can be read`,
    action.reason.namespace === '' ? undefined : action.reason.namespace,
    registration.secret.name,
  );
  return true;
}
