// Each namespace that may claim a name asks for `cluster-<name>`, with the registration its
// kubeconfig gives. A claim is refused up front when a Secret we do not manage stands in the
// way (names.ts) or the name's registration is pinned to another namespace (incumbency.ts);
// the rest are settled by incumbency.ts.

import { registrationName } from '../translate/registration.js';
import { restoredSecret } from '../translate/relabel.js';
import { normaliseServer } from '../common/server-address.js';
import type { Refusal } from '../common/types.js';
import type { Claim, Registration, Subject } from './model.js';
import { HOLDS_REGISTRATION, pinnedRefusal, win } from './incumbency.js';
import { pinnedSecretRefusal } from './kubeconfig-choice.js';
import { foreignRefusal } from './names.js';
import type { PassState } from './pass-state.js';
import { pauseOf } from './pause.js';
import { movingRefusal } from './rename.js';

/** The claims of a pass, and the sources refused before any claim was settled, with why. */
export interface BuiltClaims {
  readonly claims: readonly Claim[];
  readonly refused: ReadonlyMap<Subject, Refusal>;
}

export function buildClaims(state: PassState): BuiltClaims {
  const claims: Claim[] = [];
  const refused = new Map<Subject, Refusal>();
  for (const subject of state.subjects) {
    const claim = claimOrRefusal(state, subject);
    if (claim === undefined) continue;
    if ('subject' in claim) claims.push(claim);
    else refused.set(subject, claim);
  }
  return { claims, refused };
}

/** The claim of a source, why it is refused, or `undefined` when it makes none this pass. */
function claimOrRefusal(state: PassState, subject: Subject): Claim | Refusal | undefined {
  const cluster = subject.cluster;
  if (subject.terminating || subject.nameProblem !== undefined || cluster === undefined)
    return undefined;
  const name = subject.secretName ?? registrationName(cluster);
  const held = state.targetSecrets.get(name);
  const refusal = foreignRefusal(state, subject, cluster, name, held);
  if (refusal !== undefined) return refusal;
  const target = held?.registration;
  const incumbent =
    target?.role === 'incumbent' &&
    target.source.kind === 'managed' &&
    target.source.subject.source.name === subject.source.name;
  if (target !== undefined && !incumbent && target.role !== 'releasable')
    return target.role === 'moving'
      ? movingRefusal(state, target)
      : pinnedRefusal(state, target, subject);
  if (incumbent) win(state, subject, cluster, HOLDS_REGISTRATION);
  // Its kubeconfig is unknown: it keeps a name it holds, and claims nothing else this pass.
  if (subject.unread !== undefined) return undefined;
  // It names no Secret it may have: refused, and the name it holds stays held.
  return (
    pinnedSecretRefusal(state, subject) ?? claimFor(state, subject, cluster, target, incumbent)
  );
}

function claimFor(
  state: PassState,
  subject: Subject,
  cluster: string,
  target: Registration | undefined,
  incumbent: boolean,
): Claim | Refusal | undefined {
  const chosen = subject.selection?.chosen;
  if (chosen === undefined) {
    // Reverting the label restores a demoted registration as it was, on its old server, even
    // without a kubeconfig (rename.ts).
    if (!incumbent || target === undefined || target.active || target.server === undefined)
      return undefined;
    const desired = restoredSecret(target.secret, state.keys);
    return {
      subject,
      cluster,
      target,
      incumbent,
      desired,
      server: target.server,
      translation: undefined,
      pause: undefined,
    };
  }
  const namespace = subject.source;
  const existing = target?.secret;
  const pause = pauseOf(state, namespace, existing, chosen.secret);
  const built = state.perObject.buildRegistration({
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
  for (const warning of built.warnings) state.warnings.push(warning);
  if (!built.ok) return built.refusal;
  return {
    subject,
    cluster,
    target,
    incumbent,
    desired: built.secret,
    server: normaliseServer(built.server),
    translation: chosen.translation,
    pause,
  };
}
