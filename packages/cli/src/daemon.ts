// The long-running loop. Level-triggered: every trigger (namespace watch event, the full
// interval, a re-check of a waiting namespace, an error retry) only records *what* to look
// at; one loop takes the accumulated work and runs a pass, so passes never overlap and a
// burst of events becomes one pass.

import { hostname } from 'node:os';
import type { Config, RefusalCode } from '@argocd-cluster-registrar/core';
import {
  createGatherer,
  createLeaderElector,
  watchManagedNamespaces,
} from '@argocd-cluster-registrar/k8s-adapter';
import type {
  Gatherer,
  KubeAccess,
  LeaderElector,
  NamespaceWatch,
} from '@argocd-cluster-registrar/k8s-adapter';
import type { Logger } from './logging.js';
import type { RegistrarMetrics } from './metrics.js';
import { OutcomeReporter } from './outcome-events.js';
import { passNeedsRetry, runPass } from './reconciler.js';
import type { PassReport, PassScope } from './reconciler.js';
import type { ProbeResult } from './server.js';

export interface DaemonTiming {
  /** Quiet time after the last watch event before a pass (bursts coalesce). */
  readonly debounceMs: number;
  /** Longest a pending event waits while events keep arriving. */
  readonly maxDelayMs: number;
  /** First re-check delay of a waiting/stale namespace. */
  readonly recheckMs: number;
  /** How long a namespace is re-checked every `recheckMs` before backing off (doubling, capped at the interval). */
  readonly recheckFastWindowMs: number;
  /** First retry delay after a failed pass (doubling, capped at the interval). */
  readonly retryMs: number;
}

export const DEFAULT_TIMING: DaemonTiming = {
  debounceMs: 150,
  maxDelayMs: 1000,
  recheckMs: 1000,
  // Five minutes of prompt re-checks cover a provisioner that is still booting its cluster;
  // after that the namespace is more likely broken than slow, so re-checks thin out.
  recheckFastWindowMs: 300_000,
  retryMs: 1000,
};

export interface DaemonOptions {
  readonly access: KubeAccess;
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics: RegistrarMetrics;
  readonly leaderElect: boolean;
  readonly timing?: Partial<DaemonTiming>;
  readonly identity?: string;
  readonly leaseDurationSeconds?: number;
  /** Called after every pass (tests and benchmarks observe progress through it). */
  readonly onPass?: (report: PassReport) => void;
  readonly now?: () => number;
}

// Refusals that a change to the kubeconfig Secret can cure (a namespace's Secrets are not
// watched, so these are re-checked like `waiting`). Name and collision refusals change only
// with namespaces, which the watch covers.
// A Record, not a Set, so a new refusal code fails to compile until it is classified here.
const CURABLE_BY_KUBECONFIG: Readonly<Record<RefusalCode, boolean>> = {
  'kubeconfig-unreadable': true,
  'kubeconfig-not-yaml': true,
  'kubeconfig-no-context': true,
  'kubeconfig-context-dangling': true,
  'server-missing': true,
  'server-invalid': true,
  'server-in-cluster': true,
  'server-loopback': true,
  'ca-invalid': true,
  'client-cert-invalid': true,
  'client-cert-incomplete': true,
  'credentials-missing': true,
  'file-reference': true,
  'exec-plugin': true,
  'exec-unsupported': true,
  'auth-provider': true,
  impersonation: true,
  'proxy-url-invalid': true,
  'no-candidate': true,
  'name-missing': false,
  'name-invalid': false,
  'name-claimed': false,
  'name-foreign': false,
  'server-collision': false,
  'server-override-invalid': false,
  'target-foreign': false,
};

function curableByKubeconfig(code: string): boolean {
  return (CURABLE_BY_KUBECONFIG as Readonly<Record<string, boolean>>)[code] === true;
}

