// The command's contract as a process: help, version, exit codes and the messages that
// tell a user what to fix.

import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  applyOnce,
  createSourceNamespace,
  createWorld,
  kubeconfigYaml,
  putK3kKubeconfig,
  runCli,
} from '../test-support/e2e.js';
import type { JsonPlan } from '../test-support/e2e.js';

describe('argocd-cluster-registrar (process)', () => {
  it('prints grouped help with defaults and env names, and the version', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--target-namespace <namespace>');
    expect(help.stdout).toContain('(default argocd; env ACR_TARGET_NAMESPACE)');
    expect(help.stdout).toMatch(/Run mode:\n/);

    const version = await runCli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^argocd-cluster-registrar \d+\.\d+\.\d+/);
  });

  it('exits 1 naming an unknown flag', async () => {
    const run = await runCli(['--clusters=a,b']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('unknown flag --clusters');
    expect(run.stdout).toBe('');
  });

  it('exits 1 naming the flag or variable and the accepted form for a bad value', async () => {
    const flag = await runCli(['--once', '--interval=5']);
    expect(flag.code).toBe(1);
    expect(flag.stderr).toMatch(/--interval "5": .*duration/);

    const env = await runCli(['--once'], { ACR_PROVIDER: 'k3k,openshift' });
    expect(env.code).toBe(1);
    expect(env.stderr).toContain('ACR_PROVIDER (for --provider) "openshift"');
    expect(env.stderr).toContain('custom:<glob>=<key>');

    const legacy = await runCli(['--once', '--provider=k3k', '--secret-key=x']);
    expect(legacy.code).toBe(1);
  });

  it('explains an unreachable API server, naming the kubeconfig and the server', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acr-cli-'));
    const path = join(dir, 'kubeconfig');
    writeFileSync(
      path,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: gone',
        '  cluster:',
        '    server: https://127.0.0.1:1',
        'users:',
        '- name: u',
        '  user:',
        '    token: abc',
        'contexts:',
        '- name: gone',
        '  context:',
        '    cluster: gone',
        '    user: u',
        'current-context: gone',
        '',
      ].join('\n'),
    );
    const run = await runCli(['--once', '--kubeconfig', path]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot reach the API server https://127.0.0.1:1');
    expect(run.stderr).toContain(path);
    expect(run.stderr).toContain('--kubeconfig/--context');
    expect(run.stderr).not.toContain('abc');
  });

  it('exits 1 when no kubeconfig exists', async () => {
    const run = await runCli(['--once', '--kubeconfig', '/nonexistent/kubeconfig']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('/nonexistent/kubeconfig');
  });

  it('--detailed-exitcode: 2 while changes are pending, 0 once applied', async () => {
    const world = await createWorld();
    const ns = await createSourceNamespace(world, { cluster: 'exit' });
    await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfigYaml(world.child));
    const pending = await runCli([...world.baseArgs, '--once', '--dry-run', '--detailed-exitcode']);
    expect(pending.code).toBe(2);
    expect(pending.stdout).toContain('exit');
    await applyOnce(world);
    const settled = await runCli([...world.baseArgs, '--once', '--dry-run', '--detailed-exitcode']);
    expect(settled.code).toBe(0);
  });

  it('--save-snapshot then --from-snapshot reproduces the plan without a cluster', async () => {
    const world = await createWorld();
    const ns = await createSourceNamespace(world, { cluster: 'replay' });
    await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfigYaml(world.child));
    const file = join(mkdtempSync(join(tmpdir(), 'acr-snapshot-')), 'snapshot.json');

    const live = await runCli([
      ...world.baseArgs,
      ...['--once', '--dry-run', '--output=json', '--save-snapshot', file],
    ]);
    expect(live.code, live.stderr).toBe(0);
    // It holds the kubeconfig Secrets: readable by its owner only.
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const replay = await runCli([
      ...['--from-snapshot', file, '--output=json', '--detailed-exitcode'],
      ...['--target-namespace', world.target, '--managed-by', world.managedBy],
    ]);
    expect(replay.code, replay.stderr).toBe(2);
    const shape = (text: string) => {
      const planned = JSON.parse(text) as JsonPlan;
      return {
        actions: planned.actions.map((a) => [a.kind, a.cluster, a.reason.code]),
        outcomes: planned.outcomes.map((o) => [o.namespace, o.state]),
      };
    };
    expect(shape(replay.stdout)).toEqual(shape(live.stdout));
    expect(shape(replay.stdout).actions).toContainEqual(['create', 'replay', 'new-registration']);

    const both = await runCli(['--from-snapshot', file, '--kubeconfig', world.host.kubeconfigPath]);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('--from-snapshot plans without a cluster, so --kubeconfig');
  });
});
