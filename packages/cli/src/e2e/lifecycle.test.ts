// End to end: what happens to registrations as their source namespaces and kubeconfigs
// change — deletion, recreation, rename, the prune veto, rotation, breakage and dry-run.

import { describe, expect, it } from 'vitest';
import {
  PREFIX,
  applyOnce,
  clusterConfig,
  createSourceNamespace,
  useWorld,
  decoded,
  deleteNamespace,
  kubeconfigYaml,
  mintChildClientCertificate,
  outcomeOf,
  planJson,
  putK3kKubeconfig,
  registration,
  runCli,
  targetSecrets,
  whoAmI,
} from '../test-support/e2e.js';

const { world } = useWorld();

async function registered(cluster: string, options: { server?: string } = {}): Promise<string> {
  const ns = await createSourceNamespace(world, { cluster });
  const name = ns.metadata?.name ?? '';
  await putK3kKubeconfig(world, name, kubeconfigYaml(world.child, options));
  await applyOnce(world);
  expect(await registration(world, cluster)).toBeDefined();
  return name;
}

async function relabel(
  name: string,
  change: (labels: Record<string, string>) => void,
): Promise<void> {
  const current = await world.hostApi.readNamespace({ name });
  const labels = { ...(current.metadata?.labels ?? {}) };
  change(labels);
  await world.hostApi.replaceNamespace({
    name,
    body: { ...current, metadata: { ...current.metadata, labels } },
  });
}

