// The manager of the long-running loop: it owns the watches (through the watch gatherer),
// leader election, the probes and the stop signals, and runs one pass at a time.
// Level-triggered: every trigger (a watch event, the full interval, an error retry) only
// records *what* to look at in the schedule (schedule.ts, pure); one loop takes the
// accumulated work and runs a pass, so passes never overlap and a burst of events becomes
// one pass. A pass plans from what the watches hold, so the interval re-plans (time-based
// rules) without re-reading the world, and nothing is polled: a namespace waiting for its
// kubeconfig is planned again when the Secret watch sees the kubeconfig appear.

import { createSettledRepeat } from '@argocd-cluster-registrar/core';
import type { Config } from '@argocd-cluster-registrar/core';
import {
  createLeaderElector,
  createProfileReader,
  createWatchGatherer,
} from '@argocd-cluster-registrar/k8s-adapter';
import type {
  KubeAccess,
  LeaderElector,
  ListWatchTiming,
  PlanWriter,
  WatchGatherer,
} from '@argocd-cluster-registrar/k8s-adapter';
import { EXIT_ERROR } from './exit-codes.js';
import { sourceLogFields, type Logger } from './logging.js';
import type { RegistrarMetrics } from './metrics.js';
import { EventQueue } from './event-queue.js';
import { OutcomeReporter } from './outcome-events.js';
import { DEFAULT_RESYNC_PERIOD_MS } from './flags.js';
import { passNeedsRetry, runPass } from './reconciler.js';
import type { PassReport, PassScope } from './reconciler.js';
import { DEFAULT_TIMING, PassSchedule } from './schedule.js';
import type { DaemonTiming } from './schedule.js';
import type { ProbeResult } from './server.js';
import type { ProfileStage } from './profile-pass.js';

/** How long stop() waits for a pass in flight (leaves room for the Lease release in 10 s). */
const STOP_GRACE_MS = 4000;

/**
 * How fast the daemon's Events go out, behind its writes (event-queue.ts): a burst for the
 * news of one change, then 10 a second, so a cold start at 10,000 sources spends its
 * 10,000 `Registered` Events over about 17 minutes instead of holding the API server (and
 * the reactions that need it) busy at its own pace. Few in flight: each is a new request.
 */
const DAEMON_EVENTS = { perSecond: 10, burst: 25, concurrency: 4 } as const;

/**
 * ClusterProfile writes a daemon pass sends at most: a cold start at 10,000 sources then
 * holds 1,000 desired profiles at a time (about 2 MB) instead of 10,000, and passes follow
 * one another until all are published.
 */
const PROFILE_WRITES_PER_PASS = 1000;

export interface DaemonOptions {
  readonly access: KubeAccess;
  /**
   * Where plans go (the applier, or a dry-run writer), made for the access the daemon writes
   * through: fenced on the Lease when leader election is on.
   */
  readonly writerFor: (access: KubeAccess) => PlanWriter;
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics: RegistrarMetrics;
  readonly leaderElect: boolean;
  /**
   * Where the target's cluster Secrets are watched and written, when not on the host (a
   * target in another cluster). Sources are always read on the host (`access`).
   */
  readonly targetAccess?: KubeAccess;
  /**
   * An elector shared by the daemons of several targets (one Lease on this host fences the
   * writes to every target): the caller starts and stops it and calls `leadershipChanged`.
   */
  readonly elector?: LeaderElector;
  /** Where this daemon's own elector keeps its Lease; default the target namespace. */
  readonly leaseNamespace?: string;
  readonly timing?: Partial<DaemonTiming>;
  readonly identity?: string;
  readonly leaseDurationSeconds?: number;
  /** How often every watch re-lists; default 10 minutes. */
  readonly resyncPeriodMs?: number;
  readonly watchTiming?: Partial<ListWatchTiming>;
  /** ClusterProfile writes a pass sends at most; default {@link PROFILE_WRITES_PER_PASS}. */
  readonly profileWritesPerPass?: number;
  /** Called after every pass (tests and benchmarks observe progress through it). */
  readonly onPass?: (report: PassReport) => void;
  readonly now?: () => number;
}

