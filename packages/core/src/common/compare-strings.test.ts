import { describe, expect, it } from 'vitest';
import { sortedRecord } from './compare-strings.js';

describe('sortedRecord', () => {
  it('orders the keys by code unit, whatever the locale', () => {
    expect(Object.keys(sortedRecord({ b: '1', a: '2', B: '3', é: '4' }))).toEqual([
      'B',
      'a',
      'b',
      'é',
    ]);
  });

  it('keeps a `__proto__` key as data', () => {
    const record = JSON.parse('{"z":"1","__proto__":"2"}') as Record<string, string>;
    const sorted = sortedRecord(record);
    expect(Object.keys(sorted)).toEqual(['__proto__', 'z']);
    expect(Object.getPrototypeOf(sorted)).toBe(Object.prototype);
  });
});
