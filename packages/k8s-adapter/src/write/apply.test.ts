import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '@argocd-cluster-registrar/testkit';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { V1Secret } from '@kubernetes/client-node';
import type { Action, DesiredSecret, ObservedRef, Plan } from '@argocd-cluster-registrar/core';
import { applyPlan } from './apply.js';
import type { ApplyOptions } from './apply.js';
import {
  createNamespace,
  host,
  opaque,
  restrictedAccess,
  observedFrom,
} from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

let h: Host;
let target: string;
/** Every Secret arranged by a test, as the gatherer would have observed it. */
const observed: V1Secret[] = [];
const options = (dryRun: boolean): ApplyOptions => ({
  dryRun,
  labelPrefix: 'argocd-cluster-registrar/',
  observed: observed.map((secret) => observedFrom(secret, target)),
});
beforeAll(async () => {
  h = await host();
  target = uniqueName('argocd');
  await createNamespace(h.core, target);
});

const b64 = (text: string) => Buffer.from(text).toString('base64');

function desired(name: string, server: string): DesiredSecret {
  return {
    namespace: target,
    name,
    type: 'Opaque',
    labels: {
      'argocd.argoproj.io/secret-type': 'cluster',
      'argocd-cluster-registrar/managed-by': 'test',
    },
    annotations: { 'argocd-cluster-registrar/note': 'planned' },
    data: { name: b64(name), server: b64(server) },
  };
}

const create = (secret: DesiredSecret): Action => ({
  kind: 'create',
  cluster: secret.name,
  secret,
  changes: [],
  reason: { code: 'new-registration', namespace: 'src' },
});
const update = (target: ObservedRef, secret: DesiredSecret): Action => ({
  kind: 'update',
  cluster: secret.name,
  target,
  secret,
  changes: [],
  reason: { code: 'server-changed', namespace: 'src' },
});
const remove = (target: ObservedRef): Action => ({
  kind: 'delete',
  cluster: target.name,
  target,
  reason: { code: 'source-namespace-not-found', namespace: 'src' },
});
const planOf = (...actions: Action[]): Plan => ({ actions, outcomes: [], warnings: [] });

async function existing(
  name: string,
  data: Record<string, string> = { name },
): Promise<{ ref: ObservedRef; secret: V1Secret }> {
  const secret = await h.core.createNamespacedSecret({
    namespace: target,
    body: opaque(name, { owner: 'someone' }, data),
  });
  observed.push(secret);
  return { secret, ref: refOf(secret) };
}

function refOf(secret: V1Secret): ObservedRef {
  return {
    namespace: target,
    name: secret.metadata?.name ?? '',
    uid: secret.metadata?.uid ?? '',
    resourceVersion: secret.metadata?.resourceVersion ?? '',
  };
}

async function read(name: string): Promise<V1Secret | undefined> {
  try {
    return await h.core.readNamespacedSecret({ namespace: target, name });
  } catch {
    return undefined;
  }
}

/** Everything a write could change, for byte-for-byte comparisons. */
function state(secret: V1Secret | undefined) {
  return JSON.stringify([
    secret?.metadata?.uid,
    secret?.metadata?.resourceVersion,
    secret?.metadata?.labels,
    secret?.metadata?.annotations,
    secret?.type,
    secret?.data,
  ]);
}