describe('lifecycle', () => {
  it('removes the registration once the namespace is deleted and finalized, not while terminating', async () => {
    const name = await registered('doomed');
    await world.hostApi.deleteNamespace({ name });

    // Terminating: ArgoCD may still need the cluster to finalize Applications.
    const { plan: terminating } = await planJson(world);
    expect(terminating.actions).toEqual([]);
    expect(await registration(world, 'doomed')).toBeDefined();

    await deleteNamespace(world, name);
    const { plan } = await planJson(world);
    expect(plan.actions.map((a) => [a.kind, a.reason.code])).toEqual([
      ['delete', 'source-namespace-not-found'],
    ]);
    expect(plan.results?.map((r) => r.status)).toEqual(['applied']);
    expect(await registration(world, 'doomed')).toBeUndefined();
  });

  it('removes the old registration by uid when a namespace is recreated with the same name', async () => {
    const name = await registered('phoenix');
    const oldUid = (await registration(world, 'phoenix'))?.metadata?.labels?.[
      `${PREFIX}source-namespace-uid`
    ];
    await deleteNamespace(world, name);

    // Same name, new uid, not labelled for us at first: the old registration is provably stale.
    await world.hostApi.createNamespace({ body: { metadata: { name } } });
    const { plan } = await planJson(world);
    expect(plan.actions.map((a) => [a.kind, a.reason.code])).toEqual([
      ['delete', 'source-namespace-replaced'],
    ]);
    expect(await registration(world, 'phoenix')).toBeUndefined();

    // Labelled again, it registers afresh with the new uid.
    await relabel(name, (labels) => {
      labels[`${PREFIX}managed-by`] = world.managedBy;
      labels[`${PREFIX}cluster`] = 'phoenix';
    });
    await putK3kKubeconfig(world, name, kubeconfigYaml(world.child));
    await applyOnce(world);
    const fresh = await registration(world, 'phoenix');
    const newUid = (await world.hostApi.readNamespace({ name })).metadata?.uid;
    expect(fresh?.metadata?.labels?.[`${PREFIX}source-namespace-uid`]).toBe(newUid);
    expect(newUid).not.toBe(oldUid);
  });

  it('one --once completes a rename: exactly one active registration for that server', async () => {
    const server = 'https://renamed-once.example:6443';
    const name = await registered('old-name', { server });
    await relabel(name, (labels) => {
      labels[`${PREFIX}cluster`] = 'new-name';
    });

    // A CronJob's single run after the label change.
    await applyOnce(world);
    const active = [...(await targetSecrets(world)).values()].filter(
      (secret) =>
        secret.metadata?.labels?.['argocd.argoproj.io/secret-type'] === 'cluster' &&
        decoded(secret, 'server') === server,
    );
    expect(active.map((secret) => secret.metadata?.name)).toEqual(['cluster-new-name']);
    expect((await registration(world, 'old-name'))?.metadata?.labels).toMatchObject({
      [`${PREFIX}superseded-by`]: 'new-name',
    });
  });

  it('demotes the old registration on rename and restores it on revert', async () => {
    const name = await registered('before');
    const original = await registration(world, 'before');

    await relabel(name, (labels) => {
      labels[`${PREFIX}cluster`] = 'after';
    });
    // First the new name; the old one is demoted by the round that observes the new one, so
    // ArgoCD never loses the cluster if the create fails. One run holds both rounds.
    // The document holds each plan the run made, in order.
    const { plan } = await planJson(world);
    expect(plan.actions.map((a) => `${a.kind}:${a.cluster}`)).toEqual(['create:after']);
    expect(plan.results?.map((r) => r.status)).toEqual(['applied']);
    expect(plan.followUps?.map((f) => `${f.kind} ${f.secret} after ${f.after.secret}`)).toEqual([
      'demote cluster-before after cluster-after',
    ]);
    expect(
      plan.laterRounds?.map(
        (r) =>
          `${String(r.round)}:${r.actions.map((a) => `${a.kind}:${a.cluster}`).join(',')}/${(r.results ?? []).map((x) => x.status).join(',')}`,
      ),
    ).toEqual(['2:demote:before/applied', '3:/']);
    expect(plan.converged).toBe(true);
    const demoted = await registration(world, 'before');
    expect(demoted?.metadata?.labels).not.toHaveProperty('argocd.argoproj.io/secret-type');
    expect(demoted?.metadata?.labels).toMatchObject({
      [`${PREFIX}orphaned-secret-type`]: 'cluster',
      [`${PREFIX}superseded-by`]: 'after',
    });
    expect(
      demoted?.metadata?.labels?.[`${PREFIX}stale-since`] ??
        demoted?.metadata?.annotations?.[`${PREFIX}stale-since`],
    ).toBeDefined();
    expect(await registration(world, 'after')).toBeDefined();

    await relabel(name, (labels) => {
      labels[`${PREFIX}cluster`] = 'before';
    });
    const reverted = await runCli([...world.baseArgs, '--once', '--log-format=json']);
    expect(reverted.code).toBe(0);
    // Text: each round's plan, marked as such, in the order the run made them.
    const headings = reverted.stdout.split('\n').filter((line) => /^Round \d/.test(line));
    // The closing round that only confirmed convergence is not printed.
    expect(headings).toEqual(['Round 1 of 2:', 'Round 2 of 2:']);
    const [, first = '', second = ''] = reverted.stdout.split(/^Round \d of 2:$/m);
    expect(first).toContain('/cluster-before was updated');
    expect(first).not.toContain('was demoted');
    expect(second).toContain('/cluster-after was demoted');
    expect(reverted.stdout).not.toContain('No changes.');
    const restored = await registration(world, 'before');
    expect(restored?.metadata?.labels?.['argocd.argoproj.io/secret-type']).toBe('cluster');
    expect(restored?.metadata?.labels).not.toHaveProperty(`${PREFIX}orphaned-secret-type`);
    expect(restored?.metadata?.uid).toBe(original?.metadata?.uid);
    expect(restored?.data).toEqual(original?.data);
    expect((await registration(world, 'after'))?.metadata?.labels).toMatchObject({
      [`${PREFIX}orphaned-secret-type`]: 'cluster',
      [`${PREFIX}superseded-by`]: 'before',
    });
  });

  it('honours prune: disabled on a registration whose namespace is gone', async () => {
    const name = await registered('pinned');
    const current = await registration(world, 'pinned');
    await world.hostApi.replaceNamespacedSecret({
      name: 'cluster-pinned',
      namespace: world.target,
      body: {
        ...current,
        metadata: {
          ...current?.metadata,
          labels: { ...current?.metadata?.labels, [`${PREFIX}prune`]: 'disabled' },
        },
      },
    });
    const pinned = await registration(world, 'pinned');
    await deleteNamespace(world, name);

    const { plan } = await planJson(world);
    expect(plan.actions).toEqual([]);
    expect(plan.warnings.map((w) => w.code)).toContain('prune-disabled');
    expect((await registration(world, 'pinned'))?.metadata?.resourceVersion).toBe(
      pinned?.metadata?.resourceVersion,
    );
  });

  it('carries a rotated client certificate into the registration', async () => {
    const name = await registered('rotating');
    const rotated = mintChildClientCertificate(world.child, 'acr-rotated');
    await putK3kKubeconfig(world, name, kubeconfigYaml(world.child, { user: rotated }));

    // A credential-only change is written at most once per interval after the last write;
    // the shortest interval is 1s, so wait that long first.
    await new Promise((r) => setTimeout(r, 1100));
    const { plan } = await planJson(world, { extra: ['--interval=1s'] });
    expect(plan.actions.map((a) => [a.kind, a.reason.code])).toEqual([
      ['update', 'credentials-changed'],
    ]);

    const secret = await registration(world, 'rotating');
    expect(clusterConfig(secret).tlsClientConfig.certData).toBe(rotated.certData);
    expect(await whoAmI(decoded(secret, 'server') ?? '', clusterConfig(secret))).toEqual({
      status: 201,
      username: 'acr-rotated',
    });
  });

  it('keeps the registration intact and reports stale when the kubeconfig turns to garbage', async () => {
    const name = await registered('fragile');
    const before = await registration(world, 'fragile');
    await putK3kKubeconfig(world, name, ': this is { not a kubeconfig');

    const { plan } = await planJson(world);
    expect(plan.actions).toEqual([]);
    expect(outcomeOf(plan, name)?.state).toBe('stale');
    const after = await registration(world, 'fragile');
    expect(after?.metadata?.resourceVersion).toBe(before?.metadata?.resourceVersion);
    expect(after?.data).toEqual(before?.data);
  });

  it('dry-run writes nothing but reports every change', async () => {
    // A deletion, an update (label change), a rename (its creation; the demotion waits for a
    // pass that observes it) and a creation.
    const gone = await registered('gone', { server: 'https://gone.example:6443' });
    const changed = await registered('changed', { server: 'https://changed.example:6443' });
    const renamed = await registered('renamed', { server: 'https://renamed.example:6443' });
    await deleteNamespace(world, gone);
    await relabel(changed, (labels) => {
      labels[`${PREFIX}tier`] = 'gold';
    });
    await relabel(renamed, (labels) => {
      labels[`${PREFIX}cluster`] = 'renamed-new';
    });
    const fresh = await createSourceNamespace(world, { cluster: 'fresh' });
    await putK3kKubeconfig(
      world,
      fresh.metadata?.name ?? '',
      kubeconfigYaml(world.child, { server: 'https://fresh.example:6443' }),
    );

    const snapshot = async (): Promise<Record<string, string>> =>
      Object.fromEntries(
        [...(await targetSecrets(world))].map(([n, s]) => [n, s.metadata?.resourceVersion ?? '']),
      );
    const before = await snapshot();

    const { plan, run } = await planJson(world, {
      dryRun: true,
      extra: ['--detailed-exitcode'],
      allowCodes: [2],
    });
    expect(run.code).toBe(2);
    // Nothing was written: each result is the API server's dry-run verdict, and it accepts all.
    expect(plan.results?.map((r) => `${r.status}:${r.verdict}`)).toEqual(
      plan.actions.map(() => 'dry-run:accepted'),
    );
    expect(plan.actions.map((a) => `${a.kind}:${a.cluster}`).sort()).toEqual([
      'create:fresh',
      'create:renamed-new',
      'delete:gone',
      'update:changed',
    ]);
    // The demotion of the renamed registration is a second round's decision: named by the
    // planner, not guessed at.
    expect(
      plan.followUps?.map((f) => `${f.kind} ${f.secret} after ${f.after.kind}:${f.after.cluster}`),
    ).toEqual(['demote cluster-renamed after create:renamed-new']);
    expect(plan.laterRounds).toEqual([]);
    expect(await snapshot()).toEqual(before);

    const text = await runCli([...world.baseArgs, '--once', '--dry-run', '--log-format=json']);
    expect(text.code).toBe(0);
    for (const cluster of ['fresh', 'renamed-new', 'gone', 'renamed', 'changed'])
      expect(text.stdout).toContain(cluster);
    expect(text.stdout).toContain(
      'A real run would need a second round for:\n  create renamed-new: once cluster-renamed-new is observed, a second round demotes cluster-renamed ',
    );
    expect(await snapshot()).toEqual(before);
  });
});
