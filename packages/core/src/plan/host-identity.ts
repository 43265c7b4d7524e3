// Whose registration a Secret is, when registrars on several hosts write into one ArgoCD: ours
// only when both its managed-by and its host identity are ours. Another host's registration is
// foreign (never updated, demoted, deleted or taken over): its source lives on that host, and
// only that host can prove it gone. One with our managed-by and no host identity is adopted in
// a target of this cluster (only a registrar here can have written it); in a remote target
// another host's may have, so it is never adopted and the operator can label it.

import type { LabelKeys } from '../config/label-keys.js';
import { sortedRecord } from '../common/compare-strings.js';
import type { Action, Config, Labels, ObservedSecret } from '../common/types.js';

export type Owner =
  /** Our managed-by and our host identity (or no identity to compare, in a local target). */
  | 'ours'
  /** Our managed-by, another host's identity. */
  | 'other-host'
  /** Our managed-by, no host identity, in a remote target: maybe another host's. */
  | 'unmarked-remote'
  /** Not our managed-by. */
  | 'foreign';

export function ownerOf(config: Config, keys: LabelKeys, labels: Labels): Owner {
  if (labels[keys.managedBy] !== config.managedBy) return 'foreign';
  const host = config.hostId;
  if (host === undefined) return 'ours';
  const recorded = labels[keys.hostId];
  if (recorded === undefined) return config.target?.remote === true ? 'unmarked-remote' : 'ours';
  return recorded === host ? 'ours' : 'other-host';
}

/**
 * Why a Secret that is not ours is not, and how to make way, for messages that already said
 * which Secret it is. `undefined` for a Secret without our managed-by (the caller says that).
 */
export function otherHostNote(
  config: Config,
  keys: LabelKeys,
  secret: ObservedSecret,
): string | undefined {
  const owner = ownerOf(config, keys, secret.labels);
  const target = config.target;
  const template =
    target === undefined
      ? 'a target with a nameTemplate (--targets-file), such as host-a-{name}'
      : `a nameTemplate for target ${JSON.stringify(target.name)} in --targets-file, such as host-a-{name}`;
  if (owner === 'other-host')
    return `it is the registration of another host (${keys.hostId}=${secret.labels[keys.hostId] ?? ''}; this host is ${config.hostId ?? ''}), and only that host may change it; give this host's clusters names of their own with ${template}`;
  if (owner === 'unmarked-remote')
    return `it carries ${keys.managedBy}=${config.managedBy} but no ${keys.hostId}, and in a target of another cluster it may be another host's, so it is never adopted; if it is this host's, label it (kubectl label secret -n ${secret.namespace} ${secret.name} ${keys.hostId}=${config.hostId ?? ''}), or use ${template}`;
  return undefined;
}

/**
 * Every write records this host, including those that only relabel an existing registration
 * (demoting, restoring, draining, pausing): an unmarked registration is adopted by whichever
 * write reaches it first, and a write never leaves it unmarked.
 */
export function recordingHost(action: Action, config: Config, keys: LabelKeys): Action {
  const host = config.hostId;
  if (host === undefined || action.kind === 'delete') return action;
  if (action.secret.labels[keys.hostId] === host) return action;
  const labels = sortedRecord({ ...action.secret.labels, [keys.hostId]: host });
  return { ...action, secret: { ...action.secret, labels } };
}
