// The daemon's schedule driven by a fake clock: debouncing, the full interval, back-off after
// failures, and standbys.

import { describe, expect, it } from 'vitest';
import { PassSchedule } from './schedule.js';
import type { DaemonTiming } from './schedule.js';

const TIMING: DaemonTiming = {
  debounceMs: 100,
  maxDelayMs: 1000,
  retryMs: 500,
};
const INTERVAL = 60_000;

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
}

function scheduleAt(c: ReturnType<typeof clock>): PassSchedule {
  return new PassSchedule(TIMING, INTERVAL, c.now);
}

/** Runs the due pass (as the daemon would) and reports it finished. */
function runDue(s: PassSchedule, needsRetry = false) {
  const work = s.next(true);
  s.begin(work.scope);
  return { work, retryInMs: s.finish({ needsRetry }) };
}

describe('PassSchedule', () => {
  it('starts with a full pass at once, then waits the interval', () => {
    const c = clock();
    const s = scheduleAt(c);
    expect(s.next(true)).toEqual({ at: c.now(), scope: { full: true } });
    runDue(s);
    expect(s.next(true)).toEqual({ at: c.now() + INTERVAL, scope: { full: true } });
  });

  it('debounces a burst of events into one partial pass, bounded by the maximum delay', () => {
    const c = clock();
    const s = scheduleAt(c);
    runDue(s);
    const burstStart = c.now();
    s.enqueue('b');
    c.advance(50);
    s.enqueue('a');
    expect(s.next(true).at).toBe(c.now() + TIMING.debounceMs);
    // Events keep arriving: the pass still happens by the maximum delay.
    for (let i = 0; i < 20; i += 1) {
      c.advance(60);
      s.enqueue('a');
    }
    expect(s.next(true).at).toBe(burstStart + TIMING.maxDelayMs);
    c.advance(TIMING.maxDelayMs);
    const { work } = runDue(s);
    expect(work.scope).toEqual({ full: false, namespaces: ['a', 'b'] });
    // Taken: nothing pending any more.
    expect(s.next(true).scope).toEqual({ full: true });
  });

  it('backs off a failed pass, doubling up to the interval, and resets on success', () => {
    const c = clock();
    const s = scheduleAt(c);
    expect(runDue(s, true).retryInMs).toBe(500);
    expect(s.failureStreak).toBe(1);
    expect(s.next(true)).toEqual({ at: c.now() + 500, scope: { full: true } });
    c.advance(500);
    expect(runDue(s, true).retryInMs).toBe(1000);
    c.advance(1000);
    expect(runDue(s, true).retryInMs).toBe(2000);
    for (let i = 0; i < 10; i += 1) {
      c.advance(INTERVAL);
      runDue(s, true);
    }
    expect(runDue(s, true).retryInMs).toBe(INTERVAL);
    c.advance(INTERVAL);
    expect(runDue(s).retryInMs).toBeUndefined();
    expect(s.failureStreak).toBe(0);
  });

  it('a retry is a full pass, even with events pending', () => {
    const c = clock();
    const s = scheduleAt(c);
    runDue(s, true);
    s.enqueue('x');
    c.advance(500);
    expect(s.next(true).scope).toEqual({ full: true });
  });

  it('a watch that answers again brings a backed-off retry forward to the debounce', () => {
    const c = clock();
    const s = scheduleAt(c);
    // A long outage: the back-off has grown to the interval.
    for (let i = 0; i < 10; i += 1) {
      runDue(s, true);
      c.advance(INTERVAL);
    }
    expect(s.next(true).at).toBe(c.now());
    expect(runDue(s, true).retryInMs).toBe(INTERVAL);
    c.advance(1000);
    s.retrySoon();
    expect(s.next(true)).toEqual({ at: c.now() + TIMING.debounceMs, scope: { full: true } });
  });

  it('a watch that answers again while a pass runs makes that pass retry at the debounce', () => {
    const c = clock();
    const s = scheduleAt(c);
    for (let i = 0; i < 5; i += 1) {
      runDue(s, true);
      c.advance(INTERVAL);
    }
    const work = s.next(true);
    s.begin(work.scope);
    s.retrySoon();
    expect(s.finish({ needsRetry: true })).toBe(TIMING.debounceMs);
    // And the next failure backs off again, from where the streak was (seven in a row).
    c.advance(TIMING.debounceMs);
    expect(runDue(s, true).retryInMs).toBe(TIMING.retryMs * 2 ** 6);
  });

  it('a watch that answers again with no retry pending changes nothing', () => {
    const c = clock();
    const s = scheduleAt(c);
    runDue(s);
    s.retrySoon();
    expect(s.next(true)).toEqual({ at: c.now() + INTERVAL, scope: { full: true } });
  });

  it('a standby ignores events: only full passes, on the interval', () => {
    const c = clock();
    const s = scheduleAt(c);
    runDue(s);
    s.enqueue('x');
    expect(s.next(false).at).toBe(c.now() + INTERVAL);
    s.fullPassNow();
    expect(s.next(false)).toEqual({ at: c.now(), scope: { full: true } });
  });

  it('a watch restart asks for a full pass after the debounce, never later than planned', () => {
    const c = clock();
    const s = scheduleAt(c);
    runDue(s);
    s.fullPassSoon();
    expect(s.next(true)).toEqual({ at: c.now() + TIMING.debounceMs, scope: { full: true } });
  });
});
