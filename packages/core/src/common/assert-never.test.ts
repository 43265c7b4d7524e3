import { describe, expect, it } from 'vitest';
import { assertNever } from './assert-never.js';

describe('assertNever', () => {
  it('names the discriminant only, never the rest of the value', () => {
    const value = { kind: 'rotate', secret: { data: 's3cr3t' } } as never;
    expect(() => assertNever(value, 'action kind')).toThrow('unhandled action kind rotate');
    expect(() => assertNever(value)).not.toThrow(/s3cr3t/);
    expect(() => assertNever({ code: 'moved', token: 's3cr3t' } as never, 'reason')).toThrow(
      /^unhandled reason moved$/,
    );
    expect(() => assertNever({ state: 'lost', reason: 's3cr3t' } as never, 'lookup')).toThrow(
      /^unhandled lookup lost$/,
    );
    expect(() => assertNever({ kind: { secret: 's3cr3t' } } as never)).toThrow(
      /^unhandled case object$/,
    );
    expect(() => assertNever('s3cr3t' as never)).toThrow(/^unhandled case string$/);
  });
});
