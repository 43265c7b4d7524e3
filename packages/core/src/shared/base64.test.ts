import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as exported from './base64.js';
import { portableCodecs } from './base64.js';
import { hostCodecs, type Codecs } from './host-codecs.js';

const bytesOf = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));

const runtimeCodecs = hostCodecs();

it('Node has the standard codecs, so core uses them; a runtime without them gets none', () => {
  expect(runtimeCodecs).toBeDefined();
  expect(exported.decodeBase64).not.toBe(portableCodecs.decodeBase64);
  expect(hostCodecs({})).toBeUndefined();
  expect(hostCodecs({ atob, btoa, TextEncoder })).toBeUndefined();
});

// Every rule below holds for both implementations.
describe.each([
  ['portable codecs', portableCodecs],
  ["the runtime's codecs", runtimeCodecs as Codecs],
])('%s', (_name, codecs) => {
  const { decodeBase64, decodeBase64Text, decodeUtf8, encodeBase64, encodeBase64Text, encodeUtf8 } =
    codecs;

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

describe("the runtime's codecs give the portable codecs' results", () => {
  const host = runtimeCodecs as Codecs;
  const near = fc.string({
    unit: fc.constantFrom(...'AQgwEIMZaz09+/=-_ \n\r\té'.split('')),
    maxLength: 24,
  });
  const canonical = fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('base64'));
  const texts = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 80 }),
    fc.string({ unit: 'grapheme', maxLength: 80 }),
    fc.string({ maxLength: 80 }),
  );
  const utf8ish = fc.oneof(
    fc.uint8Array({ maxLength: 64 }),
    texts.map((t) => Uint8Array.from(Buffer.from(t, 'utf8'))),
    fc
      .array(
        fc.constantFrom(
          0x00,
          0x7f,
          0x80,
          0xbf,
          0xc0,
          0xc2,
          0xdf,
          0xe0,
          0xed,
          0xef,
          0xf0,
          0xf4,
          0xf5,
          0xff,
          0xa0,
          0x9f,
          0x90,
        ),
        { maxLength: 12 },
      )
      .map((a) => Uint8Array.from(a)),
  );

  it('decode base64 (bytes and text) alike, near-misses and canonical text', () => {
    fc.assert(
      fc.property(fc.oneof(near, canonical), (text) => {
        expect(host.decodeBase64(text)).toEqual(portableCodecs.decodeBase64(text));
        expect(host.decodeBase64Text(text)).toBe(portableCodecs.decodeBase64Text(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('encode alike, lone surrogates included', () => {
    fc.assert(
      fc.property(texts, fc.uint8Array({ maxLength: 300 }), (text, bytes) => {
        expect(host.encodeUtf8(text)).toEqual(portableCodecs.encodeUtf8(text));
        expect(host.encodeBase64Text(text)).toBe(portableCodecs.encodeBase64Text(text));
        expect(host.encodeBase64(bytes)).toBe(portableCodecs.encodeBase64(bytes));
      }),
      { numRuns: 1000 },
    );
  });

  it('decode UTF-8 alike, malformed sequences and a leading BOM included', () => {
    fc.assert(
      fc.property(utf8ish, (bytes) => {
        expect(host.decodeUtf8(bytes)).toBe(portableCodecs.decodeUtf8(bytes));
        const withBom = Uint8Array.from([0xef, 0xbb, 0xbf, ...bytes]);
        expect(host.decodeUtf8(withBom)).toBe(portableCodecs.decodeUtf8(withBom));
      }),
      { numRuns: 2000 },
    );
  });

  it('encode more than one chunk of bytes', () => {
    const bytes = Uint8Array.from({ length: 20_000 }, (_, i) => (i * 7) % 256);
    expect(host.encodeBase64(bytes)).toBe(portableCodecs.encodeBase64(bytes));
  });
});
