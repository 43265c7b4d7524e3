import { X509Certificate } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64, encodeBase64 } from '../common/base64.js';
import {
  CA_CERT_PEM,
  CA_ISSUER,
  CA_KEY_PEM,
  CA_NOT_AFTER,
  CLIENT2_CERT_PEM,
  CLIENT2_NOT_AFTER,
  CLIENT_CERT_PEM,
  CLIENT_KEY_PEM,
  CLIENT_NOT_AFTER,
  OTHER_CA_CERT_PEM,
  OTHER_CA_ISSUER,
  OTHER_CA_NOT_AFTER,
  OTHER_CLIENT_CERT_PEM,
  OTHER_CLIENT_NOT_AFTER,
} from '../test-fixtures/certificates.js';
import { readCertificateDer, readCertificateFacts, readPemBlocks } from './x509.js';

/** DER element with a definite length. */
function tlv(tag: number, content: readonly number[]): number[] {
  const length = content.length;
  const header =
    length < 0x80 ? [length] : length < 0x100 ? [0x81, length] : [0x82, length >> 8, length & 0xff];
  return [tag, ...header, ...content];
}
const ascii = (text: string): number[] => Array.from(text, (c) => c.charCodeAt(0));
const issuerName = tlv(
  0x30,
  tlv(0x31, tlv(0x30, [...tlv(0x06, [0x55, 0x04, 0x03]), ...tlv(0x0c, ascii('x'))])),
);

/** A structurally minimal certificate: only the fields the reader walks are meaningful. */
function syntheticCertificate(notBefore: number[], notAfter: number[], padding = 0): Uint8Array {
  const subject = tlv(0x30, new Array<number>(padding).fill(0));
  const tbs = tlv(0x30, [
    ...tlv(0x02, [1]),
    ...tlv(0x30, []),
    ...issuerName,
    ...tlv(0x30, [...notBefore, ...notAfter]),
    ...subject,
  ]);
  return Uint8Array.from(tlv(0x30, [...tbs, ...tlv(0x30, []), ...tlv(0x03, [0])]));
}
const utc = (text: string): number[] => tlv(0x17, ascii(text));
const generalized = (text: string): number[] => tlv(0x18, ascii(text));
const toPem = (der: Uint8Array): string =>
  `-----BEGIN CERTIFICATE-----\n${encodeBase64(der)}\n-----END CERTIFICATE-----\n`;

describe('readCertificateFacts on openssl-generated certificates', () => {
  it.each([
    ['client (v1, UTCTime)', CLIENT_CERT_PEM, CA_ISSUER, CLIENT_NOT_AFTER],
    ['rotated client, same CA', CLIENT2_CERT_PEM, CA_ISSUER, CLIENT2_NOT_AFTER],
    ['self-signed CA (v3)', CA_CERT_PEM, CA_ISSUER, CA_NOT_AFTER],
    [
      'CA valid past 2050 (GeneralizedTime)',
      OTHER_CA_CERT_PEM,
      OTHER_CA_ISSUER,
      OTHER_CA_NOT_AFTER,
    ],
    ['client of the other CA', OTHER_CLIENT_CERT_PEM, OTHER_CA_ISSUER, OTHER_CLIENT_NOT_AFTER],
  ])('%s', (_name, pem, issuer, notAfter) => {
    expect(readCertificateFacts(pem)).toEqual({ issuer, notAfter });
  });

  it('agrees with Node on the expiry', () => {
    for (const pem of [
      CA_CERT_PEM,
      CLIENT_CERT_PEM,
      CLIENT2_CERT_PEM,
      OTHER_CA_CERT_PEM,
      OTHER_CLIENT_CERT_PEM,
    ]) {
      const expected = new Date(new X509Certificate(pem).validTo)
        .toISOString()
        .replace('.000Z', 'Z');
      expect(readCertificateFacts(pem)?.notAfter).toBe(expected);
    }
  });

  it('equal issuers compare equal, different issuers differ', () => {
    expect(readCertificateFacts(CLIENT_CERT_PEM)?.issuer).toBe(
      readCertificateFacts(CLIENT2_CERT_PEM)?.issuer,
    );
    expect(readCertificateFacts(CLIENT_CERT_PEM)?.issuer).not.toBe(
      readCertificateFacts(OTHER_CLIENT_CERT_PEM)?.issuer,
    );
  });

  it('reads the first CERTIFICATE block of a bundle, skipping other blocks and text', () => {
    const bundle = `Bag Attributes: x\n${CLIENT_KEY_PEM}\n${OTHER_CLIENT_CERT_PEM}\n${CLIENT_CERT_PEM}`;
    expect(readCertificateFacts(bundle)?.issuer).toBe(OTHER_CA_ISSUER);
  });

  it('accepts CRLF line endings and indentation', () => {
    const crlf = CLIENT_CERT_PEM.split('\n')
      .map((line) => `  ${line}`)
      .join('\r\n');
    expect(readCertificateFacts(crlf)?.notAfter).toBe(CLIENT_NOT_AFTER);
  });
});