/**
 * Resolves with the name of the first SIGTERM or SIGINT; a second one while the daemon
 * drains exits at once (exit code 1).
 */
/** SIGTERM to exit, at most: Kubernetes' grace period is 30 s, our promise is 10. */
const SHUTDOWN_LIMIT_MS = 9500;

export function stopSignal(): Promise<string> {
  return new Promise<string>((resolve) => {
    const first = (signal: string) => (): void => {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      const force = (): void => {
        process.exit(EXIT_ERROR);
      };
      process.once('SIGTERM', force);
      process.once('SIGINT', force);
      // Backstop: whatever is still in flight, the process exits within 10 s of the signal.
      setTimeout(force, SHUTDOWN_LIMIT_MS).unref();
      resolve(signal);
    };
    const onTerm = first('SIGTERM');
    const onInt = first('SIGINT');
    process.once('SIGTERM', onTerm);
    process.once('SIGINT', onInt);
  });
}

export class Daemon {
  private readonly timing: DaemonTiming;
  private gatherer: WatchGatherer | undefined;
  /** With --cluster-profiles: the inventory step, its watch kept as long as the gatherer's. */
  private profileStage: ProfileStage | undefined;
  /** The planner's last settled plan, kept as long as the gatherer (reconciler.ts). */
  private readonly repeat = createSettledRepeat();
  private reporter: OutcomeReporter;
  /** Events wait here, across leadership changes, and go out behind the passes. */
  private readonly events: EventQueue;
  private readonly now: () => number;
  private readonly log: Logger;

  private elector: LeaderElector | undefined;
  private loop: Promise<void> | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;
  /** Work accumulated between passes. */
  private readonly schedule: PassSchedule;

  // Probe state.
  private passStartedAt: number | undefined;
  private loopAliveAt: number;
  private completedOk = false;
  private standbyConnected = false;
  private lastActionsKey = '';

  constructor(private readonly options: DaemonOptions) {
    this.timing = { ...DEFAULT_TIMING, ...(options.timing ?? {}) };
    this.now = options.now ?? Date.now;
    this.log = options.logger;
    this.schedule = new PassSchedule(this.timing, options.config.intervalMs, this.now);
    this.events = new EventQueue({
      ...DAEMON_EVENTS,
      onSettled: (result) => {
        options.metrics.events.inc({ result });
      },
    });
    this.reporter = this.newReporter();
    this.loopAliveAt = this.now();
  }

  private newReporter(): OutcomeReporter {
    const { config, logger } = this.options;
    return new OutcomeReporter(
      this.fenced(this.options.access),
      config.targetNamespace,
      logger,
      this.events,
      this.writerAccess(),
    );
  }

  // --- fencing ---
  /**
   * The access every write of a pass goes through: with leader election, each Secret write
   * and Event is checked against the elector's fence right before it is sent.
   */
  private writerAccess(): KubeAccess {
    return this.fenced(this.options.targetAccess ?? this.options.access);
  }

  private fenced(access: KubeAccess): KubeAccess {
    return this.elector === undefined ? access : { ...access, writeFence: this.elector };
  }
  // --- end fencing ---

