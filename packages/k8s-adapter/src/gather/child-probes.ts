// What the probes of registered children found (`--probe-children`), kept between passes and
// handed to the snapshot as `children`, keyed by source. The planner decides what it means
// (core plan/pause.ts); this only counts consecutive failures and remembers the version.
//
// Costs are bounded whatever the fleet: a child that answers is probed once a probe interval
// (`probeIntervalMs`; the next probe is due that long after the last one ended, plus up to a
// tenth of it at random, so probes of a large fleet spread out instead of arriving together),
// at most PROBE_CONCURRENCY at once, each bounded by PROBE_TIMEOUT_MS. The probe interval is
// the price's knob: the answering children's probes are most of what probing costs
// (BENCHMARKS.md). A child whose probe failed is probed on the shorter of that and the pass
// interval, so a child that stops answering is paused about one probe interval and
// `probeFailures - 1` intervals after it stopped, and a paused one resumed within PAUSED_EVERY
// of them. Probing never holds a pass up: the daemon probes on its own timer and a pass reads
// what is known.
//
// The daemon schedules each child on its own: a probe starts when its child is due and a slot
// is free, so a child that never answers holds one slot for one time-out and no other child
// waits for it to end. When slots are short, children whose last probe answered go first, then
// children never probed, then failing ones: a fleet with many black-holed children still probes
// the answering ones once an interval (at most one time-out late, waiting for a slot), and the
// failing ones share what is left, each probed about every
// max(interval, failing × time-out / PROBE_CONCURRENCY).
//
// Not every probe is a `/version` call: at 1,000 children a TLS handshake each a minute
// cost about 2.5 CPU-seconds a minute under the image's `--jitless`, eight times the daemon's
// whole steady budget. A child that answered its last `/version` within VERSION_EVERY probe
// intervals is only knocked on (a TCP connect); one that has not, or whose last probe failed,
// is asked for `/version`, after a knock when it is failing (most failing children accept no
// connection, and then no handshake is tried). A failure counts whichever probe found it, and
// only a `/version` answer ends one. So a child that stops accepting connections is seen
// failing at its next probe, one whose address still accepts them (a load balancer in front of
// a stopped server) within VERSION_EVERY probe intervals, and the version shown is at most that
// old.

import { formatTimestamp, labelKeys, recordedSourceKey } from '@argocd-cluster-registrar/core';
import type { ChildProbe, Config, LabelKeys, ObservedSecret } from '@argocd-cluster-registrar/core';
import { ARGOCD_SECRET_TYPE_LABEL } from '@argocd-cluster-registrar/core';
import { mapBounded } from '../concurrency.js';
import { knockOnChild, probeChild, type ProbeAnswer } from '../connection/child-probe.js';

/** Probes in flight at once. */
export const PROBE_CONCURRENCY = 16;
/** A probe that has no answer after this long has failed. */
export const PROBE_TIMEOUT_MS = 5_000;
/** How long the order of due children is kept before it is made again (see nextFromQueue). */
const QUEUE_MS = 1_000;
/** A child that answers is asked for `/version` once this many probe intervals, knocked on between. */
export const VERSION_EVERY = 10;
/**
 * A paused child (failed `probeFailures` probes in a row) is probed once this many of its
 * failing gaps (see gapAfter).
 */
export const PAUSED_EVERY = 5;

export interface ChildProbesOptions {
  /**
   * `background`: the daemon probes on its own timer, first probes spread over a tenth of the
   * interval; `in-pass`: a one-shot run (`--once`, `status`) probes each child once, at once,
   * before its first snapshot.
   */
  readonly mode: 'background' | 'in-pass';
  readonly now?: () => number;
  readonly random?: () => number;
  readonly probe?: (
    registration: ObservedSecret,
    timeoutMs: number,
    waitMs: number,
  ) => Promise<ProbeAnswer>;
  readonly knock?: (registration: ObservedSecret, timeoutMs: number) => Promise<ProbeAnswer>;
  readonly timeoutMs?: number;
  /** The background scheduler's timer: calls `callback` after `ms`, returns its cancel. */
  readonly setTimer?: (callback: () => void, ms: number) => () => void;
}

function unrefTimer(callback: () => void, ms: number): () => void {
  const timer = setTimeout(callback, ms);
  timer.unref();
  return () => {
    clearTimeout(timer);
  };
}

