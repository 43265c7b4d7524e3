// Cluster API Clusters as sources, against real API servers: one plane of this file's own
// with Cluster API's real CRDs (testkit installCapiCrds; no CAPI controller is needed to
// read Cluster objects), and the run's shared host plane, which serves no Cluster API group.

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CoreV1Api } from '@kubernetes/client-node';
import {
  applyObjects,
  coreApi,
  installCapiCrds,
  kubeconfigText,
  startControlPlane,
  uniqueName,
} from '@argocd-cluster-registrar/testkit';
import type { ControlPlane } from '@argocd-cluster-registrar/testkit';
import { PROVIDER_PRESETS, plan } from '@argocd-cluster-registrar/core';
import type { Action, ObservedRef } from '@argocd-cluster-registrar/core';
import { CLUSTER_API_ABSENT } from './assembler.js';
import { readCluster } from '../connection/cluster-api.js';
import { createApplier } from '../write/plan-writer.js';
import { createGatherer } from './listed-world.js';
import { createWatchGatherer } from './watched-world.js';
import type { WorldChange } from './world-cache.js';
import { loadKubeAccess } from '../connection/kube-access.js';
import type { KubeAccess } from '../connection/kube-access.js';
import {
  MANAGED_BY_KEY,
  PREFIX,
  createNamespace,
  host,
  observedFrom,
  opaque,
  testConfig,
} from '../test-support/host.js';

let plane: ControlPlane | undefined;
let access: KubeAccess;
let core: CoreV1Api;

beforeAll(async () => {
  plane = await startControlPlane(`capi-sources-${String(process.pid)}`, {
    ownerPid: process.pid,
  });
  await installCapiCrds(plane);
  access = loadKubeAccess({ kubeconfig: plane.kubeconfigPath });
  core = coreApi(plane);
});

afterAll(async () => {
  await plane?.stop();
});

const capiConfig = () => testConfig({ providers: [PROVIDER_PRESETS.capi], capiClusters: true });

function clusterObject(namespace: string, name: string, labels: Record<string, string>): object {
  return {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { namespace, name, labels },
    // The schema wants a non-empty spec; no CAPI controller reconciles it here.
    spec: { paused: true },
  };
}

function kubeconfigSecret(name: string, server: string) {
  const secret = opaque(
    `${name}-kubeconfig`,
    { 'cluster.x-k8s.io/cluster-name': name },
    { value: kubeconfigText({ server, user: ['token: t'] }) },
  );
  return { ...secret, type: 'cluster.x-k8s.io/secret' };
}