describe('applyPlan', () => {
  it('creates a registration exactly as planned', async () => {
    const secret = desired(uniqueName('cluster'), 'https://a.example:6443');
    const [result] = await applyPlan(h.access, planOf(create(secret)), options(false));
    expect(result).toMatchObject({ status: 'applied' });
    expect(result?.failure).toBeUndefined();
    const written = await read(secret.name);
    expect(written?.type).toBe('Opaque');
    expect(written?.metadata?.labels).toEqual(secret.labels);
    expect(written?.metadata?.annotations).toEqual(secret.annotations);
    expect(written?.data).toEqual(secret.data);
  });

  it('reports already-exists for a create over an existing Secret and leaves it byte-for-byte', async () => {
    const name = uniqueName('cluster');
    const before = (await existing(name, { hand: 'made' })).secret;
    const [result] = await applyPlan(
      h.access,
      planOf(create(desired(name, 'https://b.example'))),
      options(false),
    );
    expect(result?.status).toBe('already-exists');
    expect(result?.failure).toMatchObject({
      kind: 'already-exists',
      status: 409,
      retryable: false,
    });
    expect(state(await read(name))).toBe(state(before));
  });

  it('updates with the observed resourceVersion, touching only the keys we own', async () => {
    const name = uniqueName('cluster');
    const { ref } = await existing(name, { name, shard: 'operator-set' });
    const secret = desired(name, 'https://c.example');
    const [result] = await applyPlan(h.access, planOf(update(ref, secret)), options(false));
    expect(result?.status).toBe('applied');
    const written = await read(name);
    expect(written?.data).toEqual({ ...secret.data, shard: b64('operator-set') });
    // A merge patch of our keys: a label the plan does not own (`owner`) survives.
    expect(written?.metadata?.labels).toEqual({ ...secret.labels, owner: 'someone' });
  });

  it('deletes the prefixed keys the plan dropped, and keeps finalizers and ownerReferences', async () => {
    const name = uniqueName('cluster');
    const arranged = await h.core.createNamespacedSecret({
      namespace: target,
      body: {
        metadata: {
          name,
          labels: {
            ...desired(name, 'https://o.example').labels,
            'argocd-cluster-registrar/old': 'x',
          },
          annotations: { 'argocd-cluster-registrar/gone': 'y', 'other.example/keep': 'z' },
          finalizers: ['example.com/hold'],
          ownerReferences: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: 'owner',
              uid: '00000000-0000-4000-8000-000000000002',
            },
          ],
        },
        type: 'Opaque',
        data: { name: b64(name), server: b64('https://o.example'), project: b64('p') },
      },
    });
    observed.push(arranged);
    const secret = desired(name, 'https://o2.example');
    const [result] = await applyPlan(
      h.access,
      planOf(update(refOf(arranged), secret)),
      options(false),
    );
    expect(result?.status).toBe('applied');
    const written = await read(name);
    expect(written?.metadata?.labels).toEqual(secret.labels);
    expect(written?.metadata?.annotations).toEqual({
      ...secret.annotations,
      'other.example/keep': 'z',
    });
    expect(written?.data).toEqual(secret.data);
    expect(written?.metadata?.finalizers).toEqual(['example.com/hold']);
    expect(written?.metadata?.ownerReferences?.map((o) => o.name)).toEqual(['owner']);
    await h.core.patchNamespacedSecret(
      { name, namespace: target, body: { metadata: { finalizers: null } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  });

  it('reports a conflict, and writes nothing, when the Secret changed since it was observed', async () => {
    const name = uniqueName('cluster');
    const { ref } = await existing(name);
    const changed = await h.core.replaceNamespacedSecret({
      namespace: target,
      name,
      body: opaque(name, { owner: 'someone-else' }, { name }),
    });
    const [result] = await applyPlan(
      h.access,
      planOf(update(ref, desired(name, 'https://d.example'))),
      options(false),
    );
    expect(result?.status).toBe('conflict');
    expect(result?.failure).toMatchObject({ kind: 'conflict', status: 409, retryable: true });
    expect(state(await read(name))).toBe(state(changed));
  });

  it('reports a conflict when the Secret was replaced by another of the same name', async () => {
    const name = uniqueName('cluster');
    const { ref } = await existing(name);
    await h.core.deleteNamespacedSecret({ namespace: target, name });
    const replacement = (await existing(name)).secret;
    // Even with the replacement's resourceVersion, the recorded uid does not match.
    const stale = { ...ref, resourceVersion: replacement.metadata?.resourceVersion ?? '' };
    const [updated, deleted] = await applyPlan(
      h.access,
      planOf(update(stale, desired(name, 'https://e.example')), remove(stale)),
      options(false),
    );
    expect(updated?.status).toBe('conflict');
    expect(deleted?.status).toBe('conflict');
    expect(state(await read(name))).toBe(state(replacement));
  });

  it('reports not-found for an update or delete of a Secret that is gone', async () => {
    const name = uniqueName('cluster');
    const { ref } = await existing(name);
    await h.core.deleteNamespacedSecret({ namespace: target, name });
    const results = await applyPlan(
      h.access,
      planOf(update(ref, desired(name, 'https://f.example')), remove(ref)),
      options(false),
    );
    expect(results.map((r) => r.status)).toEqual(['not-found', 'not-found']);
    expect(await read(name)).toBeUndefined();
  });

  it('deletes with uid and resourceVersion preconditions', async () => {
    const name = uniqueName('cluster');
    const { ref } = await existing(name);
    const [result] = await applyPlan(h.access, planOf(remove(ref)), options(false));
    expect(result?.status).toBe('applied');
    expect(await read(name)).toBeUndefined();
  });

  it('reports a conflict for a delete planned against an older resourceVersion', async () => {
    const name = uniqueName('cluster');
    const { ref } = await existing(name);
    const changed = await h.core.replaceNamespacedSecret({
      namespace: target,
      name,
      body: opaque(name, {}, { name: 'changed' }),
    });
    const [result] = await applyPlan(h.access, planOf(remove(ref)), options(false));
    expect(result?.status).toBe('conflict');
    expect(state(await read(name))).toBe(state(changed));
  });

  it('runs every action even when some fail, and keeps plan order for one name', async () => {
    const stale = {
      namespace: target,
      name: uniqueName('cluster'),
      uid: 'no-such-uid',
      resourceVersion: '1',
    };
    // Observed by a gather, gone since.
    observed.push({
      metadata: { name: stale.name, namespace: target, uid: stale.uid, resourceVersion: '1' },
    });
    const reused = uniqueName('cluster');
    const { ref } = await existing(reused);
    const fresh = desired(uniqueName('cluster'), 'https://g.example');
    const results = await applyPlan(
      h.access,
      // The delete of `reused` must land before its create.
      planOf(
        update(stale, desired(stale.name, 'https://h.example')),
        remove(ref),
        create(desired(reused, 'https://i.example')),
        create(fresh),
      ),
      options(false),
    );
    expect(results.map((r) => r.status)).toEqual(['not-found', 'applied', 'applied', 'applied']);
    expect(results.map((r) => r.action.kind)).toEqual(['update', 'delete', 'create', 'create']);
    expect((await read(reused))?.metadata?.uid).not.toBe(ref.uid);
  });
});

describe('applyPlan with dryRun', () => {
  it('writes nothing, as the API confirms, and reports dry-run for each action', async () => {
    const toCreate = desired(uniqueName('cluster'), 'https://j.example');
    const toUpdate = await existing(uniqueName('cluster'));
    const toDelete = await existing(uniqueName('cluster'));
    const results = await applyPlan(
      h.access,
      planOf(
        create(toCreate),
        update(toUpdate.ref, desired(toUpdate.ref.name, 'https://k.example')),
        remove(toDelete.ref),
      ),
      options(true),
    );
    expect(results.map((r) => [r.status, r.failure])).toEqual([
      ['dry-run', undefined],
      ['dry-run', undefined],
      ['dry-run', undefined],
    ]);
    expect(await read(toCreate.name)).toBeUndefined();
    expect(state(await read(toUpdate.ref.name))).toBe(state(toUpdate.secret));
    expect(state(await read(toDelete.ref.name))).toBe(state(toDelete.secret));
  });

  it('attaches what the real write would meet, still as dry-run', async () => {
    const name = uniqueName('cluster');
    const before = (await existing(name)).secret;
    const [result] = await applyPlan(
      h.access,
      planOf(create(desired(name, 'https://l.example'))),
      options(true),
    );
    expect(result).toMatchObject({ status: 'dry-run', failure: { kind: 'already-exists' } });
    expect(state(await read(name))).toBe(state(before));
  });

  it('does not fail a preview when the dry run is forbidden', async () => {
    const readOnly = await restrictedAccess(h, target, [
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] },
    ]);
    const secret = desired(uniqueName('cluster'), 'https://m.example');
    const [result] = await applyPlan(readOnly, planOf(create(secret)), options(true));
    expect(result).toMatchObject({
      status: 'dry-run',
      failure: { kind: 'forbidden', status: 403 },
    });
    expect(await read(secret.name)).toBeUndefined();
  });

  it('reports a forbidden real write as failed', async () => {
    const readOnly = await restrictedAccess(h, target, [
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] },
    ]);
    const [result] = await applyPlan(
      readOnly,
      planOf(create(desired(uniqueName('cluster'), 'https://n.example'))),
      options(false),
    );
    expect(result).toMatchObject({
      status: 'failed',
      failure: { kind: 'forbidden', retryable: false },
    });
  });
});
