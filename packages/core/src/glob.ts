// Secret-name globs: `*` any run of characters, `?` one character, `[...]` / `[^...]` a class
// of characters and ranges, `\c` a literal c. Matching is minimatch's, compiled once per
// pattern to one anchored RegExp, with everything beyond those four forms switched off (no
// braces, no extglobs, no globstar, no `!` negation, no `#` comments). `*` never crosses a
// `/` and does match a leading `.` (Secret names hold neither, but a glob must not depend on
// that). Before anything reaches minimatch the pattern is checked against the grammar of the
// Go predecessor's path.Match, so a pattern Go refused is still refused, with a reason, and
// matches nothing; docs/migrating.md lists where the two matchers differ on accepted patterns.

import { Minimatch, type MinimatchOptions } from 'minimatch';

const OPTIONS: MinimatchOptions = {
  nobrace: true,
  noext: true,
  noglobstar: true,
  nonegate: true,
  nocomment: true,
  dot: true,
  nocase: false,
  // `\` escapes on every platform (minimatch would make it a separator on Windows).
  platform: 'linux',
};

const UNTERMINATED = 'unterminated character class: add the closing "]"';

/** `undefined` when the pattern is well-formed, else what is wrong with it (Go's grammar). */
export function validateGlob(pattern: string): string | undefined {
  const chars = Array.from(pattern);
  let i = 0;
  // One class member (Go's getEsc): not `-` or `]` unescaped, and a `]` must follow somewhere.
  const classChar = (): string | undefined => {
    const char = chars[i];
    if (char === undefined) return UNTERMINATED;
    if (char === '-' || char === ']') return `"${char}" must be escaped inside a character class`;
    if (char === '\\') {
      i++;
      if (chars[i] === undefined) return UNTERMINATED;
    }
    i++;
    return i >= chars.length ? UNTERMINATED : undefined;
  };
  while (i < chars.length) {
    const char = chars[i];
    if (char === '\\') {
      if (chars[i + 1] === undefined) return 'a trailing "\\" escapes nothing';
      i += 2;
    } else if (char === '[') {
      i++;
      if (chars[i] === '^') i++;
      for (let members = 0; ; members++) {
        if (chars[i] === ']') {
          if (members === 0) return 'empty character class "[]"';
          i++;
          break;
        }
        const lower = classChar();
        if (lower !== undefined) return lower;
        if (chars[i] === '-') {
          i++;
          const upper = classChar();
          if (upper !== undefined) return upper;
        }
      }
    } else {
      i++;
    }
  }
  return undefined;
}

const STARS = /^\**$/;

const compiled = new Map<string, RegExp | null>();

/**
 * The pattern as one RegExp, or `null` when it matches nothing (malformed or empty). The
 * planner matches every Secret of every managed namespace against every provider glob, so a
 * call must cost one regex test, not a parse.
 */
function compile(pattern: string): RegExp | null {
  let regexp = compiled.get(pattern);
  if (regexp === undefined) {
    regexp = null;
    if (validateGlob(pattern) === undefined) {
      try {
        const made = new Minimatch(pattern, OPTIONS).makeRe();
        if (made !== false) regexp = made;
      } catch {
        // minimatch refuses patterns over 64 KiB; such a pattern matches nothing.
      }
    }
    // Patterns come from configuration: a handful per process. The bound only guards misuse.
    if (compiled.size > 1000) compiled.clear();
    compiled.set(pattern, regexp);
  }
  return regexp;
}

/** Whether `name` matches `pattern` as a whole; false for a malformed pattern. */
export function matchGlob(pattern: string, name: string): boolean {
  // No Secret is named '', but answer as Go did (only stars match it); minimatch matches
  // nothing against an empty name.
  if (name === '') return STARS.test(pattern);
  const regexp = compile(pattern);
  return regexp !== null && regexp.test(name);
}
