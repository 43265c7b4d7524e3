// One watch's body, read line by line: each event is applied to the store as it arrives, and
// the stream's end is reported as what it means for the next watch (list-watch.ts decides
// when that is). A stream that stays silent past its bound is abandoned as dead.
import type { IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';
import { classifyStatusObject } from '../connection/api-failure.js';
import type { ListWatchState } from './list-watch-state.js';
import type { Versioned, WatchedObject } from './list-watch-types.js';

/** A watch line longer than this is not an event we can use (etcd keeps objects under ~1.5 MiB). */
const MAX_WATCH_LINE_BYTES = 8 * 2 ** 20;
/** A stream that ends sooner than this without a line counts as a failure for back-off. */
const SHORT_SESSION_MS = 1000;

/** How a watch ended, as far as the next one is concerned. */
export type StreamEnd =
  /** The server says our version is gone (an ERROR line with 410). */
  | { readonly kind: 'expired' }
  /** A line that would not decode ended it (see applyLine). */
  | { readonly kind: 'broken'; readonly why: string }
  /**
   * Aborted (resync(), silence), or ended by the server or a cut. `hungUpAtOnce`: ended by
   * the server with no line, soon after it opened: a failure in disguise.
   */
  | { readonly kind: 'ended'; readonly hungUpAtOnce: boolean };

/** What one stream has seen so far. */
interface StreamSession {
  readonly startedAt: number;
  readonly controller: AbortController;
  sawLine: boolean;
  expired: boolean;
  silenced: boolean;
  broken: string | undefined;
  silenceTimer: NodeJS.Timeout | undefined;
  /** Bytes since the last newline. */
  partialBytes: number;
}

interface WatchLine {
  readonly type?: string;
  readonly object?: WatchedObject;
}

export function readWatch<T extends Versioned>(
  state: ListWatchState<T>,
  res: IncomingMessage,
  controller: AbortController,
): Promise<StreamEnd> {
  return new Promise<StreamEnd>((resolve) => {
    const session: StreamSession = {
      startedAt: Date.now(),
      controller,
      sawLine: false,
      expired: false,
      silenced: false,
      broken: undefined,
      silenceTimer: undefined,
      partialBytes: 0,
    };
    armSilence(state, session);
    res.on('data', (chunk: Buffer) => {
      measureLine(session, chunk);
    });
    const lines = createInterface({ input: res, crlfDelay: Infinity });
    lines.on('line', (text) => {
      if (state.stopped || controller.signal.aborted) return;
      armSilence(state, session);
      applyLine(state, session, text);
    });

    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearTimeout(session.silenceTimer);
      lines.close();
      res.destroy();
      resolve(howItEnded(session));
    };
    res.on('end', finish);
    res.on('close', finish);
    res.on('error', finish);
    res.on('aborted', finish);
  });
}

/** (Re)starts the silence bound: no line before it runs out and the stream is abandoned. */
function armSilence<T extends Versioned>(state: ListWatchState<T>, session: StreamSession): void {
  clearTimeout(session.silenceTimer);
  session.silenceTimer = setTimeout(() => {
    session.silenced = true;
    state.stats.silences += 1;
    session.controller.abort();
  }, state.timing.silenceMs);
}

function measureLine(session: StreamSession, chunk: Buffer): void {
  const newline = chunk.lastIndexOf(10);
  session.partialBytes =
    newline < 0 ? session.partialBytes + chunk.length : chunk.length - newline - 1;
  if (session.partialBytes > MAX_WATCH_LINE_BYTES)
    breakOff(session, `a watch event longer than ${MAX_WATCH_LINE_BYTES / 2 ** 20} MiB`);
}

// A line that does not decode ends the watch: skipping it and applying the next event would
// move our resourceVersion past an event we never saw. The next watch resumes from the last
// good version, so the event comes again.
function breakOff(session: StreamSession, why: string): void {
  session.broken ??= why;
  session.controller.abort();
}

/** Applies one event to the store and moves our resourceVersion past it. */
function applyLine<T extends Versioned>(
  state: ListWatchState<T>,
  session: StreamSession,
  text: string,
): void {
  let line: WatchLine;
  try {
    line = JSON.parse(text) as WatchLine;
  } catch {
    breakOff(session, 'a watch event that does not decode');
    return;
  }
  const object = line.object ?? {};
  const version = object.metadata?.resourceVersion;
  switch (line.type) {
    case 'ADDED':
    case 'MODIFIED':
      session.sawLine = true;
      state.handlers.onEvent?.(object);
      state.reflector.upsert(object);
      break;
    case 'DELETED':
      session.sawLine = true;
      state.handlers.onEvent?.(object);
      state.reflector.remove(object);
      break;
    case 'BOOKMARK':
      session.sawLine = true;
      break;
    case 'ERROR': {
      const failure = classifyStatusObject(object);
      if (failure.status === 410) session.expired = true;
      else state.handlers.onError(failure);
      return;
    }
    default:
      return;
  }
  if (version) state.resourceVersion = version;
  state.brokenInRow = 0;
  state.backoff.reset();
}

function howItEnded(session: StreamSession): StreamEnd {
  if (session.expired) return { kind: 'expired' };
  if (session.broken !== undefined) return { kind: 'broken', why: session.broken };
  const hungUpAtOnce =
    !session.silenced &&
    !session.controller.signal.aborted &&
    !session.sawLine &&
    Date.now() - session.startedAt < SHORT_SESSION_MS;
  return { kind: 'ended', hungUpAtOnce };
}
