// Secret-name globs with Go's path.Match semantics, so a pattern behaves exactly as it did in
// the Go predecessor and in users' heads: `*` any run of non-`/` characters, `?` one non-`/`
// character, `[...]` / `[^...]` a class of characters and ranges, `\c` a literal c.
// A malformed pattern matches nothing; config validation reports it through validateGlob.

type Token =
  | { readonly kind: 'star' }
  | { readonly kind: 'any' }
  | { readonly kind: 'literal'; readonly char: string }
  | {
      readonly kind: 'class';
      readonly negated: boolean;
      readonly ranges: readonly (readonly [number, number])[];
    };

type Parsed =
  | { readonly ok: true; readonly tokens: readonly Token[] }
  | { readonly ok: false; readonly error: string };

const cache = new Map<string, Parsed>();

/** Splits into code points, as Go iterates runes. */
const codePoints = (text: string): string[] => Array.from(text);

function parse(pattern: string): Parsed {
  const chars = codePoints(pattern);
  const tokens: Token[] = [];
  let i = 0;
  // Reads one class member (Go's getEsc): not `-` or `]` unescaped, and a `]` must follow somewhere.
  const classChar = (): number | string => {
    const char = chars[i];
    if (char === undefined) return 'unterminated character class: add the closing "]"';
    if (char === '-' || char === ']') return `"${char}" must be escaped inside a character class`;
    let literal = char;
    if (char === '\\') {
      i++;
      const escaped = chars[i];
      if (escaped === undefined) return 'unterminated character class: add the closing "]"';
      literal = escaped;
    }
    i++;
    if (i >= chars.length) return 'unterminated character class: add the closing "]"';
    return literal.codePointAt(0) ?? 0;
  };
  while (i < chars.length) {
    const char = chars[i] ?? '';
    if (char === '*') {
      // Consecutive stars are one star.
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
      i++;
    } else if (char === '?') {
      tokens.push({ kind: 'any' });
      i++;
    } else if (char === '\\') {
      const escaped = chars[i + 1];
      if (escaped === undefined) return { ok: false, error: 'a trailing "\\" escapes nothing' };
      tokens.push({ kind: 'literal', char: escaped });
      i += 2;
    } else if (char === '[') {
      i++;
      let negated = false;
      if (chars[i] === '^') {
        negated = true;
        i++;
      }
      const ranges: [number, number][] = [];
      for (;;) {
        if (chars[i] === ']' && ranges.length > 0) {
          i++;
          break;
        }
        if (chars[i] === ']') return { ok: false, error: 'empty character class "[]"' };
        const lo = classChar();
        if (typeof lo === 'string') return { ok: false, error: lo };
        let hi = lo;
        if (chars[i] === '-') {
          i++;
          const upper = classChar();
          if (typeof upper === 'string') return { ok: false, error: upper };
          hi = upper;
        }
        ranges.push([lo, hi]);
      }
      tokens.push({ kind: 'class', negated, ranges });
    } else {
      tokens.push({ kind: 'literal', char });
      i++;
    }
  }
  return { ok: true, tokens };
}

function parsed(pattern: string): Parsed {
  let result = cache.get(pattern);
  if (result === undefined) {
    result = parse(pattern);
    // Patterns come from configuration: a handful per process. The bound only guards misuse.
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, result);
  }
  return result;
}

/** `undefined` when the pattern is well-formed, else what is wrong with it. */
export function validateGlob(pattern: string): string | undefined {
  const result = parsed(pattern);
  return result.ok ? undefined : result.error;
}

const compiled = new Map<string, RegExp | null>();

// Only syntax characters may be escaped in a `u` RegExp.
const escapeRegExp = (char: string): string => char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const codePointClass = (code: number): string => `\\u{${code.toString(16)}}`;

/**
 * The token list as one anchored RegExp: the planner matches every Secret of every managed
 * namespace against every provider glob, so the per-call cost must be a regex test, not a
 * re-walk of the tokens.
 */
function toRegExp(tokens: readonly Token[]): RegExp {
  const source = tokens
    .map((token) => {
      switch (token.kind) {
        case 'star':
          return '[^/]*';
        case 'any':
          return '[^/]';
        case 'literal':
          return escapeRegExp(token.char);
        case 'class': {
          // Go accepts an inverted range (`[z-a]`) and it matches nothing; RegExp refuses it.
          const ranges = token.ranges.filter(([lo, hi]) => lo <= hi);
          if (ranges.length === 0) return token.negated ? '[\\s\\S]' : '(?!)';
          const members = ranges
            .map(([lo, hi]) =>
              lo === hi ? codePointClass(lo) : `${codePointClass(lo)}-${codePointClass(hi)}`,
            )
            .join('');
          return `[${token.negated ? '^' : ''}${members}]`;
        }
      }
    })
    .join('');
  return new RegExp(`^${source}$`, 'u');
}

/** Whether `name` matches `pattern` as a whole (Go path.Match); false for a malformed pattern. */
export function matchGlob(pattern: string, name: string): boolean {
  let regexp = compiled.get(pattern);
  if (regexp === undefined) {
    const result = parsed(pattern);
    regexp = result.ok ? toRegExp(result.tokens) : null;
    if (compiled.size > 1000) compiled.clear();
    compiled.set(pattern, regexp);
  }
  return regexp !== null && regexp.test(name);
}
