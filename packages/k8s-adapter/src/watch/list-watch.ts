// List-then-watch one kind of object into a local store, the way an informer does: list
// once, watch from the list's resourceVersion, resume from the last resourceVersion seen
// (an event or a bookmark) when the stream ends or is cut, and list again only when the
// server says that version is gone (410) or when asked to (the resync period). A stream
// that stays silent past its bound is treated as dead and re-opened. Every request is
// bounded in time. Objects are projected on arrival: what `project` returns is all that is
// kept, and an object it rejects is never stored.
import type { IncomingMessage } from 'node:http';
import { classifyApiError } from '../connection/api-failure.js';
import type { ApiFailure } from '../connection/api-failure.js';
import { retryDelayMs } from '../connection/backoff.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { LIST_PAGE_SIZE } from '../connection/kube-api.js';
import { createListWatchState } from './list-watch-state.js';
import type { ListWatchState } from './list-watch-state.js';
import type { ListWatch, ListWatchOptions, Versioned, WatchedObject } from './list-watch-types.js';
import {
  ACCEPT_JSON,
  ACCEPT_METADATA,
  ACCEPT_METADATA_LIST,
  rawGet,
  rawGetJson,
} from './raw-request.js';
import { readWatch } from './watch-stream.js';
import type { StreamEnd } from './watch-stream.js';

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

interface ListPage {
  readonly items?: readonly WatchedObject[];
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
}

export function startListWatch<T extends Versioned>(
  access: KubeAccess,
  options: ListWatchOptions<T>,
): ListWatch<T> {
  const state = createListWatchState(access, options);
  void connect(state);
  return {
    store: state.reflector.store,
    synced: () => state.listed,
    failing: () => state.lastFailure,
    resync: () => resync(state),
    stats: () => ({ ...state.stats }),
    stop: () => {
      stop(state);
    },
  };
}

// Read through a call, so that a check after an await is not taken as already decided.
const isStopped = <T extends Versioned>(state: ListWatchState<T>): boolean => state.stopped;
const isAborted = (controller: AbortController): boolean => controller.signal.aborted;

/** Connects again after `delayMs`, unless a retry is already due. */
function schedule<T extends Versioned>(state: ListWatchState<T>, delayMs: number): void {
  if (state.stopped || state.retryTimer !== undefined) return;
  state.retryTimer = setTimeout(() => {
    state.retryTimer = undefined;
    void connect(state);
  }, delayMs);
}

/** The server answered: a failure reported before is over. */
function answered<T extends Versioned>(state: ListWatchState<T>): void {
  const recovered = state.lastFailure !== undefined;
  state.lastFailure = undefined;
  if (recovered && !state.stopped) state.handlers.onRecovered?.();
}

/** Reports the failure and backs off (longer when the server asked for it). */
function fail<T extends Versioned>(state: ListWatchState<T>, failure: ApiFailure): void {
  state.lastFailure = failure;
  if (state.stopped) return;
  state.handlers.onError(failure);
  schedule(state, retryDelayMs(state.backoff.next(), failure, state.timing.backoffMaxMs));
}

/** Our version is gone: the only way to learn what happened since is a list. */
function expire<T extends Versioned>(state: ListWatchState<T>): void {
  state.stats.expired += 1;
  state.resourceVersion = undefined;
  schedule(state, 0);
}

async function connect<T extends Versioned>(state: ListWatchState<T>): Promise<void> {
  if (state.stopped || state.connecting) return;
  state.connecting = true;
  const controller = new AbortController();
  state.current = controller;
  try {
    await session(state, controller);
  } finally {
    state.connecting = false;
    if (state.current === controller) state.current = undefined;
  }
}

/** A list if we have no version to watch from, then one watch, read to its end. */
async function session<T extends Versioned>(
  state: ListWatchState<T>,
  controller: AbortController,
): Promise<void> {
  if (state.resourceVersion === undefined) {
    if (!(await list(state, controller.signal))) return;
  } else if (state.stats.watches > 0) {
    state.stats.resumes += 1;
  }
  if (isStopped(state) || controller.signal.aborted) {
    schedule(state, 0);
    return;
  }
  const res = await openWatch(state, controller);
  if (res === undefined) return;
  const end = await readWatch(state, res, controller);
  if (!isStopped(state)) resume(state, end);
}

