// Short fingerprints of sensitive values, from Node's SHA-256: `createHash` is a pure function
// (no I/O, clock or randomness), and core already requires Node ≥ 20.

import { createHash } from 'node:crypto';

/** Hex SHA-256 of bytes, or of a string's UTF-8. */
export function sha256Hex(input: Uint8Array | string): string {
  return createHash('sha256').update(input).digest('hex');
}

/** A short, stable stand-in for a sensitive value in diffs and plan output. */
export function fingerprint(value: string): string {
  return `sha256:${sha256Hex(value).slice(0, 12)}`;
}
