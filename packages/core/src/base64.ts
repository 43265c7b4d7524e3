// Strict, portable base64 and UTF-8. Core is compiled without Node or DOM types, so neither
// Buffer nor TextEncoder is available; both codecs are small enough to own.
//
// "Strict" means exactly what ArgoCD's Go side accepts for Secret data and kubeconfig
// `*-data` fields (encoding/base64.StdEncoding): standard alphabet, `=` padding to a multiple
// of four, no whitespace, no URL-safe characters, and zero bits after the last symbol.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

const DECODE_TABLE: readonly number[] = (() => {
  const table = new Array<number>(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i;
  return table;
})();

function symbolValue(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code < 128 ? (DECODE_TABLE[code] ?? -1) : -1;
}

/** Padded standard base64 → bytes; `undefined` for anything Go's StdEncoding would reject. */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0) return undefined;
  let padding = 0;
  if (text.endsWith('==')) padding = 2;
  else if (text.endsWith('=')) padding = 1;
  const bytes = new Uint8Array((text.length / 4) * 3 - padding);
  let out = 0;
  for (let i = 0; i < text.length; i += 4) {
    const last = i + 4 === text.length;
    const a = symbolValue(text, i);
    const b = symbolValue(text, i + 1);
    const cPad = last && padding === 2;
    const dPad = last && padding >= 1;
    const c = cPad ? 0 : symbolValue(text, i + 2);
    const d = dPad ? 0 : symbolValue(text, i + 3);
    if (a < 0 || b < 0 || c < 0 || d < 0) return undefined;
    // Non-canonical trailing bits (e.g. "QR==") are rejected, like Go's strict decoder.
    if (cPad && (b & 0x0f) !== 0) return undefined;
    if (dPad && !cPad && (c & 0x03) !== 0) return undefined;
    const triple = (a << 18) | (b << 12) | (c << 6) | d;
    bytes[out++] = (triple >> 16) & 0xff;
    if (!cPad) bytes[out++] = (triple >> 8) & 0xff;
    if (!dPad) bytes[out++] = triple & 0xff;
  }
  return bytes;
}

export function encodeBase64(bytes: Uint8Array): string {
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
  let result = '';
  for (let start = 0; start < codes.length; start += CHUNK) {
    result += String.fromCharCode(...codes.subarray(start, start + CHUNK));
  }
  return result;
}

const PAD = 0x3d; // '='
const CHUNK = 8192;
const ALPHABET_CODES = Array.from(ALPHABET, (char) => char.charCodeAt(0));

/**
 * UTF-8 encoding of a JavaScript string. A lone surrogate has no UTF-8 form; it becomes
 * U+FFFD, as TextEncoder does.
 */
export function encodeUtf8(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
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
    if (code < 0x80) {
      out.push(code);
    } else if (code < 0x800) {
      out.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      out.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    } else {
      out.push(
        0xf0 | (code >> 18),
        0x80 | ((code >> 12) & 0x3f),
        0x80 | ((code >> 6) & 0x3f),
        0x80 | (code & 0x3f),
      );
    }
  }
  return Uint8Array.from(out);
}

/**
 * Strict UTF-8 decoding: overlong forms, surrogates, code points above U+10FFFF and
 * truncated sequences give `undefined` rather than replacement characters, so a binary blob
 * is reported as unreadable instead of being half-read.
 */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  const units: number[] = [];
  let result = '';
  let i = 0;
  while (i < bytes.length) {
    const first = bytes[i] ?? 0;
    let code: number;
    let extra: number;
    let min: number;
    if (first < 0x80) {
      code = first;
      extra = 0;
      min = 0;
    } else if (first >= 0xc2 && first <= 0xdf) {
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
      units.push(0xd800 + (offset >> 10), 0xdc00 + (offset & 0x3ff));
    } else {
      units.push(code);
    }
    i += extra + 1;
    // Flush in chunks: String.fromCharCode has an argument-count limit.
    if (units.length >= 4096) {
      result += String.fromCharCode(...units);
      units.length = 0;
    }
  }
  return result + String.fromCharCode(...units);
}

/** UTF-8 then base64. */
export function encodeBase64Text(text: string): string {
  return encodeBase64(encodeUtf8(text));
}

/** `undefined` on bad base64 or bad UTF-8. */
export function decodeBase64Text(text: string): string | undefined {
  const bytes = decodeBase64(text);
  return bytes === undefined ? undefined : decodeUtf8(bytes);
}
