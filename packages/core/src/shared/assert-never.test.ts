import { describe, expect, it } from 'vitest';
import { assertNever } from './assert-never.js';

describe('assertNever', () => {
  it('names the kind only, never the rest of the value', () => {
    const value = { kind: 'rotate', secret: { data: 's3cr3t' } } as never;
    expect(() => assertNever(value, 'action kind')).toThrow('unhandled action kind rotate');
    expect(() => assertNever(value)).not.toThrow(/s3cr3t/);
    expect(() => assertNever('x' as never)).toThrow('unhandled case string');
  });
});
