// What a demotion or deletion rests on, per reason, and whether a fresh look at its source
// still shows it. A plan is made from a gather that may be seconds old; in those seconds a
// rename can be reverted or a namespace re-created, and the plan's proof no longer holds.
// The Secret's own preconditions (uid + resourceVersion, sent with the write) cannot see
// that: the Secret did not change, its source did. So the adapter looks the source up once
// more right before it sends a demote or delete and asks these rules; anything short of an
// answer that still proves the point withholds the write.

import { labelKeys } from '../config/label-keys.js';
import { claimedClusterName, describeSource, parseSourceKey } from '../config/sources.js';
import { targetClusterName } from '../config/targets.js';
import type { LabelKeys } from '../config/label-keys.js';
import type { Action, Config, Labels, ObservedSecret, SourceLookup } from '../common/types.js';

/** An action whose proof is re-checked before it is sent. */
export type ProvenAction = Extract<Action, { readonly kind: 'demote' | 'delete' }>;

/** Why a proof no longer holds, as data (the message says it in words). */
export type ProofLapse =
  /** The fresh lookup failed: it proves nothing either way. */
  | 'source-unreadable'
  /** Demote: the source is gone, so this is no rename (deletion has its own proof). */
  | 'source-gone'
  /** Demote: the source was re-created (another uid than the registration records). */
  | 'source-recreated'
  /** Demote: the source claims the demoted name again (the rename was reverted). */
  | 'rename-reverted'
  /** Delete of a source that was not found: it exists again. */
  | 'source-exists-again'
  /** Delete of a source that was replaced: the recorded one is back. */
  | 'recorded-source-back'
  /** Delete of an expired demotion: its source claims it again (it is about to be restored). */
  | 'claimed-again';

export type WriteProof =
  | { readonly holds: true }
  | { readonly holds: false; readonly lapse: ProofLapse; readonly why: string };

const HOLDS: WriteProof = { holds: true };

/**
 * The source (a namespace name or `<namespace>/<name>` of a Cluster, see sources.ts) that
 * an action's proof rests on and that must be looked up again before it is sent; `undefined`
 * when it rests on none: creates and updates cannot turn a live registration into a lost
 * one, and an expired demotion that records no source has nothing that could reclaim it.
 */
export function proofSource(action: Action): string | undefined {
  if (action.kind !== 'demote' && action.kind !== 'delete') return undefined;
  const source = action.reason.namespace;
  return source === '' ? undefined : source;
}

/**
 * Whether `action` still rests on what `now` (a fresh lookup of {@link proofSource}) shows.
 * `registration` is the Secret the plan was made against: it records the source's uid.
 */
export function writeProof(
  action: ProvenAction,
  registration: ObservedSecret | undefined,
  now: SourceLookup,
  config: Pick<Config, 'labelPrefix' | 'capiClusterNames' | 'capiClusterNameLabel' | 'target'>,
): WriteProof {
  const keys = labelKeys(config.labelPrefix);
  const source = action.reason.namespace;
  const subject = describeSource(source);
  if (now.state === 'unknown')
    return lapsed('source-unreadable', `${subject} could not be read (${now.reason})`);
  const recordedUid = recordedUidOf(registration, source, keys);
  const claims =
    now.state === 'present' && claimedName(source, now.labels, keys, config) === action.cluster;

  if (action.kind === 'demote') {
    // Rests on: the source still exists as recorded and now claims another cluster name.
    if (now.state === 'notFound') return lapsed('source-gone', `${subject} is gone; not a rename`);
    if (recordedUid !== undefined && now.uid !== recordedUid)
      return lapsed('source-recreated', `${subject} was re-created; not a rename`);
    if (claims)
      return lapsed(
        'rename-reverted',
        `${subject} claims ${action.cluster} again (rename reverted)`,
      );
    return HOLDS;
  }

  const reason = action.reason;
  switch (reason.code) {
    case 'source-namespace-not-found':
    case 'source-cluster-not-found':
      // Rests on: the source is not found.
      return now.state === 'notFound'
        ? HOLDS
        : lapsed('source-exists-again', `${subject} exists again`);
    case 'source-namespace-replaced':
    case 'source-cluster-replaced':
      // Rests on: the recorded source is gone (absent, or another one of that name).
      return now.state === 'notFound' || now.uid !== reason.recordedUid
        ? HOLDS
        : lapsed('recorded-source-back', `${subject} has the recorded uid again`);
    case 'demotion-expired': {
      // Rests on the Secret's own stale-since (its resourceVersion precondition guards
      // that); withheld only while the recorded source claims the name again.
      const reclaimed =
        now.state === 'present' && claims && (recordedUid === undefined || now.uid === recordedUid);
      return reclaimed
        ? lapsed('claimed-again', `${subject} claims ${action.cluster} again`)
        : HOLDS;
    }
  }
}

/** The uid the registration records for its source: a namespace's or a Cluster's label. */
function recordedUidOf(
  registration: ObservedSecret | undefined,
  source: string,
  keys: LabelKeys,
): string | undefined {
  const key =
    parseSourceKey(source).kind === 'Cluster' ? keys.sourceClusterUid : keys.sourceNamespaceUid;
  return registration?.labels[key];
}

/** The cluster name a source with `labels` registers under, as the planner reads it (plan/names.ts). */
function claimedName(
  source: string,
  labels: Labels,
  keys: LabelKeys,
  config: Pick<Config, 'capiClusterNames' | 'capiClusterNameLabel' | 'target'>,
): string | undefined {
  return targetClusterName(
    config,
    claimedClusterName(parseSourceKey(source), labels, keys.cluster, config),
  );
}

function lapsed(lapse: ProofLapse, why: string): WriteProof {
  return { holds: false, lapse, why: `stale plan: ${why}` };
}
