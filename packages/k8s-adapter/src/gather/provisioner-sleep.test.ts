// Provisioners' sleep signals against the run's real host plane: Kamaji's TenantControlPlane
// CRD (its real schema, trimmed: testkit kamaji.ts) installed by this file, and a vcluster's
// StatefulSet as `vcluster pause` leaves it. No provisioner runs: the objects are written as
// their controllers write them, and the planner decides from what the gatherers read.

import { describe, expect, it, vi } from 'vitest';
import {
  applyObjects,
  installKamajiCrd,
  kubeconfigText,
  kubectl,
  uniqueName,
} from '@argocd-cluster-registrar/testkit';
import { PROVIDER_PRESETS, plan } from '@argocd-cluster-registrar/core';
import type { Config, Snapshot, Translator } from '@argocd-cluster-registrar/core';
import { createGatherer } from './listed-world.js';
import { createWatchGatherer } from './watched-world.js';
import type { WorldChange } from './world-cache.js';
import { KAMAJI_ABSENT } from './provisioner-sleep.js';
import {
  MANAGED_BY_KEY,
  PREFIX,
  createNamespace,
  host,
  opaque,
  restrictedAccess,
  testConfig,
} from '../test-support/host.js';

/** A namespace source `team` registered as `cluster`, from a Kamaji or vcluster kubeconfig. */
async function source(config: Config, labels: Record<string, string>, secret: string, key: string) {
  const h = await host();
  const namespace = uniqueName('sleepy');
  await createNamespace(h.core, namespace, {
    [MANAGED_BY_KEY]: config.managedBy,
    [`${PREFIX}cluster`]: namespace,
  });
  const body = opaque(secret, labels, {
    [key]: kubeconfigText({ server: `https://${namespace}.example.com:6443`, user: ['token: t'] }),
  });
  await h.core.createNamespacedSecret({ namespace, body });
  return { h, namespace };
}

function tenantControlPlane(namespace: string, name: string): object {
  return {
    apiVersion: 'kamaji.clastix.io/v1alpha1',
    kind: 'TenantControlPlane',
    metadata: { namespace, name },
    spec: { controlPlane: { deployment: { replicas: 0 } }, kubernetes: { version: 'v1.33.0' } },
  };
}

async function setVersionStatus(
  plane: { kubeconfigPath: string },
  namespace: string,
  name: string,
  status: string,
): Promise<void> {
  await kubectl(plane, [
    'patch',
    'tenantcontrolplane',
    name,
    '--namespace',
    namespace,
    '--subresource=status',
    '--type=merge',
    '--patch',
    JSON.stringify({ status: { kubernetesResources: { version: { status } } } }),
  ]);
}

/** The pause the planner decides for `namespace` from what a gatherer read. */
function pauseOf(
  gathered: { snapshot: Snapshot },
  config: Config,
  namespace: string,
  gatherer: { translate: Translator },
): string | undefined {
  const { snapshot } = gathered;
  const outcome = plan(snapshot, config, Date.now(), {
    translate: gatherer.translate,
  }).outcomes.find((o) => o.namespace === namespace);
  return outcome?.paused;
}

