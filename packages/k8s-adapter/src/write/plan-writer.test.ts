// The two writers against the real API server: the applier stores, the dry-run writer never
// does (with or without the API server's own validation).

import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '@argocd-cluster-registrar/testkit';
import type { Action, Plan } from '@argocd-cluster-registrar/core';
import { createApplier, createDryRunWriter, dryRunVerdict } from './plan-writer.js';
import { createNamespace, host, restrictedAccess } from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

const PREFIX = 'argocd-cluster-registrar/';

let h: Host;
let target: string;
beforeAll(async () => {
  h = await host();
  target = uniqueName('argocd');
  await createNamespace(h.core, target);
});

function planCreating(name: string, namespace = target): Plan {
  const action: Action = {
    kind: 'create',
    cluster: name,
    secret: {
      namespace,
      name,
      type: 'Opaque',
      labels: { 'argocd-cluster-registrar/managed-by': 'test' },
      annotations: {},
      data: { name: Buffer.from(name).toString('base64') },
    },
    changes: [],
    reason: { code: 'new-registration', namespace: 'src' },
  };
  return { actions: [action], outcomes: [], warnings: [] };
}

async function exists(name: string): Promise<boolean> {
  try {
    await h.core.readNamespacedSecret({ namespace: target, name });
    return true;
  } catch {
    return false;
  }
}

describe('plan writers', () => {
  it('the applier stores the plan', async () => {
    const writer = createApplier(h.access, PREFIX);
    expect(writer.persists).toBe(true);
    const [result] = await writer.write(planCreating('written'), []);
    expect(result?.status).toBe('applied');
    expect(await exists('written')).toBe(true);
  });

  it('the dry-run writer reports without storing, and without sending when not validating', async () => {
    const validating = createDryRunWriter({ validateWith: h.access, labelPrefix: PREFIX });
    expect(validating.persists).toBe(false);
    expect((await validating.write(planCreating('checked'), [])).map((r) => r.status)).toEqual([
      'dry-run',
    ]);
    expect(await exists('checked')).toBe(false);

    // A namespace that does not exist: only the API server could say so, and it is not asked.
    const silent = createDryRunWriter({ labelPrefix: PREFIX });
    const [result] = await silent.write(planCreating('unsent', uniqueName('missing')), []);
    expect(result).toMatchObject({ status: 'dry-run' });
    expect(result?.failure).toBeUndefined();
  });

  it('a validating dry run carries the failure the real write would meet', async () => {
    const writer = createDryRunWriter({ validateWith: h.access, labelPrefix: PREFIX });
    const [result] = await writer.write(planCreating('nowhere', uniqueName('missing')), []);
    expect(result?.status).toBe('dry-run');
    expect(result?.failure?.kind).toBe('not-found');
  });

  it('tells a rejection (the write would fail) from a write these credentials may not validate', async () => {
    const admin = createDryRunWriter({ validateWith: h.access, labelPrefix: PREFIX });
    const [accepted] = await admin.write(planCreating('fine'), []);
    expect(accepted && dryRunVerdict(accepted)).toEqual({ verdict: 'accepted' });
    const missing = uniqueName('missing');
    const [rejected] = await admin.write(planCreating('nowhere', missing), []);
    expect(rejected && dryRunVerdict(rejected)).toEqual({
      verdict: 'rejected',
      reason: `404 NotFound: namespaces "${missing}" not found`,
    });

    // May read Secrets but not create them: the API server cannot say what it would do.
    const reader = await restrictedAccess(h, target, [
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] },
    ]);
    const [forbidden] = await createDryRunWriter({
      validateWith: reader,
      labelPrefix: PREFIX,
    }).write(planCreating('unvalidated'), []);
    expect(forbidden && dryRunVerdict(forbidden)).toMatchObject({ verdict: 'not-validated' });
  });
});
