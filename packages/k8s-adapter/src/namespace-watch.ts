// Watch managed namespaces and report the names that changed. The daemon is
// level-triggered: a name is only a hint to re-read that namespace, never a decision.
import type { Config } from '@argocd-cluster-registrar/core';
import { classifyApiError, classifyStatusObject } from './api-failure.js';
import type { ApiFailure } from './api-failure.js';
import { createBackoff } from './backoff.js';
import type { KubeAccess } from './kube-access.js';
import { coreApiFor } from './kube-clients.js';
import { REQUEST_TIMEOUT_MS } from './request-guard.js';
import { managedNamespaceSelector } from './selectors.js';
import { openWatchStream } from './watch-stream.js';
import type { WatchStream } from './watch-stream.js';

export interface NamespaceWatch {
  stop(): void;
}

export interface NamespaceWatchHandlers {
  onChange(namespace: string): void;
  onError(failure: ApiFailure): void;
  /**
   * The watch had to start over from a fresh list (its resourceVersion expired), so events
   * may have been missed: run a full pass. Without this handler, every listed name is
   * reported through onChange instead.
   */
  onRestart?(): void;
}

const BACKOFF_INITIAL_MS = 250;
const BACKOFF_MAX_MS = 30_000;
/** The server ends each watch after this long; we reconnect from the last resourceVersion. */
const WATCH_TIMEOUT_SECONDS = 120;
/**
 * No line (event or bookmark) for this long means a dead connection. With
 * allowWatchBookmarks the API server sends a bookmark about once a minute on a quiet watch,
 * and it ends the watch itself after WATCH_TIMEOUT_SECONDS.
 */
const SILENCE_LIMIT_MS = 90_000;
/** A stream that ends sooner than this without events counts as a failure for back-off. */
const SHORT_SESSION_MS = 1000;
const PAGE_SIZE = 500;

interface WatchEvent {
  readonly metadata?: { readonly name?: string; readonly resourceVersion?: string };
}

export function watchManagedNamespaces(
  access: KubeAccess,
  config: Config,
  handlers: NamespaceWatchHandlers,
): NamespaceWatch {
  const api = coreApiFor(access);
  const labelSelector = managedNamespaceSelector(config);
  const backoff = createBackoff(BACKOFF_INITIAL_MS, BACKOFF_MAX_MS);

  let stopped = false;
  let resourceVersion: string | undefined;
  let listedBefore = false;
  let stream: WatchStream | undefined;
  let retryTimer: NodeJS.Timeout | undefined;

  const schedule = (delayMs: number): void => {
    if (stopped) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      // connect() reports its own failures; this catch only keeps a bug from becoming an
      // unhandled rejection (which would end the process).
      connect().catch((err: unknown) => {
        fail(classifyApiError(err));
      });
    }, delayMs);
  };

  const fail = (failure: ApiFailure): void => {
    if (stopped) return;
    handlers.onError(failure);
    schedule(backoff.next());
  };

  // A list gives the resourceVersion to watch from; after an expiry it is also the only way
  // to learn what happened while we were not watching.
  const relist = async (): Promise<boolean> => {
    const names: string[] = [];
    let token: string | undefined;
    let listVersion: string | undefined;
    try {
      do {
        const page = await api.listNamespace({
          labelSelector,
          limit: PAGE_SIZE,
          ...(token ? { _continue: token } : {}),
        });
        // Every page of a paginated list is served from the first page's snapshot.
        listVersion ??= page.metadata?.resourceVersion;
        for (const item of page.items) if (item.metadata?.name) names.push(item.metadata.name);
        token = page.metadata?._continue || undefined;
      } while (token !== undefined);
    } catch (err) {
      fail(classifyApiError(err));
      return false;
    }
    if (stopped) return false;
    resourceVersion = listVersion;
    if (listedBefore) {
      if (handlers.onRestart) handlers.onRestart();
      else for (const name of names) handlers.onChange(name);
    }
    listedBefore = true;
    return true;
  };

  const connect = async (): Promise<void> => {
    if (stopped) return;
    if (resourceVersion === undefined && !(await relist())) return;
    const startedAt = Date.now();
    let sawEvent = false;
    let expired = false;

    const onEvent = (phase: string, object: unknown): void => {
      if (stopped) return;
      const event = (object ?? {}) as WatchEvent;
      switch (phase) {
        case 'ADDED':
        case 'MODIFIED':
        case 'DELETED':
          sawEvent = true;
          backoff.reset();
          if (event.metadata?.resourceVersion) resourceVersion = event.metadata.resourceVersion;
          if (event.metadata?.name) handlers.onChange(event.metadata.name);
          break;
        case 'BOOKMARK':
          if (event.metadata?.resourceVersion) resourceVersion = event.metadata.resourceVersion;
          break;
        case 'ERROR': {
          const failure = classifyStatusObject(object);
          // 410 Gone: our resourceVersion was compacted away; start over from a list.
          if (failure.status === 410) expired = true;
          else handlers.onError(failure);
          break;
        }
        default:
          break;
      }
    };

    const onDone = (err: unknown): void => {
      stream = undefined;
      if (stopped) return;
      if (expired) {
        resourceVersion = undefined;
        schedule(0);
        return;
      }
      if (err) {
        const failure = classifyApiError(err);
        if (failure.status === 410) {
          resourceVersion = undefined;
          schedule(0);
          return;
        }
        fail(failure);
        return;
      }
      // A clean end (the server's timeout): resume from where we are, unless the server
      // keeps hanging up at once, which is a failure in disguise.
      if (!sawEvent && Date.now() - startedAt < SHORT_SESSION_MS) schedule(backoff.next());
      else schedule(0);
    };

    stream = openWatchStream(
      access,
      '/api/v1/namespaces',
      {
        labelSelector,
        resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: WATCH_TIMEOUT_SECONDS,
      },
      { onEvent, onDone },
      {
        headersTimeoutMs: access.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
        silenceMs: SILENCE_LIMIT_MS,
      },
    );
  };

  schedule(0);

  return {
    stop() {
      stopped = true;
      clearTimeout(retryTimer);
      stream?.abort();
      stream = undefined;
    },
  };
}
