// Exhaustive switches end here: a new union member fails to compile until it is handled, and
// a value the types ruled out throws. The error names only the value's discriminant (or type):
// the value may be an action carrying a desired Secret's data, and the daemon logs the error.

const DISCRIMINANTS = ['kind', 'code', 'state'] as const;

export function assertNever(value: never, what = 'case'): never {
  const seen: unknown = value;
  let name: string = typeof seen;
  if (typeof seen === 'object' && seen !== null) {
    const fields = seen as Readonly<Record<string, unknown>>;
    const tag = DISCRIMINANTS.map((key) => fields[key]).find((field) => typeof field === 'string');
    if (typeof tag === 'string') name = tag;
  }
  throw new Error(`unhandled ${what} ${name}`);
}