interface Tracked {
  registration: ObservedSecret;
  /** What the planner sees: failures counted up to `probeFailures` (see `next`). */
  probe: ChildProbe | undefined;
  /** Consecutive failed probes, not capped: how far apart its probes are. */
  failures: number;
  nextAt: number;
  /** When its last `/version` call answered. */
  askedAt: number | undefined;
  /** A probe of this child is under way (background scheduling). */
  inFlight: boolean;
}

export class ChildProbes {
  private readonly keys: LabelKeys;
  private readonly tracked = new Map<string, Tracked>();
  private observedNow: Readonly<Record<string, ChildProbe>> = {};
  private dirty = false;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly probe: NonNullable<ChildProbesOptions['probe']>;
  private readonly knock: NonNullable<ChildProbesOptions['knock']>;
  private readonly timeoutMs: number;
  /** Between probes of a failing child: the shorter of the interval and the probe interval. */
  private readonly failingGapMs: number;
  private readonly setTimer: NonNullable<ChildProbesOptions['setTimer']>;
  /** The background scheduler's look at what is due, while it runs. */
  private wake: (() => void) | undefined;
  /** True when the assembler probes (one shot) rather than a timer (the daemon). */
  get inPass(): boolean {
    return this.options.mode === 'in-pass';
  }

  /** Probes sent over the object's life. */
  sent = 0;
  /** Walks over every tracked child to order the due ones, over the object's life. */
  walks = 0;

  constructor(
    private readonly config: Config,
    private readonly options: ChildProbesOptions,
  ) {
    this.keys = labelKeys(config.labelPrefix);
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.probe = options.probe ?? probeChild;
    this.knock = options.knock ?? knockOnChild;
    this.setTimer = options.setTimer ?? unrefTimer;
    this.failingGapMs = Math.min(config.intervalMs, config.probeIntervalMs);
    // A probe never outlasts the gap before the next one.
    this.timeoutMs = Math.min(options.timeoutMs ?? PROBE_TIMEOUT_MS, this.failingGapMs);
  }

  /** The registrations to probe: the active ones we own, by the source they record. */
  track(clusterSecrets: readonly ObservedSecret[]): void {
    const seen = new Set<string>();
    const before = this.tracked.size;
    for (const secret of clusterSecrets) {
      if (secret.labels[this.keys.managedBy] !== this.config.managedBy) continue;
      if (secret.labels[ARGOCD_SECRET_TYPE_LABEL] !== 'cluster') continue;
      const key = recordedSourceKey(secret.labels, this.keys);
      if (key === undefined || seen.has(key)) continue;
      seen.add(key);
      const tracked = this.tracked.get(key);
      if (tracked !== undefined) {
        tracked.registration = secret;
        continue;
      }
      const spread =
        this.options.mode === 'background'
          ? this.random() * this.jitterMs(this.config.probeIntervalMs)
          : 0;
      this.dueAt(this.now() + spread);
      this.tracked.set(key, {
        registration: secret,
        probe: undefined,
        failures: 0,
        nextAt: this.now() + spread,
        askedAt: undefined,
        inFlight: false,
      });
    }
    for (const key of [...this.tracked.keys()]) {
      if (seen.has(key)) continue;
      if (this.tracked.get(key)?.probe !== undefined) this.dirty = true;
      this.tracked.delete(key);
    }
    // A child new to the scheduler may be due before the time its timer waits for.
    if (this.tracked.size > before) this.wake?.();
  }

  /** What the probes found, keyed by source: the same object while nothing changed. */
  observed(): Readonly<Record<string, ChildProbe>> {
    if (this.dirty) {
      const observed: Record<string, ChildProbe> = {};
      for (const key of [...this.tracked.keys()].sort()) {
        const probe = this.tracked.get(key)?.probe;
        if (probe !== undefined) observed[key] = probe;
      }
      this.observedNow = observed;
      this.dirty = false;
    }
    return this.observedNow;
  }

  /** When the next probe is due (epoch ms), or `undefined` while nothing is tracked. */
  nextDueAt(): number | undefined {
    let next: number | undefined;
    for (const tracked of this.tracked.values()) {
      if (tracked.inFlight) continue;
      if (next === undefined || tracked.nextAt < next) next = tracked.nextAt;
    }
    return next;
  }

