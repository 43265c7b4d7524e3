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
