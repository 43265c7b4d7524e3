// Kubernetes Events go out behind the registration writes, never in their way. A pass only
// queues its Events; they are sent from here, in the background, at a bounded rate, and not
// at all while a pass is running (`hold`), so a reaction to a deleted namespace never waits
// behind a backlog of news: after a cold start at 10,000 sources that backlog is 10,000
// `Registered` Events.
//
// At most one Event per source waits: a newer one replaces it where it stands in the line
// (counted as `superseded`). An Event reports a change of state, so once a newer state is
// known the older one is no longer news, and the queue can never hold more than one Event per
// source the daemon already knows. Events of one source go out in order: a source's next
// Event is not started while its previous one is in flight. An Event that timed out means the
// API server is not answering: what waits is dropped (counted), as a failed Event is, rather
// than each waiting out its own time-out.

export type EventSendResult = 'sent' | 'failed' | 'timed-out';
/** What became of a queued Event, for the metrics. */
export type EventFate = EventSendResult | 'superseded' | 'dropped';

export interface EventQueueOptions {
  /** Events started a second once the burst is spent; `Infinity` for no limit. */
  readonly perSecond: number;
  /** Events that may start at once after a quiet spell. */
  readonly burst: number;
  /** Events in flight at once. */
  readonly concurrency: number;
  readonly onSettled?: (fate: EventFate) => void;
  /** A monotonic clock in milliseconds. */
  readonly now?: () => number;
}

type Send = () => Promise<EventSendResult>;

export class EventQueue {
  /** Waiting Events by source, in the order they were first queued. */
  private readonly waiting = new Map<string, Send>();
  private readonly inFlight = new Set<string>();
  private readonly now: () => number;
  private tokens: number;
  private refilledAt: number;
  private holds = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private idle: (() => void)[] = [];

  constructor(private readonly options: EventQueueOptions) {
    this.now = options.now ?? (() => performance.now());
    this.tokens = options.burst;
    this.refilledAt = this.now();
  }

  /** Queues a source's Event; returns at once, whatever the API server does. */
  enqueue(source: string, send: Send): void {
    if (this.closed) return;
    if (this.waiting.has(source)) this.options.onSettled?.('superseded');
    this.waiting.set(source, send);
    this.pump();
  }

  /**
   * Replaces a source's Event while it still waits (not yet started), in its place in the
   * line; says whether it did. For news that completes the waiting Event rather than
   * superseding it.
   */
  amend(source: string, send: Send): boolean {
    if (this.closed || !this.waiting.has(source)) return false;
    this.waiting.set(source, send);
    return true;
  }

  /** Whether an Event about `source` waits to be sent (not yet started). */
  waits(source: string): boolean {
    return !this.closed && this.waiting.has(source);
  }

  /** No Event starts until the matching `release` (holds nest): a pass is writing. */
  hold(): void {
    this.holds += 1;
  }

  release(): void {
    this.holds = Math.max(0, this.holds - 1);
    this.pump();
  }

  /** Events waiting to be sent. */
  get size(): number {
    return this.waiting.size;
  }

  /** Resolves once nothing waits and nothing is in flight (held Events keep it waiting). */
  drained(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Drops what waits and sends nothing more (Events in flight finish on their own). */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.dropWaiting();
  }

  private isIdle(): boolean {
    return this.waiting.size === 0 && this.inFlight.size === 0;
  }

  private pump(): void {
    if (this.closed || this.holds > 0 || this.timer !== undefined) return;
    this.refill();
    for (const [source, send] of this.waiting) {
      if (this.inFlight.size >= this.options.concurrency) return;
      if (this.inFlight.has(source)) continue;
      if (this.tokens < 1) {
        const waitMs = ((1 - this.tokens) * 1000) / this.options.perSecond;
        // Never keeps the process alive: a daemon that stops drops its Events anyway.
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, Math.ceil(waitMs)).unref();
        return;
      }
      this.tokens -= 1;
      this.waiting.delete(source);
      this.inFlight.add(source);
      void this.start(source, send);
    }
  }

  private async start(source: string, send: Send): Promise<void> {
    let result: EventSendResult;
    try {
      result = await send();
    } catch {
      result = 'failed';
    }
    this.inFlight.delete(source);
    this.options.onSettled?.(result);
    if (result === 'timed-out') this.dropWaiting();
    this.pump();
    this.settle();
  }

  private dropWaiting(): void {
    for (let i = 0; i < this.waiting.size; i += 1) this.options.onSettled?.('dropped');
    this.waiting.clear();
    this.settle();
  }

  private settle(): void {
    if (this.isIdle()) for (const resolve of this.idle.splice(0)) resolve();
  }

  private refill(): void {
    const now = this.now();
    const earned = ((now - this.refilledAt) * this.options.perSecond) / 1000;
    this.tokens = Number.isFinite(earned)
      ? Math.min(this.options.burst, this.tokens + earned)
      : this.options.burst;
    this.refilledAt = now;
  }
}
