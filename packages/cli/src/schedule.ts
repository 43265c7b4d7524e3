// When the daemon's next pass is due and what it covers: pending namespaces from the
// watch, re-checks of namespaces that are waiting on their kubeconfig, the full interval,
// and back-off after a failed pass. Pure: it holds no timers and does no I/O; the time
// comes from the injected clock, so a test drives it with a fake one.

import type { NamespaceOutcome, RefusalCode } from '@argocd-cluster-registrar/core';
import type { PassScope } from './reconciler.js';

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

// Refusals that a change to the kubeconfig Secret can cure, re-checked like `waiting` when
// finish() is given outcomes. The daemon gives none since it watches Secrets (the watch
// reports the cure as it happens); the re-check schedule stays for a caller without that
// watch. Name and collision refusals change only with namespaces, which are watched.
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

/** Whether an outcome is worth looking at again before the next full pass. */
export function needsRecheck(outcome: NamespaceOutcome): boolean {
  return (
    outcome.state === 'waiting' ||
    outcome.state === 'stale' ||
    (outcome.state === 'refused' &&
      outcome.reason !== undefined &&
      curableByKubeconfig(outcome.reason.code))
  );
}

interface Recheck {
  /** When the namespace was first seen needing a re-check. */
  readonly since: number;
  /** Re-checks made after the fast window. */
  slow: number;
  dueAt: number;
}

export interface NextWork {
  /** Epoch ms at which the work is due (may be in the past: run now). */
  readonly at: number;
  readonly scope: PassScope;
}

/** What the schedule needs to know of a finished pass. */
export interface PassSummary {
  /** The pass failed in a way worth retrying sooner than the interval (or threw). */
  readonly needsRetry: boolean;
  /** The plan's outcomes; undefined when the pass threw. */
  readonly outcomes?: readonly NamespaceOutcome[];
}

export class PassSchedule {
  private readonly pending = new Set<string>();
  private firstPendingAt = 0;
  private lastPendingAt = 0;
  private fullDueAt: number;
  private readonly rechecks = new Map<string, Recheck>();
  private retryAt = 0;
  private streak = 0;
  /** Something a failed pass lacked answered again since the current pass began. */
  private recoveredSinceBegin = false;

  constructor(
    private readonly timing: DaemonTiming,
    private readonly intervalMs: number,
    private readonly now: () => number,
  ) {
    // The first pass is a full one, at once.
    this.fullDueAt = now();
  }

  /** Failed passes in a row. */
  get failureStreak(): number {
    return this.streak;
  }

  /** A watch event: look at this namespace soon (debounced). */
  enqueue(namespace: string): void {
    const now = this.now();
    if (this.pending.size === 0) this.firstPendingAt = now;
    this.lastPendingAt = now;
    this.pending.add(namespace);
  }

  /** Events may have been missed (the watch restarted): a full pass after the debounce. */
  fullPassSoon(): void {
    this.fullDueAt = Math.min(this.fullDueAt, this.now() + this.timing.debounceMs);
  }

  /**
   * What a failed pass lacked is back (a watch answers again): its retry runs after the
   * debounce instead of at the end of its back-off, which after a long outage has grown to
   * the interval. Remembered if a pass is running, whose failure it may already cure.
   */
  retrySoon(): void {
    this.recoveredSinceBegin = true;
    if (this.retryAt !== 0)
      this.retryAt = Math.min(this.retryAt, this.now() + this.timing.debounceMs);
  }

  /** A full pass at once (a new leader starts from one). */
  fullPassNow(): void {
    this.fullDueAt = this.now();
  }

  /** When the next pass is due, and what it covers; `writer` is false on a standby. */
  next(writer: boolean): NextWork {
    const now = this.now();
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

  /** Takes the work of a pass that starts now: events arriving during it queue up for the next. */
  begin(scope: PassScope): void {
    this.recoveredSinceBegin = false;
    if (scope.full) {
      this.pending.clear();
      this.fullDueAt = this.now() + this.intervalMs;
      this.retryAt = 0;
    } else {
      for (const name of scope.namespaces) this.pending.delete(name);
    }
  }

  /**
   * Records how the pass over `scope` went; returns the back-off delay when it is to be
   * retried early.
   */
  finish(scope: PassScope, summary: PassSummary): number | undefined {
    const now = this.now();
    let retryInMs: number | undefined;
    if (summary.needsRetry) {
      this.streak += 1;
      retryInMs = this.recoveredSinceBegin
        ? this.timing.debounceMs
        : Math.min(this.timing.retryMs * 2 ** (this.streak - 1), this.intervalMs);
      this.retryAt = now + retryInMs;
    } else {
      this.streak = 0;
      this.retryAt = 0;
    }
    if (summary.outcomes !== undefined) {
      this.scheduleRechecks(
        summary.outcomes,
        scope.full ? undefined : new Set(scope.namespaces),
        now,
      );
    }
    return retryInMs;
  }

  private scheduleRechecks(
    outcomes: readonly NamespaceOutcome[],
    covered: ReadonlySet<string> | undefined,
    now: number,
  ): void {
    const still = new Set<string>();
    for (const outcome of outcomes) {
      if (!needsRecheck(outcome)) continue;
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
          delay = Math.min(
            this.timing.recheckMs * 2 ** Math.min(existing.slow, 30),
            this.intervalMs,
          );
        }
        existing.dueAt = now + Math.min(delay, this.intervalMs);
      }
    }
    for (const name of [...this.rechecks.keys()]) if (!still.has(name)) this.rechecks.delete(name);
  }
}
