import { beforeAll, describe, expect, it } from 'vitest';
import { finalizeNamespace, kubeconfigText, uniqueName } from '@argocd-cluster-registrar/testkit';
import { plan } from '@argocd-cluster-registrar/core';
import type { Config, ObservedSecret } from '@argocd-cluster-registrar/core';
import { createGatherer } from './listed-world.js';
import { SECRET_PAGE_SIZE } from '../connection/kube-api.js';
import { createApplier } from '../write/plan-writer.js';
import { createTranslationCache } from './translation-cache.js';
import {
  MANAGED_BY_KEY,
  PREFIX,
  createNamespace,
  host,
  opaque,
  restrictedAccess,
  testConfig,
} from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

const ARGO = 'argocd.argoproj.io/secret-type';

let h: Host;
beforeAll(async () => {
  h = await host();
});

/** A small world: two managed namespaces, one unmanaged, and every kind of cluster Secret. */
async function arrange() {
  const config = testConfig();
  const managed = { [MANAGED_BY_KEY]: config.managedBy };
  const a = uniqueName('k3k-a');
  const b = uniqueName('vc-b');
  const unmanaged = uniqueName('plain');
  const gone = uniqueName('gone');
  const target = config.targetNamespace;

  const uidA = await createNamespace(h.core, a, { ...managed, [`${PREFIX}cluster`]: 'a' });
  await createNamespace(h.core, b, { ...managed, [`${PREFIX}cluster`]: 'b' });
  const uidUnmanaged = await createNamespace(h.core, unmanaged, { team: 'x' });
  await createNamespace(h.core, target);

  await h.core.createNamespacedSecret({
    namespace: a,
    body: opaque('k3k-a-kubeconfig', {}, { 'kubeconfig.yaml': 'kubeconfig a' }),
  });
  await h.core.createNamespacedSecret({ namespace: a, body: opaque('unrelated', {}, { x: 'y' }) });
  await h.core.createNamespacedSecret({
    namespace: b,
    body: opaque('vc-b', {}, { config: 'kubeconfig b' }),
  });
  await h.core.createNamespacedSecret({
    namespace: unmanaged,
    body: opaque('k3k-c-kubeconfig', {}, { 'kubeconfig.yaml': 'c' }),
  });

  const owned = (source: string) => ({ ...managed, [`${PREFIX}source-namespace`]: source });
  await h.core.createNamespacedSecret({
    namespace: target,
    body: opaque('cluster-a', { ...owned(a), [ARGO]: 'cluster' }, { name: 'a' }),
  });
  await h.core.createNamespacedSecret({
    namespace: target,
    body: opaque('cluster-foreign', { [ARGO]: 'cluster' }, { name: 'foreign' }),
  });
  await h.core.createNamespacedSecret({
    namespace: target,
    body: opaque(
      'cluster-demoted',
      { ...owned(gone), [`${PREFIX}orphaned-secret-type`]: 'cluster' },
      { name: 'demoted' },
    ),
  });
  await h.core.createNamespacedSecret({
    namespace: target,
    body: opaque('cluster-moved', { ...owned(unmanaged), [ARGO]: 'cluster' }, { name: 'moved' }),
  });
  await h.core.createNamespacedSecret({
    namespace: target,
    body: opaque('not-a-cluster', {}, { x: 'y' }),
  });
  return { config, a, b, unmanaged, gone, target, uidA, uidUnmanaged };
}

const names = (secrets: readonly ObservedSecret[]) =>
  secrets.map((s) => `${s.namespace}/${s.name}`);

