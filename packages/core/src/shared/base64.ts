// Strict base64 and UTF-8. Core is compiled without Node or DOM types and must run where
// neither Buffer nor TextEncoder exists, so it owns portable codecs; where the runtime has the
// standard ones (host-codecs.ts), the exports below use those instead, with the same results.
//
// "Strict" means exactly what ArgoCD's Go side accepts for Secret data and kubeconfig
// `*-data` fields (encoding/base64.StdEncoding): standard alphabet, `=` padding to a multiple
// of four, no whitespace, no URL-safe characters, and zero bits after the last symbol.

import { hostCodecs, type Codecs } from './host-codecs.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

const DECODE_TABLE: readonly number[] = (() => {
  const table = new Array<number>(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i;
  return table;
})();

const PAD = 0x3d; // '='

/** Padded standard base64 → bytes; `undefined` for anything Go's StdEncoding would reject. */
function portableDecodeBase64(text: string): Uint8Array | undefined {
  const length = text.length;
  if (length % 4 !== 0) return undefined;
  let padding = 0;
  if (length > 0 && text.charCodeAt(length - 1) === PAD)
    padding = text.charCodeAt(length - 2) === PAD ? 2 : 1;
  const bytes = new Uint8Array((length / 4) * 3 - padding);
  // Every quad but a padded last one decodes to three bytes; any symbol outside the alphabet
  // (its table value -1) makes the OR of the four negative.
  const whole = padding === 0 ? length : length - 4;
  let out = 0;
  for (let i = 0; i < whole; i += 4) {
    const a = symbolValue(text, i);
    const b = symbolValue(text, i + 1);
    const c = symbolValue(text, i + 2);
    const d = symbolValue(text, i + 3);
    if ((a | b | c | d) < 0) return undefined;
    const triple = (a << 18) | (b << 12) | (c << 6) | d;
    bytes[out++] = (triple >> 16) & 0xff;
    bytes[out++] = (triple >> 8) & 0xff;
    bytes[out++] = triple & 0xff;
  }
  if (padding === 0) return bytes;
  const a = symbolValue(text, whole);
  const b = symbolValue(text, whole + 1);
  const c = padding === 2 ? 0 : symbolValue(text, whole + 2);
  if ((a | b | c) < 0) return undefined;
  // Non-canonical trailing bits (e.g. "QR==") are rejected, like Go's strict decoder.
  if (padding === 2 ? (b & 0x0f) !== 0 : (c & 0x03) !== 0) return undefined;
  const triple = (a << 18) | (b << 12) | (c << 6);
  bytes[out++] = (triple >> 16) & 0xff;
  if (padding === 1) bytes[out] = (triple >> 8) & 0xff;
  return bytes;
}

function symbolValue(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code < 128 ? (DECODE_TABLE[code] ?? -1) : -1;
}

function portableEncodeBase64(bytes: Uint8Array): string {
  // Emit char codes into a buffer and build the string in chunks: appending one character at a
  // time makes V8 chain thousands of tiny strings, which is slow to compare and heavy to hold.
  const codes = new Uint16Array(Math.ceil(bytes.length / 3) * 4);
  let o = 0;
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] ?? 0;
    const b = bytes[i + 1] ?? 0;
    const c = bytes[i + 2] ?? 0;
    const triple = (a << 16) | (b << 8) | c;
    codes[o++] = ALPHABET_CODES[(triple >> 18) & 0x3f] ?? PAD;
    codes[o++] = ALPHABET_CODES[(triple >> 12) & 0x3f] ?? PAD;
    codes[o++] = i + 1 < bytes.length ? (ALPHABET_CODES[(triple >> 6) & 0x3f] ?? PAD) : PAD;
    codes[o++] = i + 2 < bytes.length ? (ALPHABET_CODES[triple & 0x3f] ?? PAD) : PAD;
  }
  return fromCharCodes(codes, codes.length);
}

const CHUNK = 8192;

/**
 * The string of the first `length` UTF-16 units, in chunks (String.fromCharCode has an
 * argument-count limit). Reflect.apply takes the typed array as it is: spreading it would
 * iterate it, several times slower.
 */
function fromCharCodes(units: Uint16Array, length: number): string {
  let result = '';
  for (let start = 0; start < length; start += CHUNK) {
    result += Reflect.apply(
      String.fromCharCode,
      undefined,
      units.subarray(start, Math.min(length, start + CHUNK)),
    ) as string;
  }
  return result;
}
const ALPHABET_CODES = Array.from(ALPHABET, (char) => char.charCodeAt(0));

/**
 * UTF-8 encoding of a JavaScript string. A lone surrogate has no UTF-8 form; it becomes
 * U+FFFD, as TextEncoder does.
 */
function portableEncodeUtf8(text: string): Uint8Array {
  // Most text here is ASCII (base64 of certificates, fingerprinted for every preview): one
  // byte per unit, written straight into a buffer of the right size.
  const ascii = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return encodeUtf8From(text, ascii, i);
    ascii[i] = code;
  }
  return ascii;
}

