// Targets end to end (--targets-file): two local targets with different selectors register
// disjoint and overlapping sets; removing a target deletes nothing and status says what is left
// behind; a target in another cluster (a second real plane) is written through its own
// kubeconfig, and a 403 there changes nothing there while a local target goes on.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { coreApi, mintClientCertificate, uniqueName } from '@argocd-cluster-registrar/testkit';
import {
  PREFIX,
  createSourceNamespace,
  decoded,
  kubeconfigYaml,
  putK3kKubeconfig,
  runCli,
  useWorld,
} from '../test-support/e2e.js';
import type { World } from '../test-support/e2e.js';

const { world } = useWorld();
const DIR = '/tmp/acr-targets';

/** Writes a targets file for this test and returns its path. */
function targetsFile(targets: readonly Record<string, string>[]): string {
  // A bare machine has no such folder until a test makes it.
  mkdirSync(DIR, { recursive: true });
  const path = join(DIR, `${uniqueName('targets')}.json`);
  writeFileSync(path, JSON.stringify({ targets }));
  return path;
}

/** `--once` over the targets file (the world's flags without its --target-namespace). */
function runTargets(file: string, extra: readonly string[] = []) {
  return runCli([
    '--kubeconfig',
    world.host.kubeconfigPath,
    '--managed-by',
    world.managedBy,
    '--targets-file',
    file,
    '--log-format=json',
    ...extra,
  ]);
}

/** The cluster names registered in a namespace of a plane, by Secret name. */
async function registered(
  api: World['hostApi'],
  namespace: string,
): Promise<Map<string, { cluster: string | undefined; host: string | undefined; rv: string }>> {
  const list = await api.listNamespacedSecret({
    namespace,
    labelSelector: `${PREFIX}managed-by=${world.managedBy}`,
  });
  return new Map(
    list.items.map((secret) => [
      secret.metadata?.name ?? '',
      {
        cluster: decoded(secret, 'name'),
        host: secret.metadata?.labels?.[`${PREFIX}host-id`],
        rv: secret.metadata?.resourceVersion ?? '',
      },
    ]),
  );
}

async function source(cluster: string, labels: Record<string, string>): Promise<string> {
  // Each child at an address of its own: ArgoCD cannot tell two registrations of one apart.
  const ns = await createSourceNamespace(world, {
    cluster,
    labels,
    annotations: { [`${PREFIX}server`]: `https://${cluster}.children.example.com` },
  });
  const name = ns.metadata?.name ?? '';
  await putK3kKubeconfig(world, name, kubeconfigYaml(world.child), cluster);
  return name;
}

