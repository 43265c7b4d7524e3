import { describe, expect, it } from 'vitest';
import type { DesiredSecret } from '../common/types.js';
import { sortedSecret } from './secret-fields.js';

describe('sortedSecret', () => {
  it('orders labels, annotations and data by key, keeping every key (even `__proto__`)', () => {
    const data = JSON.parse('{"server":"cw==","__proto__":"eA==","name":"bg=="}') as Record<
      string,
      string
    >;
    const secret: DesiredSecret = {
      namespace: 'argocd',
      name: 'cluster-a',
      type: 'Opaque',
      labels: { b: '1', a: '2' },
      annotations: {},
      data,
    };
    const sorted = sortedSecret(secret);
    expect(Object.keys(sorted.labels)).toEqual(['a', 'b']);
    expect(Object.entries(sorted.data)).toEqual([
      ['__proto__', 'eA=='],
      ['name', 'bg=='],
      ['server', 'cw=='],
    ]);
  });
});
