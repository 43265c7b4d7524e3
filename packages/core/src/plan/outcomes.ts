// One outcome per managed namespace: what happened to it this pass and why, in the words an
// operator reads in the status and the preview. The steps before decided; this only chooses
// which verdict to report, in the fixed precedence of outcome()'s chain.

import type { CandidateRef, NamespaceOutcome, Refusal } from '../common/types.js';
import { nameClaimedRefusal, otherWinner, type Settlement } from './incumbency.js';
import { unreadMessage } from './input-completeness.js';
import { noKubeconfigLeft, waitingMessage } from './kubeconfig-choice.js';
import { drainOutcome } from './drain.js';
import { registeredCertificateOf } from './compare.js';
import type { Claim, Subject } from './model.js';
import type { PassState } from './pass-state.js';
import { describeSource, sourceEnding } from '../config/sources.js';

/** What the outcome of a namespace that is not served is decided from. */
interface Context {
  readonly state: PassState;
  readonly subject: Subject;
  readonly claim: Claim | undefined;
  /** What every such outcome says: its name, cluster name, skipped candidates and probe. */
  readonly base: Pick<NamespaceOutcome, 'namespace' | 'cluster' | 'rejected' | 'probe'>;
  /** The registrations it keeps. */
  readonly kept: readonly string[];
}

export function outcome(state: PassState, subject: Subject, settled: Settlement): NamespaceOutcome {
  const claim = settled.won.get(subject);
  const served = servedOutcome(state, subject, claim);
  if (served !== undefined) return served;
  const probe = state.snapshot.children?.[subject.source.name];
  const base = {
    namespace: subject.source.name,
    ...(subject.cluster === undefined ? {} : { cluster: subject.cluster }),
    rejected: subject.selection?.rejected ?? [],
    ...(probe === undefined ? {} : { probe }),
  };
  const kept = subject.registrations.map((registration) => registration.secret.name);
  const context: Context = { state, subject, claim, base, kept };
  return (
    terminatingOutcome(context) ??
    refusedOutcome(context, settled.refused.get(subject)) ??
    withheldOutcome(context) ??
    deferredOutcome(context) ??
    staleOutcome(context) ??
    unregisteredOutcome(context)
  );
}

/** The common case: a won claim with a kubeconfig, written or up to date, nothing waiting. */
function servedOutcome(
  state: PassState,
  subject: Subject,
  claim: Claim | undefined,
): NamespaceOutcome | undefined {
  const chosen = subject.selection?.chosen;
  if (
    claim?.translation === undefined ||
    chosen === undefined ||
    state.deferred.has(subject) ||
    state.withheld.has(subject)
  )
    return undefined;
  const written = state.written.has(subject) || claim.target === undefined;
  const notAfter = claim.translation.clientCertificate?.notAfter;
  const probe = state.snapshot.children?.[subject.source.name];
  return {
    namespace: subject.source.name,
    cluster: claim.cluster,
    rejected: subject.selection?.rejected ?? [],
    source: chosen.candidate,
    state: written ? 'registered' : 'unchanged',
    credential: claim.translation.credential,
    ...(notAfter === undefined ? {} : { credentialNotAfter: notAfter }),
    ...(claim.pause === undefined ? {} : { paused: claim.pause }),
    ...(probe === undefined ? {} : { probe }),
  };
}

/** The source is being deleted: its registration is kept (or drained, drain.ts). */
function terminatingOutcome({ state, subject, base, kept }: Context): NamespaceOutcome | undefined {
  if (!subject.terminating) return undefined;
  const drained = drainOutcome(state, subject, base);
  if (drained !== undefined) return drained;
  const namespace = subject.source.name;
  const message = `${describeSource(namespace)} ${sourceEnding(namespace)}; ${kept.length === 0 ? 'nothing is registered for it' : `${kept.join(', ')} is kept until it is gone, so ArgoCD can still finalise its Applications`}`;
  return {
    ...base,
    state: kept.length === 0 ? 'skipped' : 'unchanged',
    reason: { code: 'terminating', message },
  };
}

