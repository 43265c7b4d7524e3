// Selectors in kubectl's written form: parsed as kubectl parses them, matched as it matches.

import { describe, expect, it } from 'vitest';
import { parseLabelSelector, selectorMatches } from './label-selector.js';

function matches(selector: string, labels: Record<string, string>): boolean {
  const parsed = parseLabelSelector(selector);
  if (!parsed.ok) throw new Error(parsed.message);
  return selectorMatches(parsed.selector, labels);
}

describe('label selector', () => {
  it('matches every operator as kubectl -l does', () => {
    const labels = { env: 'prod', team: 'a', 'example.com/tier': 'web' };
    expect(matches('', labels)).toBe(true);
    expect(matches('env=prod', labels)).toBe(true);
    expect(matches('env==prod', labels)).toBe(true);
    expect(matches('env!=prod', labels)).toBe(false);
    expect(matches('env!=dev', {})).toBe(true);
    expect(matches('team in (a, b)', labels)).toBe(true);
    expect(matches('team notin (a,b)', labels)).toBe(false);
    expect(matches('team notin (a,b)', {})).toBe(true);
    expect(matches('example.com/tier', labels)).toBe(true);
    expect(matches('!example.com/tier', labels)).toBe(false);
    expect(matches('env=prod,team in (b)', labels)).toBe(false);
    expect(matches('env=', { env: '' })).toBe(true);
  });

  it('refuses what kubectl refuses, saying the accepted form', () => {
    for (const bad of [
      'team in (a',
      'a b',
      'env=prod,',
      'Bad Key=1',
      'env=no spaces here',
      'x in ()',
    ])
      expect(parseLabelSelector(bad)).toMatchObject({ ok: false });
    expect(parseLabelSelector('env=prod,')).toEqual({
      ok: false,
      message:
        'has an empty requirement; expected comma-separated requirements as kubectl -l takes them: key=value, key!=value, key in (a,b), key notin (a,b), key, !key',
    });
  });
});