  /** Starts the watch, the elector and the loop; the first pass is a full one, at once. */
  start(): void {
    const { access, config, metrics } = this.options;
    this.schedule.fullPassNow();
    if (config.clusterProfiles) {
      this.profileStage = {
        maxWrites: this.options.profileWritesPerPass ?? PROFILE_WRITES_PER_PASS,
        reader: createProfileReader(access, {
          namespace: config.clusterProfileNamespace,
          mode: 'watch',
          rediscoverMs: config.intervalMs,
          ...(this.options.watchTiming !== undefined ? { timing: this.options.watchTiming } : {}),
        }),
      };
    }
    this.gatherer = createWatchGatherer(access, config, {
      onChange: (change) => {
        // A re-list may have seen anything change; a cluster Secret without a source
        // namespace concerns no namespace in particular: either way, one full pass.
        if (change.all || change.namespaces.length === 0) {
          this.schedule.fullPassSoon();
          this.notify();
        } else {
          for (const namespace of change.namespaces) this.schedule.enqueue(namespace);
          this.notify();
        }
      },
      onError: (watch, failure) => {
        metrics.apiErrors.inc({ kind: failure.kind });
        this.log.warn(`${watch} watch failed; reconnecting`, {
          kind: failure.kind,
          error: failure.message,
        });
      },
      onRecovered: (watch) => {
        this.log.info(`${watch} watch answers again`, {});
        this.schedule.retrySoon();
        this.notify();
      },
      resyncPeriodMs: this.options.resyncPeriodMs ?? DEFAULT_RESYNC_PERIOD_MS,
      ...(this.options.watchTiming !== undefined ? { timing: this.options.watchTiming } : {}),
      ...(this.options.targetAccess !== undefined
        ? { targetAccess: this.options.targetAccess }
        : {}),
    });
    if (this.options.elector !== undefined) {
      this.elector = this.options.elector;
      this.reporter = this.newReporter();
    } else if (this.options.leaderElect) {
      this.elector = createLeaderElector(access, config, {
        ...(this.options.leaseNamespace !== undefined
          ? { namespace: this.options.leaseNamespace }
          : {}),
        ...(this.options.identity !== undefined ? { identity: this.options.identity } : {}),
        ...(this.options.leaseDurationSeconds !== undefined
          ? { leaseDurationSeconds: this.options.leaseDurationSeconds }
          : {}),
        onChange: (leader) => {
          metrics.leader.set({}, leader ? 1 : 0);
          // The identity is the Lease's holderIdentity: it tells which replica leads.
          this.log.info(leader ? 'became the leader' : 'not the leader; standing by', {
            identity: this.elector?.identity ?? '',
          });
          this.leadershipChanged(leader);
        },
      });
      metrics.leader.set({}, 0);
      this.elector.start();
    } else {
      metrics.leader.set({}, 1);
    }
    this.loop = this.run();
  }

  /** The Lease was won or lost (this daemon's elector, or the one shared by several targets). */
  leadershipChanged(leader: boolean): void {
    // A new leader starts from a full pass, and reports every namespace afresh: what it
    // noticed while standing by was never reported as Events.
    if (leader) {
      this.schedule.fullPassNow();
      this.reporter = this.newReporter();
    }
    this.notify();
  }

  /**
   * Stops the watch, gives the current pass a few seconds to finish, releases the lease.
   * Bounded: SIGTERM must end the process within 10 s in every state. A
   * pass still running is left behind: the elector's stop shuts the write fence first, so
   * nothing more of it is sent once the Lease is released.
   */
  async stop(): Promise<void> {
    if (this.stopping) return this.loop;
    this.stopping = true;
    // Events are notes: what has not gone out by now is dropped, never waited for.
    this.events.close();
    // First, so a pass still waiting for the watches' first lists goes on at once (with an
    // incomplete, deletion-free snapshot) instead of holding SIGTERM up.
    this.gatherer?.stop();
    this.profileStage?.reader.stop();
    this.notify();
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([
      this.loop,
      new Promise<void>((resolve) => {
        grace = setTimeout(resolve, STOP_GRACE_MS);
      }),
    ]);
    clearTimeout(grace);
    // A shared elector is its owner's to stop, once every target's daemon has stopped.
    if (this.options.elector === undefined) {
      await this.elector?.stop();
      this.options.metrics.leader.set({}, 0);
    }
  }

