import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as exported from './base64.js';

const bytesOf = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));

// Node's decoder is lenient (it skips whitespace and stops at the first bad symbol); these
// rules say what ours accepts: exactly Go's StdEncoding, which ArgoCD decodes with.
describe('codecs', () => {
  const { decodeBase64, decodeBase64Text, decodeUtf8, encodeBase64, encodeBase64Text, encodeUtf8 } =
    exported;

  describe('encodeBase64', () => {
    it.each([
      ['', ''],
      ['f', 'Zg=='],
      ['fo', 'Zm8='],
      ['foo', 'Zm9v'],
      ['foob', 'Zm9vYg=='],
      ['fooba', 'Zm9vYmE='],
      ['foobar', 'Zm9vYmFy'],
    ])('RFC 4648 vector %j → %j', (plain, encoded) => {
      expect(encodeBase64(bytesOf(plain))).toBe(encoded);
      expect(decodeBase64(encoded)).toEqual(bytesOf(plain));
    });

    it('uses the standard alphabet for the high symbols', () => {
      expect(encodeBase64(Uint8Array.from([0xfb, 0xff, 0xbf]))).toBe('+/+/');
    });
  });

  describe('decodeBase64 is strict', () => {
    it.each([
      ['missing padding', 'Zg'],
      ['missing one pad', 'Zm8'],
      ['URL-safe alphabet', '-_-_'],
      ['embedded newline', 'Zm9v\nYmFy'],
      ['trailing newline', 'Zm9v\n'],
      ['space', 'Zm9 v'],
      ['padding in the middle', 'Zg==Zm9v'],
      ['three pads', 'Z==='],
      ['four pads', '===='],
      ['non-canonical bits before ==', 'Zh=='],
      ['non-canonical bits before =', 'Zm9='],
      ['non-ASCII', 'Zm9é'],
    ])('rejects %s', (_why, text) => {
      expect(decodeBase64(text)).toBeUndefined();
    });

    it('accepts the empty string', () => {
      expect(decodeBase64('')).toEqual(new Uint8Array());
    });

    it('round-trips any bytes and agrees with Node', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
          const encoded = encodeBase64(bytes);
          expect(encoded).toBe(Buffer.from(bytes).toString('base64'));
          expect(decodeBase64(encoded)).toEqual(bytes);
        }),
      );
    });

    it('accepts exactly what re-encodes to itself', () => {
      fc.assert(
        fc.property(
          fc.string({ unit: fc.constantFrom(...'AZaz09+/=-_ \n'.split('')), maxLength: 16 }),
          (text) => {
            const decoded = decodeBase64(text);
            if (decoded !== undefined) expect(encodeBase64(decoded)).toBe(text);
          },
        ),
      );
    });

    // StdEncoding's rules written out symbol by symbol, to hold the round trip to them.
    const byTheRules = (text: string): boolean => {
      if (text.length % 4 !== 0) return false;
      const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
      const symbols = text.slice(0, text.length - padding);
      if (!/^[A-Za-z0-9+/]*$/.test(symbols)) return false;
      if (padding === 0) return true;
      // The symbol before `==` carries one byte, the one before `=` two: unused bits are zero.
      return (padding === 2 ? 'AQgw' : 'AEIMQUYcgkosw048').includes(symbols.slice(-1));
    };

    it('accepts exactly what the alphabet, padding and zero-bit rules accept', () => {
      fc.assert(
        fc.property(
          fc.string({ unit: fc.constantFrom(...'AQgwBZaz09+/=-_ \n\r'.split('')), maxLength: 12 }),
          (text) => {
            expect(decodeBase64(text) !== undefined).toBe(byTheRules(text));
          },
        ),
        { numRuns: 20_000 },
      );
    });
  });

  describe('UTF-8', () => {
    it('encodes like Node for well-formed strings', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'grapheme', maxLength: 50 }), (text) => {
          expect(encodeUtf8(text)).toEqual(Uint8Array.from(Buffer.from(text, 'utf8')));
          expect(decodeUtf8(encodeUtf8(text))).toBe(text);
        }),
      );
    });

    it('encodes a lone surrogate as U+FFFD', () => {
      expect(encodeUtf8('a\ud800b')).toEqual(Uint8Array.from([0x61, 0xef, 0xbf, 0xbd, 0x62]));
    });

    it.each([
      ['a stray continuation byte', [0x80]],
      ['an overlong slash', [0xc0, 0xaf]],
      ['an overlong 3-byte form', [0xe0, 0x80, 0xaf]],
      ['a surrogate', [0xed, 0xa0, 0x80]],
      ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
      ['a truncated sequence', [0xe2, 0x82]],
      ['a truncated sequence at the end', [0x61, 0xf0, 0x9f, 0x98]],
      ['0xFF', [0xff]],
    ])('rejects %s', (_why, bytes) => {
      expect(decodeUtf8(Uint8Array.from(bytes))).toBeUndefined();
    });

    it('decodes 1- to 4-byte sequences', () => {
      expect(
        decodeUtf8(Uint8Array.from([0x24, 0xc2, 0xa2, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80])),
      ).toBe('$¢€😀');
    });

    it('decodes long inputs (chunked flush)', () => {
      const text = 'é'.repeat(10_000) + 'x';
      expect(decodeUtf8(encodeUtf8(text))).toBe(text);
    });

    it('never throws on arbitrary bytes and agrees with a fatal TextDecoder', () => {
      const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
          let expected: string | undefined;
          try {
            expected = fatal.decode(bytes);
          } catch {
            expected = undefined;
          }
          expect(decodeUtf8(bytes)).toBe(expected);
        }),
      );
    });
  });

  describe('text helpers', () => {
    it('round-trips text', () => {
      expect(encodeBase64Text('apiVersion: v1\n€')).toBe(
        Buffer.from('apiVersion: v1\n€').toString('base64'),
      );
      expect(decodeBase64Text(encodeBase64Text('kind: Config'))).toBe('kind: Config');
    });

    it('gives undefined on bad base64 or bad UTF-8', () => {
      expect(decodeBase64Text('not base64')).toBeUndefined();
      expect(decodeBase64Text(encodeBase64(Uint8Array.from([0xff, 0xfe])))).toBeUndefined();
    });
  });
});