describe('targets', () => {
  it('registers disjoint and overlapping sets into two local targets; removing one deletes nothing, and status lists what it left behind', async () => {
    const second = uniqueName('argocd');
    await world.hostApi.createNamespace({ body: { metadata: { name: second } } });
    const env = `${PREFIX}env`;
    const a = uniqueName('a');
    await source(a, { [env]: 'prod' });
    const b = uniqueName('b');
    await source(b, { [env]: 'dev' });
    const c = uniqueName('c');
    await source(c, { [env]: 'prod' });
    const kubeSystem = (await world.hostApi.readNamespace({ name: 'kube-system' })).metadata?.uid;

    const both = targetsFile([
      { name: 'prod', namespace: world.target, selector: `${env}=prod` },
      { name: 'all', namespace: second, nameTemplate: 'h-{name}' },
    ]);
    const run = await runTargets(both, ['--once']);
    expect(run.code, run.stderr).toBe(0);
    // Selecting on a prefixed key is what the warning below asks for: no warning.
    expect(run.stderr).not.toContain('selects its sources on');
    expect(run.stdout).toContain('Target "prod" (namespace');
    expect(run.stdout).toContain('Target "all" (namespace');

    const prod = await registered(world.hostApi, world.target);
    expect([...prod.values()].map((r) => r.cluster).sort()).toEqual([a, c].sort());
    const all = await registered(world.hostApi, second);
    expect([...all.values()].map((r) => r.cluster).sort()).toEqual(
      [a, b, c].map((name) => `h-${name}`).sort(),
    );
    // Every registration records this host: the kube-system namespace's uid (no ClusterProperty).
    for (const r of [...prod.values(), ...all.values()]) expect(r.host).toBe(kubeSystem);

    // The plan as JSON: one run per target, under a new format version.
    const json = await runTargets(both, ['--once', '--dry-run', '-o', 'json']);
    const document = JSON.parse(json.stdout) as {
      formatVersion: string;
      targets: { target: string; namespace: string; actions: unknown[] }[];
    };
    expect(document.formatVersion).toBe('3');
    expect(document.targets.map((t) => [t.target, t.namespace, t.actions.length])).toEqual([
      ['prod', world.target, 0],
      ['all', second, 0],
    ]);

    // "all" removed from the settings: nothing of it is deleted, and status says what is left.
    const prodOnly = targetsFile([
      { name: 'prod', namespace: world.target, selector: `${env}=prod` },
    ]);
    const again = await runTargets(prodOnly, ['--once']);
    expect(again.code, again.stderr).toBe(0);
    expect(await registered(world.hostApi, second)).toEqual(all);
    const status = await runCli([
      'status',
      '--kubeconfig',
      world.host.kubeconfigPath,
      '--managed-by',
      world.managedBy,
      '--targets-file',
      prodOnly,
    ]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(
      'Left behind: 3 registration(s) of this host in namespaces no target writes',
    );
    for (const name of all.keys()) expect(status.stdout).toContain(`${second}/${name}`);
    expect(status.stdout).toContain(
      `kubectl delete secret -n ${second} -l ${PREFIX}managed-by=${world.managedBy},${PREFIX}host-id=${kubeSystem ?? ''}`,
    );
  });

  it('warns at start-up about a target that selects on a label tenants may set', async () => {
    const file = targetsFile([
      { name: 'team', namespace: world.target, selector: 'team=a,kubernetes.io/metadata.name' },
    ]);
    const run = await runTargets(file, ['--once', '--dry-run']);
    expect([0, 2], run.stderr).toContain(run.code);
    const warnings = run.stderr
      .split('\n')
      .filter((line) => line.includes('selects its sources on'))
      .map((line) => JSON.parse(line) as { level: string; msg: string });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.level).toBe('warn');
    expect(warnings[0]?.msg).toContain('target "team" selects its sources on the label team,');
    expect(warnings[0]?.msg).toContain(`Select on a key under ${PREFIX} instead`);
  });

  it("moves a target's registrations to the names a new nameTemplate gives, then demotes the old ones", async () => {
    const namespace = uniqueName('argocd');
    await world.hostApi.createNamespace({ body: { metadata: { name: namespace } } });
    const cluster = uniqueName('t');
    await source(cluster, {});
    const plain = await runTargets(targetsFile([{ name: 'hub', namespace }]), ['--once']);
    expect(plain.code, plain.stderr).toBe(0);
    const templated = targetsFile([{ name: 'hub', namespace, nameTemplate: 'h-{name}' }]);
    const moved = await runTargets(templated, ['--once']);
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stderr).not.toContain('stale plan');
    const old = await world.hostApi.readNamespacedSecret({ namespace, name: `cluster-${cluster}` });
    expect(old.metadata?.labels?.['argocd.argoproj.io/secret-type']).toBeUndefined();
    expect(old.metadata?.labels?.[`${PREFIX}superseded-by`]).toBe(`h-${cluster}`);
    const now = await registered(world.hostApi, namespace);
    expect(now.get(`cluster-h-${cluster}`)?.cluster).toBe(`h-${cluster}`);
    // Settled: a further run writes nothing.
    const again = await runTargets(templated, ['--once', '--dry-run', '-o', 'json']);
    const document = JSON.parse(again.stdout) as { targets: { actions: unknown[] }[] };
    expect(document.targets.map((t) => t.actions.length)).toEqual([0]);
  });

  it('writes a target in another cluster through its kubeconfig; a 403 there changes nothing and the local target goes on', async () => {
    const hub = world.child;
    const hubApi = coreApi(hub);
    const hubNamespace = uniqueName('argocd-hub');
    await hubApi.createNamespace({ body: { metadata: { name: hubNamespace } } });
    const cluster = uniqueName('r');
    await source(cluster, {});

    const admin = targetsFile([
      { name: 'local', namespace: world.target },
      {
        name: 'hub',
        namespace: hubNamespace,
        kubeconfig: hub.kubeconfigPath,
        nameTemplate: 'a-{name}',
      },
    ]);
    const run = await runTargets(admin, ['--once']);
    expect(run.code, run.stderr).toBe(0);
    const atHub = await registered(hubApi, hubNamespace);
    expect([...atHub.values()].map((r) => r.cluster)).toEqual([`a-${cluster}`]);

    // The hub refuses this identity everything (authenticated, no RBAC): the run says so by
    // target, the hub's registrations stay exactly as they were, the local target is served.
    const { certPem, keyPem } = mintClientCertificate(hub, `/CN=${uniqueName('nobody')}`);
    const refusedKubeconfig = join(DIR, `${uniqueName('hub')}.yaml`);
    writeFileSync(
      refusedKubeconfig,
      kubeconfigYaml(hub, {
        server: hub.server,
        user: {
          certData: Buffer.from(certPem).toString('base64'),
          keyData: Buffer.from(keyPem).toString('base64'),
        },
      }),
    );
    await source(uniqueName('late'), {});
    const refused = targetsFile([
      { name: 'local', namespace: world.target },
      {
        name: 'hub',
        namespace: hubNamespace,
        kubeconfig: refusedKubeconfig,
        nameTemplate: 'a-{name}',
      },
    ]);
    const denied = await runTargets(refused, ['--once']);
    expect(denied.code).toBe(1);
    expect(denied.stdout).toContain('Target "hub"');
    expect(denied.stdout).toMatch(/error: .*forbidden|error: .*403/i);
    expect(await registered(hubApi, hubNamespace)).toEqual(atHub);
    expect((await registered(world.hostApi, world.target)).size).toBe(2);
  });
});
