// Both world sources find a kubeconfig Secret by its provisioner's marks, whatever its name,
// against the real API server: the one-shot lister and the daemon's metadata-only watch.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kubeconfigText, uniqueName } from '@argocd-cluster-registrar/testkit';
import { plan, PROVIDER_PRESETS } from '@argocd-cluster-registrar/core';
import type { Config } from '@argocd-cluster-registrar/core';
import { createGatherer } from './listed-world.js';
import { createWatchGatherer } from './watched-world.js';
import type { WatchGatherer } from './watched-world.js';
import {
  MANAGED_BY_KEY,
  PREFIX,
  createNamespace,
  host,
  opaque,
  testConfig,
} from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

const NOW = Date.parse('2026-12-01T00:00:00Z');

let h: Host;
let gatherer: WatchGatherer | undefined;
beforeAll(async () => {
  h = await host();
});
afterEach(() => {
  gatherer?.stop();
  gatherer = undefined;
});

const kubeconfig = (server: string): string =>
  kubeconfigText({ server, cluster: ['insecure-skip-tls-verify: true'], user: ['token: t'] });

/** A k3k Secret with a hashed name, owned by its Cluster, and a vcluster additional export. */
async function arrange(config: Config) {
  const managed = { [MANAGED_BY_KEY]: config.managedBy };
  const k3k = uniqueName('k3k');
  const vcluster = uniqueName('vc');
  await createNamespace(h.core, k3k, { ...managed, [`${PREFIX}cluster`]: 'hashed' });
  await createNamespace(h.core, vcluster, { ...managed, [`${PREFIX}cluster`]: 'exported' });
  await createNamespace(h.core, config.targetNamespace);
  // k3k's SafeConcatName cut k3k-<60 characters>-kubeconfig to 57 characters and a hash.
  const hashed = 'k3k-payments-eu-west-1-production-tenant-blue-green-rollou-3f1c2';
  await h.core.createNamespacedSecret({
    namespace: k3k,
    body: {
      ...opaque(hashed, {}, { 'kubeconfig.yaml': kubeconfig('https://k3k.example.test') }),
      metadata: {
        name: hashed,
        ownerReferences: [
          {
            apiVersion: 'k3k.io/v1beta1',
            kind: 'Cluster',
            name: 'payments-eu-west-1-production-tenant-blue-green-rollout-0001',
            uid: '9b0e4c4e-1f7a-4c55-9d52-1a2b3c4d5e6f',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
    },
  });
  await h.core.createNamespacedSecret({
    namespace: vcluster,
    body: opaque(
      'argocd-access',
      { app: 'vcluster', 'vcluster-name': 'dev' },
      { config: kubeconfig('https://vc.example.test') },
    ),
  });
  return { k3k, vcluster, hashed };
}

describe('provisioners’ marks', () => {
  it('the lister and the watch both hand the marked Secrets to the planner, which registers them', async () => {
    const config = testConfig({ providers: [PROVIDER_PRESETS.k3k, PROVIDER_PRESETS.vcluster] });
    const { k3k, vcluster, hashed } = await arrange(config);
    const lister = createGatherer(h.access, config);
    const listed = await lister.full();
    gatherer = createWatchGatherer(h.access, config, {
      onChange: () => undefined,
      onError: () => undefined,
      resyncPeriodMs: 0,
    });
    const watched = await gatherer.full();
    for (const { snapshot } of [listed, watched]) {
      const names = snapshot.candidateSecrets
        .filter((secret) => secret.namespace === k3k || secret.namespace === vcluster)
        .map((secret) => `${secret.namespace}/${secret.name}`)
        .sort();
      expect(names).toEqual([`${k3k}/${hashed}`, `${vcluster}/argocd-access`].sort());
    }
    for (const [result, translate] of [
      [listed, lister.translate],
      [watched, gatherer.translate],
    ] as const) {
      const planned = plan(result.snapshot, config, NOW, { translate });
      const created = planned.actions.flatMap((action) =>
        action.kind === 'create' ? [action.secret.name] : [],
      );
      expect(created.sort()).toEqual(['cluster-exported', 'cluster-hashed']);
    }
  });
});
