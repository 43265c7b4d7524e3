import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '@argocd-cluster-registrar/testkit';
import { PROVIDER_PRESETS, snapshotToJson } from '@argocd-cluster-registrar/core';
import { createGatherer } from './gather.js';
import {
  MANAGED_BY_KEY,
  PREFIX,
  createNamespace,
  host,
  opaque,
  testConfig,
} from './test-support/host.js';
import type { Host } from './test-support/host.js';

let h: Host;
beforeAll(async () => {
  h = await host();
});

describe('near misses in a gathered snapshot', () => {
  it('records names and key names (never values) only where no candidate exists', async () => {
    const config = testConfig({ providers: [PROVIDER_PRESETS.k3k] });
    const labels = { [MANAGED_BY_KEY]: config.managedBy, [`${PREFIX}cluster`]: 'x' };
    const vcluster = uniqueName('vc-ns');
    const k3k = uniqueName('k3k-ns');
    await createNamespace(h.core, vcluster, labels);
    await createNamespace(h.core, k3k, labels);
    await createNamespace(h.core, config.targetNamespace);
    const create = (namespace: string, name: string, data: Record<string, string>) =>
      h.core.createNamespacedSecret({ namespace, body: opaque(name, {}, data) });
    // What vcluster writes: the kubeconfig Secret and its config Secret, plus an unrelated one.
    await create(vcluster, 'vc-x', { config: 'secret-kubeconfig-text', certificate: 'c' });
    await create(vcluster, 'vc-config-x', { 'config.yaml': 'values' });
    await create(vcluster, 'unrelated', { password: 'hunter2' });
    // A namespace with a real candidate records nothing, however much looks alike.
    await create(k3k, 'k3k-x-kubeconfig', { 'kubeconfig.yaml': 'k' });
    await create(k3k, 'vc-y', { config: 'c' });

    const { snapshot } = await createGatherer(h.access, config).full();
    expect(snapshot.candidateSecrets.map((s) => `${s.namespace}/${s.name}`)).toEqual([
      `${k3k}/k3k-x-kubeconfig`,
    ]);
    expect(snapshot.nearMisses).toEqual([
      { namespace: vcluster, name: 'vc-config-x', keys: ['config.yaml'] },
      { namespace: vcluster, name: 'vc-x', keys: ['certificate', 'config'] },
    ]);
    const saved = snapshotToJson(snapshot);
    for (const value of ['secret-kubeconfig-text', 'hunter2', 'values'])
      expect(saved).not.toContain(Buffer.from(value).toString('base64'));
  });
});
