let counter = 0;

/**
 * A fresh DNS-1123 label (≤ 63 chars) starting with `prefix`, unique within this process and,
 * with overwhelming likelihood, across the processes sharing a plane.
 */
export function uniqueName(prefix: string): string {
  const clean = prefix
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  counter += 1;
  const random = Math.floor(Math.random() * 36 ** 4)
    .toString(36)
    .padStart(4, '0');
  const suffix = `${process.pid.toString(36)}${counter.toString(36)}${random}`;
  const head = (clean === '' ? 'x' : clean).slice(0, 62 - suffix.length).replace(/-+$/, '');
  return `${head}-${suffix}`;
}
