// A kubeconfig is mostly base64: a CA, a client certificate and a key, each one plain value of
// a few KiB on its own line. The YAML library's lexer walks a plain value one character at a
// time, which under the image's `--jitless` was the largest single cost of a cold start
// (about 1 ms a kubeconfig). Such a value is swapped for a short stand-in before the text is
// lexed, and put back into the parsed document's scalars before it is read.
//
// The swap cannot change what the YAML means. A value is swapped only when it starts with a
// letter, is canonical base64 (the alphabet and trailing padding) and runs from `key: ` to the end of its line, so it
// is a string under every resolver of the YAML 1.1 schema (each of those starts with a digit,
// a sign, a dot or a symbol, or is a word of at most five letters). None of its characters is
// special in any context (plain, quoted, block or flow), so wherever the line really sits, the
// stand-in lands in the same place of the same scalar, which is why scalars are restored by
// substring and not only by equality. The stand-in's marker is a private-use character; text
// that already holds one is left as it is. Lines are kept, so positions in errors (a line
// number) are the text's own.

import { isMap, isScalar, isSeq } from 'yaml';
import type { Document } from 'yaml';
import { isCanonicalBase64 } from '../common/base64.js';

const MARK = '\uE000';
const END = '\uE001';
/** Shorter values are not worth a stand-in. */
const LONG = 256;
/** A key and the `: ` after it, where a line's content starts. */
const KEY = /[A-Za-z0-9_.-]+: +/y;
const STAND_IN = /\uE000(\d+)\uE001/g;
const LETTER = /[A-Za-z]/;

export interface Shortened {
  /** The text with long values replaced; the text itself when none was. */
  readonly text: string;
  /** The values replaced, by the number in their stand-in. */
  readonly values: readonly string[];
}

export function shortenLongValues(text: string): Shortened {
  if (text.includes(MARK)) return { text, values: [] };
  const values: string[] = [];
  const parts: string[] = [];
  let copied = 0;
  for (let line = 0; line < text.length;) {
    const next = text.indexOf('\n', line);
    const end = next < 0 ? text.length : next;
    if (end - line > LONG) {
      // Past the indentation and any `- ` of list entries: where a `key: ` can start.
      let at = line;
      while (at < end && (text[at] === ' ' || text[at] === '-')) at += 1;
      KEY.lastIndex = at;
      const key = KEY.exec(text);
      const valueAt = key === null ? end : at + key[0].length;
      const value = text.slice(valueAt, end);
      // Canonical base64 has only the alphabet and trailing padding; checked natively.
      if (value.length >= LONG && LETTER.test(value[0] ?? '') && isCanonicalBase64(value)) {
        parts.push(text.slice(copied, valueAt), `${MARK}${values.length}${END}`);
        values.push(value);
        copied = end;
      }
    }
    line = end + 1;
  }
  if (values.length === 0) return { text, values: [] };
  parts.push(text.slice(copied));
  return { text: parts.join(''), values };
}

/**
 * Puts the long values back into the document's scalars, keys included (an alias is the node
 * it names, restored where that node is).
 */
export function restoreLongValues(document: Document.Parsed, values: readonly string[]): void {
  if (values.length === 0) return;
  const pending: unknown[] = [document.contents];
  while (pending.length > 0) {
    const node = pending.pop();
    if (isScalar(node)) {
      if (typeof node.value === 'string' && node.value.includes(MARK))
        node.value = node.value.replace(
          STAND_IN,
          (_, index: string) => values[Number(index)] ?? '',
        );
    } else if (isSeq(node)) pending.push(...node.items);
    else if (isMap(node)) for (const pair of node.items) pending.push(pair.key, pair.value);
  }
}
