// What bounds and fences one request (kube-http.ts applies it).

/**
 * Default bound on one request, headers to last byte. A list page (at most 100 items) takes well under
 * a second; 20 s leaves room for a slow, loaded API server while a hung request still ends
 * well within one pass interval.
 */
export const REQUEST_TIMEOUT_MS = 20_000;

export interface RequestGuard {
  /** Bound on this request; default the access's requestTimeoutMs, else {@link REQUEST_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** Runs right before sending; throwing stops the request (the write fence). */
  readonly beforeSend?: () => void;
  /** Aborts the request early. */
  readonly signal?: AbortSignal;
}
