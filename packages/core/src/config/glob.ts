// Secret-name globs: `*` any run, `?` one character, `[...]` / `[^...]` a class, `\c` a literal
// c. Matched by minimatch with everything else switched off; `*` never crosses a `/` and does
// match a leading `.` (Secret names hold neither, but a glob must not depend on that). A pattern
// the Go predecessor's path.Match refused is still refused, with a reason, and matches nothing;
// docs/migrating.md lists where the two matchers differ on accepted patterns.

import { Minimatch, type MinimatchOptions } from 'minimatch';
import { formProblem, type FormCheck } from './form-checks.js';

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

// Secret-name globs in the grammar of Go's path.Match: a literal or `\`-escaped character, or
// a class `[...]` / `[^...]` of members and ranges, where `-` and `]` must be escaped.
const LITERAL = '[^\\\\\\[]|\\\\[\\s\\S]';
const MEMBER = '(?:[^\\\\\\]\\-]|\\\\[\\s\\S])';
const MEMBERS = `(?:${MEMBER}(?:-${MEMBER})?)`;
// Right after "[", "^" negates: it is no member there.
const FIRST = '(?:[^\\\\\\]\\-^]|\\\\[\\s\\S])';
const CLASS = `\\[(?:\\^${MEMBERS}+|${FIRST}(?:-${MEMBER})?${MEMBERS}*)\\]`;
const WELL_FORMED = `(?:${LITERAL}|${CLASS})*`;

/** The glob checks, their messages being the reason only (validateGlob's answer). */
export const GLOB_FORM: readonly FormCheck[] = [
  { kind: 'accept', pattern: `^${WELL_FORMED}$`, message: '' },
  { kind: 'reject', pattern: `^${WELL_FORMED}\\\\$`, message: 'a trailing "\\" escapes nothing' },
  {
    kind: 'reject',
    pattern: `^${WELL_FORMED}\\[\\^?\\]`,
    message: 'empty character class "[]"',
  },
  {
    kind: 'reject',
    pattern: `^${WELL_FORMED}\\[\\^?${MEMBERS}*(?:${MEMBER}-)?\\\\?$`,
    message: 'unterminated character class: add the closing "]"',
  },
  {
    kind: 'reject',
    pattern: '^',
    message: '"-" and "]" must be escaped inside a character class (\\- and \\])',
  },
];

/** `undefined` when the pattern is well-formed, else what is wrong with it (Go's grammar). */
export function validateGlob(pattern: string): string | undefined {
  return formProblem(GLOB_FORM, pattern);
}

const STARS = /^\**$/;

const compiled = new Map<string, RegExp | null>();

/**
 * The pattern as one RegExp, or `null` when it matches nothing (malformed or empty). Every
 * Secret is matched against every provider glob, so a call must cost one regex test, not a parse.
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
