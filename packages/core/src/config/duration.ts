// Go-style durations (`60s`, `1m30s`, `24h`, `500ms`), because the flags, env vars and chart
// values keep the seed's Go spelling. Parsing follows Go's time.ParseDuration, except that a
// sign is rejected: every duration we accept is a length of time, never an offset.

export type DurationResult =
  { readonly ok: true; readonly ms: number } | { readonly ok: false; readonly message: string };

/** The accepted form, for messages. */
export const DURATION_FORM =
  'a Go duration such as 500ms, 60s, 1m30s or 168h (units ns, us, ms, s, m, h)';

/** What each unit stands for in seconds (the chart's durationSeconds uses these factors). */
export const UNIT_SECONDS: Readonly<Record<string, number>> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  μs: 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

// Exact: each factor times 1e9 is the whole number of nanoseconds.
const NANOS_PER_UNIT: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(UNIT_SECONDS).map(([unit, seconds]) => [unit, seconds * 1e9]),
);

// One `<number><unit>` component; the whole text is a run of these.
const COMPONENT = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** Parses a Go duration into milliseconds (fractional below 1 ms). */
export function parseDuration(text: string): DurationResult {
  const invalid = (why: string): DurationResult => ({
    ok: false,
    message: `${JSON.stringify(text)} is not a duration (${why}): expected ${DURATION_FORM}`,
  });
  if (text === '0') return { ok: true, ms: 0 };
  if (text === '') return invalid('empty');
  if (text.startsWith('-') || text.startsWith('+')) return invalid('no sign allowed');

  let nanos = 0;
  COMPONENT.lastIndex = 0;
  while (COMPONENT.lastIndex < text.length) {
    const at = COMPONENT.lastIndex;
    const match = COMPONENT.exec(text);
    if (match === null) return invalid(explain(text.slice(at)));
    // COMPONENT captures both groups, and only units of the table.
    const [, amount = '', unit = ''] = match;
    nanos += Number(amount) * (NANOS_PER_UNIT[unit] ?? 0);
  }
  // Go's limit (int64 nanoseconds, about 290 years) keeps absurd values out of timers.
  if (!Number.isFinite(nanos) || nanos > 9.223372036854775e18) return invalid('too large');
  return { ok: true, ms: nanos / 1e6 };
}

function explain(rest: string): string {
  if (/^(\d+(\.\d*)?|\.\d+)$/.test(rest)) return 'missing unit';
  const unit = /^(?:\d+(?:\.\d*)?|\.\d+)(\p{L}+)/u.exec(rest)?.[1];
  if (unit !== undefined) return `unknown unit ${JSON.stringify(unit)}`;
  return `unexpected ${JSON.stringify(rest)}`;
}

/** Formats milliseconds compactly in Go units, dropping zero parts: 90000 → `1m30s`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${round(ms)}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  return (
    (hours > 0 ? `${hours}h` : '') +
    (minutes > 0 ? `${minutes}m` : '') +
    (seconds > 0 ? `${round(seconds)}s` : '')
  );
}

// Avoids binary-fraction noise such as 1.5000000000000002 in messages.
function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
