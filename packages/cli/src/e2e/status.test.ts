// `status` end to end against the real host plane: a world with a namespace or registration
// in every state, reported as the planner sees it, read-only (nothing written, no Event), with
// filters and an exit code scripts can use. The child plane proves the registered credentials
// that status reports as working.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { adminKubeConfig, finalizeNamespace } from '@argocd-cluster-registrar/testkit';
import {
  PREFIX,
  applyOnce,
  childServer,
  clusterConfig,
  createSourceNamespace,
  createWorld,
  decoded,
  deleteNamespace,
  kubeconfigYaml,
  putK3kKubeconfig,
  putSecret,
  registration,
  runCli,
  targetSecrets,
  whoAmI,
} from '../test-support/e2e.js';
import type { World } from '../test-support/e2e.js';

interface StatusJson {
  readonly formatVersion: string;
  readonly failing: boolean;
  readonly rows: readonly {
    readonly kind: string;
    readonly namespace?: string;
    readonly cluster?: string;
    readonly state: string;
    readonly reason?: { readonly code: string };
    readonly credential?: string;
    readonly credentialNotAfter?: string;
    readonly server?: string;
    readonly lastWrite?: string;
    readonly next?: string;
    readonly secret?: string;
  }[];
}

let world: World;
/** Source namespace name by role. */
const ns: Record<string, string> = {};

function serverFor(name: string): string {
  // One server per registration: the planner refuses a second registration of one server.
  return childServer(world.child).replace('child.acr.test', `${name}.acr.test`);
}

async function child(role: string, cluster: string, labels: Record<string, string> = {}) {
  const created = await createSourceNamespace(world, { cluster, labels });
  const name = created.metadata?.name ?? '';
  ns[role] = name;
  await putK3kKubeconfig(world, name, kubeconfigYaml(world.child, { server: serverFor(role) }));
  return name;
}

async function status(args: readonly string[] = []) {
  const run = await runCli(['status', ...world.baseArgs, '--drain-on-terminate', ...args]);
  return run;
}

beforeAll(async () => {
  world = await createWorld();
  await child('unchanged', 'alpha');
  await child('stale', 'stale');
  await child('drained', 'drain', { [`${PREFIX}team`]: 'payments' });
  await child('renamed', 'old');
  await child('gone', 'gone');
  await child('pinned', 'pinned');
  await applyOnce(world);
  // Renamed: the new name is registered, then (next pass) the old one is demoted.
  const renamed = await world.hostApi.readNamespace({ name: ns['renamed'] ?? '' });
  await world.hostApi.replaceNamespace({
    name: ns['renamed'] ?? '',
    body: {
      ...renamed,
      metadata: {
        ...renamed.metadata,
        labels: { ...renamed.metadata?.labels, [`${PREFIX}cluster`]: 'new' },
      },
    },
  });
  await applyOnce(world);
  await applyOnce(world);

  // Then the world moves on without a pass: what status must explain.
  await child('registered', 'beta');
  const waiting = await createSourceNamespace(world, { cluster: 'waiting' });
  ns['waiting'] = waiting.metadata?.name ?? '';
  await child('refused', 'refused');
  await putSecret(world.hostApi, world.target, 'vcluster-legacy', {
    name: 'legacy',
    server: serverFor('refused'),
    config: '{"tlsClientConfig":{"insecure":false}}',
  });
  const legacy = await world.hostApi.readNamespacedSecret({
    name: 'vcluster-legacy',
    namespace: world.target,
  });
  await world.hostApi.replaceNamespacedSecret({
    name: 'vcluster-legacy',
    namespace: world.target,
    body: {
      ...legacy,
      metadata: { ...legacy.metadata, labels: { 'argocd.argoproj.io/secret-type': 'cluster' } },
    },
  });
  await world.hostApi.deleteNamespacedSecret({
    name: 'k3k-c-kubeconfig',
    namespace: ns['stale'] ?? '',
  });
  await world.hostApi.deleteNamespace({ name: ns['drained'] ?? '' });
  await deleteNamespace(world, ns['gone'] ?? '');
  // Pinned: its namespace no longer carries our label, so nothing proves it may go.
  const pinned = await world.hostApi.readNamespace({ name: ns['pinned'] ?? '' });
  const unlabelled = Object.fromEntries(
    Object.entries(pinned.metadata?.labels ?? {}).filter(([key]) => key !== `${PREFIX}managed-by`),
  );
  await world.hostApi.replaceNamespace({
    name: ns['pinned'] ?? '',
    body: { ...pinned, metadata: { ...pinned.metadata, labels: unlabelled } },
  });
}, 120_000);

