// The runtime's own base64 and UTF-8 codecs, where it has them: atob/btoa and
// TextDecoder/TextEncoder are web standards that Node, Deno, Bun and browsers all provide, but
// ECMAScript itself does not. Core is compiled without DOM or Node types and must run without
// them, so they are looked up on globalThis once, and base64.ts keeps its portable codecs for
// a runtime that lacks any of them.
//
// Why bother: they are native code. In an interpreter (the image runs Node with --jitless)
// the portable loops cost a hundred times as much, and every cold start decodes each source's
// kubeconfig, its certificates and key, and encodes each registration's config.
//
// They must give exactly the portable codecs' results (a property test compares the two):
// atob is forgiving (it skips whitespace, pads, and drops stray trailing bits), so text
// reaches it only once it is known to be canonical padded standard base64; a fatal
// TextDecoder rejects exactly the byte sequences decodeUtf8 rejects, and keeps a leading BOM
// as decodeUtf8 does (ignoreBOM); TextEncoder writes a lone surrogate as U+FFFD, as
// encodeUtf8 does.

interface HostGlobals {
  readonly atob?: (base64: string) => string;
  readonly btoa?: (binary: string) => string;
  readonly TextDecoder?: new (
    label: string,
    options: { fatal: boolean; ignoreBOM: boolean },
  ) => { decode(bytes: Uint8Array): string };
  readonly TextEncoder?: new () => { encode(text: string): Uint8Array };
}

export interface Codecs {
  /** Canonical padded standard base64 → bytes; `undefined` for anything else. */
  readonly decodeBase64: (text: string) => Uint8Array | undefined;
  /** Canonical padded standard base64 → UTF-8 text; `undefined` on bad base64 or UTF-8. */
  readonly decodeBase64Text: (text: string) => string | undefined;
  readonly encodeBase64: (bytes: Uint8Array) => string;
  readonly encodeBase64Text: (text: string) => string;
  /** Strict UTF-8; `undefined` for overlong forms, surrogates, truncation and the like. */
  readonly decodeUtf8: (bytes: Uint8Array) => string | undefined;
  readonly encodeUtf8: (text: string) => Uint8Array;
}

// eslint-disable-next-line no-control-regex -- ASCII is exactly U+0000 to U+007F
const ASCII = /^[\u0000-\u007f]*$/;
/** The characters atob skips; strict base64 has none of them. */
const SKIPPED_BY_ATOB = ['\t', '\n', '\f', '\r', ' '];
/**
 * The symbol before `==` carries one byte, so its low four bits must be clear; the one before
 * `=` carries two, so its low two bits must be clear (Go's StdEncoding rejects the others).
 */
const BEFORE_TWO_PADS = new Set(Array.from('AQgw', (c) => c.charCodeAt(0)));
const BEFORE_ONE_PAD = new Set(Array.from('AEIMQUYcgkosw048', (c) => c.charCodeAt(0)));
/** String.fromCharCode takes one argument per unit; its argument count is limited. */
const CHUNK = 8192;

/** The runtime's codecs, or `undefined` when it lacks one of them. */
export function hostCodecs(globals: object = globalThis): Codecs | undefined {
  const { atob, btoa, TextDecoder, TextEncoder } = globals as HostGlobals;
  if (atob === undefined || btoa === undefined) return undefined;
  if (TextDecoder === undefined || TextEncoder === undefined) return undefined;
  const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const encoder = new TextEncoder();

  const decodeUtf8 = (bytes: Uint8Array): string | undefined => {
    try {
      return utf8.decode(bytes);
    } catch {
      return undefined;
    }
  };
  /** Bytes as a "binary string", one unit per byte: what btoa encodes and atob returns. */
  const binaryOf = (bytes: Uint8Array): string => {
    let binary = '';
    for (let start = 0; start < bytes.length; start += CHUNK)
      binary += Reflect.apply(
        String.fromCharCode,
        undefined,
        bytes.subarray(start, Math.min(bytes.length, start + CHUNK)),
      ) as string;
    return binary;
  };
  const bytesOf = (binary: string): Uint8Array => {
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  };
  const encodeBase64 = (bytes: Uint8Array): string => btoa(binaryOf(bytes));
  /**
   * atob of padded standard base64 with zero bits after the last symbol, else `undefined`.
   * atob itself refuses a symbol outside the alphabet and `=` anywhere but at the end; what it
   * would forgive (whitespace, missing padding, stray trailing bits) is refused here first.
   * Plain string searches rather than one regular expression: in an interpreter a regular
   * expression walks the text a character at a time, several times slower than atob itself.
   */
  const strictAtob = (text: string): string | undefined => {
    if (text.length % 4 !== 0) return undefined;
    for (const skipped of SKIPPED_BY_ATOB) if (text.includes(skipped)) return undefined;
    if (text.endsWith('==')) {
      if (!BEFORE_TWO_PADS.has(text.charCodeAt(text.length - 3))) return undefined;
    } else if (text.endsWith('=')) {
      if (!BEFORE_ONE_PAD.has(text.charCodeAt(text.length - 2))) return undefined;
    }
    try {
      return atob(text);
    } catch {
      return undefined;
    }
  };

  return {
    decodeBase64: (text) => {
      const binary = strictAtob(text);
      return binary === undefined ? undefined : bytesOf(binary);
    },
    decodeBase64Text: (text) => {
      const binary = strictAtob(text);
      if (binary === undefined) return undefined;
      // ASCII bytes are their own UTF-8 text: the common case (YAML, PEM) needs no decoding.
      return ASCII.test(binary) ? binary : decodeUtf8(bytesOf(binary));
    },
    encodeBase64,
    encodeBase64Text: (text) =>
      ASCII.test(text) ? btoa(text) : encodeBase64(encoder.encode(text)),
    decodeUtf8,
    encodeUtf8: (text) => encoder.encode(text),
  };
}
