// Strict base64 and UTF-8, with Node's own codecs. "Strict" is what ArgoCD's Go side accepts
// (encoding/base64.StdEncoding): standard alphabet, `=` padding, no whitespace, zero bits after
// the last symbol. Buffer's decoder is lenient, so a text counts only if it encodes back to itself.

/* eslint-disable no-restricted-globals -- Buffer's base64 is a pure codec (no I/O, clock or
   randomness); this file is the one place in core that uses it. */

/**
 * `undefined` for anything Go's StdEncoding would reject. The round trip stays native: a check
 * written in JavaScript is interpreted under the image's `--jitless`.
 */
export function decodeBase64(text: string): Uint8Array | undefined {
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? new Uint8Array(bytes) : undefined;
}

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** UTF-8 then base64. A lone surrogate has no UTF-8 form; it becomes U+FFFD. */
export function encodeBase64Text(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/** `undefined` on bad base64 or bad UTF-8. */
export function decodeBase64Text(text: string): string | undefined {
  const bytes = decodeBase64(text);
  return bytes === undefined ? undefined : decodeUtf8(bytes);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `undefined` on bad UTF-8, so a binary blob is reported unreadable rather than half-read. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** UTF-8 encoding of a JavaScript string. A lone surrogate becomes U+FFFD, as TextEncoder does. */
export function encodeUtf8(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf8'));
}
