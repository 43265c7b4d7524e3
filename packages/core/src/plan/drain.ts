// Drain before deregistration (opt-in, Config.drainOnTerminate). A terminating source's
// registration is kept until the source is provably gone (source-proof.ts), but with drain on
// it loses the labels it copied from the source: ApplicationSet cluster generators select on
// those, so ArgoCD removes the generated Applications while it can still reach the cluster to
// run their finalizers. What makes the Secret a registration, and ours, stays: ArgoCD's
// secret-type label, our reserved labels, other owners' labels, every annotation and the data.

import { hasPrefix } from '../config/label-keys.js';
import { drainedSecret } from '../translate/relabel.js';
import type { Action, NamespaceOutcome } from '../common/types.js';
import type { Registration, Subject } from './model.js';
import { warn, type PassState } from './pass-state.js';
import { updateOf } from './secret-fields.js';
import { describeSource, sourceEnding, sourceNoun } from '../config/sources.js';

/**
 * The update that drains an active registration of a terminating namespace; `undefined` when
 * drain is off, the namespace is not terminating, nothing is left to remove, or
 * `<prefix>prune=disabled` keeps the registration as it is (with a warning).
 */
export function drainage(state: PassState, registration: Registration): Action | undefined {
  const source = registration.source;
  if (!state.config.drainOnTerminate || !registration.active) return undefined;
  if (source.kind !== 'managed' || !source.subject.terminating) return undefined;
  const subject = source.subject;
  const keys = state.keys;
  // The labels copied from its source.
  const removed = Object.keys(registration.secret.labels)
    .filter((key) => hasPrefix(keys, key) && !keys.reserved.has(key))
    .sort();
  if (removed.length === 0) return undefined;
  if (registration.pruneDisabled) {
    warn(
      state,
      'prune-disabled',
      `${registration.secret.name} is not drained although ${describeSource(subject.source.name)} ${sourceEnding(subject.source.name)}: it carries ${keys.prune}=disabled`,
      subject.source.name,
      registration.secret.name,
    );
    return undefined;
  }
  const secret = drainedSecret(registration.secret, keys);
  const reason = { code: 'drained', namespace: subject.source.name, labels: removed } as const;
  return updateOf(registration.cluster, registration.secret, secret, reason);
}

/**
 * The outcome of a terminating namespace whose registrations are drained (this pass or
 * before); `undefined` when drain does not apply and the plain `terminating` outcome stands.
 */
export function drainOutcome(
  state: PassState,
  subject: Subject,
  base: Pick<NamespaceOutcome, 'namespace' | 'cluster' | 'rejected'>,
): NamespaceOutcome | undefined {
  if (!state.config.drainOnTerminate || !subject.terminating) return undefined;
  const drained = subject.registrations.filter((registration) => !registration.pruneDisabled);
  if (drained.length === 0) return undefined;
  const names = drained.map((registration) => registration.secret.name).join(', ');
  const key = subject.source.name;
  const noun = sourceNoun(key);
  return {
    ...base,
    state: 'drained',
    reason: {
      code: 'drained',
      message: `${describeSource(key)} ${sourceEnding(key)}; ${names} stays registered without the labels copied from the ${noun}, so ApplicationSet generators that select on them remove its Applications while ArgoCD can still reach the cluster; it is deleted once the ${noun} is gone`,
    },
  };
}
