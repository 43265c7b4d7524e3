// List-then-watch one kind of object into a local store, the way an informer does: list
// once, watch from the list's resourceVersion, resume from the last resourceVersion seen
// (an event or a bookmark) when the stream ends or is cut, and list again only when the
// server says that version is gone (410) or when asked to (the resync period). A stream
// that stays silent past its bound is treated as dead and re-opened. Every request is
// bounded in time. Objects are projected on arrival: what `project` returns is all that is
// kept, and an object it rejects is never stored.
import type { IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';
import { classifyApiError, classifyStatusObject } from '../connection/api-failure.js';
import type { ApiFailure } from '../connection/api-failure.js';
import { createBackoff, retryDelayMs } from '../connection/backoff.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { createReflectorStore } from './list-watch-store.js';
import {
  DEFAULT_LIST_WATCH_TIMING,
  type ListWatch,
  type ListWatchOptions,
  type Versioned,
  type WatchedObject,
} from './list-watch-types.js';
import {
  ACCEPT_JSON,
  ACCEPT_METADATA,
  ACCEPT_METADATA_LIST,
  rawGet,
  rawGetJson,
} from './raw-request.js';

export { keyOf } from './list-watch-store.js';
export {
  DEFAULT_LIST_WATCH_TIMING,
  type ListWatch,
  type ListWatchHandlers,
  type ListWatchOptions,
  type ListWatchStats,
  type ListWatchTiming,
  type Versioned,
  type WatchedObject,
} from './list-watch-types.js';

const PAGE_SIZE = 500;
/** A watch line longer than this is not an event we can use (etcd keeps objects under ~1.5 MiB). */
const MAX_WATCH_LINE_BYTES = 8 * 2 ** 20;
/** A stream that ends sooner than this without a line counts as a failure for back-off. */
const SHORT_SESSION_MS = 1000;

interface ListPage {
  readonly items?: readonly WatchedObject[];
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
}

interface WatchLine {
  readonly type?: string;
  readonly object?: WatchedObject;
}

export function startListWatch<T extends Versioned>(
  access: KubeAccess,
  options: ListWatchOptions<T>,
): ListWatch<T> {
  const timing = { ...DEFAULT_LIST_WATCH_TIMING, ...(options.timing ?? {}) };
  const handlers = options.handlers;
  const { store, upsert, remove, relist } = createReflectorStore(options.project, handlers);
  const backoff = createBackoff(timing.backoffInitialMs, timing.backoffMaxMs);
  const stats = { lists: 0, watches: 0, resumes: 0, expired: 0, silences: 0 };

  let stopped = false;
  let listed = false;
  let lastFailure: ApiFailure | undefined;
  let resourceVersion: string | undefined = options.resumeFrom;
  let current: AbortController | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let connecting = false;

  const isStopped = (): boolean => stopped;
  const isAborted = (controller: AbortController): boolean => controller.signal.aborted;

  const schedule = (delayMs: number): void => {
    if (stopped || retryTimer !== undefined) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, delayMs);
  };

  const answered = (): void => {
    const recovered = lastFailure !== undefined;
    lastFailure = undefined;
    if (recovered && !stopped) handlers.onRecovered?.();
  };

  const fail = (failure: ApiFailure): void => {
    lastFailure = failure;
    if (stopped) return;
    handlers.onError(failure);
    schedule(retryDelayMs(backoff.next(), failure, timing.backoffMaxMs));
  };

  /** Lists everything; the store becomes the list, with the differences reported. */
  const list = async (signal: AbortSignal): Promise<boolean> => {
    const listing = relist();
    let token: string | undefined;
    let listVersion: string | undefined;
    try {
      do {
        stats.lists += 1;
        const page = (await rawGetJson(
          access,
          {
            path: options.path,
            query: { labelSelector: options.labelSelector, limit: PAGE_SIZE, continue: token },
            accept: options.metadataOnly === true ? ACCEPT_METADATA_LIST : ACCEPT_JSON,
            signal,
          },
          timing.requestTimeoutMs,
        )) as ListPage;
        // Every page of a paginated list is served from the first page's snapshot.
        listVersion ??= page.metadata?.resourceVersion;
        listing.add(page.items ?? []);
        token = page.metadata?.continue || undefined;
      } while (token !== undefined);
    } catch (err) {
      if (stopped) return false;
      // resync() aborted this list to start another: not a failure.
      if (signal.aborted) schedule(0);
      else fail(classifyApiError(err));
      return false;
    }
    if (stopped) return false;
    listing.commit();
    resourceVersion = listVersion;
    listed = true;
    handlers.onListed?.();
    answered();
    return true;
  };

  const connect = async (): Promise<void> => {
    if (stopped || connecting) return;
    connecting = true;
    const controller = new AbortController();
    current = controller;
    try {
      await session(controller);
    } finally {
      connecting = false;
      if (current === controller) current = undefined;
    }
  };

  const session = async (controller: AbortController): Promise<void> => {
    if (resourceVersion === undefined) {
      if (!(await list(controller.signal))) return;
    } else if (stats.watches > 0) {
      stats.resumes += 1;
    }
    if (stopped || controller.signal.aborted) {
      schedule(0);
      return;
    }
    stats.watches += 1;
    let res: IncomingMessage;
    try {
      res = await rawGet(access, {
        path: options.path,
        query: {
          watch: 'true',
          labelSelector: options.labelSelector,
          resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: timing.watchTimeoutSeconds,
        },
        accept: options.metadataOnly === true ? ACCEPT_METADATA : ACCEPT_JSON,
        signal: controller.signal,
        headersTimeoutMs: timing.requestTimeoutMs,
      });
    } catch (err) {
      // stop() or resync() may have run while the request was in flight.
      if (isStopped()) return;
      if (isAborted(controller)) {
        schedule(0);
        return;
      }
      const failure = classifyApiError(err);
      if (failure.status === 410) {
        expire();
        return;
      }
      fail(failure);
      return;
    }
    answered();
    await stream(res, controller);
  };

  /** Our version is gone: the only way to learn what happened since is a list. */
  const expire = (): void => {
    stats.expired += 1;
    resourceVersion = undefined;
    schedule(0);
  };

  /** Watches in a row that ended on a line that would not decode (see stream). */
  let brokenInRow = 0;
  const stream = (res: IncomingMessage, controller: AbortController): Promise<void> =>
    new Promise<void>((resolve) => {
      const startedAt = Date.now();
      let sawLine = false;
      let expired = false;
      let silenced = false;
      let silenceTimer: NodeJS.Timeout | undefined;
      const armSilence = (): void => {
        clearTimeout(silenceTimer);
        silenceTimer = setTimeout(() => {
          silenced = true;
          stats.silences += 1;
          controller.abort();
        }, timing.silenceMs);
      };
      armSilence();

      // A line that does not decode ends the watch: skipping it and applying the next event
      // would move our resourceVersion past an event we never saw. The next watch resumes
      // from the last good version, so the event comes again.
      let broken: string | undefined;
      const breakOff = (why: string): void => {
        broken ??= why;
        controller.abort();
      };
      let partialBytes = 0;
      res.on('data', (chunk: Buffer) => {
        const newline = chunk.lastIndexOf(10);
        partialBytes = newline < 0 ? partialBytes + chunk.length : chunk.length - newline - 1;
        if (partialBytes > MAX_WATCH_LINE_BYTES)
          breakOff(`a watch event longer than ${MAX_WATCH_LINE_BYTES / 2 ** 20} MiB`);
      });
      const lines = createInterface({ input: res, crlfDelay: Infinity });
      lines.on('line', (text) => {
        if (stopped || controller.signal.aborted) return;
        armSilence();
        let line: WatchLine;
        try {
          line = JSON.parse(text) as WatchLine;
        } catch {
          breakOff('a watch event that does not decode');
          return;
        }
        const object = line.object ?? {};
        const version = object.metadata?.resourceVersion;
        switch (line.type) {
          case 'ADDED':
          case 'MODIFIED':
            sawLine = true;
            handlers.onEvent?.(object);
            upsert(object);
            break;
          case 'DELETED':
            sawLine = true;
            handlers.onEvent?.(object);
            remove(object);
            break;
          case 'BOOKMARK':
            sawLine = true;
            break;
          case 'ERROR': {
            const failure = classifyStatusObject(object);
            if (failure.status === 410) expired = true;
            else handlers.onError(failure);
            return;
          }
          default:
            return;
        }
        if (version) resourceVersion = version;
        brokenInRow = 0;
        backoff.reset();
      });

      let finished = false;
      const finish = (): void => {
        if (finished) return;
        finished = true;
        clearTimeout(silenceTimer);
        lines.close();
        res.destroy();
        resolve();
        if (stopped) return;
        if (expired) {
          expire();
          return;
        }
        if (broken !== undefined) {
          // Once is usually a stream cut mid-line; again with no good event between is news.
          brokenInRow += 1;
          if (brokenInRow > 1)
            fail({
              kind: 'transient',
              message: `${broken}; the watch resumes from resourceVersion ${resourceVersion ?? '(a new list)'}`,
              retryable: true,
            });
          else schedule(backoff.next());
          return;
        }
        // Aborted by resync() or for silence, or ended by the server or a cut: resume from
        // where we are (resync() cleared the version, so it lists first). A server that
        // keeps hanging up at once is a failure in disguise and backs off.
        if (!silenced && !controller.signal.aborted && !sawLine) {
          if (Date.now() - startedAt < SHORT_SESSION_MS) {
            schedule(backoff.next());
            return;
          }
        }
        schedule(0);
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      res.on('aborted', finish);
    });

  void connect();

  return {
    store,
    synced: () => listed,
    failing: () => lastFailure,
    resync() {
      if (stopped) return;
      resourceVersion = undefined;
      if (current !== undefined) current.abort();
      else if (!connecting) {
        clearTimeout(retryTimer);
        retryTimer = undefined;
        schedule(0);
      }
    },
    stats: () => ({ ...stats }),
    stop() {
      stopped = true;
      clearTimeout(retryTimer);
      retryTimer = undefined;
      current?.abort();
    },
  };
}
