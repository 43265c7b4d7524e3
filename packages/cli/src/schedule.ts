// When the daemon's next pass is due and what it covers: pending namespaces from the
// watches, the full interval, and back-off after a failed pass. Nothing is re-checked on a
// timer: a namespace waiting for its kubeconfig is planned again when the Secret watch
// reports the Secret. Pure: it holds no timers and does no I/O; the time
// comes from the injected clock, so a test drives it with a fake one.

import type { PassScope } from './reconciler.js';

export interface DaemonTiming {
  /** Quiet time after the last watch event before a pass (bursts coalesce). */
  readonly debounceMs: number;
  /** Longest a pending event waits while events keep arriving. */
  readonly maxDelayMs: number;
  /** First retry delay after a failed pass (doubling, capped at the interval). */
  readonly retryMs: number;
}

export const DEFAULT_TIMING: DaemonTiming = {
  debounceMs: 150,
  maxDelayMs: 1000,
  retryMs: 1000,
};

export interface NextWork {
  /** Epoch ms at which the work is due (may be in the past: run now). */
  readonly at: number;
  readonly scope: PassScope;
}

/** What the schedule needs to know of a finished pass. */
export interface PassSummary {
  /** The pass failed in a way worth retrying sooner than the interval (or threw). */
  readonly needsRetry: boolean;
}

export class PassSchedule {
  private readonly pending = new Set<string>();
  private firstPendingAt = 0;
  private lastPendingAt = 0;
  private fullDueAt: number;
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
    }
    if (this.retryAt !== 0) at = Math.min(this.retryAt, this.fullDueAt);
    if (at > now) return { at, scope: { full: true } };
    if (!writer || this.retryAt !== 0 || this.fullDueAt <= now)
      return { at, scope: { full: true } };
    return { at, scope: { full: false, namespaces: [...this.pending].sort() } };
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

  /** Records how the pass went; returns the back-off delay when it is to be retried early. */
  finish(summary: PassSummary): number | undefined {
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
    return retryInMs;
  }
}
