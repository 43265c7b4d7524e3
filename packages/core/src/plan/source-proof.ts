// Whether a registration's source (namespace or Cluster) is provably gone, and so whether it
// may be deleted. Nothing is deleted without positive proof: the source is not found, or found
// with another uid (re-created), or the registration has been demoted for longer than the
// demoted TTL. A missing label or a failed lookup proves nothing: the registration is kept,
// with a warning. `<prefix>prune=disabled` vetoes every deletion and demotion.

import { parseTimestamp } from '../translate/registration.js';
import { assertNever } from '../common/assert-never.js';
import type { Action, DeleteReason, ObservedSecret } from '../common/types.js';
import { describeSource, isClusterKey, sourceNoun } from '../config/sources.js';
import type { RecordedSource, Registration, SourceStatus } from './model.js';
import { changesAfter, warn, type PassState } from './pass-state.js';
import { observedRef } from './secret-fields.js';

/** Whose registration this is, and whether that source is provably gone. */
export function sourceStatus(
  state: PassState,
  secret: ObservedSecret,
  recorded: RecordedSource,
): SourceStatus {
  const { name, uid } = recorded;
  if (recorded.problem !== undefined) return unknown(state, secret, 'source', recorded.problem);
  if (name === undefined) {
    const why = `it has no ${state.keys.sourceNamespace} label`;
    return unknown(state, secret, 'source namespace', why);
  }
  const subject = state.sources.get(name);
  // The common case first: nothing is said, so nothing is formatted.
  if (subject !== undefined && uid !== undefined)
    return subject.source.uid === uid
      ? { kind: 'managed', subject }
      : replaced(name, uid, subject.source.uid);
  const what = `source ${sourceNoun(name)}`;
  if (subject !== undefined) return unknown(state, secret, what, missingUid(state, name));
  const lookups = state.snapshot.sourceLookups;
  const lookup = Object.hasOwn(lookups, name) ? lookups[name] : undefined;
  if (lookup === undefined) {
    // Cluster sources switched off: their registrations stay, and the message says why.
    const off =
      isClusterKey(name) && !state.config.capiClusters
        ? ' (Cluster sources are off: --capi-clusters)'
        : '';
    return unknown(state, secret, what, `${describeSource(name)} was not looked up${off}`);
  }
  switch (lookup.state) {
    case 'notFound':
      return { kind: 'gone', reason: { code: notFoundCode(name), namespace: name } };
    case 'present':
      if (uid === undefined) return unknown(state, secret, what, missingUid(state, name));
      if (lookup.uid !== uid) return replaced(name, uid, lookup.uid);
      return { kind: 'present', terminating: lookup.deletionTimestamp !== undefined };
    case 'unknown': {
      const why = `looking up ${describeSource(name)} failed: ${lookup.reason}`;
      return unknown(state, secret, what, why);
    }
    default:
      return assertNever(lookup, 'source lookup');
  }
}

/** A source of the recorded key exists with another uid: it was deleted and re-created. */
function replaced(namespace: string, recordedUid: string, observedUid: string): SourceStatus {
  const code = isClusterKey(namespace) ? 'source-cluster-replaced' : 'source-namespace-replaced';
  return { kind: 'gone', reason: { code, namespace, recordedUid, observedUid } };
}

/** Each kind of source has its own code, so a reader of the plan knows what was looked up. */
function notFoundCode(key: string): 'source-namespace-not-found' | 'source-cluster-not-found' {
  return isClusterKey(key) ? 'source-cluster-not-found' : 'source-namespace-not-found';
}

function missingUid(state: PassState, name: string): string {
  const key = isClusterKey(name) ? state.keys.sourceClusterUid : state.keys.sourceNamespaceUid;
  return `it has no ${key} label to tell ${describeSource(name)} from a re-created one`;
}

/** `what`: the source as far as the labels tell (`source namespace`, `source Cluster`, `source`). */
function unknown(
  state: PassState,
  secret: ObservedSecret,
  what: string,
  why: string,
): SourceStatus {
  warn(
    state,
    'source-unknown',
    `registration ${secret.name} is kept: its ${what} cannot be checked (${why})`,
    secret.labels[state.keys.sourceNamespace],
    secret.name,
  );
  return { kind: 'unknown', why };
}

/**
 * The deletion of a registration whose source is proven gone or whose demotion has expired
 * (the caller passes those and demoted ones only); `undefined` when it is kept.
 */
export function deletion(state: PassState, registration: Registration): Action | undefined {
  const source = registration.source;
  const remove = (reason: DeleteReason): Action => ({
    kind: 'delete',
    cluster: registration.cluster,
    target: observedRef(registration.secret),
    reason,
  });
  if (source.kind === 'gone') {
    if (registration.pruneDisabled) {
      vetoed(state, registration, `its source ${describeSource(source.reason.namespace)} is gone`);
      return undefined;
    }
    return remove(source.reason);
  }
  // An expired demotion rests on the Secret's own stale-since, and is withheld while its source
  // claims the name again: a source that cannot be read may, so it is kept (the warning that
  // its source cannot be checked says so) until the source reads as present or gone.
  if (source.kind === 'unknown') return undefined;
  const staleSince = registration.secret.annotations[state.keys.staleSince];
  const since = parseTimestamp(staleSince);
  if (since !== undefined) changesAfter(state, since + state.config.demotedTtlMs);
  if (
    staleSince === undefined ||
    since === undefined ||
    state.now - since <= state.config.demotedTtlMs
  )
    return undefined;
  if (registration.pruneDisabled) {
    vetoed(
      state,
      registration,
      `it has been demoted since ${staleSince}, longer than the demoted TTL`,
    );
    return undefined;
  }
  return remove({ code: 'demotion-expired', namespace: registration.sourceName ?? '', staleSince });
}

/** Warns that `<prefix>prune=disabled` kept a registration that would otherwise go. */
export function vetoed(state: PassState, registration: Registration, why: string): void {
  const verb =
    registration.active && registration.source.kind === 'managed' ? 'demoted' : 'deleted';
  warn(
    state,
    'prune-disabled',
    `${registration.secret.name} is not ${verb} although ${why}: it carries ${state.keys.prune}=disabled`,
    registration.sourceName,
    registration.secret.name,
  );
}