  /**
   * Probes every tracked child that is due. Returns the sources whose state matters to the
   * planner changed: reachable ↔ failing, the failure count reached `probeFailures`, or
   * another version answered.
   */
  async probeDue(): Promise<string[]> {
    const now = this.now();
    const due = [...this.tracked.entries()].filter(([, tracked]) => tracked.nextAt <= now);
    const changed: string[] = [];
    await mapBounded(due, PROBE_CONCURRENCY, async ([key, tracked]) => {
      if (await this.probeOne(key, tracked)) changed.push(key);
    });
    return changed.sort();
  }

  /** Probes one child and records the answer; true when it matters to the planner. */
  private async probeOne(key: string, tracked: Tracked): Promise<boolean> {
    this.sent += 1;
    tracked.inFlight = true;
    const { answer, asked } = await this.knockOrAsk(tracked).finally(() => {
      tracked.inFlight = false;
    });
    const at = this.now();
    if (asked && answer.kind === 'answered') tracked.askedAt = at;
    if (this.tracked.get(key) !== tracked) return false;
    const before = tracked.probe;
    const after = next(before, answer, at, this.config.probeFailures);
    tracked.failures = answer.kind === 'failed' ? tracked.failures + 1 : 0;
    const gap = this.gapAfter(tracked.failures);
    tracked.nextAt = at + gap + this.random() * this.jitterMs(gap);
    this.dueAt(tracked.nextAt);
    if (after === before) return false;
    tracked.probe = after;
    this.dirty = true;
    return matters(before, after, this.config.probeFailures);
  }

  /** One probe: a knock, or a `/version` call (see the top of this file), within one time-out. */
  private async knockOrAsk(tracked: Tracked): Promise<{ answer: ProbeAnswer; asked: boolean }> {
    const { registration, probe, askedAt } = tracked;
    const start = this.now();
    const failing = tracked.failures > 0;
    const answeredLately =
      askedAt !== undefined && start - askedAt < VERSION_EVERY * this.config.probeIntervalMs;
    if (probe !== undefined && !failing && answeredLately)
      return { answer: await this.knock(registration, this.timeoutMs), asked: false };
    if (failing) {
      const knocked = await this.knock(registration, this.timeoutMs);
      if (knocked.kind !== 'answered') return { answer: knocked, asked: false };
    }
    const left = Math.max(1, this.timeoutMs - (this.now() - start));
    return { answer: await this.probe(registration, this.timeoutMs, left), asked: true };
  }

  /**
   * The daemon's probes, on their own timer and never inside a pass: each child is probed when
   * it is due and a slot is free (see the top of this file). `onChanged` hears of the sources
   * whose state matters to the planner, so they are planned soon.
   */
  start(onChanged: (sources: readonly string[]) => void): { stop(): void } {
    let cancel: (() => void) | undefined;
    let stopped = false;
    let inFlight = 0;
    const launch = (): void => {
      if (stopped) return;
      cancel?.();
      cancel = undefined;
      const now = this.now();
      while (inFlight < PROBE_CONCURRENCY) {
        const due = this.nextFromQueue(now);
        if (due === undefined) break;
        const [key, tracked] = due;
        inFlight += 1;
        // A probe that throws (it never should: failures are answers) frees its slot too.
        const probed = this.probeOne(key, tracked).catch(() => false);
        void probed.then((matters) => {
          inFlight -= 1;
          if (stopped) return;
          if (matters) onChanged([key]);
          launch();
        });
      }
      // With every slot taken, the next probe to end launches again.
      if (inFlight >= PROBE_CONCURRENCY) return;
      // Nothing tracked yet: look again shortly (the first pass tracks the registrations).
      const next = Math.max(this.earliest, this.queuedAt + QUEUE_MS);
      const wait = Number.isFinite(next) ? Math.max(0, Math.min(next - now, 60_000)) : 1000;
      cancel = this.setTimer(launch, wait);
    };
    this.wake = launch;
    launch();
    return {
      stop: () => {
        stopped = true;
        this.wake = undefined;
        cancel?.();
      },
    };
  }

