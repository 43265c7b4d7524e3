// Reports a source's outcome when it changes, not on every pass: a log line always, and a
// Kubernetes Event on the source, a namespace or a Cluster (registered, waiting and what
// almost matched, refused and why, stale, skipped, drained) when this instance writes.
// `registered` and `unchanged` are one state for this purpose: a credential refresh is not
// news.
//
// A log line's message is fixed per kind of source, so a query on it finds one kind:
// `namespace registered`, `Cluster registered`, and so on; `registration stale` and
// `registration drained` are about the registration, whatever its source. Its fields name the
// source the same way for both (logging.ts sourceLogFields).

import { clusterSourceKey, parseSourceKey } from '@argocd-cluster-registrar/core';
import type { NamespaceOutcome, Plan } from '@argocd-cluster-registrar/core';
import {
  recordClusterEvent,
  recordNamespaceEvent,
  recordProfileEvent,
  recordSecretEvent,
} from '@argocd-cluster-registrar/k8s-adapter';
import type { ActionResult, ApiFailure, KubeAccess } from '@argocd-cluster-registrar/k8s-adapter';
import { EventQueue } from './event-queue.js';
import type { EventSendResult } from './event-queue.js';
import { childNews, type ChildSeen } from './child-events.js';
import { ProfileNews, foldPublished, type ProfileEvent } from './profile-events.js';
import { sourceLogFields, type Logger } from './logging.js';
import type { PassReport } from './reconciler.js';

export const EVENT_COMPONENT = 'argocd-cluster-registrar';
/**
 * Events in flight at once for a one-shot run: after a first run over thousands of
 * namespaces, an unbounded fan-out opens one TLS connection per Event at once (measured:
 * +1 GiB resident at 10,000).
 */
const EVENT_CONCURRENCY = 8;

type Category = 'registered' | 'waiting' | 'refused' | 'stale' | 'skipped' | 'drained';
const NEWS_IN_MESSAGE: ReadonlySet<Category> = new Set(['waiting', 'stale', 'skipped']);

interface Seen {
  readonly key: string;
}

