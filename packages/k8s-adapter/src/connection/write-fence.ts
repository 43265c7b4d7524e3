// The write fence: a check made right before each Secret write and each Event is sent
// (request-guard.ts runs it last, after authentication). It shuts the moment leadership is
// no longer provably held (leader-election.ts says when), so a deposed or paused leader
// sends nothing, and a pass that loses the Lease stops writing at once.

export interface WriteFence {
  /** True while writes may be sent. */
  holds(): boolean;
  /** Throws {@link LeadershipLost} unless writes may be sent. */
  check(): void;
}

export class LeadershipLost extends Error {
  override readonly name = 'LeadershipLost';
  constructor() {
    super('leadership is not provably held: the write was not sent');
  }
}

/** A fence for processes that write without leader election: always open. */
export const OPEN_FENCE: WriteFence = {
  holds: () => true,
  check: () => undefined,
};

/** True when `err` (possibly wrapped by the client) is a shut fence. */
export function isLeadershipLost(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth += 1) {
    if (current instanceof LeadershipLost) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
