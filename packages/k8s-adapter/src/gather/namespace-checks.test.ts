import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '@argocd-cluster-registrar/testkit';
import { LIST_PAGE_SIZE } from '../connection/kube-api.js';
import { listManagedByValues } from './namespace-checks.js';
import { host } from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

let h: Host;
beforeAll(async () => {
  h = await host();
});

describe('listManagedByValues', () => {
  it('counts the values on every page, not only the first', async () => {
    // A key of this test's own, on more namespaces than one page holds, each value once but
    // the last, which two carry: it must come first, wherever the pages put it.
    const key = `${uniqueName('hint')}.example/managed-by`;
    const count = LIST_PAGE_SIZE + 20;
    const values = Array.from({ length: count }, (_, i) => `v${String(i).padStart(3, '0')}`);
    const last = values[count - 1] ?? '';
    for (const value of [...values, last])
      await h.core.createNamespace({
        body: { metadata: { name: uniqueName('hint'), labels: { [key]: value } } },
      });
    const listed = await listManagedByValues(h.access, key);
    expect(listed).toHaveLength(count);
    expect(listed[0]).toBe(last);
  }, 120_000);
});