export interface OutcomeEvent {
  readonly namespace: string;
  /**
   * Recorded on this registration Secret instead of the namespace: a terminating namespace
   * accepts no new objects, Events included.
   */
  readonly onRegistration?: string;
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export class OutcomeReporter {
  private readonly seen = new Map<string, Seen>();
  /** Each source's child as last reported: its pause and its reachability (child-events.ts). */
  private readonly children = new Map<string, ChildSeen>();
  private warnings = new Set<string>();
  private readonly profileNews = new ProfileNews();
  /** The `Registered` Events queued and still waiting, by source (foldPublished). */
  private registeredBefore = new Map<string, OutcomeEvent>();

  /**
   * `events` is where Events wait to be sent; by default a one-shot run's queue: no rate
   * limit, as many in flight as EVENT_CONCURRENCY (the run waits for them with `eventsSent`).
   */
  constructor(
    private readonly access: KubeAccess,
    private readonly targetNamespace: string,
    private readonly logger: Logger,
    private readonly events: EventQueue = new EventQueue({
      perSecond: Infinity,
      burst: EVENT_CONCURRENCY,
      concurrency: EVENT_CONCURRENCY,
    }),
    /** Where the registrations are: the host, or a target's own cluster. */
    private readonly registrationAccess: KubeAccess = access,
  ) {}

  /**
   * Compares each outcome with the last one seen and reports changes. Events are queued only
   * when `emitEvents` (the pass was applied by a writer), never waited for: a pass's writes
   * and the next pass come first (event-queue.ts). Returns the events it decided on.
   */
  report(pass: PassReport, emitEvents: boolean): readonly OutcomeEvent[] {
    const uids = new Map(pass.snapshot.namespaces.map((ns) => [ns.name, ns.uid]));
    // Cluster sources are keyed `<namespace>/<name>`, as their outcomes are.
    for (const cluster of pass.snapshot.clusters ?? [])
      uids.set(clusterSourceKey(cluster.namespace, cluster.name), cluster.uid);
    const events: OutcomeEvent[] = [];
    const present = new Set<string>();
    for (const outcome of pass.plan.outcomes) {
      present.add(outcome.namespace);
      const child = childNews(
        outcome,
        this.children.get(outcome.namespace),
        findWrite(pass.results, pass.plan, outcome),
        this.targetNamespace,
      );
      if (child !== undefined) {
        this.children.set(outcome.namespace, child.seen);
        for (const event of child.events) {
          this.logger.info(`child ${event.reason.toLowerCase()}`, {
            ...sourceLogFields(outcome.namespace),
            cluster: outcome.cluster,
            detail: event.message,
          });
          events.push(event);
        }
      }
      // Incomplete input withholds a verdict; it is not one. The last outcome reported
      // stands, so an outage sends no "Registered" when it starts and again when it ends.
      if (outcome.reason?.code === 'input-incomplete') continue;
      const category = categorise(outcome);
      // A waiting, stale or skipped namespace whose message changed is news: its hint names
      // what almost matched, which changes as its owner tries a fix.
      const detail = NEWS_IN_MESSAGE.has(category) ? (outcome.reason?.message ?? '') : '';
      const key = `${category}|${outcome.reason?.code ?? ''}|${outcome.cluster ?? ''}|${detail}`;
      const previous = this.seen.get(outcome.namespace);
      if (previous?.key === key) continue;

      // A registration counts once its write succeeded; a failed write is retried and
      // reported on the pass that lands it. A pass that writes nothing (dry run, standby)
      // leaves it to be reported by the pass that does.
      const write = findWrite(pass.results, pass.plan, outcome);
      if (outcome.state === 'registered' && write?.status !== 'applied') continue;
      // Likewise a drain planned this pass counts once it landed (an earlier one already did).
      if (outcome.state === 'drained' && write !== undefined && write.status !== 'applied')
        continue;

      this.seen.set(outcome.namespace, { key });
      this.log(outcome, category, previous === undefined);
      const event = eventFor(outcome, category, previous === undefined, this.targetNamespace);
      if (event !== undefined) events.push(event);
    }
    for (const name of [...this.seen.keys()]) if (!present.has(name)) this.seen.delete(name);
    for (const name of [...this.children.keys()])
      if (!present.has(name)) this.children.delete(name);
    this.reportWarnings(pass);
    const inventory = pass.profiles?.state === 'planned' ? pass.profiles.plan : undefined;
    const folded = foldPublished(
      events,
      this.profileNews.report(pass.profiles, this.logger),
      inventory?.namespace ?? '',
      this.registeredBefore,
    );

    if (emitEvents && pass.applied) {
      const registrations = new Map(
        pass.snapshot.clusterSecrets
          .filter((secret) => secret.namespace === this.targetNamespace)
          .map((secret) => [secret.name, secret.uid]),
      );
      for (const event of events) {
        const send = this.sender(event, uids, registrations, pass.clusterApiVersion);
        if (send !== undefined) this.events.enqueue(event.namespace, send);
      }
      const profileEvents = [...folded.profileEvents];
      for (const { registered, published } of folded.amendments) {
        const send = this.sender(registered, uids, registrations, pass.clusterApiVersion);
        // Sent already (or never queued): the profile's own Event says it after all.
        if (send === undefined || !this.events.amend(registered.namespace, send))
          profileEvents.push(published);
      }
      for (const event of profileEvents) {
        if (inventory === undefined) break;
        const send = this.profileSender(event, inventory, uids, pass.clusterApiVersion);
        // Its own line in the queue: a profile's news never supersedes its source's.
        const line =
          event.on.kind === 'profile'
            ? `ClusterProfile ${event.on.name}`
            : `${event.on.source} ClusterProfile`;
        if (send !== undefined) this.events.enqueue(line, send);
      }
      // Kept while they wait: the profiles follow in batches, maybe passes later. An entry
      // goes once used, once its Event went out, or once something newer about its source
      // was queued (amending would undo that).
      const next = new Map<string, OutcomeEvent>();
      const queued = new Set(events.map((e) => e.namespace));
      const amended = new Set(folded.amendments.map((a) => a.registered.namespace));
      for (const [source, event] of this.registeredBefore)
        if (!queued.has(source) && !amended.has(source) && this.events.waits(source))
          next.set(source, event);
      for (const event of events)
        if (event.reason === 'Registered') next.set(event.namespace, event);
      this.registeredBefore = next;
    }
    return events;
  }

  /** How to send a profile's Event: on the profile, or (a notice) on its source. */
  private profileSender(
    event: ProfileEvent,
    plan: { readonly namespace: string; readonly apiVersion: string },
    uids: ReadonlyMap<string, string>,
    clusterApiVersion: string | undefined,
  ): (() => Promise<EventSendResult>) | undefined {
    const { on, ...note } = event;
    if (on.kind === 'source')
      return this.sender({ namespace: on.source, ...note }, uids, new Map(), clusterApiVersion);
    const profile = {
      namespace: plan.namespace,
      name: on.name,
      uid: on.uid,
      version: plan.apiVersion,
    };
    return async () => {
      const failure = await recordProfileEvent(this.access, profile, note, EVENT_COMPONENT);
      if (failure === undefined) return 'sent';
      this.logger.debug('could not record event', {
        profile: `${profile.namespace}/${profile.name}`,
        reason: event.reason,
        kind: failure.kind,
        error: failure.message,
      });
      return failure.connection === 'timeout' ? 'timed-out' : 'failed';
    };
  }

  /**
   * A one-shot run's applied rounds, reported together: their Events start once all are
   * queued, so a profile a later round published is said in its source's `Registered` Event.
   */
  reportRounds(rounds: readonly PassReport[]): void {
    this.events.hold();
    try {
      for (const round of rounds) if (round.applied) this.report(round, true);
    } finally {
      this.events.release();
    }
  }

  /** Resolves once every Event queued so far was sent, failed or dropped. */
  eventsSent(): Promise<void> {
    return this.events.drained();
  }

  /**
   * How to send one Event, with its object resolved now (by the uid this pass saw); nothing
   * when the object is not known, as a registration that was never written.
   */
  private sender(
    event: OutcomeEvent,
    uids: ReadonlyMap<string, string>,
    registrations: ReadonlyMap<string, string>,
    clusterApiVersion: string | undefined,
  ): (() => Promise<EventSendResult>) | undefined {
    const note = { type: event.type, reason: event.reason, message: event.message };
    let record: () => Promise<ApiFailure | undefined>;
    if (event.onRegistration !== undefined) {
      const uid = registrations.get(event.onRegistration);
      if (uid === undefined) return undefined;
      const secret = { namespace: this.targetNamespace, name: event.onRegistration, uid };
      record = () => recordSecretEvent(this.registrationAccess, secret, note, EVENT_COMPONENT);
    } else {
      const uid = uids.get(event.namespace);
      if (uid === undefined) return undefined;
      const source = parseSourceKey(event.namespace);
      if (source.kind === 'Cluster') {
        // A Cluster was read at the version discovery found; without one, nothing to name.
        if (clusterApiVersion === undefined) return undefined;
        const cluster = { ...source, uid, version: clusterApiVersion };
        record = () => recordClusterEvent(this.access, cluster, note, EVENT_COMPONENT);
      } else {
        const namespace = { name: source.name, uid };
        record = () => recordNamespaceEvent(this.access, namespace, note, EVENT_COMPONENT);
      }
    }
    return async () => {
      const failure = await record();
      if (failure === undefined) return 'sent';
      this.logger.debug('could not record event', {
        ...sourceLogFields(event.namespace),
        reason: event.reason,
        kind: failure.kind,
        error: failure.message,
      });
      return failure.connection === 'timeout' ? 'timed-out' : 'failed';
    };
  }

  // A plan warning is news the first time it appears; repeated every pass it is noise.
  private reportWarnings(pass: PassReport): void {
    const current = new Set<string>();
    for (const warning of pass.plan.warnings) {
      const key = `${warning.code}|${warning.namespace ?? ''}|${warning.secret ?? ''}|${warning.message}`;
      current.add(key);
      const fields = {
        code: warning.code,
        ...sourceLogFields(warning.namespace),
        secret: warning.secret,
        detail: warning.message,
      };
      if (this.warnings.has(key)) this.logger.debug('plan warning', fields);
      else this.logger.warn('plan warning', fields);
    }
    this.warnings = current;
  }

  private log(outcome: NamespaceOutcome, category: Category, first: boolean): void {
    const fields = {
      ...sourceLogFields(outcome.namespace),
      cluster: outcome.cluster,
      state: outcome.state,
      reason: outcome.reason?.code,
      source:
        outcome.source !== undefined ? `${outcome.source.secret}/${outcome.source.key}` : undefined,
    };
    const message = outcome.reason?.message;
    const kind = parseSourceKey(outcome.namespace).kind === 'Cluster' ? 'Cluster' : 'namespace';
    switch (category) {
      case 'registered':
        if (!first || outcome.state === 'registered')
          this.logger.info(`${kind} registered`, fields);
        else this.logger.debug(`${kind} registered (unchanged)`, fields);
        return;
      case 'waiting':
        this.logger.info(`${kind} waiting for a kubeconfig`, { ...fields, detail: message });
        return;
      case 'refused':
        this.logger.warn(`${kind} refused`, {
          ...fields,
          detail: message,
          rejected: outcome.rejected.map(
            (r) => `${r.candidate.secret}/${r.candidate.key}: ${r.refusal.code}`,
          ),
        });
        return;
      case 'stale':
        this.logger.warn('registration stale', { ...fields, detail: message });
        return;
      case 'drained':
        this.logger.info('registration drained', { ...fields, detail: message });
        return;
      case 'skipped':
        // A missing cluster label is also a plan warning, logged by reportWarnings; a second
        // warn line for the same fact is noise. (A terminating namespace has no warning.)
        if (outcome.reason?.code === 'cluster-label-missing')
          this.logger.debug(`${kind} skipped`, { ...fields, detail: message });
        else this.logger.info(`${kind} skipped`, { ...fields, detail: message });
        return;
    }
  }
}

/**
 * The reason as the source's owner may read it: a refusal that names another source (its
 * namespace, Cluster or server) carries a version that does not; the log keeps the full one.
 */
function sourceMessage(outcome: NamespaceOutcome): string | undefined {
  const reason = outcome.reason;
  if (reason === undefined) return undefined;
  return ('sourceMessage' in reason ? reason.sourceMessage : undefined) ?? reason.message;
}

function categorise(outcome: NamespaceOutcome): Category {
  return outcome.state === 'unchanged' ? 'registered' : outcome.state;
}

function findWrite(
  results: readonly ActionResult[],
  plan: Plan,
  outcome: NamespaceOutcome,
): ActionResult | undefined {
  if (outcome.cluster === undefined) return undefined;
  const planned = plan.actions.some(
    (a) => a.cluster === outcome.cluster && (a.kind === 'create' || a.kind === 'update'),
  );
  if (!planned) return undefined;
  return results.find(
    (r) =>
      r.action.cluster === outcome.cluster &&
      (r.action.kind === 'create' || r.action.kind === 'update'),
  );
}

function eventFor(
  outcome: NamespaceOutcome,
  category: Category,
  first: boolean,
  targetNamespace: string,
): OutcomeEvent | undefined {
  const namespace = outcome.namespace;
  switch (category) {
    case 'registered':
      // After a restart every healthy namespace is `unchanged`: that is not news.
      if (first && outcome.state !== 'registered') return undefined;
      return {
        namespace,
        type: 'Normal',
        reason: 'Registered',
        message: `Registered with ArgoCD as cluster "${outcome.cluster ?? ''}" (Secret ${targetNamespace}/cluster-${outcome.cluster ?? ''}${outcome.source !== undefined ? `, kubeconfig from Secret ${outcome.source.secret} key ${outcome.source.key}` : ''})`,
      };
    case 'refused':
      return {
        namespace,
        type: 'Warning',
        reason: 'Refused',
        message: sourceMessage(outcome) ?? 'refused',
      };
    case 'stale':
      return {
        namespace,
        type: 'Warning',
        reason: 'Stale',
        message: `Registration kept but stale: ${outcome.reason?.message ?? 'the kubeconfig is missing or unusable'}`,
      };
    case 'drained':
      // On the registration (in the target namespace): the terminating namespace refuses it.
      return {
        namespace,
        onRegistration: `cluster-${outcome.cluster ?? ''}`,
        type: 'Normal',
        reason: 'Drained',
        message: outcome.reason?.message ?? 'drained',
      };
    case 'waiting':
      // The hint (which Secret almost matches, and the flag that reads it) is for whoever owns
      // the namespace, who reads its Events rather than the registrar's log.
      return {
        namespace,
        type: 'Normal',
        reason: 'Waiting',
        message: outcome.reason?.message ?? 'waiting for a kubeconfig Secret',
      };
    case 'skipped':
      // A terminating namespace accepts no new Event, and nothing of it is registered.
      if (outcome.reason?.code === 'terminating') return undefined;
      return {
        namespace,
        type: 'Warning',
        reason: 'Skipped',
        message: outcome.reason?.message ?? 'skipped',
      };
  }
}
