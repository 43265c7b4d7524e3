// Exhaustive switches end here: a new union member fails to compile until it is handled,
// and a value the types ruled out (a broken invariant) throws instead of passing silently.

/** Throws naming only the value's `kind` (the value may hold secret data, e.g. an action). */
export function assertNever(value: never, what = 'case'): never {
  const seen: unknown = value;
  const kind: unknown =
    typeof seen === 'object' && seen !== null && 'kind' in seen ? seen.kind : typeof seen;
  throw new Error(`unhandled ${what} ${String(kind)}`);
}
