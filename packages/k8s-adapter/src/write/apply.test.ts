import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '@argocd-cluster-registrar/testkit';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { V1Secret } from '@kubernetes/client-node';
import type { Action, DesiredSecret, ObservedRef, Plan } from '@argocd-cluster-registrar/core';
import type { KubeAccess } from '../connection/kube-access.js';
import { createApplier, createDryRunWriter } from './plan-writer.js';
import {
  PREFIX,
  createNamespace,
  host,
  opaque,
  restrictedAccess,
  testConfig,
  observedFrom,
} from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

let h: Host;
let target: string;
/** Every Secret arranged by a test, as the gatherer would have observed it. */
const observed: V1Secret[] = [];
/** The plan through the applier, or (`dryRun`) through the dry-run writer validating with `access`. */
const writePlan = (access: KubeAccess, plan: Plan, dryRun: boolean) =>
  (dryRun
    ? createDryRunWriter({ validateWith: access, labelPrefix: PREFIX })
    : createApplier(access, testConfig())
  ).write(
    plan,
    observed.map((secret) => observedFrom(secret, target)),
  );
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
  reason: { code: 'new-registration', namespace: 'src' },
});
const update = (target: ObservedRef, secret: DesiredSecret): Action => ({
  kind: 'update',
  cluster: secret.name,
  target,
  // Only the renderers read the before; the writer goes by target alone.
  before: { ...secret, ...target },
  secret,
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

describe('the applier', () => {
  it('creates a registration exactly as planned', async () => {
    const secret = desired(uniqueName('cluster'), 'https://a.example:6443');
    const [result] = await writePlan(h.access, planOf(create(secret)), false);
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
    const [result] = await writePlan(
      h.access,
      planOf(create(desired(name, 'https://b.example'))),
      false,
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
    const [result] = await writePlan(h.access, planOf(update(ref, secret)), false);
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
    const [result] = await writePlan(h.access, planOf(update(refOf(arranged), secret)), false);
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

  it("sets and removes ArgoCD's skip-reconcile beside our pause reason, and leaves one set by someone else", async () => {
    const skip = 'argocd.argoproj.io/skip-reconcile';
    const reason = `${PREFIX}pause-reason`;
    const name = uniqueName('cluster');
    const { ref } = await existing(name);
    const awake = desired(name, 'https://p.example');
    const paused = {
      ...awake,
      annotations: { ...awake.annotations, [skip]: 'true', [reason]: 'unreachable' },
    };
    const [pausing] = await writePlan(h.access, planOf(update(ref, paused)), false);
    expect(pausing?.status).toBe('applied');
    const written = await read(name);
    expect(written?.metadata?.annotations).toEqual(paused.annotations);

    observed.push(written ?? {});
    const [waking] = await writePlan(h.access, planOf(update(refOf(written ?? {}), awake)), false);
    expect(waking?.status).toBe('applied');
    const woken = await read(name);
    expect(woken?.metadata?.annotations).toEqual(awake.annotations);

    // Someone else's pause (no reason of ours beside it) stays, whatever the plan says.
    const theirs = await h.core.patchNamespacedSecret(
      { name, namespace: target, body: { metadata: { annotations: { [skip]: 'true' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    observed.push(theirs);
    const [kept] = await writePlan(h.access, planOf(update(refOf(theirs), awake)), false);
    expect(kept?.status).toBe('applied');
    expect((await read(name))?.metadata?.annotations?.[skip]).toBe('true');
  });

  it('reports a conflict, and writes nothing, when the Secret changed since it was observed', async () => {
    const name = uniqueName('cluster');
    const { ref } = await existing(name);
    const changed = await h.core.replaceNamespacedSecret({
      namespace: target,
      name,
      body: opaque(name, { owner: 'someone-else' }, { name }),
    });
    const [result] = await writePlan(
      h.access,
      planOf(update(ref, desired(name, 'https://d.example'))),
      false,
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
    const [updated, deleted] = await writePlan(
      h.access,
      planOf(update(stale, desired(name, 'https://e.example')), remove(stale)),
      false,
    );
    expect(updated?.status).toBe('conflict');
    expect(deleted?.status).toBe('conflict');
    expect(state(await read(name))).toBe(state(replacement));
  });

  it('reports a rejected update as failed, with the fields the API server named as data', async () => {
    const name = uniqueName('cluster');
    const { ref } = await existing(name);
    const before = await read(name);
    const secret = desired(name, 'https://g.example');
    // A label value no API server accepts: a 422 whose causes name metadata.labels.
    const invalid = { ...secret, labels: { ...secret.labels, [`${PREFIX}note`]: 'not valid!' } };
    const [result] = await writePlan(h.access, planOf(update(ref, invalid)), false);
    expect(result?.status).toBe('failed');
    expect(result?.failure).toMatchObject({ kind: 'invalid', status: 422, retryable: false });
    expect(result?.failure?.causes).toContainEqual({
      field: 'metadata.labels',
      reason: 'FieldValueInvalid',
    });
    expect(state(await read(name))).toBe(state(before));
  });

  it('reports not-found for an update or delete of a Secret that is gone', async () => {
    const name = uniqueName('cluster');
    const { ref } = await existing(name);
    await h.core.deleteNamespacedSecret({ namespace: target, name });
    const results = await writePlan(
      h.access,
      planOf(update(ref, desired(name, 'https://f.example')), remove(ref)),
      false,
    );
    expect(results.map((r) => r.status)).toEqual(['not-found', 'not-found']);
    expect(await read(name)).toBeUndefined();
  });

  it('deletes with uid and resourceVersion preconditions', async () => {
    const name = uniqueName('cluster');
    const { ref } = await existing(name);
    const [result] = await writePlan(h.access, planOf(remove(ref)), false);
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
    const [result] = await writePlan(h.access, planOf(remove(ref)), false);
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
    const results = await writePlan(
      h.access,
      // The delete of `reused` must land before its create.
      planOf(
        update(stale, desired(stale.name, 'https://h.example')),
        remove(ref),
        create(desired(reused, 'https://i.example')),
        create(fresh),
      ),
      false,
    );
    expect(results.map((r) => r.status)).toEqual(['not-found', 'applied', 'applied', 'applied']);
    expect(results.map((r) => r.action.kind)).toEqual(['update', 'delete', 'create', 'create']);
    expect((await read(reused))?.metadata?.uid).not.toBe(ref.uid);
  });
});

describe('the dry-run writer', () => {
  it('writes nothing, as the API confirms, and reports dry-run for each action', async () => {
    const toCreate = desired(uniqueName('cluster'), 'https://j.example');
    const toUpdate = await existing(uniqueName('cluster'));
    const toDelete = await existing(uniqueName('cluster'));
    const results = await writePlan(
      h.access,
      planOf(
        create(toCreate),
        update(toUpdate.ref, desired(toUpdate.ref.name, 'https://k.example')),
        remove(toDelete.ref),
      ),
      true,
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
    const [result] = await writePlan(
      h.access,
      planOf(create(desired(name, 'https://l.example'))),
      true,
    );
    expect(result).toMatchObject({ status: 'dry-run', failure: { kind: 'already-exists' } });
    expect(state(await read(name))).toBe(state(before));
  });

  it('does not fail a preview when the dry run is forbidden', async () => {
    const readOnly = await restrictedAccess(h, target, [
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] },
    ]);
    const secret = desired(uniqueName('cluster'), 'https://m.example');
    const [result] = await writePlan(readOnly, planOf(create(secret)), true);
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
    const [result] = await writePlan(
      readOnly,
      planOf(create(desired(uniqueName('cluster'), 'https://n.example'))),
      false,
    );
    expect(result).toMatchObject({
      status: 'failed',
      failure: { kind: 'forbidden', retryable: false },
    });
  });
});
