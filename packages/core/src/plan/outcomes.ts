// One outcome per managed namespace: what happened to it this pass and why, in the words an
// operator reads in the status and the preview. Refusals were decided by the steps before;
// this only chooses which one to report, in a fixed precedence: terminating, unusable name,
// refused claim, incomplete input (input-completeness.ts), deferred credentials, no usable
// kubeconfig, name taken anyway, waiting.

import type { CandidateRef, NamespaceOutcome } from '../types.js';
import { nameClaimedRefusal, otherWinner } from './incumbency.js';
import { unreadMessage } from './input-completeness.js';
import { noKubeconfigLeft, waitingMessage } from './kubeconfig-choice.js';
import { drainOutcome } from './drain.js';
import { registeredCertificateOf } from './compare.js';
import type { Subject } from './model.js';
import type { PassState } from './pass-state.js';
import { describeSource, sourceEnding } from '../sources.js';

export function outcome(state: PassState, subject: Subject): NamespaceOutcome {
  const namespace = subject.namespace.name;
  const claim = subject.claim;
  const chosen = subject.selection?.chosen;
  const probe = state.snapshot.children?.[namespace];
  // The common case, built directly: a namespace whose registration is (now) up to date.
  if (
    claim?.translation !== undefined &&
    chosen !== undefined &&
    !state.deferred.has(subject) &&
    !state.withheld.has(subject)
  ) {
    const rejected = subject.selection?.rejected ?? [];
    const written = state.written.has(subject) || claim.target === undefined;
    const outcomeState = written ? 'registered' : 'unchanged';
    const notAfter = claim.translation.clientCertificate?.notAfter;
    const credential = claim.translation.credential;
    const paused = claim.memo?.pause;
    // Last pass's outcome when it says the same (immutable data: sharing it is safe).
    const previous = subject.memo.outcome;
    if (
      previous?.namespace === namespace &&
      previous.cluster === claim.cluster &&
      previous.rejected === rejected &&
      previous.source === chosen.candidate &&
      previous.state === outcomeState &&
      previous.credentialNotAfter === notAfter &&
      previous.credential === credential &&
      previous.paused === paused &&
      previous.probe === probe &&
      previous.reason === undefined
    )
      return previous;
    const fresh: { -readonly [K in keyof NamespaceOutcome]: NamespaceOutcome[K] } = {
      namespace,
      cluster: claim.cluster,
      rejected,
      source: chosen.candidate,
      state: outcomeState,
      credential,
    };
    if (notAfter !== undefined) fresh.credentialNotAfter = notAfter;
    if (paused !== undefined) fresh.paused = paused;
    if (probe !== undefined) fresh.probe = probe;
    subject.memo.outcome = fresh;
    return fresh;
  }
  const base = {
    namespace,
    ...(subject.cluster === undefined ? {} : { cluster: subject.cluster }),
    rejected: subject.selection?.rejected ?? [],
    ...(probe === undefined ? {} : { probe }),
  };
  const source: { source?: CandidateRef } =
    chosen === undefined ? {} : { source: chosen.candidate };
  const kept = subject.registrations.map((registration) => registration.secret.name);
  if (subject.terminating) {
    // Drain on (drain.ts): the registration is kept without its copied labels.
    const drained = drainOutcome(state, subject, base);
    if (drained !== undefined) return drained;
    const message = `${describeSource(namespace)} ${sourceEnding(namespace)}; ${kept.length === 0 ? 'nothing is registered for it' : `${kept.join(', ')} is kept until it is gone, so ArgoCD can still finalise its Applications`}`;
    return {
      ...base,
      state: kept.length === 0 ? 'skipped' : 'unchanged',
      reason: { code: 'terminating', message },
    };
  }
  if (subject.nameProblem !== undefined) {
    return {
      ...base,
      state: subject.nameProblem.code === 'cluster-label-missing' ? 'skipped' : 'refused',
      reason: withKept(subject.nameProblem, kept),
    };
  }
  if (subject.refusal !== undefined) {
    return { ...base, ...source, state: 'refused', reason: withKept(subject.refusal, kept) };
  }
  // Neither stale nor waiting: what those would rest on was not read.
  const withheld =
    subject.unread === undefined ? state.withheld.get(subject) : unreadMessage(subject, kept);
  if (withheld !== undefined) {
    return {
      ...base,
      ...source,
      state: 'unchanged',
      reason: { code: 'input-incomplete', message: withheld },
    };
  }
  const deferral = state.deferred.get(subject);
  if (deferral !== undefined) {
    return {
      ...base,
      ...source,
      state: 'unchanged',
      reason: { code: 'credential-refresh-deferred', message: deferral.message },
      // Deferred writes are credential-only changes: the registered form is the claim's.
      ...(claim?.translation === undefined ? {} : { credential: claim.translation.credential }),
      ...(deferral.notAfter === undefined ? {} : { credentialNotAfter: deferral.notAfter }),
    };
  }
  // No usable kubeconfig.
  const rejected = subject.selection?.rejected ?? [];
  const first = rejected[0];
  const registered = kept.length > 0 || claim !== undefined;
  if (registered) {
    const names = claim === undefined ? kept : [claim.desired.name];
    const why =
      first === undefined
        ? noKubeconfigLeft(state, subject) // near misses: kubeconfig-choice.ts
        : `its kubeconfig is unusable: ${first.refusal.message}`;
    // The credential actually registered keeps serving ArgoCD: its expiry is reported, so an
    // expiring registration nobody can refresh shows before it breaks.
    const registeredSecret = claim?.target?.secret ?? subject.registrations[0]?.secret;
    const notAfter =
      registeredSecret === undefined
        ? undefined
        : registeredCertificateOf(registeredSecret)?.notAfter;
    return {
      ...base,
      ...(notAfter === undefined ? {} : { credentialNotAfter: notAfter }),
      state: 'stale',
      reason: {
        code: first?.refusal.code ?? 'no-candidate',
        message: `${why}; ${names.join(', ')} keeps its last registered credentials until this is fixed`,
      },
    };
  }
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
  if (first !== undefined) return { ...base, state: 'refused', reason: first.refusal };
  return {
    ...base,
    state: 'waiting',
    // Names the near misses, if any: kubeconfig-choice.ts
    reason: { code: 'waiting-for-kubeconfig', message: waitingMessage(state, subject) },
  };
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