describe('readCertificateFacts on malformed input', () => {
  it.each([
    ['empty text', ''],
    ['no PEM block', 'hello'],
    ['only a key', CA_KEY_PEM],
    ['an unterminated block', CLIENT_CERT_PEM.replace('-----END CERTIFICATE-----', '')],
    ['a mismatched END label', CLIENT_CERT_PEM.replace('END CERTIFICATE', 'END X509 CRL')],
    [
      'bad base64 in the body',
      '-----BEGIN CERTIFICATE-----\nnot*base64\n-----END CERTIFICATE-----\n',
    ],
    ['an empty body', '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n'],
    [
      'a body with headers',
      '-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\nMAA=\n-----END CERTIFICATE-----\n',
    ],
    ['a key in a CERTIFICATE block', CLIENT_KEY_PEM.replace(/PRIVATE KEY/g, 'CERTIFICATE')],
  ])('%s → undefined', (_why, pem) => {
    expect(readCertificateFacts(pem)).toBeUndefined();
  });

  it('every truncation of a real certificate is undefined or correct, never a throw', () => {
    const der = readPemBlocks(CLIENT_CERT_PEM)[0]?.der ?? new Uint8Array();
    expect(der.length).toBeGreaterThan(100);
    for (let length = 0; length < der.length; length++) {
      expect(readCertificateDer(der.subarray(0, length))).toBeUndefined();
    }
  });

  it('arbitrary bytes never throw', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        readCertificateDer(bytes);
        readCertificateFacts(toPem(bytes));
      }),
    );
  });

  it('single-byte corruptions of a real certificate never throw', () => {
    const der = readPemBlocks(CLIENT_CERT_PEM)[0]?.der ?? new Uint8Array();
    fc.assert(
      fc.property(
        fc.nat({ max: der.length - 1 }),
        fc.integer({ min: 0, max: 255 }),
        (index, value) => {
          const copy = Uint8Array.from(der);
          copy[index] = value;
          const facts = readCertificateDer(copy);
          if (facts !== undefined)
            expect(facts.notAfter).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        },
      ),
    );
  });

  it('arbitrary text never throws', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        readCertificateFacts(`-----BEGIN CERTIFICATE-----\n${text}\n-----END CERTIFICATE-----`);
        readCertificateFacts(text);
      }),
    );
  });
});

describe('validity times', () => {
  const facts = (notAfter: number[]): string | undefined =>
    readCertificateDer(syntheticCertificate(utc('250101000000Z'), notAfter))?.notAfter;

  it.each([
    ['491231235959Z', '2049-12-31T23:59:59Z'],
    ['500101000000Z', '1950-01-01T00:00:00Z'],
    ['240229120000Z', '2024-02-29T12:00:00Z'],
  ])('UTCTime %s → %s', (text, expected) => {
    expect(facts(utc(text))).toBe(expected);
  });

  it('GeneralizedTime', () => {
    expect(facts(generalized('20500101000000Z'))).toBe('2050-01-01T00:00:00Z');
    expect(facts(generalized('20000229000000Z'))).toBe('2000-02-29T00:00:00Z');
  });

  it.each([
    ['UTCTime without seconds', utc('2501010000Z')],
    ['UTCTime with an offset', utc('250101000000+0100')],
    ['GeneralizedTime with fractions', generalized('20250101000000.5Z')],
    ['GeneralizedTime without Z', generalized('20250101000000')],
    ['month 13', utc('251301000000Z')],
    ['day 0', utc('250100000000Z')],
    ['February 29 in a common year', utc('230229000000Z')],
    ['1900 is not a leap year', generalized('19000229000000Z')],
    ['April 31', utc('250431000000Z')],
    ['hour 24', utc('250101240000Z')],
    ['second 60', utc('250101000060Z')],
    ['an INTEGER instead of a time', tlv(0x02, [1])],
  ])('%s → undefined', (_why, notAfter) => {
    expect(facts(notAfter)).toBeUndefined();
  });

  it('a bad notBefore makes the certificate unreadable', () => {
    expect(
      readCertificateDer(syntheticCertificate(utc('nope'), utc('250101000000Z'))),
    ).toBeUndefined();
  });

  it('rejects BER indefinite lengths', () => {
    const der = syntheticCertificate(utc('250101000000Z'), utc('260101000000Z'));
    const indefinite = Uint8Array.from([0x30, 0x80, ...der.subarray(2), 0, 0]);
    expect(readCertificateDer(indefinite)).toBeUndefined();
  });

  it('reads long-form lengths', () => {
    const der = syntheticCertificate(utc('250101000000Z'), utc('260101000000Z'), 300);
    expect(der[1]).toBe(0x82);
    expect(readCertificateDer(der)?.notAfter).toBe('2026-01-01T00:00:00Z');
  });
});

describe('readPemBlocks', () => {
  it('lists blocks in order with their labels', () => {
    const blocks = readPemBlocks(`${CA_CERT_PEM}\n${CLIENT_KEY_PEM}\n${CA_KEY_PEM}`);
    expect(blocks.map((block) => block.label)).toEqual([
      'CERTIFICATE',
      'PRIVATE KEY',
      'EC PRIVATE KEY',
    ]);
    expect(blocks.every((block) => block.der !== undefined)).toBe(true);
    expect(encodeBase64(blocks[0]?.der ?? new Uint8Array())).toBe(
      CA_CERT_PEM.split('\n').slice(1, -1).join(''),
    );
  });

  it('a BEGIN inside an open block restarts it', () => {
    const text = `-----BEGIN CERTIFICATE-----\nAAAA\n${CA_CERT_PEM}`;
    expect(readPemBlocks(text)).toHaveLength(1);
    expect(readCertificateFacts(text)?.issuer).toBe(CA_ISSUER);
  });

  it('strict base64 inside bodies', () => {
    expect(decodeBase64('AAAA')).toBeDefined();
    expect(readPemBlocks('-----BEGIN X-----\nAAA\n-----END X-----')[0]?.der).toBeUndefined();
  });
});