describe('provisioner sleep signals', () => {
  const kamaji = (): Config =>
    testConfig({ providers: [PROVIDER_PRESETS.kamaji], kamajiSleep: true });

  // Before the CRD is installed below: this file is the only one that installs it.
  it('reads no TenantControlPlane while Kamaji is not served, and says so once', async () => {
    const { access } = await host();
    const gatherer = createGatherer(access, kamaji());
    const first = await gatherer.full();
    expect(first.failures).toEqual([]);
    expect(first.snapshot.provisioners).toEqual({ kamaji: [] });
    expect(first.notices).toEqual([KAMAJI_ABSENT]);
    expect((await gatherer.full()).notices).toBeUndefined();
  });

  it('pauses a child whose TenantControlPlane says Sleeping (one-shot and watched)', async () => {
    const config = kamaji();
    const { h, namespace } = await source(
      config,
      { 'kamaji.clastix.io/component': 'admin-kubeconfig', 'kamaji.clastix.io/name': 'tcp-a' },
      'tcp-a-admin-kubeconfig',
      'admin.conf',
    );
    await installKamajiCrd(h.plane);
    await applyObjects(h.plane, [
      tenantControlPlane(namespace, 'tcp-a'),
      tenantControlPlane(namespace, 'tcp-b'),
    ]);
    await setVersionStatus(h.plane, namespace, 'tcp-a', 'Sleeping');

    const listed = createGatherer(h.access, config);
    const once = await listed.full();
    expect(once.failures).toEqual([]);
    expect(once.snapshot.provisioners?.kamaji).toContainEqual({
      kind: 'TenantControlPlane',
      namespace,
      name: 'tcp-a',
      labels: {},
      annotations: {},
      versionStatus: 'Sleeping',
    });
    expect(pauseOf(once, config, namespace, listed)).toBe('kamaji-sleeping');

    const changes: WorldChange[] = [];
    const watched = createWatchGatherer(h.access, config, {
      onChange: (change) => changes.push(change),
      onError: () => undefined,
      resyncPeriodMs: 0,
    });
    try {
      const asleep = await watched.full();
      expect(pauseOf(asleep, config, namespace, watched)).toBe('kamaji-sleeping');
      // Another TenantControlPlane falling asleep leaves this child paused as it was; its own waking un-pauses it.
      await setVersionStatus(h.plane, namespace, 'tcp-b', 'Sleeping');
      await setVersionStatus(h.plane, namespace, 'tcp-a', 'Ready');
      await vi.waitFor(
        async () => {
          const awake = await watched.refresh();
          expect(pauseOf(awake, config, namespace, watched)).toBeUndefined();
        },
        { timeout: 30_000, interval: 200 },
      );
      expect(changes.some((change) => change.namespaces.includes(namespace))).toBe(true);
    } finally {
      watched.stop();
    }
  });

  it('pauses a vcluster whose StatefulSet `vcluster pause` annotated, from its metadata only', async () => {
    const config = testConfig({ providers: [PROVIDER_PRESETS.vcluster], vclusterSleep: true });
    const { h, namespace } = await source(
      config,
      { app: 'vcluster', 'vcluster-name': 'my-vc' },
      'argocd-access',
      'config',
    );
    const statefulSet = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: {
        namespace,
        name: 'my-vc',
        labels: { app: 'vcluster', release: 'my-vc' },
        annotations: { 'loft.sh/paused': 'true', 'loft.sh/paused-replicas': '1' },
      },
      spec: {
        replicas: 0,
        serviceName: 'my-vc-headless',
        selector: { matchLabels: { app: 'vcluster', release: 'my-vc' } },
        template: {
          metadata: { labels: { app: 'vcluster', release: 'my-vc' } },
          spec: { containers: [{ name: 'syncer', image: 'example.invalid/vcluster:0.37' }] },
        },
      },
    };
    await applyObjects(h.plane, [statefulSet]);
    const gatherer = createGatherer(h.access, config);
    const gathered = await gatherer.full();
    expect(gathered.failures).toEqual([]);
    const read = gathered.snapshot.provisioners?.vcluster?.find((o) => o.namespace === namespace);
    expect(read).toMatchObject({ kind: 'StatefulSet', name: 'my-vc' });
    expect(read?.annotations['loft.sh/paused']).toBe('true');
    expect(pauseOf(gathered, config, namespace, gatherer)).toBe('vcluster-sleeping');
  });

  it('fails a one-shot pass whose signal cannot be read, and leaves the signal out', async () => {
    const config = testConfig({ providers: [PROVIDER_PRESETS.vcluster], vclusterSleep: true });
    const h = await host();
    // Sources and registrations, but not the StatefulSets and Deployments vcluster marks.
    const access = await restrictedAccess(h, 'default', [
      { apiGroups: [''], resources: ['namespaces', 'secrets'], verbs: ['get', 'list', 'watch'] },
    ]);
    const gathered = await createGatherer(access, config).full();
    expect(gathered.failures.map((failure) => [failure.read, failure.scope])).toEqual([
      [{ verb: 'sleep', signal: 'vcluster' }, 'read what vcluster marks asleep (--vcluster-sleep)'],
    ]);
    expect(gathered.failures[0]?.failure.kind).toBe('forbidden');
    expect(gathered.snapshot.provisioners).toEqual({});
  });

  it('reads nothing of a signal that is off', async () => {
    const { access } = await host();
    const gathered = await createGatherer(access, testConfig()).full();
    expect(gathered.snapshot.provisioners).toBeUndefined();
  });
});