describe('full gather', () => {
  it('reads managed namespaces, their candidate Secrets, every cluster Secret and the lookups', async () => {
    const world = await arrange();
    const result = await createGatherer(h.access, world.config).full();

    expect(result.failures).toEqual([]);
    const { snapshot } = result;
    expect(snapshot.namespaces.map((n) => n.name)).toEqual([world.a, world.b].sort());
    const nsA = snapshot.namespaces.find((n) => n.name === world.a);
    expect(nsA?.uid).toBe(world.uidA);
    expect(nsA?.labels[`${PREFIX}cluster`]).toBe('a');
    // The API server's own second-precision form, not a Date's milliseconds.
    expect(nsA?.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(nsA?.deletionTimestamp).toBeUndefined();

    expect(names(snapshot.candidateSecrets)).toEqual(
      [`${world.a}/k3k-a-kubeconfig`, `${world.b}/vc-b`].sort(),
    );
    const candidate = snapshot.candidateSecrets.find((s) => s.name === 'k3k-a-kubeconfig');
    expect(candidate?.data).toEqual({
      'kubeconfig.yaml': Buffer.from('kubeconfig a').toString('base64'),
    });
    expect(candidate?.resourceVersion).toMatch(/^\d+$/);

    expect(snapshot.clusterSecrets.map((s) => s.name)).toEqual([
      'cluster-a',
      'cluster-demoted',
      'cluster-foreign',
      'cluster-moved',
    ]);
    expect(snapshot.sourceLookups).toEqual({
      [world.gone]: { state: 'notFound' },
      [world.unmanaged]: {
        state: 'present',
        uid: world.uidUnmanaged,
        labels: { team: 'x', 'kubernetes.io/metadata.name': world.unmanaged },
      },
    });
    // 1 namespace list + 2 candidate lists + 2 cluster Secret lists + 2 lookups.
    expect(result.requests).toBe(7);
  });

  it("reads a namespace's Secrets a bounded page at a time", async () => {
    // Whole Secrets carry up to 1 MiB of data each: a page holds SECRET_PAGE_SIZE of them.
    const config = testConfig();
    const source = uniqueName('k3k-many');
    await createNamespace(h.core, source, {
      [MANAGED_BY_KEY]: config.managedBy,
      [`${PREFIX}cluster`]: 'many',
    });
    await createNamespace(h.core, config.targetNamespace);
    for (let i = 0; i <= SECRET_PAGE_SIZE; i++)
      await h.core.createNamespacedSecret({
        namespace: source,
        body: opaque(`k3k-s${i}-kubeconfig`, {}, { 'kubeconfig.yaml': 'x' }),
      });
    const result = await createGatherer(h.access, config).full();
    expect(result.snapshot.candidateSecrets).toHaveLength(SECRET_PAGE_SIZE + 1);
    // 1 namespace list + 2 pages of candidates + 2 cluster Secret lists.
    expect(result.requests).toBe(5);
  });

  it('reports a terminating source namespace as present with its deletion timestamp', async () => {
    const world = await arrange();
    await h.core.deleteNamespace({ name: world.unmanaged });
    const { snapshot } = await createGatherer(h.access, world.config).full();
    const lookup = snapshot.sourceLookups[world.unmanaged];
    expect(lookup?.state).toBe('present');
    expect(lookup?.state === 'present' ? lookup.deletionTimestamp : undefined).toMatch(/Z$/);
    await finalizeNamespace(h.plane, world.unmanaged);
  });

  it('marks a lookup unknown, never notFound, when reading the namespace is forbidden', async () => {
    const world = await arrange();
    // May list namespaces and Secrets, but not get a namespace by name.
    const access = await restrictedAccess(h, world.target, [
      { apiGroups: [''], resources: ['namespaces', 'secrets'], verbs: ['list'] },
    ]);
    const result = await createGatherer(access, world.config).full();
    expect(result.snapshot.namespaces.map((n) => n.name)).toEqual([world.a, world.b].sort());
    expect(result.snapshot.sourceLookups[world.gone]).toMatchObject({ state: 'unknown' });
    const lookup = result.snapshot.sourceLookups[world.gone];
    expect(lookup?.state === 'unknown' ? lookup.reason : '').toContain('403');
    expect(result.snapshot.sourceLookups[world.unmanaged]?.state).toBe('unknown');
    expect(result.failures.map((f) => [f.scope, f.failure.kind]).sort()).toEqual(
      [
        [`get namespace ${world.gone}`, 'forbidden'],
        [`get namespace ${world.unmanaged}`, 'forbidden'],
      ].sort(),
    );
  });

  it('marks every lookup unknown without asking when the namespace list failed', async () => {
    const world = await arrange();
    const access = await restrictedAccess(h, world.target, [
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['list'] },
    ]);
    const result = await createGatherer(access, world.config).full();
    expect(result.failures.map((f) => [f.scope, f.failure.kind])).toEqual([
      ['list namespaces', 'forbidden'],
    ]);
    expect(result.snapshot.namespaces).toEqual([]);
    // The owned registrations of a and b now look unmanaged, but nothing proves them gone.
    for (const name of [world.a, world.gone, world.unmanaged]) {
      expect(result.snapshot.sourceLookups[name]).toEqual({
        state: 'unknown',
        reason: 'the list of managed namespaces failed',
      });
    }
    // 1 failed namespace list + 2 cluster Secret lists, and no lookups.
    expect(result.requests).toBe(3);
  });
});

