// The process's contract with its caller: exit codes, and the one error class whose
// message is meant for the user as it stands.

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_CHANGES = 2;
/** `--once --dry-run`: the API server would reject at least one of the plan's writes. */
export const EXIT_REJECTED = 3;

/** An expected failure with a message for the user (no stack trace). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
