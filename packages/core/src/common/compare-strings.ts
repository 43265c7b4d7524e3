// Code-unit order, independent of locale: plans, diffs and previews must sort the same way on
// every machine.

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
