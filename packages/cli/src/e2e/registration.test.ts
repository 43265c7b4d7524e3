// End to end against the real host plane: the CLI (`--once`, child process) registers
// provisioner-style namespaces whose kubeconfig Secrets hold the child plane's credentials.

import { describe, expect, it } from 'vitest';
import {
  CHILD_HOST,
  PREFIX,
  applyOnce,
  childServer,
  childCredentials,
  clusterConfig,
  createSourceNamespace,
  useWorld,
  decoded,
  kubeconfigYaml,
  outcomeOf,
  planJson,
  putK3kKubeconfig,
  putSecret,
  registration,
  targetSecrets,
  whoAmI,
} from '../test-support/e2e.js';

const { world } = useWorld();

describe('registration', () => {
  it('registers a k3k-style namespace with the child credentials and records an event', async () => {
    const ns = await createSourceNamespace(world, { cluster: 'alpha' });
    const name = ns.metadata?.name ?? '';
    await putK3kKubeconfig(world, name, kubeconfigYaml(world.child), 'alpha');

    const run = await applyOnce(world);
    expect(run.stdout).toContain('alpha');

    const secret = await registration(world, 'alpha');
    expect(secret).toBeDefined();
    expect(secret?.type).toBe('Opaque');
    expect(secret?.metadata?.labels).toMatchObject({
      'argocd.argoproj.io/secret-type': 'cluster',
      [`${PREFIX}managed-by`]: world.managedBy,
      [`${PREFIX}cluster`]: 'alpha',
      [`${PREFIX}source-namespace`]: name,
      [`${PREFIX}source-namespace-uid`]: ns.metadata?.uid ?? '',
      [`${PREFIX}provider`]: 'k3k',
    });
    expect(decoded(secret, 'name')).toBe('alpha');
    expect(decoded(secret, 'server')).toBe(childServer(world.child));
    const creds = childCredentials(world.child);
    expect(clusterConfig(secret)).toEqual({
      tlsClientConfig: {
        insecure: false,
        serverName: 'localhost',
        caData: creds.caData,
        certData: creds.certData,
        keyData: creds.keyData,
      },
    });

    // The credentials authenticate against the child API server as the child's admin.
    expect(await whoAmI(decoded(secret, 'server') ?? '', clusterConfig(secret))).toEqual({
      status: 201,
      username: 'acr-admin',
    });

    const events = await world.hostApi.listNamespacedEvent({ namespace: name });
    expect(events.items.map((e) => e.reason)).toContain('Registered');
  });

  it('registers a vcluster-style namespace, ignores vc-config-*, rewrites the loopback server', async () => {
    // vc-config-xyz sorts before vc-xyz: ordering must not be what keeps it out.
    const ns = await createSourceNamespace(world, { cluster: 'vc-one' });
    const name = ns.metadata?.name ?? '';
    await putSecret(world.hostApi, name, 'vc-config-xyz', {
      'config.yaml': 'exportKubeConfig:\n  server: https://nope\n',
    });
    const loopback = kubeconfigYaml(world.child, { server: 'https://localhost:8443' });
    await putSecret(world.hostApi, name, 'vc-xyz', { config: loopback });

    const { plan } = await planJson(world, { extra: ['--provider=vcluster'] });
    const outcome = outcomeOf(plan, name);
    expect(outcome?.state).toBe('registered');
    expect(JSON.stringify(outcome)).not.toContain('vc-config-xyz');
    expect(plan.warnings.map((w) => w.code)).toContain('loopback-rewritten');

    const secret = await registration(world, 'vc-one');
    expect(decoded(secret, 'server')).toBe(`https://xyz.${name}`);
    expect(secret?.metadata?.labels?.[`${PREFIX}provider`]).toBe('vcluster');
    expect(clusterConfig(secret).tlsClientConfig.caData).toBe(childCredentials(world.child).caData);
  });

  it('copies prefixed labels and removes them again; never copies foreign keys', async () => {
    const ns = await createSourceNamespace(world, {
      cluster: 'labelled',
      labels: {
        [`${PREFIX}flux`]: 'true',
        [`${PREFIX}tier`]: 'gold',
        'argocd.argoproj.io/instance': 'x',
        team: 'a',
      },
    });
    const name = ns.metadata?.name ?? '';
    await putK3kKubeconfig(world, name, kubeconfigYaml(world.child));
    await applyOnce(world);
    let labels = (await registration(world, 'labelled'))?.metadata?.labels ?? {};
    expect(labels).toMatchObject({ [`${PREFIX}flux`]: 'true', [`${PREFIX}tier`]: 'gold' });
    expect(labels).not.toHaveProperty('argocd.argoproj.io/instance');
    expect(labels).not.toHaveProperty('team');

    // Someone else's label on the registration survives our updates.
    const before = await registration(world, 'labelled');
    await world.hostApi.replaceNamespacedSecret({
      name: `cluster-labelled`,
      namespace: world.target,
      body: {
        ...before,
        metadata: { ...before?.metadata, labels: { ...labels, 'example.com/owner': 'ops' } },
      },
    });

    const current = await world.hostApi.readNamespace({ name });
    const nsLabels = Object.fromEntries(
      Object.entries(current.metadata?.labels ?? {}).filter(([key]) => key !== `${PREFIX}flux`),
    );
    nsLabels[`${PREFIX}tier`] = 'silver';
    await world.hostApi.replaceNamespace({
      name,
      body: { ...current, metadata: { ...current.metadata, labels: nsLabels } },
    });
    await applyOnce(world);

    labels = (await registration(world, 'labelled'))?.metadata?.labels ?? {};
    expect(labels).not.toHaveProperty(`${PREFIX}flux`);
    expect(labels[`${PREFIX}tier`]).toBe('silver');
    expect(labels['example.com/owner']).toBe('ops');
  });

  it('copies prefixed annotations, not others', async () => {
    const ns = await createSourceNamespace(world, {
      cluster: 'annotated',
      annotations: {
        [`${PREFIX}owner`]: 'team-a',
        [`${PREFIX}description`]: 'a child cluster',
        'example.com/other': 'no',
      },
    });
    await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfigYaml(world.child));
    await applyOnce(world);
    const annotations = (await registration(world, 'annotated'))?.metadata?.annotations ?? {};
    expect(annotations).toMatchObject({
      [`${PREFIX}owner`]: 'team-a',
      [`${PREFIX}description`]: 'a child cluster',
    });
    expect(annotations).not.toHaveProperty('example.com/other');
  });

  it('skips a namespace without the cluster label, with a warning', async () => {
    const ns = await createSourceNamespace(world, { cluster: null });
    const name = ns.metadata?.name ?? '';
    await putK3kKubeconfig(world, name, kubeconfigYaml(world.child));
    const { plan } = await planJson(world);
    expect(outcomeOf(plan, name)?.state).toBe('skipped');
    expect(
      plan.warnings.some((w) => w.code === 'cluster-label-missing' && w.namespace === name),
    ).toBe(true);
    expect([...(await targetSecrets(world)).keys()]).toEqual([]);
  });

  it('refuses a cluster name that cannot be a Secret name', async () => {
    const ns = await createSourceNamespace(world, { cluster: 'Bad_Name' });
    const name = ns.metadata?.name ?? '';
    await putK3kKubeconfig(world, name, kubeconfigYaml(world.child));
    const { plan } = await planJson(world);
    expect(outcomeOf(plan, name)).toMatchObject({
      state: 'refused',
      reason: { code: 'name-invalid' },
    });
    expect([...(await targetSecrets(world)).keys()]).toEqual([]);
  });

  it('leaves a hand-made cluster-<name> without our label byte-for-byte alone', async () => {
    const handMade = await world.hostApi.createNamespacedSecret({
      namespace: world.target,
      body: {
        metadata: {
          name: 'cluster-manual',
          labels: { 'argocd.argoproj.io/secret-type': 'cluster' },
          annotations: { note: 'by hand' },
        },
        type: 'Opaque',
        stringData: {
          name: 'manual',
          server: 'https://manual.example:6443',
          config: '{"tlsClientConfig":{"insecure":true}}',
        },
      },
    });
    const ns = await createSourceNamespace(world, { cluster: 'manual' });
    const name = ns.metadata?.name ?? '';
    await putK3kKubeconfig(world, name, kubeconfigYaml(world.child));

    const { plan } = await planJson(world);
    expect(outcomeOf(plan, name)?.state).toBe('refused');
    expect(['target-foreign', 'name-foreign']).toContain(outcomeOf(plan, name)?.reason?.code);
    await applyOnce(world);

    const after = await registration(world, 'manual');
    expect(after?.metadata?.resourceVersion).toBe(handMade.metadata?.resourceVersion);
    expect(after?.metadata?.labels).toEqual(handMade.metadata?.labels);
    expect(after?.metadata?.annotations).toEqual(handMade.metadata?.annotations);
    expect(after?.data).toEqual(handMade.data);
  });

  it('keeps a name with its incumbent when a second namespace claims it, without flapping', async () => {
    const first = await createSourceNamespace(world, { cluster: 'shared' });
    const firstName = first.metadata?.name ?? '';
    await putK3kKubeconfig(
      world,
      firstName,
      kubeconfigYaml(world.child, { server: 'https://first.example:6443' }),
    );
    await applyOnce(world);
    const registered = await registration(world, 'shared');
    expect(registered?.metadata?.labels?.[`${PREFIX}source-namespace`]).toBe(firstName);

    const second = await createSourceNamespace(world, { cluster: 'shared' });
    const secondName = second.metadata?.name ?? '';
    await putK3kKubeconfig(
      world,
      secondName,
      kubeconfigYaml(world.child, { server: 'https://second.example:6443' }),
    );

    for (let pass = 0; pass < 3; pass += 1) {
      const { plan } = await planJson(world);
      expect(plan.actions).toEqual([]);
      expect(outcomeOf(plan, secondName)).toMatchObject({
        state: 'refused',
        reason: { code: 'name-claimed' },
      });
      expect(outcomeOf(plan, firstName)?.state).toBe('unchanged');
    }
    const after = await registration(world, 'shared');
    expect(after?.metadata?.resourceVersion).toBe(registered?.metadata?.resourceVersion);
    expect(decoded(after, 'server')).toBe('https://first.example:6443');
  });

  it('refuses a second registration of the same server', async () => {
    const first = await createSourceNamespace(world, { cluster: 'one' });
    await putK3kKubeconfig(world, first.metadata?.name ?? '', kubeconfigYaml(world.child));
    await applyOnce(world);

    const second = await createSourceNamespace(world, { cluster: 'two' });
    const secondName = second.metadata?.name ?? '';
    // Same server, spelled differently: upper-case host and a trailing slash.
    await putK3kKubeconfig(
      world,
      secondName,
      kubeconfigYaml(world.child, {
        server: `${childServer(world.child).replace(CHILD_HOST, CHILD_HOST.toUpperCase())}/`,
      }),
    );
    const { plan } = await planJson(world);
    expect(outcomeOf(plan, secondName)).toMatchObject({
      state: 'refused',
      reason: { code: 'server-collision' },
    });
    expect(await registration(world, 'two')).toBeUndefined();
    expect(await registration(world, 'one')).toBeDefined();
  });
});