  /** Liveness: the loop is not wedged (a pass or a sleep never outlasts a few intervals). */
  healthz(): ProbeResult {
    const limit = 3 * this.options.config.intervalMs + 60_000;
    const now = this.now();
    if (this.passStartedAt !== undefined && now - this.passStartedAt > limit) {
      return {
        ok: false,
        reason: `pass running for ${Math.round((now - this.passStartedAt) / 1000)}s`,
      };
    }
    if (this.passStartedAt === undefined && now - this.loopAliveAt > limit) {
      return { ok: false, reason: `loop idle for ${Math.round((now - this.loopAliveAt) / 1000)}s` };
    }
    return { ok: true, reason: 'loop alive' };
  }

  /** Readiness: a complete pass has run, or a standby has reached the API server. */
  readyz(): ProbeResult {
    if (this.completedOk) return { ok: true, reason: 'first pass completed' };
    if (this.standbyConnected && !this.isWriter())
      return { ok: true, reason: 'standby, connected' };
    return { ok: false, reason: 'no complete pass yet' };
  }

  private isWriter(): boolean {
    return this.elector === undefined || this.elector.isLeader();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      const now = this.now();
      this.loopAliveAt = now;
      const work = this.schedule.next(this.isWriter());
      if (work.at > now) {
        await this.sleep(work.at - now);
        continue;
      }
      await this.pass(work.scope);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => {
          this.wake = undefined;
          resolve();
        },
        Math.max(0, Math.min(ms, 2 ** 31 - 1)),
      );
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async pass(scope: PassScope): Promise<void> {
    const { config, metrics } = this.options;
    const gatherer = this.gatherer;
    if (gatherer === undefined) return;
    this.passStartedAt = this.now();
    const writer = this.isWriter();
    this.schedule.begin(scope);
    // The pass's writes go first: no Event starts while it runs.
    this.events.hold();

    let report: PassReport | undefined;
    try {
      report = await runPass(
        {
          config,
          writer: this.options.writerFor(this.writerAccess()),
          gatherer,
          repeat: this.repeat,
          logger: this.log,
          metrics,
          now: this.now,
          ...(this.profileStage === undefined
            ? {}
            : { profiles: { stage: this.profileStage, access: this.writerAccess() } }),
        },
        { scope, apply: writer },
      );
    } catch (err) {
      // A broken invariant or library error: keep the process, retry with back-off.
      metrics.passes.inc({ scope: scope.full ? 'full' : 'partial', result: 'error' });
      this.log.error('pass failed', { error: err instanceof Error ? err.message : String(err) });
    } finally {
      this.passStartedAt = undefined;
      this.events.release();
    }

    const retryInMs = this.schedule.finish({
      needsRetry: report === undefined || passNeedsRetry(report),
    });
    if (retryInMs !== undefined) {
      this.log.debug('pass incomplete; retrying with back-off', {
        inMs: retryInMs,
        streak: this.schedule.failureStreak,
      });
    }
    if (report === undefined) return;
    // Profiles left for a later pass by the batch limit: that pass follows at once.
    const profiles = report.profiles;
    if (
      profiles?.state === 'planned' &&
      profiles.plan.deferred > 0 &&
      profiles.results.some((r) => r.status === 'applied')
    )
      this.schedule.fullPassSoon();

    if (report.gatherFailures.length === 0) {
      if (writer) this.completedOk = true;
      else this.standbyConnected = true;
    }
    if (!report.applied && report.plan.actions.length > 0) this.logPreview(report, writer);
    this.reporter.report(report, writer);
    this.options.onPass?.(report);
  }

  // Dry-run daemons and standbys show what they would do, once per distinct plan.
  private logPreview(report: PassReport, writer: boolean): void {
    const key = report.plan.actions.map((a) => `${a.kind}:${a.cluster}:${a.reason.code}`).join('|');
    if (key === this.lastActionsKey) return;
    this.lastActionsKey = key;
    for (const action of report.plan.actions) {
      this.log.info(
        writer
          ? `dry-run: would ${action.kind} registration`
          : `standby: leader would ${action.kind} registration`,
        {
          cluster: action.cluster,
          reason: action.reason.code,
          ...sourceLogFields(action.reason.namespace),
        },
      );
    }
  }
}
