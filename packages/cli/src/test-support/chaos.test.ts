// The chaos harness's own oracle: what the churn records of the sources must be what the
// server holds, also when its writes fail (refused while the API server restarts, a 5xx, a
// connection cut before or after the server took the write). A record that believes a
// failed write expects a world the server never had, and blames the registrar for it.
import { afterEach, describe, expect, it } from 'vitest';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startFaultProxy } from '@argocd-cluster-registrar/testkit';
import type { FaultProxy } from '@argocd-cluster-registrar/testkit';
import { createChaosWorld, startChurn } from './chaos.js';
import type { ChaosWorld } from './chaos.js';
import { PREFIX, createWorld, getSecret } from './e2e.js';

let proxy: FaultProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

/** Where the record and the server disagree, per source namespace ([] when they agree). */
async function disagreements(chaos: ChaosWorld): Promise<string[]> {
  const api = chaos.world.hostApi;
  const found: string[] = [];
  for (const [name, source] of chaos.sources) {
    const ns = await api.readNamespace({ name }).catch(() => undefined);
    if (ns === undefined || ns.metadata?.deletionTimestamp !== undefined) {
      found.push(`${name} is recorded but gone`);
      continue;
    }
    const cluster = ns.metadata?.labels?.[`${PREFIX}cluster`];
    if (cluster !== source.cluster)
      found.push(`${name}: cluster ${String(cluster)}, recorded ${source.cluster}`);
    const secret = await getSecret(api, name, 'k3k-c-kubeconfig');
    const kubeconfig = Buffer.from(secret?.data?.['kubeconfig.yaml'] ?? '', 'base64').toString();
    if (!new RegExp(`^\\s*token: ${source.token}$`, 'm').test(kubeconfig))
      found.push(`${name}: the kubeconfig lacks the recorded token ${source.token}`);
  }
  const managed = await api.listNamespace({
    labelSelector: `${PREFIX}managed-by=${chaos.world.managedBy}`,
  });
  for (const ns of managed.items) {
    const name = ns.metadata?.name ?? '';
    if (!chaos.sources.has(name) && ns.metadata?.deletionTimestamp === undefined)
      found.push(`${name} exists but is not recorded`);
  }
  return found.sort();
}

describe('the chaos churn', () => {
  it('records what the server holds when its writes fail, before or after the server took them', async () => {
    const chaos = await createChaosWorld(await createWorld(), { namespaces: 6, foreign: 0 });
    // Its writes go through a proxy that refuses or cuts a third of them.
    proxy = await startFaultProxy(chaos.world.host, {
      seed: 7,
      faults: { rate: 0.35, kinds: ['status-503', 'reset'] },
    });
    const kc = new KubeConfig();
    kc.loadFromString(proxy.kubeConfig);
    const flaky: ChaosWorld = {
      ...chaos,
      world: { ...chaos.world, hostApi: kc.makeApiClient(CoreV1Api) },
    };
    const churn = startChurn(flaky, { periodMs: 40, seed: 5 });
    while (proxy.counts['status-503'] + proxy.counts.reset < 12)
      await new Promise((resolve) => setTimeout(resolve, 100));
    await churn.stop();

    expect(churn.counts.rotate + churn.counts.rename + churn.counts.revert).toBeGreaterThan(3);
    expect(await disagreements(chaos)).toEqual([]);
  }, 120_000);
});
