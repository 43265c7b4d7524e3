// News of the cluster inventory, reported as a source's news is (outcome-events.ts): an Event
// on the ClusterProfile when it is published, changed or withdrawn (in the inventory
// namespace, where its consumers look), and a Warning on the source when its profile cannot
// be published (another cluster manager holds the name, the name is not an object name). A
// notice is logged and recorded once while it lasts, not every pass. A status write is not
// news: it is data for consumers, and what changes it (a child's reachability) is reported on
// the source already.

import { describeSource } from '@argocd-cluster-registrar/core';
import type { ProfileAction, ProfileNotice } from '@argocd-cluster-registrar/core';
import type { ProfilePassReport } from './profile-pass.js';
import type { Logger } from './logging.js';
import { sourceLogFields } from './logging.js';

export interface ProfileEvent {
  /** The profile written (by its uid), or the source whose profile is not published. */
  readonly on:
    | {
        readonly kind: 'profile';
        readonly name: string;
        readonly uid: string;
        /** The source it was written for (none for a deletion). */
        readonly source?: string;
      }
    | { readonly kind: 'source'; readonly source: string };
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export class ProfileNews {
  /** The notices of the last planned pass, by what makes one the same. */
  private notices = new Set<string>();

  /** One pass's news: its applied writes, and the notices it is the first to see. */
  report(report: ProfilePassReport | undefined, logger: Logger): ProfileEvent[] {
    // A pass that could not plan profiles says nothing new about them: the notices stand.
    if (report?.state !== 'planned') {
      if (report === undefined) this.notices.clear();
      return [];
    }
    const { plan } = report;
    const events: ProfileEvent[] = [];
    for (const result of report.results) {
      if (result.status !== 'applied' || result.uid === undefined) continue;
      const event = writeEvent(result.action, plan.namespace);
      if (event === undefined) continue;
      const { action } = result;
      const source = action.kind === 'delete' ? undefined : action.source;
      events.push({
        on: {
          kind: 'profile',
          name: action.cluster,
          uid: result.uid,
          ...(source === undefined ? {} : { source }),
        },
        ...event,
      });
    }
    const current = new Set<string>();
    for (const notice of plan.notices) {
      const key = `${notice.code}|${notice.cluster}|${notice.message}`;
      current.add(key);
      const fields = {
        ...sourceLogFields(notice.source),
        cluster: notice.cluster,
        code: notice.code,
      };
      if (this.notices.has(key)) {
        logger.debug(notice.message, fields);
        continue;
      }
      logger.warn(notice.message, fields);
      const event = noticeEvent(notice);
      if (event !== undefined) events.push(event);
    }
    this.notices = current;
    return events;
  }
}

function writeEvent(
  action: ProfileAction,
  namespace: string,
): Omit<ProfileEvent, 'on'> | undefined {
  const profile = `ClusterProfile ${namespace}/${action.cluster}`;
  switch (action.kind) {
    case 'create':
      return {
        type: 'Normal',
        reason: 'Published',
        message: `Published ${profile} for ${describeSource(action.source)}`,
      };
    case 'update':
      return {
        type: 'Normal',
        reason: 'Updated',
        message: `Updated ${action.changed.join(', ')} of ${profile} from ${describeSource(action.source)}`,
      };
    case 'status':
      return undefined;
    case 'delete': {
      const { reason } = action;
      const why =
        reason.code === 'renamed'
          ? `${describeSource(reason.source)} registers as ${reason.supersededBy} now`
          : reason.code === 'registration-deleted'
            ? `the registration of ${describeSource(reason.source)} was deleted (${reason.proof})`
            : `${describeSource(reason.source)} is gone (${reason.proof})`;
      return { type: 'Normal', reason: 'Withdrawn', message: `Deleted ${profile}: ${why}` };
    }
  }
}

/** A notice about one source goes to that source, whose owner can rename its cluster. */
function noticeEvent(notice: ProfileNotice): ProfileEvent | undefined {
  if (notice.source === undefined) return undefined;
  return {
    on: { kind: 'source', source: notice.source },
    type: 'Warning',
    reason: 'ProfileNotPublished',
    message: notice.message,
  };
}

/** An Event about a source, as outcome-events.ts queues it. */
export interface SourceNews {
  readonly namespace: string;
  readonly reason: string;
  readonly message: string;
}

/**
 * A profile published by the pass that registered its source, or by a later one (profiles
 * follow the registrations as written: reconciler.ts; a daemon publishes them in batches)
 * while the source's `Registered` Event still waits to be sent, is said in that Event rather
 * than in one of its own: otherwise a cold start at N sources posts 2N Events for N pieces of
 * news. This pass's `events` are amended in place; earlier passes' (`registeredBefore`, still
 * queued) are returned to amend in the queue, with the profile's own Event to send if that
 * one went out meanwhile.
 */
export function foldPublished<E extends SourceNews>(
  events: E[],
  profileEvents: readonly ProfileEvent[],
  namespace: string,
  registeredBefore: ReadonlyMap<string, E>,
): {
  readonly profileEvents: readonly ProfileEvent[];
  readonly amendments: readonly { registered: E; published: ProfileEvent }[];
} {
  const now = new Map<string, number>();
  events.forEach((event, index) => {
    if (event.reason === 'Registered') now.set(event.namespace, index);
  });
  const queued = new Set(events.map((event) => event.namespace));
  const amendments: { registered: E; published: ProfileEvent }[] = [];
  const kept = profileEvents.filter((event) => {
    const { on } = event;
    if (event.reason !== 'Published' || on.kind !== 'profile' || on.source === undefined)
      return true;
    const suffix = `; published as ClusterProfile ${namespace}/${on.name}`;
    const index = now.get(on.source);
    const current = index === undefined ? undefined : events[index];
    if (index !== undefined && current !== undefined) {
      events[index] = { ...current, message: `${current.message}${suffix}` };
      return false;
    }
    // Only while nothing newer about the source was queued this pass: amending would undo it.
    const earlier = registeredBefore.get(on.source);
    if (earlier === undefined || queued.has(on.source)) return true;
    amendments.push({
      registered: { ...earlier, message: `${earlier.message}${suffix}` },
      published: event,
    });
    return false;
  });
  return { profileEvents: kept, amendments };
}
