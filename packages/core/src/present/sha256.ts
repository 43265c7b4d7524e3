// SHA-256 fingerprints, with Node's own hash.

import { createHash } from 'node:crypto';

/** Hex SHA-256 of bytes, or of a string's UTF-8. */
export function sha256Hex(input: Uint8Array | string): string {
  return createHash('sha256').update(input).digest('hex');
}

/** A short, stable stand-in for a sensitive value in diffs and plan output. */
export function fingerprint(value: string): string {
  return `sha256:${sha256Hex(value).slice(0, 12)}`;
}
