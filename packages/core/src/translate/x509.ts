// Just enough PEM and DER to read two facts from a client certificate: who issued it (a
// rotation or a CA change?) and when it expires. Our own rather than Node's X509Certificate: a
// full pass reads every registration's certificate, and OpenSSL's parse costs about 50 times
// this walk. Never throws: malformed input is `undefined`.

import type { CertificateFacts } from '../common/types.js';
import { decodeBase64, encodeBase64 } from '../common/base64.js';

export interface PemBlock {
  /** The label between `BEGIN ` and `-----`, e.g. `CERTIFICATE`, `EC PRIVATE KEY`. */
  readonly label: string;
  /** The decoded body; `undefined` when it is not strict base64 or carries PEM headers. */
  readonly der: Uint8Array | undefined;
}

const BEGIN_LINE = /^-----BEGIN ([A-Z0-9 ]+)-----$/;

/**
 * Every complete PEM block in `text`, in order (linear). Headers (`Proc-Type:` …) mark legacy
 * encrypted keys, which nothing downstream can use, so such a block has no `der`.
 */
export function readPemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  let label: string | undefined;
  let body: string[] = [];
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    const begin = BEGIN_LINE.exec(line);
    if (begin) {
      label = begin[1];
      body = [];
    } else if (label !== undefined && line === `-----END ${label}-----`) {
      const joined = body.join('');
      const der = joined.includes(':') ? undefined : decodeBase64(joined);
      blocks.push({ label, der: der !== undefined && der.length > 0 ? der : undefined });
      label = undefined;
    } else if (label !== undefined) {
      body.push(line);
    }
  }
  return blocks;
}

interface Tlv {
  readonly tag: number;
  /** Offset of the first byte of the element (its tag). */
  readonly start: number;
  /** Offset of the first content byte. */
  readonly contentStart: number;
  /** Offset just past the element. */
  readonly end: number;
}

/** One DER element at `offset`, bounded by `limit`; `undefined` if it does not fit. */
function readTlv(der: Uint8Array, offset: number, limit: number): Tlv | undefined {
  const tag = der[offset];
  // High-tag-number form never occurs in the certificate fields we walk.
  if (tag === undefined || (tag & 0x1f) === 0x1f) return undefined;
  const first = der[offset + 1];
  if (first === undefined) return undefined;
  let length: number;
  let contentStart: number;
  if (first < 0x80) {
    length = first;
    contentStart = offset + 2;
  } else {
    const count = first & 0x7f;
    // 0x80 is BER indefinite length (not DER); more than 4 length bytes cannot fit anyway.
    if (count === 0 || count > 4) return undefined;
    length = 0;
    for (let i = 0; i < count; i++) {
      const byte = der[offset + 2 + i];
      if (byte === undefined) return undefined;
      length = length * 256 + byte;
    }
    contentStart = offset + 2 + count;
  }
  const end = contentStart + length;
  if (end > limit) return undefined;
  return { tag, start: offset, contentStart, end };
}

const TAG_SEQUENCE = 0x30;
const TAG_INTEGER = 0x02;
const TAG_VERSION = 0xa0;
const TAG_UTC_TIME = 0x17;
const TAG_GENERALIZED_TIME = 0x18;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** UTCTime `YYMMDDHHMMSSZ` or GeneralizedTime `YYYYMMDDHHMMSSZ` (the RFC 5280 forms). */
function readTime(der: Uint8Array, element: Tlv): string | undefined {
  let text = '';
  for (let i = element.contentStart; i < element.end; i++) text += String.fromCharCode(der[i] ?? 0);
  let digits: string;
  if (element.tag === TAG_UTC_TIME && /^\d{12}Z$/.test(text)) {
    // RFC 5280 §4.1.2.5.1: YY >= 50 is 19YY, else 20YY.
    digits = `${Number(text.slice(0, 2)) >= 50 ? '19' : '20'}${text.slice(0, 12)}`;
  } else if (element.tag === TAG_GENERALIZED_TIME && /^\d{14}Z$/.test(text)) {
    digits = text.slice(0, 14);
  } else {
    return undefined;
  }
  const number = (start: number, end: number): number => Number(digits.slice(start, end));
  const month = number(4, 6);
  const day = number(6, 8);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(number(0, 4), month))
    return undefined;
  if (number(8, 10) > 23 || number(10, 12) > 59 || number(12, 14) > 59) return undefined;
  return digits.replace(/^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/, '$1-$2-$3T$4:$5:$6Z');
}

/** Facts from a DER certificate, or `undefined` if its structure is not a certificate's. */
export function readCertificateDer(der: Uint8Array): CertificateFacts | undefined {
  const certificate = readTlv(der, 0, der.length);
  if (certificate?.tag !== TAG_SEQUENCE) return undefined;
  const tbs = readTlv(der, certificate.contentStart, certificate.end);
  if (tbs?.tag !== TAG_SEQUENCE) return undefined;
  let field = readTlv(der, tbs.contentStart, tbs.end);
  if (field?.tag === TAG_VERSION) field = readTlv(der, field.end, tbs.end);
  if (field?.tag !== TAG_INTEGER) return undefined; // serialNumber
  const signature = readTlv(der, field.end, tbs.end);
  if (signature?.tag !== TAG_SEQUENCE) return undefined;
  const issuer = readTlv(der, signature.end, tbs.end);
  if (issuer?.tag !== TAG_SEQUENCE) return undefined;
  const validity = readTlv(der, issuer.end, tbs.end);
  if (validity?.tag !== TAG_SEQUENCE) return undefined;
  const notBefore = readTlv(der, validity.contentStart, validity.end);
  if (notBefore === undefined || readTime(der, notBefore) === undefined) return undefined;
  const notAfterElement = readTlv(der, notBefore.end, validity.end);
  if (notAfterElement?.end !== validity.end) return undefined;
  const notAfter = readTime(der, notAfterElement);
  if (notAfter === undefined) return undefined;
  return { issuer: encodeBase64(der.subarray(issuer.start, issuer.end)), notAfter };
}

/** Facts from the first `CERTIFICATE` block of a PEM text; `undefined` when unreadable. */
export function readCertificateFacts(pem: string): CertificateFacts | undefined {
  const block = readPemBlocks(pem).find((candidate) => candidate.label === 'CERTIFICATE');
  return block?.der === undefined ? undefined : readCertificateDer(block.der);
}
