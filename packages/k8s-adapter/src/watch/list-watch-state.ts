// Everything one list-watch knows between requests, in one object handed to each of its
// steps (list-watch.ts, watch-stream.ts): what it was given, where it is in the stream of
// versions, and what it is waiting for. Nothing else is shared between the steps.
import type { ApiFailure } from '../connection/api-failure.js';
import { createBackoff } from '../connection/backoff.js';
import type { Backoff } from '../connection/backoff.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { createReflectorStore } from './list-watch-store.js';
import type { ReflectorStore } from './list-watch-store.js';
import {
  DEFAULT_LIST_WATCH_TIMING,
  type ListWatchHandlers,
  type ListWatchOptions,
  type ListWatchStats,
  type ListWatchTiming,
  type Versioned,
} from './list-watch-types.js';

export interface ListWatchState<T extends Versioned> {
  readonly access: KubeAccess;
  readonly options: ListWatchOptions<T>;
  readonly timing: ListWatchTiming;
  readonly handlers: ListWatchHandlers<T>;
  readonly reflector: ReflectorStore<T>;
  readonly backoff: Backoff;
  readonly stats: { -readonly [count in keyof ListWatchStats]: number };
  stopped: boolean;
  /** A list has completed once. */
  listed: boolean;
  /** Since the last answer from the server. */
  lastFailure: ApiFailure | undefined;
  /** Where the next watch starts; undefined: list first. */
  resourceVersion: string | undefined;
  /** The request (list or watch) in flight. */
  current: AbortController | undefined;
  retryTimer: NodeJS.Timeout | undefined;
  /** A list or watch session is under way. */
  connecting: boolean;
  /** Watches in a row that ended on a line that would not decode (watch-stream.ts). */
  brokenInRow: number;
  /** Told when the next list ends, listed or failed (resync()'s callers). */
  listEnded: (() => void)[];
}

export function createListWatchState<T extends Versioned>(
  access: KubeAccess,
  options: ListWatchOptions<T>,
): ListWatchState<T> {
  const timing = { ...DEFAULT_LIST_WATCH_TIMING, ...(options.timing ?? {}) };
  return {
    access,
    options,
    timing,
    handlers: options.handlers,
    reflector: createReflectorStore(options.project, options.handlers),
    backoff: createBackoff(timing.backoffInitialMs, timing.backoffMaxMs),
    stats: { lists: 0, watches: 0, resumes: 0, expired: 0, silences: 0 },
    stopped: false,
    listed: false,
    lastFailure: undefined,
    resourceVersion: options.resumeFrom,
    current: undefined,
    retryTimer: undefined,
    connecting: false,
    brokenInRow: 0,
    listEnded: [],
  };
}