/** An unusable name, or a claim refused by an earlier step. */
function refusedOutcome(
  { subject, base, kept }: Context,
  refusal: Refusal | undefined,
): NamespaceOutcome | undefined {
  if (subject.nameProblem !== undefined) {
    return {
      ...base,
      state: subject.nameProblem.code === 'cluster-label-missing' ? 'skipped' : 'refused',
      reason: withKept(subject.nameProblem, kept),
    };
  }
  if (refusal === undefined) return undefined;
  return {
    ...base,
    ...sourceOf(subject),
    state: 'refused',
    reason: withKept(refusal, kept),
  };
}

/** Neither stale nor waiting: what those would rest on was not read (input-completeness.ts). */
function withheldOutcome({ state, subject, base, kept }: Context): NamespaceOutcome | undefined {
  const withheld =
    subject.unread === undefined ? state.withheld.get(subject) : unreadMessage(subject, kept);
  if (withheld === undefined) return undefined;
  return {
    ...base,
    ...sourceOf(subject),
    state: 'unchanged',
    reason: { code: 'input-incomplete', message: withheld },
  };
}

/** A credential-only update that waits (credential-churn.ts). */
function deferredOutcome({ state, subject, claim, base }: Context): NamespaceOutcome | undefined {
  const deferral = state.deferred.get(subject);
  if (deferral === undefined) return undefined;
  const translation = claim?.translation;
  return {
    ...base,
    ...sourceOf(subject),
    state: 'unchanged',
    reason: { code: 'credential-refresh-deferred', message: deferral.message },
    // Deferred writes are credential-only changes: the registered form is the claim's.
    ...(translation === undefined ? {} : { credential: translation.credential }),
    ...(deferral.notAfter === undefined ? {} : { credentialNotAfter: deferral.notAfter }),
  };
}

/** Registered, but no usable kubeconfig is left: the registration keeps its credentials. */
function staleOutcome(context: Context): NamespaceOutcome | undefined {
  const { state, subject, claim, base, kept } = context;
  if (kept.length === 0 && claim === undefined) return undefined;
  const first = base.rejected[0];
  const names = claim === undefined ? kept : [claim.desired.name];
  const why =
    first === undefined
      ? noKubeconfigLeft(state, subject) // near misses: kubeconfig-choice.ts
      : `its kubeconfig is unusable: ${first.refusal.message}`;
  // The credential actually registered keeps serving ArgoCD: its expiry is reported, so an
  // expiring registration nobody can refresh shows before it breaks.
  const notAfter = registeredCertificateOf(
    claim?.target?.secret ?? subject.registrations[0]?.secret,
  )?.notAfter;
  const paused = state.keptPaused.get(subject);
  return {
    ...base,
    ...(notAfter === undefined ? {} : { credentialNotAfter: notAfter }),
    ...(paused === undefined ? {} : { paused }),
    state: 'stale',
    reason: {
      code: first?.refusal.code ?? 'no-candidate',
      message: `${why}; ${names.join(', ')} keeps its last registered credentials until this is fixed`,
    },
  };
}

/** Nothing registered: the name is taken anyway, the kubeconfig is unusable, or none yet. */
function unregisteredOutcome({ state, subject, base }: Context): NamespaceOutcome {
  // The name is taken anyway: say so now rather than after the kubeconfig appears.
  const cluster = subject.cluster ?? '';
  const winner = otherWinner(state, subject, cluster);
  if (winner !== undefined) {
    return {
      ...base,
      state: 'refused',
      reason: nameClaimedRefusal(state, cluster, winner, subject),
    };
  }
  const first = base.rejected[0];
  if (first !== undefined) return { ...base, state: 'refused', reason: first.refusal };
  return {
    ...base,
    state: 'waiting',
    // Names the near misses, if any: kubeconfig-choice.ts
    reason: { code: 'waiting-for-kubeconfig', message: waitingMessage(state, subject) },
  };
}

function sourceOf(subject: Subject): { source?: CandidateRef } {
  const chosen = subject.selection?.chosen;
  return chosen === undefined ? {} : { source: chosen.candidate };
}

function withKept<
  T extends { readonly code: string; readonly message: string; readonly sourceMessage?: string },
>(reason: T, kept: readonly string[]): T {
  if (kept.length === 0) return reason;
  const meanwhile = ` (${kept.join(', ')} stays registered meanwhile)`;
  return {
    ...reason,
    message: `${reason.message}${meanwhile}`,
    ...(reason.sourceMessage === undefined
      ? {}
      : { sourceMessage: `${reason.sourceMessage}${meanwhile}` }),
  };
}