describe('status', () => {
  it('reports every state, read-only, and exits 2 because a namespace is refused or stale', async () => {
    const before = await targetSecrets(world);
    const run = await status(['--output', 'json']);
    expect(run.code, run.stderr).toBe(2);
    const document = JSON.parse(run.stdout) as StatusJson;
    expect(document.formatVersion).toBe('1');
    expect(document.failing).toBe(true);
    const state = (namespace: string | undefined, kind = 'namespace') =>
      document.rows.find((row) => row.kind === kind && row.namespace === namespace);
    expect(state(ns['unchanged'])).toMatchObject({
      state: 'unchanged',
      cluster: 'alpha',
      credential: 'client-certificate',
      server: serverFor('unchanged'),
    });
    expect(state(ns['unchanged'])?.credentialNotAfter).toMatch(/^\d{4}-/);
    expect(state(ns['unchanged'])?.lastWrite).toMatch(/^\d{4}-/);
    expect(state(ns['registered'])).toMatchObject({
      state: 'registered',
      next: 'create (new-registration)',
    });
    expect(state(ns['waiting'])).toMatchObject({
      state: 'waiting',
      reason: { code: 'waiting-for-kubeconfig' },
    });
    expect(state(ns['refused'])).toMatchObject({
      state: 'refused',
      reason: { code: 'server-collision' },
    });
    expect(state(ns['stale'])).toMatchObject({ state: 'stale', credential: 'client-certificate' });
    expect(state(ns['drained'])).toMatchObject({ state: 'drained', next: 'update (drained)' });
    expect(state(ns['renamed'])).toMatchObject({ state: 'unchanged', cluster: 'new' });
    expect(state(ns['renamed'], 'registration')).toMatchObject({
      state: 'demoted',
      cluster: 'old',
    });
    expect(state(ns['gone'], 'registration')).toMatchObject({
      state: 'source-gone',
      next: 'delete (source-namespace-not-found)',
    });
    expect(state(ns['pinned'], 'registration')).toMatchObject({ state: 'pinned' });
    expect(document.rows.find((row) => row.kind === 'foreign')).toMatchObject({
      secret: 'vcluster-legacy',
      state: 'foreign',
    });

    // Read-only: not one Secret written, created or deleted, and no Event recorded.
    const after = await targetSecrets(world);
    expect([...after].map(([name, s]) => [name, s.metadata?.resourceVersion])).toEqual(
      [...before].map(([name, s]) => [name, s.metadata?.resourceVersion]),
    );
    expect(await registration(world, 'beta')).toBeUndefined();
    const events = await world.hostApi.listNamespacedEvent({ namespace: ns['refused'] ?? '' });
    expect(events.items).toEqual([]);
    const coordination = adminKubeConfig(world.host).makeApiClient(CoordinationV1Api);
    const leases = await coordination.listNamespacedLease({ namespace: world.target });
    expect(leases.items).toEqual([]);
  });

  it('reports as working the credentials that the child plane accepts', async () => {
    const secret = await registration(world, 'alpha');
    const who = await whoAmI(decoded(secret, 'server') ?? '', clusterConfig(secret));
    expect(who.status).toBe(201);
  });

  it('filters by namespace and state, and exits 0 when what it shows is served', async () => {
    const healthy = await status(['--namespace', ns['unchanged'] ?? '', '--output=json']);
    expect(healthy.code, healthy.stderr).toBe(0);
    const rows = (JSON.parse(healthy.stdout) as StatusJson).rows;
    expect(rows.map((row) => row.namespace)).toEqual([ns['unchanged']]);

    const refused = await status(['--state', 'refused,foreign', '--output=json']);
    expect(refused.code).toBe(2);
    expect((JSON.parse(refused.stdout) as StatusJson).rows.map((row) => row.state)).toEqual([
      'refused',
      'foreign',
    ]);
  });

  it('prints a table on a terminal, and refuses an unknown state by name', async () => {
    const run = await status(['--namespace', ns['refused'] ?? '']);
    expect(run.stdout).toMatch(
      /^NAMESPACE +CLUSTER +STATE +CREDENTIAL +EXPIRES +SERVER +LAST WRITE\n/,
    );
    expect(run.stdout).toContain(`namespace ${ns['refused'] ?? ''}: refused (server-collision)`);
    const bad = await status(['--state', 'broken']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--state "broken": not a status state; expected one of');
  });

  it('names the real server annotation in a refusal, as --once does', async () => {
    const created = await createSourceNamespace(world, { cluster: 'not-https' });
    const name = created.metadata?.name ?? '';
    await putK3kKubeconfig(
      world,
      name,
      kubeconfigYaml(world.child, { server: 'ftp://plain.acr.test:6443' }),
    );
    const once = await runCli([...world.baseArgs, '--once', '--dry-run']);
    expect(once.stdout).toContain(`\`${PREFIX}server\` namespace annotation`);
    const run = await status(['--namespace', name]);
    expect(run.stdout).toContain(`\`${PREFIX}server\` namespace annotation`);
    expect(run.stdout).not.toContain('<label-prefix>server');
  });
});

// The namespace this file left terminating is finalized so the shared plane stays tidy.
afterAll(async () => {
  if (ns['drained'] !== undefined) await finalizeNamespace(world.host, ns['drained']);
});
