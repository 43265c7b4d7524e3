// The list-watch vocabulary: what a watched object looks like, the timing bounds, the
// handlers a caller supplies, and the handle and counters it gets back.
import type { ApiFailure } from '../connection/api-failure.js';
import type { ObjectMeta } from '../kube-objects.js';

/** The part of an object (full or PartialObjectMetadata) the store looks at. */
export interface WatchedObject {
  readonly metadata?: ObjectMeta;
  readonly [field: string]: unknown;
}

export interface Versioned {
  readonly resourceVersion: string;
}

export interface ListWatchTiming {
  /** Bound on each list page and on a watch's response headers. */
  readonly requestTimeoutMs: number;
  /** Asked of the server: it ends each watch after about this long, and we resume. */
  readonly watchTimeoutSeconds: number;
  /** No event or bookmark for this long: the connection is dead; re-open it. */
  readonly silenceMs: number;
  readonly backoffInitialMs: number;
  readonly backoffMaxMs: number;
}

// Recovery after an API server that hung comes from these two: a request sent just before it
// answers again fails by its time-out, then waits one back-off. 15 s + 5 s stays inside the
// shortest interval a user is likely to set (30 s), whatever the length of the hang (the
// back-off caps at 5 s however many attempts failed during it).
export const DEFAULT_LIST_WATCH_TIMING: ListWatchTiming = {
  requestTimeoutMs: 15_000,
  watchTimeoutSeconds: 300,
  // With allowWatchBookmarks the API server sends a bookmark about once a minute on a quiet
  // watch (measured on 1.36: 60 s apart, and one just before its time-out), so two and a half
  // minutes without a line is a dead connection, not a quiet world.
  silenceMs: 150_000,
  backoffInitialMs: 250,
  backoffMaxMs: 5_000,
};

export interface ListWatchHandlers<T> {
  /** A kept object appeared or changed (its resourceVersion differs). */
  onUpsert(key: string, value: T, previous: T | undefined): void;
  onDelete(key: string, previous: T): void;
  /**
   * Every ADDED, MODIFIED or DELETED line of the watch, whether the projection keeps the
   * object or not (list items are not events): for noticing change among dropped objects.
   */
  onEvent?(object: WatchedObject): void;
  /** A list completed and the store now mirrors it (first sync, 410 or resync). */
  onListed?(): void;
  onError(failure: ApiFailure): void;
  /**
   * A list or a watch's headers came back after a failure: what failing() reported is over.
   * The only sign that the server answers again when nothing changed meanwhile.
   */
  onRecovered?(): void;
}

export interface ListWatchOptions<T extends Versioned> {
  /** For messages: 'namespaces', 'secret metadata'. */
  readonly name: string;
  /** Collection path, e.g. `/api/v1/secrets`. */
  readonly path: string;
  readonly labelSelector?: string;
  /** Ask for PartialObjectMetadata: names, labels, versions, never data. */
  readonly metadataOnly?: boolean;
  readonly project: (object: WatchedObject) => T | undefined;
  readonly handlers: ListWatchHandlers<T>;
  readonly timing?: Partial<ListWatchTiming>;
  /**
   * Start by watching from this resourceVersion instead of listing, as a process that kept
   * its position would; a version the server no longer has is met with 410 and a list.
   */
  readonly resumeFrom?: string;
}

export interface ListWatchStats {
  /** List requests (every page counts). */
  readonly lists: number;
  /** Watch requests opened (the first, each resume, each after a list). */
  readonly watches: number;
  /** Watches re-opened from the last resourceVersion without a list. */
  readonly resumes: number;
  /** 410 Gone answers that forced a list. */
  readonly expired: number;
  /** Streams abandoned for silence. */
  readonly silences: number;
}

export interface ListWatch<T> {
  readonly store: ReadonlyMap<string, T>;
  /** True once a list has completed. */
  synced(): boolean;
  /** The last failure, while no list or watch has succeeded since. */
  failing(): ApiFailure | undefined;
  /**
   * List again now (the resync period's safety net); the watch resumes after it. Settles
   * when that list has ended, listed or failed, or the watch is stopped.
   */
  resync(): Promise<void>;
  stats(): ListWatchStats;
  stop(): void;
}
