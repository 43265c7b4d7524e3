// runPass in-process against the real host plane. The one thing injected is a failed read
// (added to the real gatherer's report, and recorded in its snapshot the way the gatherer
// records one) to prove that the pass writes exactly what the planner decided from it.

import { beforeEach, describe, expect, it } from 'vitest';
import { createSettledRepeat, parseConfig } from '@argocd-cluster-registrar/core';
import { startFaultProxy } from '@argocd-cluster-registrar/testkit';
import type { Config } from '@argocd-cluster-registrar/core';
import {
  createApplier,
  createDryRunWriter,
  createGatherer,
  loadKubeAccess,
} from '@argocd-cluster-registrar/k8s-adapter';
import type { Gatherer, GatherResult, KubeAccess } from '@argocd-cluster-registrar/k8s-adapter';
import { silentLogger } from './logging.js';
import { accessThrough } from './test-support/proxied-access.js';
import { RegistrarMetrics } from './metrics.js';
import { passNeedsRetry, runPass } from './reconciler.js';
import {
  createSourceNamespace,
  createWorld,
  deleteNamespace,
  kubeconfigYaml,
  putK3kKubeconfig,
  registration,
} from './test-support/e2e.js';
import type { World } from './test-support/e2e.js';

let world: World;
let access: KubeAccess;
let config: Config;

beforeEach(async () => {
  world = await createWorld();
  access = loadKubeAccess({ kubeconfig: world.host.kubeconfigPath });
  const parsed = parseConfig({ targetNamespace: world.target, managedBy: world.managedBy });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  config = parsed.config;
});

/** The gatherer, with the target namespace's cluster Secret list failed (or not) on top. */
function withFailedRead(gatherer: Gatherer, recorded: boolean): Gatherer {
  const inject = (result: GatherResult): GatherResult => ({
    ...result,
    snapshot: recorded ? { ...result.snapshot, clusterSecretsUnread: 'injected' } : result.snapshot,
    failures: [
      ...result.failures,
      {
        read: {
          verb: 'list',
          kind: 'Secret',
          namespace: recorded ? config.targetNamespace : 'elsewhere',
        },
        scope: recorded ? `list secrets in ${config.targetNamespace}` : 'list secrets in elsewhere',
        failure: { kind: 'transient', message: 'injected', retryable: true },
      },
    ],
  });
  return {
    translate: gatherer.translate,
    full: async () => inject(await gatherer.full()),
    refresh: async () => inject(await gatherer.refresh()),
  };
}

describe('runPass', () => {
  it('writes the plan as it is: the planner, not the pass, withholds what a failed read leaves unproven', async () => {
    const ns = await createSourceNamespace(world, { cluster: 'kept' });
    const name = ns.metadata?.name ?? '';
    await putK3kKubeconfig(world, name, kubeconfigYaml(world.child));
    const metrics = new RegistrarMetrics();
    const deps = {
      writer: createApplier(access, config),
      config,
      logger: silentLogger,
      metrics,
      repeat: createSettledRepeat(),
      now: Date.now,
    };

    const first = await runPass(
      { ...deps, gatherer: createGatherer(access, config) },
      { scope: { full: true }, apply: true },
    );
    expect(first.results.map((r) => [r.action.kind, r.status])).toEqual([['create', 'applied']]);
    await deleteNamespace(world, name);

    // The cluster Secrets could not be listed: the planner plans no deletion, and says so.
    const incomplete = await runPass(
      { ...deps, gatherer: withFailedRead(createGatherer(access, config), true) },
      { scope: { full: true }, apply: true },
    );
    expect(incomplete.plan.actions).toEqual([]);
    expect(incomplete.plan.warnings.map((w) => [w.code, w.secret])).toEqual([
      ['input-incomplete', 'cluster-kept'],
    ]);
    expect(incomplete.results).toEqual([]);
    expect(passNeedsRetry(incomplete)).toBe(true);
    expect(await registration(world, 'kept')).toBeDefined();
    expect(metrics.apiErrors.get({ kind: 'transient' })).toBe(1);

    // A failed read the deletion does not rest on (the namespace is proven gone) withholds
    // nothing: what is planned is what is written.
    const unrelated = await runPass(
      { ...deps, gatherer: withFailedRead(createGatherer(access, config), false) },
      { scope: { full: true }, apply: true },
    );
    expect(unrelated.results.map((r) => [r.action.kind, r.status])).toEqual([
      ['delete', 'applied'],
    ]);
    expect(passNeedsRetry(unrelated)).toBe(true);
    expect(await registration(world, 'kept')).toBeUndefined();
  });

  it('plans without writing when apply is off (standby) or in dry-run', async () => {
    const ns = await createSourceNamespace(world, { cluster: 'planned' });
    await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfigYaml(world.child));
    const deps = {
      writer: createApplier(access, config),
      config,
      logger: silentLogger,
      metrics: new RegistrarMetrics(),
      repeat: createSettledRepeat(),
      now: Date.now,
      gatherer: createGatherer(access, config),
    };
    const standby = await runPass(deps, { scope: { full: true }, apply: false });
    expect(standby.applied).toBe(false);
    expect(standby.plan.actions.map((a) => a.kind)).toEqual(['create']);
    const dryRun = await runPass(
      {
        ...deps,
        writer: createDryRunWriter({ validateWith: access, labelPrefix: config.labelPrefix }),
      },
      { scope: { full: true }, apply: true },
    );
    expect(dryRun.applied).toBe(false);
    expect(dryRun.results).toEqual([]);
    // The dry-run writer still had the API server check the write, storing nothing.
    expect(dryRun.previewed.map((r) => [r.action.kind, r.status, r.failure])).toEqual([
      ['create', 'dry-run', undefined],
    ]);
    expect(await registration(world, 'planned')).toBeUndefined();
  });

  it("creates nothing when the target namespace's cluster Secrets could not be listed", async () => {
    const ns = await createSourceNamespace(world, { cluster: 'unseen-target' });
    await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfigYaml(world.child));
    // Only the target namespace's Secret lists fail (503); everything else is answered.
    const proxy = await startFaultProxy(world.host, {
      faults: {
        rate: 1,
        kinds: ['status-503'],
        only: new RegExp(`^GET /api/v1/namespaces/${world.target}/secrets\\?`),
      },
    });
    try {
      const proxied = accessThrough(proxy);
      const metrics = new RegistrarMetrics();
      const started = metrics.lastSuccessfulPass.get();
      const deps = {
        writer: createApplier(proxied, config),
        config,
        logger: silentLogger,
        metrics,
        repeat: createSettledRepeat(),
        now: Date.now,
        gatherer: createGatherer(proxied, config),
      };
      const blind = await runPass(deps, { scope: { full: true }, apply: true });
      // A pass with a failed read is no success: the alert on it goes on counting.
      expect(metrics.lastSuccessfulPass.get()).toBe(started);
      // The planner withholds the create itself: the snapshot records the unread list.
      expect(blind.snapshot.clusterSecretsUnread).toBeDefined();
      expect(blind.plan.actions).toEqual([]);
      expect(blind.results).toEqual([]);
      expect(passNeedsRetry(blind)).toBe(true);
      expect(await registration(world, 'unseen-target')).toBeUndefined();

      proxy.setFaults({ rate: 0 });
      const seeing = await runPass(deps, { scope: { full: true }, apply: true });
      expect(seeing.results.map((r) => [r.action.kind, r.status])).toEqual([['create', 'applied']]);
      expect(metrics.lastSuccessfulPass.get()).toBeGreaterThan(started ?? Infinity);
    } finally {
      await proxy.close();
    }
  });
});