interface Recheck {
  /** When the namespace was first seen needing a re-check. */
  readonly since: number;
  /** Re-checks made after the fast window. */
  slow: number;
  dueAt: number;
}

export class Daemon {
  private readonly timing: DaemonTiming;
  private readonly gatherer: Gatherer;
  private reporter: OutcomeReporter;
  private readonly now: () => number;
  private readonly log: Logger;

  private watch: NamespaceWatch | undefined;
  private elector: LeaderElector | undefined;
  private loop: Promise<void> | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;

  // Work accumulated between passes.
  private readonly pending = new Set<string>();
  private firstPendingAt = 0;
  private lastPendingAt = 0;
  private fullDueAt = 0;
  private readonly rechecks = new Map<string, Recheck>();
  private retryAt = 0;
  private failureStreak = 0;

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
    this.gatherer = createGatherer(options.access, options.config);
    this.reporter = this.newReporter();
    this.loopAliveAt = this.now();
  }

  private newReporter(): OutcomeReporter {
    const { access, config, logger } = this.options;
    return new OutcomeReporter(access, config.targetNamespace, logger);
  }

  /** Starts the watch, the elector and the loop; the first pass is a full one, at once. */
  start(): void {
    const { access, config, metrics } = this.options;
    this.fullDueAt = this.now();
    this.watch = watchManagedNamespaces(access, config, {
      onChange: (namespace) => {
        this.enqueue(namespace);
      },
      onError: (failure) => {
        metrics.apiErrors.inc({ kind: failure.kind });
        this.log.warn('namespace watch failed; reconnecting', {
          kind: failure.kind,
          error: failure.message,
        });
      },
      onRestart: () => {
        // Events may have been missed while disconnected: look at everything again.
        this.log.debug('namespace watch restarted; scheduling a full pass');
        this.fullDueAt = Math.min(this.fullDueAt, this.now() + this.timing.debounceMs);
        this.notify();
      },
    });
    if (this.options.leaderElect) {
      this.elector = createLeaderElector(access, config, {
        identity: this.options.identity ?? `${hostname()}_${process.pid}`,
        ...(this.options.leaseDurationSeconds !== undefined
          ? { leaseDurationSeconds: this.options.leaseDurationSeconds }
          : {}),
        onChange: (leader) => {
          metrics.leader.set({}, leader ? 1 : 0);
          this.log.info(leader ? 'became the leader' : 'not the leader; standing by', {});
          // A new leader starts from a full pass, and reports every namespace afresh: what
          // it noticed while standing by was never reported as Events.
          if (leader) {
            this.fullDueAt = this.now();
            this.reporter = this.newReporter();
          }
          this.notify();
        },
      });
      metrics.leader.set({}, 0);
      this.elector.start();
    } else {
      metrics.leader.set({}, 1);
    }
    this.loop = this.run();
  }

  /** Stops the watch, lets the current pass finish, releases the lease. */
  async stop(): Promise<void> {
    if (this.stopping) return this.loop;
    this.stopping = true;
    this.watch?.stop();
    this.notify();
    await this.loop;
    await this.elector?.stop();
    this.options.metrics.leader.set({}, 0);
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

  private enqueue(namespace: string): void {
    const now = this.now();
    if (this.pending.size === 0) this.firstPendingAt = now;
    this.lastPendingAt = now;
    this.pending.add(namespace);
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** When the next pass is due, and what it covers. */
  private nextWork(now: number): { at: number; scope: PassScope } {
    const writer = this.isWriter();
    let at = this.fullDueAt;
    if (writer && this.retryAt === 0) {
      if (this.pending.size > 0) {
        at = Math.min(
          at,
          Math.min(
            this.lastPendingAt + this.timing.debounceMs,
            this.firstPendingAt + this.timing.maxDelayMs,
          ),
        );
      }
      for (const recheck of this.rechecks.values()) at = Math.min(at, recheck.dueAt);
    }
    if (this.retryAt !== 0) at = Math.min(this.retryAt, this.fullDueAt);
    if (at > now) return { at, scope: { full: true } };
    if (!writer || this.retryAt !== 0 || this.fullDueAt <= now)
      return { at, scope: { full: true } };
    const names = new Set(this.pending);
    for (const [name, recheck] of this.rechecks) if (recheck.dueAt <= now) names.add(name);
    return { at, scope: { full: false, namespaces: [...names].sort() } };
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      const now = this.now();
      this.loopAliveAt = now;
      const work = this.nextWork(now);
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
    const startedAt = this.now();
    this.passStartedAt = startedAt;
    const writer = this.isWriter();
    const covered = scope.full ? undefined : new Set(scope.namespaces);
    // Take the work now: events arriving during the pass queue up for the next one.
    if (scope.full) {
      this.pending.clear();
      this.fullDueAt = startedAt + config.intervalMs;
      this.retryAt = 0;
    } else {
      for (const name of scope.namespaces) this.pending.delete(name);
    }

    let report: PassReport | undefined;
    try {
      report = await runPass(
        {
          access: this.options.access,
          config,
          gatherer: this.gatherer,
          logger: this.log,
          metrics,
          now: this.now,
        },
        { scope, apply: writer },
      );
    } catch (err) {
      // A broken invariant or library error: keep the process, retry with back-off.
      metrics.passes.inc({ scope: scope.full ? 'full' : 'partial', result: 'error' });
      this.log.error('pass failed', { error: err instanceof Error ? err.message : String(err) });
    } finally {
      this.passStartedAt = undefined;
    }

    const finishedAt = this.now();
    if (report === undefined || passNeedsRetry(report)) {
      this.failureStreak += 1;
      const delay = Math.min(
        this.timing.retryMs * 2 ** (this.failureStreak - 1),
        config.intervalMs,
      );
      this.retryAt = finishedAt + delay;
      this.log.debug('pass incomplete; retrying with back-off', {
        inMs: delay,
        streak: this.failureStreak,
      });
    } else {
      this.failureStreak = 0;
      this.retryAt = 0;
    }
    if (report === undefined) return;

    if (report.gatherFailures.length === 0) {
      if (writer) this.completedOk = true;
      else this.standbyConnected = true;
    }
    this.scheduleRechecks(report, covered, finishedAt);
    if (!report.applied && report.plan.actions.length > 0) this.logPreview(report, writer);
    await this.reporter.report(report, writer);
    this.options.onPass?.(report);
  }

  private scheduleRechecks(
    report: PassReport,
    covered: ReadonlySet<string> | undefined,
    now: number,
  ): void {
    const { intervalMs } = this.options.config;
    const still = new Set<string>();
    for (const outcome of report.plan.outcomes) {
      const needs =
        outcome.state === 'waiting' ||
        outcome.state === 'stale' ||
        (outcome.state === 'refused' &&
          outcome.reason !== undefined &&
          curableByKubeconfig(outcome.reason.code));
      if (!needs) continue;
      still.add(outcome.namespace);
      const existing = this.rechecks.get(outcome.namespace);
      if (existing === undefined) {
        this.rechecks.set(outcome.namespace, {
          since: now,
          slow: 0,
          dueAt: now + this.timing.recheckMs,
        });
      } else if (covered === undefined || covered.has(outcome.namespace)) {
        let delay = this.timing.recheckMs;
        if (now - existing.since >= this.timing.recheckFastWindowMs) {
          existing.slow += 1;
          delay = Math.min(this.timing.recheckMs * 2 ** Math.min(existing.slow, 30), intervalMs);
        }
        existing.dueAt = now + Math.min(delay, intervalMs);
      }
    }
    for (const name of [...this.rechecks.keys()]) if (!still.has(name)) this.rechecks.delete(name);
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
          namespace: action.reason.namespace,
        },
      );
    }
  }
}
