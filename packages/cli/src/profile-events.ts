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
