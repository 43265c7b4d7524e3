// Messages that must lead to the fix, checked on the real plane: a dry run shows what the API
// server would reject (and exits non-zero), and a namespace whose Secret almost matches says
// which Secret and what would make it match.

import { describe, expect, it } from 'vitest';
import { uniqueName } from '@argocd-cluster-registrar/testkit';
import {
  createSourceNamespace,
  createWorld,
  kubeconfigYaml,
  putK3kKubeconfig,
  PREFIX,
  putSecret,
  runCli,
  targetSecrets,
} from '../test-support/e2e.js';
import type { JsonPlan } from '../test-support/e2e.js';

describe('--once --dry-run against a target namespace that does not exist', () => {
  it('shows each rejection beside its action, in the JSON results, and exits 3', async () => {
    const world = await createWorld();
    const missing = uniqueName('no-such-argocd');
    const args = [
      ...['--kubeconfig', world.host.kubeconfigPath, '--managed-by', world.managedBy],
      ...['--target-namespace', missing, '--once', '--dry-run'],
    ];
    for (const cluster of ['one', 'two', 'three']) {
      // One child plane, three addresses: otherwise two of them would be server collisions.
      const annotations = { [`${PREFIX}server`]: `https://${cluster}.child.example:6443` };
      const ns = await createSourceNamespace(world, { cluster, annotations });
      await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfigYaml(world.child));
    }

    const text = await runCli(args);
    expect(text.code, text.stderr).toBe(3);
    for (const cluster of ['one', 'two', 'three']) {
      expect(text.stdout).toContain(
        `+ ${missing}/cluster-${cluster} would be rejected by the API server: 404 NotFound: namespaces "${missing}" not found (cluster "${cluster}")\n`,
      );
    }
    expect(text.stdout).toContain(
      '3 of 3 changes would be rejected by the API server (see above): applying this plan would fail.\nPlan: 3 to create, 0 to update, 0 to demote, 0 to delete.\n',
    );
    // --detailed-exitcode does not hide it behind "changes pending".
    expect((await runCli([...args, '--detailed-exitcode'])).code).toBe(3);

    const json = await runCli([...args, '--output=json']);
    expect(json.code).toBe(3);
    const plan = JSON.parse(json.stdout) as JsonPlan;
    expect(plan.formatVersion).toBe('1');
    const rows = (plan.results ?? []).map((r) => [r.kind, r.cluster, r.status, r.verdict]);
    expect(rows.sort()).toEqual([
      ['create', 'one', 'dry-run', 'rejected'],
      ['create', 'three', 'dry-run', 'rejected'],
      ['create', 'two', 'dry-run', 'rejected'],
    ]);
    expect(plan.results?.[0]?.error).toBe(`404 NotFound: namespaces "${missing}" not found`);
  });

  it('exits 0 when the API server would accept every write, and --help documents 3', async () => {
    const world = await createWorld();
    const ns = await createSourceNamespace(world, { cluster: 'fine' });
    await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfigYaml(world.child));
    const run = await runCli([...world.baseArgs, '--once', '--dry-run']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('rejected');
    expect((await targetSecrets(world)).size).toBe(0);

    const help = await runCli(['--help']);
    expect(help.stdout).toContain('3 with --once --dry-run');
  });
});

describe('a kubeconfig Secret that almost matches', () => {
  it('a vcluster namespace under the default k3k provider names vc-<name> and --provider vcluster', async () => {
    const world = await createWorld();
    const ns = await createSourceNamespace(world, { cluster: 'vc' });
    const name = ns.metadata?.name ?? '';
    await putSecret(world.hostApi, name, 'vc-vc', { config: kubeconfigYaml(world.child) });
    await putSecret(world.hostApi, name, 'vc-config-vc', { 'config.yaml': 'values' });

    const run = await runCli([...world.baseArgs, '--once', '--dry-run']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `waiting  ${name} (cluster "vc"): no kubeconfig Secret in namespace ${name} that the configured providers read (looking for k3k-*-kubeconfig with kubeconfig.yaml), but Secret vc-vc (its keys: config) matches the vcluster provider (vc-* with config), which is not configured; add it with \`--provider vcluster\` (chart value \`providers: [vcluster]\`)`,
    );
    expect(run.stdout).not.toContain('vc-config-vc');

    // What it suggests works.
    const fixed = await runCli([
      ...world.baseArgs,
      '--once',
      '--dry-run',
      '--provider',
      'vcluster',
    ]);
    expect(fixed.stdout).toContain(`cluster-vc will be created`);
  });
});