describe('gathering Cluster sources', () => {
  it('reads the labelled Clusters of a namespace and their own kubeconfigs, and the planner registers each', async () => {
    if (plane === undefined) throw new Error('no plane');
    const config = capiConfig();
    const fleet = uniqueName('fleet');
    await createNamespace(core, fleet);
    await createNamespace(core, config.targetNamespace);
    const managed = { [MANAGED_BY_KEY]: config.managedBy };
    await applyObjects(plane, [
      clusterObject(fleet, 'alpha', { ...managed, [`${PREFIX}env`]: 'prod' }),
      clusterObject(fleet, 'beta', { ...managed, [`${PREFIX}cluster`]: 'beta-eu' }),
      clusterObject(fleet, 'gamma', {}),
    ]);
    for (const name of ['alpha', 'beta', 'gamma'])
      await core.createNamespacedSecret({
        namespace: fleet,
        body: kubeconfigSecret(name, `https://${name}.example.com:6443`),
      });

    const gathered = await createGatherer(access, config).full();
    expect(gathered.failures).toEqual([]);
    expect(gathered.notices).toBeUndefined();
    // The version the Clusters were read at, which Events about them name.
    expect(gathered.clusterApiVersion).toBe('v1beta2');
    const clusters = gathered.snapshot.clusters ?? [];
    expect(clusters.map((c) => `${c.namespace}/${c.name}`)).toEqual([
      `${fleet}/alpha`,
      `${fleet}/beta`,
    ]);
    expect(clusters[0]?.labels[`${PREFIX}env`]).toBe('prod');
    expect(clusters[0]?.uid).not.toBe('');

    const result = plan(gathered.snapshot, config, Date.now());
    const creates = result.actions.flatMap((action) =>
      action.kind === 'create' ? [action.secret] : [],
    );
    expect(creates.map((secret) => secret.name)).toEqual(['cluster-alpha', 'cluster-beta-eu']);
    expect(creates[0]?.labels).toMatchObject({
      [`${PREFIX}source-kind`]: 'Cluster',
      [`${PREFIX}source-namespace`]: fleet,
      [`${PREFIX}source-cluster`]: 'alpha',
      [`${PREFIX}source-cluster-uid`]: clusters[0]?.uid,
      [`${PREFIX}env`]: 'prod',
    });
  });

  it("records a waiting Cluster's near misses (its own Secrets only), in a read and through the watch alike", async () => {
    if (plane === undefined) throw new Error('no plane');
    const config = capiConfig();
    const fleet = uniqueName('fleet');
    await createNamespace(core, fleet);
    await createNamespace(core, config.targetNamespace);
    const managed = { [MANAGED_BY_KEY]: config.managedBy };
    await applyObjects(plane, [
      clusterObject(fleet, 'alpha', managed),
      clusterObject(fleet, 'beta', managed),
    ]);
    // beta is served; alpha's user kubeconfig is what capa-eks reads, not capi; gamma is no source.
    await core.createNamespacedSecret({
      namespace: fleet,
      body: kubeconfigSecret('beta', 'https://beta.example.com:6443'),
    });
    for (const name of ['alpha-user-kubeconfig', 'gamma-user-kubeconfig'])
      await core.createNamespacedSecret({
        namespace: fleet,
        body: opaque(name, {}, { value: 'secret-kubeconfig-text' }),
      });

    const read = await createGatherer(access, config).full();
    expect(read.snapshot.nearMisses).toEqual([
      { namespace: fleet, name: 'alpha-user-kubeconfig', keys: ['value'] },
    ]);
    const watched = createWatchGatherer(access, config, {
      onChange: () => undefined,
      onError: () => undefined,
      resyncPeriodMs: 0,
    });
    try {
      const first = await watched.full();
      expect(first.snapshot.nearMisses).toEqual(read.snapshot.nearMisses);
      // A Secret added beside the Clusters later: the watch brings it into the hints.
      await core.createNamespacedSecret({
        namespace: fleet,
        body: opaque('alpha-kubecfg', {}, { value: 'secret-kubeconfig-text' }),
      });
      await vi.waitFor(
        async () => {
          expect((await watched.refresh()).snapshot.nearMisses?.map((n) => n.name)).toEqual([
            'alpha-kubecfg',
            'alpha-user-kubeconfig',
          ]);
        },
        { timeout: 10_000 },
      );
    } finally {
      watched.stop();
    }
    const outcome = plan(read.snapshot, config, Date.now()).outcomes.find(
      (o) => o.namespace === `${fleet}/alpha`,
    );
    expect(outcome?.state).toBe('waiting');
    expect(outcome?.reason?.message).toContain(
      'but Secret alpha-user-kubeconfig (its keys: value) matches the capa-eks provider',
    );
  });

  it('refuses a Cluster that pins an existing Secret no provider reads, beside its own candidate, in a read and through the watch alike', async () => {
    if (plane === undefined) throw new Error('no plane');
    const config = capiConfig();
    const fleet = uniqueName('fleet');
    await createNamespace(core, fleet);
    await createNamespace(core, config.targetNamespace);
    const cluster = {
      ...(clusterObject(fleet, 'alpha', { [MANAGED_BY_KEY]: config.managedBy }) as {
        metadata: object;
      }),
    };
    cluster.metadata = {
      ...cluster.metadata,
      annotations: { [`${PREFIX}kubeconfig-secret`]: 'ci-token' },
    };
    await applyObjects(plane, [cluster]);
    await core.createNamespacedSecret({
      namespace: fleet,
      body: kubeconfigSecret('alpha', 'https://alpha.example.com:6443'),
    });
    await core.createNamespacedSecret({
      namespace: fleet,
      body: opaque('ci-token', {}, { token: 'secret-token-value' }),
    });

    const read = await createGatherer(access, config).full();
    expect(read.snapshot.nearMisses).toEqual([
      { namespace: fleet, name: 'ci-token', keys: ['token'] },
    ]);
    const watched = createWatchGatherer(access, config, {
      onChange: () => undefined,
      onError: () => undefined,
      resyncPeriodMs: 0,
    });
    try {
      expect((await watched.full()).snapshot.nearMisses).toEqual(read.snapshot.nearMisses);
    } finally {
      watched.stop();
    }
    const outcome = plan(read.snapshot, config, Date.now()).outcomes.find(
      (o) => o.namespace === `${fleet}/alpha`,
    );
    expect(outcome).toMatchObject({
      state: 'refused',
      reason: { code: 'kubeconfig-secret-invalid' },
    });
    expect(outcome?.reason?.message).toContain(
      `on Cluster ${fleet}/alpha names Secret ci-token, which no configured provider reads (its keys: token;`,
    );
  });

  it('looks up the Cluster a registration records: notFound once it is gone, present while it exists', async () => {
    if (plane === undefined) throw new Error('no plane');
    const config = capiConfig();
    const fleet = uniqueName('fleet');
    await createNamespace(core, fleet);
    await createNamespace(core, config.targetNamespace);
    // An unlabelled Cluster (not managed) and a registration for a Cluster that never was.
    await applyObjects(plane, [clusterObject(fleet, 'kept', {})]);
    const recorded = (cluster: string) => ({
      [MANAGED_BY_KEY]: config.managedBy,
      'argocd.argoproj.io/secret-type': 'cluster',
      [`${PREFIX}source-kind`]: 'Cluster',
      [`${PREFIX}source-namespace`]: fleet,
      [`${PREFIX}source-cluster`]: cluster,
      [`${PREFIX}source-cluster-uid`]: 'uid-recorded',
    });
    for (const cluster of ['kept', 'gone'])
      await core.createNamespacedSecret({
        namespace: config.targetNamespace,
        body: opaque(`cluster-${cluster}`, recorded(cluster), { name: cluster }),
      });

    const gathered = await createGatherer(access, config).full();
    const lookups = gathered.snapshot.sourceLookups;
    expect(lookups[`${fleet}/gone`]).toEqual({ state: 'notFound' });
    expect(lookups[`${fleet}/kept`]).toMatchObject({ state: 'present' });

    // Cluster sources off: nothing of Cluster API is read, nothing is proven, nothing goes.
    const off = { ...config, capiClusters: false };
    const quiet = await createGatherer(access, off).full();
    expect(quiet.snapshot.sourceLookups).toEqual({});
    expect(quiet.snapshot.clusters).toBeUndefined();
    expect(plan(quiet.snapshot, off, Date.now()).actions).toEqual([]);
  });
});