/** Lists everything; the store becomes the list, with the differences reported. */
async function list<T extends Versioned>(
  state: ListWatchState<T>,
  signal: AbortSignal,
): Promise<boolean> {
  const { options } = state;
  const listing = state.reflector.relist();
  let token: string | undefined;
  let listVersion: string | undefined;
  try {
    do {
      state.stats.lists += 1;
      const page = (await rawGetJson(
        state.access,
        {
          path: options.path,
          query: { labelSelector: options.labelSelector, limit: LIST_PAGE_SIZE, continue: token },
          accept: options.metadataOnly === true ? ACCEPT_METADATA_LIST : ACCEPT_JSON,
          signal,
        },
        state.timing.requestTimeoutMs,
      )) as ListPage;
      // Every page of a paginated list is served from the first page's snapshot.
      listVersion ??= page.metadata?.resourceVersion;
      listing.add(page.items ?? []);
      token = page.metadata?.continue || undefined;
    } while (token !== undefined);
  } catch (err) {
    if (isStopped(state)) return false;
    // resync() aborted this list to start another: not a failure.
    if (signal.aborted) schedule(state, 0);
    else {
      fail(state, classifyApiError(err));
      listEnded(state);
    }
    return false;
  }
  if (isStopped(state)) return false;
  listing.commit();
  state.resourceVersion = listVersion;
  state.listed = true;
  state.handlers.onListed?.();
  answered(state);
  listEnded(state);
  return true;
}

function listEnded<T extends Versioned>(state: ListWatchState<T>): void {
  for (const resolve of state.listEnded.splice(0)) resolve();
}

/** Opens a watch from our version; undefined when it did not open (what follows is arranged). */
async function openWatch<T extends Versioned>(
  state: ListWatchState<T>,
  controller: AbortController,
): Promise<IncomingMessage | undefined> {
  const { options } = state;
  state.stats.watches += 1;
  let res: IncomingMessage;
  try {
    res = await rawGet(state.access, {
      path: options.path,
      query: {
        watch: 'true',
        labelSelector: options.labelSelector,
        resourceVersion: state.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: state.timing.watchTimeoutSeconds,
      },
      accept: options.metadataOnly === true ? ACCEPT_METADATA : ACCEPT_JSON,
      signal: controller.signal,
      headersTimeoutMs: state.timing.requestTimeoutMs,
    });
  } catch (err) {
    // stop() or resync() may have run while the request was in flight.
    if (isStopped(state)) return undefined;
    if (isAborted(controller)) {
      schedule(state, 0);
      return undefined;
    }
    const failure = classifyApiError(err);
    if (failure.status === 410) expire(state);
    else fail(state, failure);
    return undefined;
  }
  answered(state);
  return res;
}

/** After a watch ended: when to connect again, and whether to list first. */
function resume<T extends Versioned>(state: ListWatchState<T>, end: StreamEnd): void {
  switch (end.kind) {
    case 'expired':
      expire(state);
      return;
    case 'broken':
      // Once is usually a stream cut mid-line; again with no good event between is news.
      state.brokenInRow += 1;
      if (state.brokenInRow > 1)
        fail(state, {
          kind: 'transient',
          message: `${end.why}; the watch resumes from resourceVersion ${state.resourceVersion ?? '(a new list)'}`,
          retryable: true,
        });
      else schedule(state, state.backoff.next());
      return;
    case 'ended':
      // Resume from where we are (resync() cleared the version, so it lists first); a server
      // that keeps hanging up at once backs off.
      schedule(state, end.hungUpAtOnce ? state.backoff.next() : 0);
      return;
  }
}

/** List again now (aborting what is in flight); the watch resumes after it. */
function resync<T extends Versioned>(state: ListWatchState<T>): Promise<void> {
  if (state.stopped) return Promise.resolve();
  const ended = new Promise<void>((resolve) => state.listEnded.push(resolve));
  state.resourceVersion = undefined;
  if (state.current !== undefined) state.current.abort();
  else if (!state.connecting) {
    clearTimeout(state.retryTimer);
    state.retryTimer = undefined;
    schedule(state, 0);
  }
  return ended;
}

function stop<T extends Versioned>(state: ListWatchState<T>): void {
  state.stopped = true;
  clearTimeout(state.retryTimer);
  state.retryTimer = undefined;
  state.current?.abort();
  listEnded(state);
}