describe('incomplete input', () => {
  const SECRETS_LIST = [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }];
  const NAMESPACES_READ = [{ apiGroups: [''], resources: ['namespaces'], verbs: ['list', 'get'] }];

  /** A managed namespace with a valid kubeconfig, registered as `cluster-<cluster>`. */
  async function registered(config: Config, cluster: string) {
    const target = config.targetNamespace;
    const name = uniqueName('k3k-kept');
    const uid = await createNamespace(h.core, name, {
      [MANAGED_BY_KEY]: config.managedBy,
      [`${PREFIX}cluster`]: cluster,
    });
    await h.core.createNamespacedSecret({
      namespace: name,
      body: opaque(
        `k3k-${cluster}-kubeconfig`,
        {},
        {
          'kubeconfig.yaml': kubeconfigText({
            server: `https://${cluster}.child.example.com:6443`,
            user: ['token: child-token'],
          }),
        },
      ),
    });
    return { name, uid, target };
  }

  it('records a namespace whose Secret list failed, and the planner keeps it unchanged, not stale', async () => {
    const config = testConfig();
    const kept = await registered(config, uniqueName('kept'));
    await createNamespace(h.core, kept.target);
    // Register it with full access, as a running registrar would have.
    const first = plan(
      (await createGatherer(h.access, config).full()).snapshot,
      config,
      Date.now(),
    );
    expect(first.actions.map((action) => action.kind)).toEqual(['create']);
    await createApplier(h.access, config).write(first, []);

    // The registrar's ServiceAccount may list Secrets in the target namespace, not in `kept`.
    const access = await restrictedAccess(h, kept.target, NAMESPACES_READ, {
      namespaces: [kept.target],
      rules: SECRETS_LIST,
    });
    const gatherer = createGatherer(access, config);
    const result = await gatherer.full();
    expect(result.failures.map((f) => [f.scope, f.failure.kind])).toEqual([
      [`list secrets in ${kept.name}`, 'forbidden'],
    ]);
    // A refresh tries again, and reports it unread again while the list still fails.
    const refreshed = await gatherer.refresh();
    expect(refreshed.snapshot.unreadNamespaces?.map((entry) => entry.name)).toEqual([kept.name]);
    const { snapshot } = result;
    expect(snapshot.namespaces.map((ns) => ns.name)).toEqual([kept.name]);
    expect(snapshot.unreadNamespaces).toEqual([
      { name: kept.name, reason: expect.stringContaining('403') as string },
    ]);
    expect(snapshot.clusterSecretsUnread).toBeUndefined();

    const decided = plan(snapshot, config, Date.now());
    expect(decided.actions).toEqual([]);
    const outcome = decided.outcomes.find((candidate) => candidate.namespace === kept.name);
    expect(outcome?.state).toBe('unchanged');
    expect(outcome?.reason?.code).toBe('input-incomplete');
    expect(outcome?.reason?.message).toContain(
      `the Secrets of namespace ${kept.name} could not be listed`,
    );
    expect(outcome?.reason?.message).toContain('403');
  });

  it('records a failed list of cluster Secrets, and the planner creates nothing', async () => {
    const config = testConfig();
    const fresh = await registered(config, uniqueName('fresh'));
    await createNamespace(h.core, fresh.target);
    // May list Secrets in the source namespace, not in the target namespace.
    const access = await restrictedAccess(h, fresh.target, NAMESPACES_READ, {
      namespaces: [fresh.name],
      rules: SECRETS_LIST,
    });
    const { snapshot, failures } = await createGatherer(access, config).full();
    expect(failures.map((f) => f.failure.kind)).toEqual(['forbidden', 'forbidden']);
    expect(snapshot.candidateSecrets).toHaveLength(1);
    expect(snapshot.unreadNamespaces).toBeUndefined();
    expect(snapshot.clusterSecretsUnread).toContain('403');

    const decided = plan(snapshot, config, Date.now());
    expect(decided.actions).toEqual([]);
    expect(decided.outcomes).toMatchObject([
      { namespace: fresh.name, state: 'unchanged', reason: { code: 'input-incomplete' } },
    ]);
  });
});