describe('watching Cluster sources (the daemon)', () => {
  it('reflects a Cluster that appears, is relabelled and is deleted, and its kubeconfig, from the watches', async () => {
    if (plane === undefined) throw new Error('no plane');
    const config = capiConfig();
    const fleet = uniqueName('fleet');
    await createNamespace(core, fleet);
    await createNamespace(core, config.targetNamespace);
    const changes: WorldChange[] = [];
    const gatherer = createWatchGatherer(access, config, {
      onChange: (change) => changes.push(change),
      onError: () => undefined,
      resyncPeriodMs: 0,
    });
    try {
      expect((await gatherer.full()).snapshot.clusters).toBeUndefined();
      const managed = { [MANAGED_BY_KEY]: config.managedBy };
      await core.createNamespacedSecret({
        namespace: fleet,
        body: kubeconfigSecret('alpha', 'https://alpha.example.com:6443'),
      });
      await applyObjects(plane, [clusterObject(fleet, 'alpha', managed)]);
      await vi.waitFor(
        () => {
          expect(changes.flatMap((change) => change.namespaces)).toContain(`${fleet}/alpha`);
        },
        { timeout: 10_000 },
      );
      const seen = await gatherer.refresh();
      expect(seen.snapshot.clusters?.map((c) => c.name)).toEqual(['alpha']);
      expect(seen.snapshot.candidateSecrets.map((secret) => secret.name)).toEqual([
        'alpha-kubeconfig',
      ]);
      // The kubeconfig was translated as a Cluster's when read: the planner's question (a
      // Cluster source's variant) is answered from what was prepared, not refused as unread.
      const planned = plan(seen.snapshot, config, Date.now(), { translate: gatherer.translate });
      expect(planned.actions.map((action) => `${action.kind} ${action.cluster}`)).toEqual([
        'create alpha',
      ]);
      expect(gatherer.stats().translationMisses).toBe(0);
      const requestsBefore = gatherer.stats().secretReads;
      await applyObjects(plane, [
        clusterObject(fleet, 'alpha', { ...managed, [`${PREFIX}env`]: 'prod' }),
      ]);
      await vi.waitFor(
        async () => {
          const relabelled = await gatherer.refresh();
          expect(relabelled.snapshot.clusters?.[0]?.labels[`${PREFIX}env`]).toBe('prod');
        },
        { timeout: 10_000 },
      );
      // A relabelled Cluster reads no Secret again: its kubeconfig did not change.
      expect(gatherer.stats().secretReads).toBe(requestsBefore);
      await applyObjects(plane, [clusterObject(fleet, 'alpha', {})]);
      await vi.waitFor(
        async () => {
          expect((await gatherer.refresh()).snapshot.clusters).toBeUndefined();
        },
        { timeout: 10_000 },
      );
    } finally {
      gatherer.stop();
    }
  });
});

