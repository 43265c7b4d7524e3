// The Event queue on a fake clock: how many Events it starts by a given moment is a count,
// not a timing.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventQueue } from './event-queue.js';
import type { EventFate, EventQueueOptions, EventSendResult } from './event-queue.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A queue whose sends are recorded and settle when the test says so. */
function queueOf(options: Partial<EventQueueOptions> = {}) {
  const started: string[] = [];
  const fates: EventFate[] = [];
  const settle = new Map<string, (result: EventSendResult) => void>();
  const queue = new EventQueue({
    perSecond: 10,
    burst: 5,
    concurrency: 100,
    onSettled: (fate) => fates.push(fate),
    now: () => Date.now(),
    ...options,
  });
  /** Queues an Event for `source`; `label` names this one in `started`. */
  const put = (source: string, label = source, auto: EventSendResult | 'manual' = 'sent'): void => {
    queue.enqueue(source, () => {
      started.push(label);
      if (auto !== 'manual') return Promise.resolve(auto);
      return new Promise<EventSendResult>((resolve) => settle.set(label, resolve));
    });
  };
  return { queue, started, fates, settle, put };
}

describe('EventQueue', () => {
  it('starts a burst at once, then no more Events a second than its rate, until all are sent', async () => {
    const { queue, started, put } = queueOf({ perSecond: 10, burst: 5 });
    for (let i = 0; i < 50; i += 1) put(`ns-${String(i)}`);
    expect(started).toHaveLength(5);
    await vi.advanceTimersByTimeAsync(1000);
    expect(started.length).toBeLessThanOrEqual(15);
    expect(started.length).toBeGreaterThanOrEqual(14);
    await vi.advanceTimersByTimeAsync(1000);
    expect(started.length).toBeLessThanOrEqual(25);
    await vi.advanceTimersByTimeAsync(5000);
    expect(started).toHaveLength(50);
    await queue.drained();
    // In the order they were queued.
    expect(started).toEqual(Array.from({ length: 50 }, (_, i) => `ns-${String(i)}`));
  });

  it('never makes the caller wait, and sends nothing while a pass holds it', async () => {
    const { queue, started, put } = queueOf();
    // An API server that never answers: the first Events hang, and queuing more still
    // returns at once (the test would not get past these loops otherwise).
    for (let i = 0; i < 3; i += 1) put(`hung-${String(i)}`, undefined, 'manual');
    queue.hold();
    for (let i = 0; i < 1000; i += 1) put(`ns-${String(i)}`);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(started).toEqual(['hung-0', 'hung-1', 'hung-2']);
    expect(queue.size).toBe(1000);
    queue.release();
    expect(started.length).toBeGreaterThan(3);
  });

  it('keeps one Event per source: a newer one replaces the waiting one where it stands', async () => {
    const { queue, started, fates, put } = queueOf();
    queue.hold();
    put('a', 'a: Refused');
    put('b', 'b: Registered');
    put('a', 'a: Registered');
    expect(queue.size).toBe(2);
    queue.release();
    await queue.drained();
    expect(started).toEqual(['a: Registered', 'b: Registered']);
    expect(fates.filter((f) => f === 'superseded')).toHaveLength(1);
    expect(fates.filter((f) => f === 'sent')).toHaveLength(2);
  });

  it("sends a source's Events in order: the next waits for the one in flight", async () => {
    const { queue, started, settle, put } = queueOf();
    put('a', 'a1', 'manual');
    put('a', 'a2', 'manual');
    put('b', 'b1', 'manual');
    expect(started).toEqual(['a1', 'b1']);
    settle.get('a1')?.('sent');
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual(['a1', 'b1', 'a2']);
    settle.get('a2')?.('sent');
    settle.get('b1')?.('sent');
    await queue.drained();
  });

  it('drops what waits once an Event timed out, and counts it', async () => {
    const { queue, started, fates, settle, put } = queueOf({ concurrency: 1 });
    put('a', 'a', 'manual');
    put('b');
    put('c');
    settle.get('a')?.('timed-out');
    await queue.drained();
    expect(started).toEqual(['a']);
    expect(fates).toEqual(['timed-out', 'dropped', 'dropped']);
  });

  it('sends nothing more once closed', async () => {
    const { queue, started, fates, put } = queueOf();
    queue.hold();
    put('a');
    queue.close();
    put('b');
    queue.release();
    await queue.drained();
    expect(started).toEqual([]);
    expect(fates).toEqual(['dropped']);
  });

  it('with no rate limit, is bounded by its concurrency alone', async () => {
    const { queue, started, settle, put } = queueOf({
      perSecond: Infinity,
      burst: 8,
      concurrency: 8,
    });
    for (let i = 0; i < 20; i += 1) put(`ns-${String(i)}`, undefined, 'manual');
    expect(started).toHaveLength(8);
    for (const resolve of settle.values()) resolve('sent');
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toHaveLength(16);
    for (const resolve of settle.values()) resolve('sent');
    await vi.advanceTimersByTimeAsync(0);
    for (const resolve of settle.values()) resolve('sent');
    await queue.drained();
    expect(started).toHaveLength(20);
  });

  it('amends an Event only while it waits, in its place, and not as superseded', async () => {
    const { queue, started, fates, put } = queueOf({ perSecond: 1, burst: 1 });
    put('a');
    put('b');
    put('c');
    expect(started).toEqual(['a']);
    // a went out already: nothing to amend; b still waits.
    const amended = (label: string) => () => {
      started.push(label);
      return Promise.resolve<EventSendResult>('sent');
    };
    expect(queue.amend('a', amended('a+'))).toBe(false);
    expect(queue.amend('b', amended('b+'))).toBe(true);
    expect(queue.amend('z', amended('z+'))).toBe(false);
    await vi.advanceTimersByTimeAsync(5000);
    await queue.drained();
    expect(started).toEqual(['a', 'b+', 'c']);
    expect(fates).not.toContain('superseded');
  });
});
