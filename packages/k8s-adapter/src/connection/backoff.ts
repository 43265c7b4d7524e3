// Capped exponential back-off with jitter, so many replicas that lost the API server at the
// same moment do not all come back at the same moment.

export interface Backoff {
  /** Delay before the next attempt; each call doubles the next one, up to the cap. */
  next(): number;
  reset(): void;
}

export function createBackoff(initialMs: number, maxMs: number): Backoff {
  let attempt = 0;
  return {
    next() {
      const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
      attempt += 1;
      return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
    },
    reset() {
      attempt = 0;
    },
  };
}

/**
 * The wait before retrying after `failure`: the back-off's, or longer when the server asked
 * for it (Retry-After on 429/503), but never longer than `maxMs`, so a server asking for an
 * hour cannot park a watch for an hour.
 */
export function retryDelayMs(
  backoffMs: number,
  failure: { readonly retryAfterSeconds?: number },
  maxMs: number,
): number {
  const asked = (failure.retryAfterSeconds ?? 0) * 1000;
  return Math.max(backoffMs, Math.min(asked, maxMs));
}