  /**
   * The children due, in the order to probe them (see rankOf; the longest due first within a
   * rank), and the earliest time another falls due. A probe that ends takes the next from the
   * queue: ordering every tracked child each time cost more CPU than the knocks on answering
   * children. The queue is made again only when a child has fallen due since, and at most once
   * a QUEUE_MS, so a child that falls due waits at most that long. Made again for each child
   * that fell due, it was a walk over every tracked child for each probe: with 1,000 children's
   * probes spread over time, a few hundred walks a minute.
   */
  private queue: [string, Tracked][] = [];
  private queuedAt = Number.NEGATIVE_INFINITY;
  private earliest = Number.NEGATIVE_INFINITY;

  private nextFromQueue(now: number): [string, Tracked] | undefined {
    if (now >= this.earliest && now - this.queuedAt >= QUEUE_MS) {
      const due: { entry: [string, Tracked]; rank: number }[] = [];
      this.earliest = Number.POSITIVE_INFINITY;
      this.walks += 1;
      for (const entry of this.tracked) {
        const tracked = entry[1];
        if (tracked.inFlight) continue;
        if (tracked.nextAt <= now) due.push({ entry, rank: rankOf(tracked) });
        else this.earliest = Math.min(this.earliest, tracked.nextAt);
      }
      // Popped from the end: the first to probe last.
      this.queue = due
        .sort((a, b) => b.rank - a.rank || b.entry[1].nextAt - a.entry[1].nextAt)
        .map(({ entry }) => entry);
      this.queuedAt = now;
    }
    for (let entry = this.queue.pop(); entry !== undefined; entry = this.queue.pop()) {
      const [key, tracked] = entry;
      // Gone, or being probed, since it was queued.
      if (this.tracked.get(key) === tracked && !tracked.inFlight) return entry;
    }
    return undefined;
  }

  /** A child's next probe is due at `at`: the queue is made again from then. */
  private dueAt(at: number): void {
    this.earliest = Math.min(this.earliest, at);
  }

  /**
   * Until the next probe: a probe interval while the child answers; once it fails, the failing
   * gap until it has failed `probeFailures` probes in a row (it is paused), then twice that,
   * then PAUSED_EVERY of them: a child asleep for hours is probed every few minutes, not every
   * minute, and resumed within PAUSED_EVERY failing gaps of waking.
   */
  private gapAfter(failures: number): number {
    if (failures === 0) return this.config.probeIntervalMs;
    const beyond = failures - this.config.probeFailures;
    const gaps = beyond < 0 ? 1 : Math.min(2 ** (beyond + 1), PAUSED_EVERY);
    return gaps * this.failingGapMs;
  }

  /** Up to a tenth of a gap, at random, so probes of a large fleet spread out. */
  private jitterMs(gapMs: number): number {
    return gapMs / 10;
  }
}

/** Who goes first when slots are short: answered last time, then never probed, then failing. */
function rankOf(tracked: Tracked): number {
  if (tracked.probe === undefined) return 1;
  return tracked.failures === 0 ? 0 : 2;
}

/**
 * What the planner is to see after `answer`. Failures are counted up to `threshold` and no
 * further, and an unchanged state is the same object: the planner decides nothing by the count
 * beyond it (plan/pause.ts), and every new object makes the next pass plan every source in
 * full, which, for each paused child failing every few intervals, was most of what probing
 * cost.
 */
function next(
  before: ChildProbe | undefined,
  answer: ProbeAnswer,
  at: number,
  threshold: number,
): ChildProbe | undefined {
  switch (answer.kind) {
    case 'skipped':
      return undefined;
    case 'answered': {
      const version = answer.version ?? before?.version;
      if (before?.failures === 0 && before.version === version) return before;
      return version === undefined ? { failures: 0 } : { failures: 0, version };
    }
    case 'failed': {
      const failures = Math.min((before?.failures ?? 0) + 1, threshold);
      if (before?.failures === failures && before.error === answer.error) return before;
      return {
        failures,
        ...(before?.version === undefined ? {} : { version: before.version }),
        error: answer.error,
        failingSince: before?.failingSince ?? formatTimestamp(at),
      };
    }
  }
}

function matters(
  before: ChildProbe | undefined,
  after: ChildProbe | undefined,
  threshold: number,
): boolean {
  if (before === undefined || after === undefined) return true;
  if ((before.failures === 0) !== (after.failures === 0)) return true;
  if (before.failures < threshold && after.failures >= threshold) return true;
  return before.version !== after.version;
}