describe('a later pass', () => {
  it('lists everything again and reuses only the lookups that cannot have changed', async () => {
    const world = await arrange();
    const gatherer = createGatherer(h.access, world.config);
    // 1 namespace list + 2 candidate lists + 2 cluster Secret lists + 2 lookups.
    expect((await gatherer.full()).requests).toBe(7);

    // A full pass asks a present source again; a notFound stays true for the uid it was about.
    const full = await gatherer.full();
    expect(full.requests).toBe(6);
    expect(full.snapshot.sourceLookups[world.gone]).toEqual({ state: 'notFound' });
    expect(full.snapshot.sourceLookups[world.unmanaged]).toMatchObject({
      state: 'present',
      uid: world.uidUnmanaged,
    });
    // A refresh reuses the present answer too.
    const refreshed = await gatherer.refresh();
    expect(refreshed.requests).toBe(5);
    expect(refreshed.snapshot.sourceLookups).toEqual(full.snapshot.sourceLookups);
  });
});

describe('translation cache', () => {
  it('translates an unchanged Secret once, again after it changes, and forgets deleted ones', async () => {
    const world = await arrange();
    const gatherer = createGatherer(h.access, world.config);
    let parses = 0;
    const cache = createTranslationCache(() => {
      parses += 1;
      return { ok: false, refusal: { code: 'kubeconfig-unreadable', message: 'test' } };
    });
    const provider = world.config.providers[0];
    if (provider === undefined) throw new Error('no provider');
    const translateAll = (secrets: readonly ObservedSecret[]) => {
      for (const secret of secrets)
        for (const key of Object.keys(secret.data)) cache.translate(secret, key, provider);
      cache.retain(new Set(secrets.map((s) => s.uid)));
    };

    const first = await gatherer.full();
    translateAll(first.snapshot.candidateSecrets);
    expect(parses).toBe(2);

    // A steady-state pass: fresh objects from the API, same uid and resourceVersion.
    const second = await gatherer.full();
    expect(second.snapshot.candidateSecrets[0]).not.toBe(first.snapshot.candidateSecrets[0]);
    translateAll(second.snapshot.candidateSecrets);
    expect(parses).toBe(2);
    expect(cache.stats()).toMatchObject({ secrets: 2, hits: 2, translations: 2 });

    await h.core.replaceNamespacedSecret({
      namespace: world.a,
      name: 'k3k-a-kubeconfig',
      body: opaque('k3k-a-kubeconfig', {}, { 'kubeconfig.yaml': 'rotated' }),
    });
    translateAll((await gatherer.full()).snapshot.candidateSecrets);
    expect(parses).toBe(3);

    await h.core.deleteNamespacedSecret({ namespace: world.b, name: 'vc-b' });
    translateAll((await gatherer.full()).snapshot.candidateSecrets);
    expect(cache.stats().secrets).toBe(1);
  });
});

describe('Gatherer.translate', () => {
  it('returns the cached translation for an unchanged Secret and re-translates a changed one', async () => {
    const config = testConfig();
    const ns = uniqueName('k3k-cached');
    await createNamespace(h.core, ns, { [MANAGED_BY_KEY]: config.managedBy });
    // A real kubeconfig (the host plane's admin one) at an address ArgoCD could use.
    const kubeconfig = h.plane.kubeConfig.replaceAll(h.plane.server, 'https://k3k-x.example:6443');
    await h.core.createNamespacedSecret({
      namespace: ns,
      body: opaque('k3k-x-kubeconfig', {}, { 'kubeconfig.yaml': kubeconfig }),
    });
    const gatherer = createGatherer(h.access, config);
    const provider = config.providers[0];
    if (provider === undefined) throw new Error('no provider');
    const translated = async () => {
      const [secret] = (await gatherer.full()).snapshot.candidateSecrets;
      if (secret === undefined) throw new Error('no candidate');
      return gatherer.translate(secret, 'kubeconfig.yaml', provider);
    };

    const first = await translated();
    expect(first.ok ? first.translation.server : first.refusal.code).toBe(
      'https://k3k-x.example:6443',
    );
    expect(await translated()).toBe(first);

    await h.core.patchNamespacedSecret({
      namespace: ns,
      name: 'k3k-x-kubeconfig',
      body: [{ op: 'add', path: '/metadata/labels', value: { touched: 'yes' } }],
    });
    const afterChange = await translated();
    expect(afterChange).not.toBe(first);
    expect(afterChange).toEqual(first);
  });
});
