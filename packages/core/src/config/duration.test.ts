import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatDuration, parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['0', 0],
    ['0s', 0],
    ['60s', 60_000],
    ['1m30s', 90_000],
    ['24h', 86_400_000],
    ['168h', 604_800_000],
    ['500ms', 500],
    ['1.5s', 1500],
    ['.5m', 30_000],
    ['1h2m3s4ms', 3_723_004],
    ['1500us', 1.5],
    ['1500µs', 1.5],
    ['2000000ns', 2],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, ms });
  });

  it.each([
    ['', 'empty'],
    ['60', 'missing unit'],
    ['1m30', 'missing unit'],
    ['5d', 'unknown unit "d"'],
    ['-5s', 'no sign allowed'],
    ['+5s', 'no sign allowed'],
    ['5 s', 'unexpected "5 s"'],
    ['s', 'unexpected "s"'],
    ['.s', 'unexpected ".s"'],
    ['1e3s', 'unknown unit "e"'],
  ])('%j is refused (%s), naming the accepted form', (text, why) => {
    const result = parseDuration(text);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toBe(
        `${JSON.stringify(text)} is not a duration (${why}): expected a Go duration such as 500ms, 60s, 1m30s or 168h (units ns, us, ms, s, m, h)`,
      );
    }
  });

  it("refuses durations beyond Go's int64 nanoseconds", () => {
    expect(parseDuration('3000000h').ok).toBe(false);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [500, '500ms'],
    [60_000, '1m'],
    [90_000, '1m30s'],
    [604_800_000, '168h'],
    [3_723_004, '1h2m3.004s'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('round-trips through parseDuration for whole milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 * 365 * 86_400_000 }), (ms) => {
        expect(parseDuration(formatDuration(ms))).toEqual({ ok: true, ms });
      }),
    );
  });
});
