// Each namespace that may claim a name asks for `cluster-<name>`, with the registration its
// kubeconfig gives. A claim is refused up front when a Secret we do not manage stands in the
// way (names.ts) or the name's registration is pinned to another namespace (incumbency.ts);
// the rest are settled by incumbency.ts.

import { buildRegistration, registrationName, type RegistrationResult } from '../registration.js';
import { normaliseServer } from '../server-address.js';
import type { ObservedSecret } from '../types.js';
import type { BuildMemo, Claim, Registration, Selection, Subject } from './model.js';
import { HOLDS_REGISTRATION, pinnedRefusal, win } from './incumbency.js';
import { foreignRefusal } from './names.js';
import type { PassState } from './pass-state.js';
import { pauseOf } from './pause.js';
import { movingRefusal, restoration } from './rename.js';

export function buildClaims(state: PassState): Claim[] {
  const claims: Claim[] = [];
  const subjects = state.subjects;
  for (let i = 0; i < subjects.length; i++) {
    const subject = subjects[i] as Subject;
    const cluster = subject.cluster;
    if (subject.terminating || subject.nameProblem !== undefined || cluster === undefined) continue;
    const name = subject.secretName ?? registrationName(cluster);
    const held = state.memo.secretNamedFor(subject.memo, name);
    const refusal = foreignRefusal(state, subject, cluster, name, held);
    if (refusal !== undefined) {
      subject.refusal = refusal;
      continue;
    }
    const target = held?.registration;
    const incumbent =
      target?.role === 'incumbent' &&
      target.source.kind === 'managed' &&
      target.source.subject === subject;
    if (target !== undefined && !incumbent && target.role !== 'releasable') {
      subject.refusal =
        target.role === 'moving'
          ? movingRefusal(state, target)
          : pinnedRefusal(state, target, subject);
      continue;
    }
    if (incumbent) win(state, subject, cluster, HOLDS_REGISTRATION);
    // Its kubeconfig is unknown: it keeps a name it holds, and claims nothing else this pass.
    if (subject.unread !== undefined) continue;
    const claim = claimFor(state, subject, cluster, target, incumbent);
    if (claim !== undefined) claims.push(claim);
  }
  return claims;
}

function claimFor(
  state: PassState,
  subject: Subject,
  cluster: string,
  target: Registration | undefined,
  incumbent: boolean,
): Claim | undefined {
  const chosen = subject.selection?.chosen;
  if (chosen === undefined) {
    // Reverting the label restores a demoted registration intact even without a kubeconfig.
    const restored = restoration(state, target, incumbent);
    if (restored === undefined) return undefined;
    return {
      subject,
      cluster,
      target,
      incumbent,
      desired: restored.desired,
      server: restored.server,
      translation: undefined,
      memo: undefined,
      won: false,
      refusal: undefined,
    };
  }
  const memo = build(state, subject, cluster, chosen, target?.secret);
  const built = memo.result;
  for (const warning of built.warnings) state.warnings.push(warning);
  if (!built.ok) {
    subject.refusal = built.refusal;
    return undefined;
  }
  return {
    subject,
    cluster,
    target,
    incumbent,
    desired: built.secret,
    server: memo.server ?? normaliseServer(built.server),
    translation: chosen.translation,
    memo,
    won: false,
    refusal: undefined,
  };
}

/**
 * buildRegistration, remembered while the namespace, its translation and the existing
 * registration keep their versions (the result is a pure function of those).
 */
function build(
  state: PassState,
  subject: Subject,
  cluster: string,
  chosen: NonNullable<Selection['chosen']>,
  existing: ObservedSecret | undefined,
): BuildMemo {
  const namespace = subject.namespace;
  const entry = subject.memo;
  const cached = entry.build;
  const pause = pauseOf(state, namespace, existing);
  if (
    cached !== undefined &&
    (cached.namespaceObject === namespace ||
      (cached.namespaceVersion !== undefined &&
        cached.namespaceVersion === namespace.resourceVersion)) &&
    cached.translation === chosen.translation &&
    cached.provider === chosen.candidate.provider &&
    cached.cluster === cluster &&
    cached.existingUid === existing?.uid &&
    cached.existingVersion === existing?.resourceVersion &&
    cached.pause === pause
  )
    return cached;
  const result: RegistrationResult = buildRegistration({
    namespace,
    cluster,
    provider: chosen.candidate.provider,
    translation: chosen.translation,
    keys: state.keys,
    config: state.config,
    ...(namespace.capi === undefined ? {} : { capi: namespace.capi }),
    ...(existing === undefined ? {} : { existing }),
    ...(pause === undefined ? {} : { pause }),
  });
  const built: BuildMemo = {
    namespaceVersion: namespace.resourceVersion,
    namespaceObject: namespace.resourceVersion === undefined ? namespace : undefined,
    cluster,
    provider: chosen.candidate.provider,
    translation: chosen.translation,
    existingUid: existing?.uid,
    existingVersion: existing?.resourceVersion,
    pause,
    result,
    server: result.ok ? normaliseServer(result.server) : undefined,
    comparison: undefined,
    repointed: undefined,
  };
  entry.build = built;
  return built;
}
