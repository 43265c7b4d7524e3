// Code-unit order, independent of locale: plans, diffs and previews must sort the same way on
// every machine.

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The record with its keys in that order (Object.fromEntries keeps even a `__proto__` key). */
export function sortedRecord<V>(record: Readonly<Record<string, V>>): Record<string, V> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compareStrings(a, b)));
}
