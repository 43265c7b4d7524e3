// Checks of a setting's written form, as data: ordered regular expressions, each with the
// message it fails with. The Helm chart runs the very same checks at render time (its template
// is generated from them), so it refuses what the CLI refuses, in the same words. Patterns are
// therefore in the syntax Go's RE2 and JavaScript's `u` flag share: no lookaround, no
// backreferences, `[\s\S]` for any character.

import { UNIT_SECONDS } from './duration.js';

/**
 * One check, tried in order: `accept` ends the checks of its subject (valid) when it matches,
 * `reject` fails when it matches, `require` fails when it does not, `minimum` (`maximum`)
 * fails when a duration is shorter (longer) than `seconds`, `distinct` fails when the subject,
 * split at `separator`, holds one part twice. With `subject`, the pattern is matched against
 * that pattern's first group instead of the whole value (skipped when it does not match). In
 * a message, {value} is the value and {subject} the subject, JSON-quoted; {raw} is the value.
 */
export type FormCheck =
  | {
      readonly kind: 'accept' | 'reject' | 'require';
      readonly pattern: string;
      readonly subject?: string;
      readonly message: string;
    }
  | { readonly kind: 'minimum'; readonly seconds: number; readonly message: string }
  | { readonly kind: 'maximum'; readonly seconds: number; readonly message: string }
  | {
      readonly kind: 'distinct';
      readonly subject: string;
      readonly separator: string;
      readonly message: string;
    };

/** The message of the first check the value fails, or undefined when it passes. */
export function formProblem(checks: readonly FormCheck[], value: string): string | undefined {
  const accepted = new Set<string>();
  for (const check of checks) {
    if (check.kind === 'minimum' || check.kind === 'maximum') {
      const seconds = secondsOf(value);
      const beyond = check.kind === 'minimum' ? seconds < check.seconds : seconds > check.seconds;
      if (beyond) return fill(check.message, value, value);
      continue;
    }
    if (check.kind === 'distinct') {
      const parts = regExp(check.subject).exec(value)?.[1]?.split(check.separator);
      if (parts !== undefined && new Set(parts).size !== parts.length)
        return fill(check.message, value, value);
      continue;
    }
    const subject = check.subject ?? '';
    if (accepted.has(subject)) continue;
    let text = value;
    if (check.subject !== undefined) {
      const captured = regExp(check.subject).exec(value)?.[1];
      if (captured === undefined) continue;
      text = captured;
    }
    const matches = regExp(check.pattern).test(text);
    if (check.kind === 'accept' && matches) accepted.add(subject);
    if ((check.kind === 'reject' && matches) || (check.kind === 'require' && !matches))
      return fill(check.message, value, text);
  }
  return undefined;
}

// The seconds a well-formed Go duration stands for, as the chart's acr.durationSeconds sums
// them (parseDuration refuses what exceeds Go's range, so it cannot say how long that is).
function secondsOf(duration: string): number {
  let total = 0;
  for (const [, amount = '0', unit = 's'] of duration.matchAll(
    /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gu,
  ))
    total += Number(amount) * (UNIT_SECONDS[unit] ?? 0);
  return total;
}

const compiled = new Map<string, RegExp>();
function regExp(pattern: string): RegExp {
  const made = compiled.get(pattern) ?? new RegExp(pattern, 'u');
  compiled.set(pattern, made);
  return made;
}

function fill(message: string, value: string, subject: string): string {
  return message
    .replace(/\{value\}/g, () => JSON.stringify(value))
    .replace(/\{subject\}/g, () => JSON.stringify(subject))
    .replace(/\{raw\}/g, () => value);
}