/** encodeUtf8 from unit `start` on, `head` holding the ASCII bytes before it. */
function encodeUtf8From(text: string, head: Uint8Array, start: number): Uint8Array {
  // At most 3 bytes per UTF-16 unit (a surrogate pair is 4 bytes for 2 units).
  const out = new Uint8Array(start + (text.length - start) * 3);
  out.set(head.subarray(0, start));
  let o = start;
  for (let i = start; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code < 0x80) {
      out[o++] = code;
      continue;
    }
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        i++;
      } else {
        code = 0xfffd;
      }
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      code = 0xfffd;
    }
    if (code < 0x800) {
      out[o++] = 0xc0 | (code >> 6);
      out[o++] = 0x80 | (code & 0x3f);
    } else if (code < 0x10000) {
      out[o++] = 0xe0 | (code >> 12);
      out[o++] = 0x80 | ((code >> 6) & 0x3f);
      out[o++] = 0x80 | (code & 0x3f);
    } else {
      out[o++] = 0xf0 | (code >> 18);
      out[o++] = 0x80 | ((code >> 12) & 0x3f);
      out[o++] = 0x80 | ((code >> 6) & 0x3f);
      out[o++] = 0x80 | (code & 0x3f);
    }
  }
  return out.slice(0, o);
}

/**
 * Strict UTF-8 decoding: overlong forms, surrogates, code points above U+10FFFF and
 * truncated sequences give `undefined` rather than replacement characters, so a binary blob
 * is reported as unreadable instead of being half-read.
 */
function portableDecodeUtf8(bytes: Uint8Array): string | undefined {
  // UTF-16 never needs more units than UTF-8 has bytes.
  const units = new Uint16Array(bytes.length);
  let u = 0;
  let i = 0;
  while (i < bytes.length) {
    const first = bytes[i] ?? 0;
    if (first < 0x80) {
      units[u++] = first;
      i++;
      continue;
    }
    let code: number;
    let extra: number;
    let min: number;
    if (first >= 0xc2 && first <= 0xdf) {
      code = first & 0x1f;
      extra = 1;
      min = 0x80;
    } else if (first >= 0xe0 && first <= 0xef) {
      code = first & 0x0f;
      extra = 2;
      min = 0x800;
    } else if (first >= 0xf0 && first <= 0xf4) {
      code = first & 0x07;
      extra = 3;
      min = 0x10000;
    } else {
      return undefined;
    }
    for (let k = 1; k <= extra; k++) {
      const next = bytes[i + k];
      if (next === undefined || (next & 0xc0) !== 0x80) return undefined;
      code = (code << 6) | (next & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return undefined;
    if (code >= 0x10000) {
      const offset = code - 0x10000;
      units[u++] = 0xd800 + (offset >> 10);
      units[u++] = 0xdc00 + (offset & 0x3ff);
    } else {
      units[u++] = code;
    }
    i += extra + 1;
  }
  return fromCharCodes(units, u);
}

/** UTF-8 then base64. */
function portableEncodeBase64Text(text: string): string {
  return portableEncodeBase64(portableEncodeUtf8(text));
}

/** `undefined` on bad base64 or bad UTF-8. */
function portableDecodeBase64Text(text: string): string | undefined {
  const bytes = portableDecodeBase64(text);
  return bytes === undefined ? undefined : portableDecodeUtf8(bytes);
}

/** The portable codecs, for runtimes without the standard ones (and to test those against). */
export const portableCodecs: Codecs = {
  decodeBase64: portableDecodeBase64,
  decodeBase64Text: portableDecodeBase64Text,
  encodeBase64: portableEncodeBase64,
  encodeBase64Text: portableEncodeBase64Text,
  decodeUtf8: portableDecodeUtf8,
  encodeUtf8: portableEncodeUtf8,
};

const codecs: Codecs = hostCodecs() ?? portableCodecs;

/** Padded standard base64 → bytes; `undefined` for anything Go's StdEncoding would reject. */
export const decodeBase64 = codecs.decodeBase64;
export const encodeBase64 = codecs.encodeBase64;
/** UTF-8 then base64. */
export const encodeBase64Text = codecs.encodeBase64Text;
/** `undefined` on bad base64 or bad UTF-8. */
export const decodeBase64Text = codecs.decodeBase64Text;
/**
 * Strict UTF-8 decoding: overlong forms, surrogates, code points above U+10FFFF and
 * truncated sequences give `undefined` rather than replacement characters, so a binary blob
 * is reported as unreadable instead of being half-read.
 */
export const decodeUtf8 = codecs.decodeUtf8;
/**
 * UTF-8 encoding of a JavaScript string. A lone surrogate has no UTF-8 form; it becomes
 * U+FFFD, as TextEncoder does.
 */
export const encodeUtf8 = codecs.encodeUtf8;