describe('write-time proof for Cluster sources', () => {
  it('re-checks a demotion or deletion against the Cluster itself, not a namespace of its key', async () => {
    if (plane === undefined) throw new Error('no plane');
    const config = capiConfig();
    const fleet = uniqueName('fleet');
    await createNamespace(core, fleet);
    await createNamespace(core, config.targetNamespace);
    const managed = { [MANAGED_BY_KEY]: config.managedBy };
    await applyObjects(plane, [
      clusterObject(fleet, 'alpha', { ...managed, [`${PREFIX}cluster`]: 'beta' }),
    ]);
    const uid = (await readCluster(access, 'v1beta2', fleet, 'alpha')).metadata?.uid ?? '';
    const secret = await core.createNamespacedSecret({
      namespace: config.targetNamespace,
      body: opaque(
        'cluster-alpha',
        {
          ...managed,
          'argocd.argoproj.io/secret-type': 'cluster',
          [`${PREFIX}cluster`]: 'alpha',
          [`${PREFIX}source-kind`]: 'Cluster',
          [`${PREFIX}source-namespace`]: fleet,
          [`${PREFIX}source-cluster`]: 'alpha',
          [`${PREFIX}source-cluster-uid`]: uid,
        },
        { name: 'alpha' },
      ),
    });
    const observed = observedFrom(secret, config.targetNamespace);
    const target: ObservedRef = {
      namespace: observed.namespace,
      name: observed.name,
      uid: observed.uid,
      resourceVersion: observed.resourceVersion,
    };
    const source = `${fleet}/alpha`;
    const write = async (action: Action) =>
      (
        await createApplier(access, config).write(
          { actions: [action], outcomes: [], warnings: [] },
          [observed],
        )
      )[0];

    // The Cluster exists: a deletion planned as if it were not found is withheld.
    const deletion: Action = {
      kind: 'delete',
      cluster: 'alpha',
      target,
      reason: { code: 'source-cluster-not-found', namespace: source },
    };
    expect(await write(deletion)).toMatchObject({ status: 'withheld' });

    // Renamed back to alpha (its default name, unlabelled) before the write: withheld.
    const demotion: Action = {
      kind: 'demote',
      cluster: 'alpha',
      target,
      secret: {
        namespace: observed.namespace,
        name: observed.name,
        type: 'Opaque',
        labels: { ...observed.labels, [`${PREFIX}superseded-by`]: 'beta' },
        annotations: {},
        data: observed.data,
      },
      before: observed,
      reason: { code: 'renamed', namespace: source, supersededBy: 'beta' },
    };
    await applyObjects(plane, [clusterObject(fleet, 'alpha', managed)]);
    expect(await write(demotion)).toMatchObject({ status: 'withheld' });
    // While the Cluster claims beta, the rename holds: sent.
    await applyObjects(plane, [
      clusterObject(fleet, 'alpha', { ...managed, [`${PREFIX}cluster`]: 'beta' }),
    ]);
    expect(await write(demotion)).toMatchObject({ status: 'applied' });
  });
});

describe('Cluster sources on a plane without the Cluster API CRDs', () => {
  it('says so once and goes on gathering namespace sources; a recorded Cluster proves nothing', async () => {
    const shared = await host();
    const config = testConfig({ capiClusters: true });
    const team = uniqueName('k3k-team');
    await createNamespace(shared.core, team, {
      [MANAGED_BY_KEY]: config.managedBy,
      [`${PREFIX}cluster`]: 'team',
    });
    await createNamespace(shared.core, config.targetNamespace);
    await shared.core.createNamespacedSecret({
      namespace: config.targetNamespace,
      body: opaque(
        'cluster-alpha',
        {
          [MANAGED_BY_KEY]: config.managedBy,
          'argocd.argoproj.io/secret-type': 'cluster',
          [`${PREFIX}source-kind`]: 'Cluster',
          [`${PREFIX}source-namespace`]: 'fleet',
          [`${PREFIX}source-cluster`]: 'alpha',
        },
        { name: 'alpha' },
      ),
    });
    const gatherer = createGatherer(shared.access, config);
    const first = await gatherer.full();
    expect(first.notices).toEqual([CLUSTER_API_ABSENT]);
    expect(first.clusterApiVersion).toBeUndefined();
    expect(first.failures).toEqual([]);
    expect(first.snapshot.namespaces.map((ns) => ns.name)).toEqual([team]);
    expect(first.snapshot.sourceLookups['fleet/alpha']).toMatchObject({ state: 'unknown' });
    expect(plan(first.snapshot, config, Date.now()).actions).toEqual([]);
    const second = await gatherer.full();
    expect(second.notices).toBeUndefined();
  });
});
