// Write-time proof (issue 8, item 6): a demote or delete planned from a gather that the world
// has since overtaken is withheld, on the real host plane. Each case plans against a
// namespace's old state, changes the namespace back, then applies the stale plan.

import { beforeAll, describe, expect, it } from 'vitest';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { V1Secret } from '@kubernetes/client-node';
import { finalizeNamespace, uniqueName } from '@argocd-cluster-registrar/testkit';
import type { Action, ObservedRef } from '@argocd-cluster-registrar/core';
import { applyPlan } from './apply.js';
import { PREFIX, createNamespace, host, observedFrom } from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

let h: Host;
let target: string;
beforeAll(async () => {
  h = await host();
  target = uniqueName('argocd');
  await createNamespace(h.core, target);
});

const CLUSTER_KEY = `${PREFIX}cluster`;

/** A source namespace claiming `cluster`, and its registration as the gatherer saw it. */
async function registered(cluster: string) {
  const source = uniqueName('src');
  const uid = await createNamespace(h.core, source, { [CLUSTER_KEY]: cluster });
  const secret = await h.core.createNamespacedSecret({
    namespace: target,
    body: {
      metadata: {
        name: `cluster-${cluster}`,
        labels: {
          'argocd.argoproj.io/secret-type': 'cluster',
          [`${PREFIX}cluster`]: cluster,
          [`${PREFIX}source-namespace`]: source,
          [`${PREFIX}source-namespace-uid`]: uid,
        },
      },
      type: 'Opaque',
      data: { name: Buffer.from(cluster).toString('base64') },
    },
  });
  return { source, uid, secret };
}

function refOf(secret: V1Secret): ObservedRef {
  return {
    namespace: target,
    name: secret.metadata?.name ?? '',
    uid: secret.metadata?.uid ?? '',
    resourceVersion: secret.metadata?.resourceVersion ?? '',
  };
}

async function apply(action: Action, secret: V1Secret) {
  const [result] = await applyPlan(
    h.access,
    { actions: [action], outcomes: [], warnings: [] },
    { dryRun: false, labelPrefix: PREFIX, observed: [observedFrom(secret, target)] },
  );
  return result;
}

async function relabel(name: string, cluster: string): Promise<void> {
  await h.core.patchNamespace(
    { name, body: { metadata: { labels: { [CLUSTER_KEY]: cluster } } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

async function stillThere(secret: V1Secret): Promise<boolean> {
  const now = await h.core.readNamespacedSecret({
    namespace: target,
    name: secret.metadata?.name ?? '',
  });
  return now.metadata?.resourceVersion === secret.metadata?.resourceVersion;
}

function demoteOf(secret: V1Secret, cluster: string, source: string): Action {
  const observed = observedFrom(secret, target);
  return {
    kind: 'demote',
    cluster,
    target: refOf(secret),
    secret: {
      namespace: target,
      name: observed.name,
      type: 'Opaque',
      labels: { ...observed.labels, [`${PREFIX}superseded-by`]: 'renamed' },
      annotations: {},
      data: observed.data,
    },
    changes: [],
    reason: { code: 'renamed', namespace: source, supersededBy: 'renamed' },
  };
}

describe('write-time proof', () => {
  it('withholds a demotion when the rename was reverted, and sends it while the rename holds', async () => {
    const cluster = uniqueName('c');
    const { source, secret } = await registered(cluster);
    // Planned while the namespace was renamed; the rename is reverted before the write.
    await relabel(source, 'renamed');
    await relabel(source, cluster);
    const reverted = await apply(demoteOf(secret, cluster, source), secret);
    expect(reverted).toMatchObject({ status: 'withheld' });
    expect(reverted?.failure?.message).toContain('stale plan');
    expect(await stillThere(secret)).toBe(true);

    await relabel(source, 'renamed');
    expect((await apply(demoteOf(secret, cluster, source), secret))?.status).toBe('applied');
  });

  it('withholds a delete for a missing source namespace that exists again', async () => {
    const cluster = uniqueName('c');
    const { source, secret } = await registered(cluster);
    const action: Action = {
      kind: 'delete',
      cluster,
      target: refOf(secret),
      reason: { code: 'source-namespace-not-found', namespace: source },
    };
    expect(await apply(action, secret)).toMatchObject({ status: 'withheld' });
    expect(await stillThere(secret)).toBe(true);

    await finalizeNamespace(h.plane, source);
    expect((await apply(action, secret))?.status).toBe('applied');
  });

  it('withholds a delete for a replaced namespace that has the recorded uid again', async () => {
    const cluster = uniqueName('c');
    const { source, uid, secret } = await registered(cluster);
    const action: Action = {
      kind: 'delete',
      cluster,
      target: refOf(secret),
      reason: {
        code: 'source-namespace-replaced',
        namespace: source,
        recordedUid: uid,
        observedUid: 'some-other-uid',
      },
    };
    expect(await apply(action, secret)).toMatchObject({ status: 'withheld' });
    expect(await stillThere(secret)).toBe(true);
  });
});
