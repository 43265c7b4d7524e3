// What the probes of registered children found (`--probe-children`), kept between passes and
// handed to the snapshot as `children`, keyed by source. The planner decides what it means
// (core plan/pause.ts); this only counts consecutive failures and remembers the version.
//
// Costs are bounded whatever the fleet: each child is probed at most once an interval (the
// next probe is due an interval after the last, plus up to a tenth of it at random, so
// probes of a large fleet spread out instead of arriving together), at most
// PROBE_CONCURRENCY at once, each bounded by PROBE_TIMEOUT_MS. Probing never holds a pass
// up: the daemon probes on its own timer and a pass reads what is known.

import { formatTimestamp, labelKeys, recordedSourceKey } from '@argocd-cluster-registrar/core';
import type { ChildProbe, Config, LabelKeys, ObservedSecret } from '@argocd-cluster-registrar/core';
import { ARGOCD_SECRET_TYPE_LABEL } from '@argocd-cluster-registrar/core';
import { mapBounded } from '../concurrency.js';
import { probeChild, type ProbeAnswer } from '../connection/child-probe.js';

/** Probes in flight at once. */
export const PROBE_CONCURRENCY = 16;
/** A probe that has no answer after this long has failed. */
export const PROBE_TIMEOUT_MS = 5_000;

export interface ChildProbesOptions {
  /**
   * `background`: the daemon probes on its own timer, first probes spread over a tenth of the
   * interval; `in-pass`: a one-shot run (`--once`, `status`) probes each child once, at once,
   * before its first snapshot.
   */
  readonly mode: 'background' | 'in-pass';
  readonly now?: () => number;
  readonly random?: () => number;
  readonly probe?: (registration: ObservedSecret, timeoutMs: number) => Promise<ProbeAnswer>;
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
  probe: ChildProbe | undefined;
  nextAt: number;
}

export class ChildProbes {
  private readonly keys: LabelKeys;
  private readonly tracked = new Map<string, Tracked>();
  private observedNow: Readonly<Record<string, ChildProbe>> = {};
  private dirty = false;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly probe: NonNullable<ChildProbesOptions['probe']>;
  private readonly timeoutMs: number;
  private readonly setTimer: NonNullable<ChildProbesOptions['setTimer']>;
  /** True when the assembler probes (one shot) rather than a timer (the daemon). */
  get inPass(): boolean {
    return this.options.mode === 'in-pass';
  }

  /** Probes sent over the object's life. */
  sent = 0;

  constructor(
    private readonly config: Config,
    private readonly options: ChildProbesOptions,
  ) {
    this.keys = labelKeys(config.labelPrefix);
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.probe = options.probe ?? probeChild;
    this.setTimer = options.setTimer ?? unrefTimer;
    // A probe never outlasts the interval it belongs to.
    this.timeoutMs = Math.min(options.timeoutMs ?? PROBE_TIMEOUT_MS, config.intervalMs);
  }

  /** The registrations to probe: the active ones we own, by the source they record. */
  track(clusterSecrets: readonly ObservedSecret[]): void {
    const seen = new Set<string>();
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
      const spread = this.options.mode === 'background' ? this.random() * this.jitterMs() : 0;
      this.tracked.set(key, {
        registration: secret,
        probe: undefined,
        nextAt: this.now() + spread,
      });
    }
    for (const key of [...this.tracked.keys()]) {
      if (seen.has(key)) continue;
      if (this.tracked.get(key)?.probe !== undefined) this.dirty = true;
      this.tracked.delete(key);
    }
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
      this.sent += 1;
      const answer = await this.probe(tracked.registration, this.timeoutMs);
      const at = this.now();
      tracked.nextAt = at + this.config.intervalMs + this.random() * this.jitterMs();
      if (this.tracked.get(key) !== tracked) return;
      const before = tracked.probe;
      const after = next(before, answer, at);
      if (after === before) return;
      tracked.probe = after;
      this.dirty = true;
      if (matters(before, after, this.config.probeFailures)) changed.push(key);
    });
    return changed.sort();
  }

  /**
   * The daemon's probes, on their own timer and never inside a pass: `onChanged` hears of the
   * sources whose state matters to the planner, so their sources are planned soon.
   */
  start(onChanged: (sources: readonly string[]) => void): { stop(): void } {
    let cancel: (() => void) | undefined;
    let stopped = false;
    const schedule = (): void => {
      if (stopped) return;
      // Nothing tracked yet: look again shortly (the first pass tracks the registrations).
      const next = this.nextDueAt();
      const wait = next === undefined ? 1000 : Math.max(0, Math.min(next - this.now(), 60_000));
      cancel = this.setTimer(() => {
        void round();
      }, wait);
    };
    const round = async (): Promise<void> => {
      const changed = await this.probeDue();
      if (!stopped && changed.length > 0) onChanged(changed);
      schedule();
    };
    schedule();
    return {
      stop() {
        stopped = true;
        cancel?.();
      },
    };
  }

  private jitterMs(): number {
    return this.config.intervalMs / 10;
  }
}

function next(
  before: ChildProbe | undefined,
  answer: ProbeAnswer,
  at: number,
): ChildProbe | undefined {
  switch (answer.kind) {
    case 'skipped':
      return undefined;
    case 'answered': {
      const version = answer.version ?? before?.version;
      if (before?.failures === 0 && before.version === version) return before;
      return version === undefined ? { failures: 0 } : { failures: 0, version };
    }
    case 'failed':
      return {
        failures: (before?.failures ?? 0) + 1,
        ...(before?.version === undefined ? {} : { version: before.version }),
        error: answer.error,
        failingSince: before?.failingSince ?? formatTimestamp(at),
      };
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
