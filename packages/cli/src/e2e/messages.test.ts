// Messages that must lead to the fix, checked on the real plane: a dry run shows what the API
// server would reject (and exits non-zero), and a namespace whose Secret almost matches says
// which Secret and what would make it match.

import { describe, expect, it } from 'vitest';
import { AdmissionregistrationV1Api } from '@kubernetes/client-node';
import { adminKubeConfig, uniqueName } from '@argocd-cluster-registrar/testkit';
import {
  createSourceNamespace,
  createWorld,
  eventually,
  kubeconfigYaml,
  putK3kKubeconfig,
  PREFIX,
  putSecret,
  runCli,
  startDaemon,
  targetSecrets,
} from '../test-support/e2e.js';
import type { JsonPlan } from '../test-support/e2e.js';

describe('a target namespace that does not exist', () => {
  it('is a start-up error naming it, for --once, --dry-run, status and the daemon', async () => {
    const world = await createWorld();
    const missing = uniqueName('no-such-argocd');
    const ns = await createSourceNamespace(world, { cluster: 'one' });
    await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfigYaml(world.child));
    const args = [
      ...['--kubeconfig', world.host.kubeconfigPath, '--managed-by', world.managedBy],
      ...['--target-namespace', missing],
    ];
    const expected = `error: --target-namespace ${JSON.stringify(missing)}: namespace ${missing} does not exist on ${world.host.server}; point --target-namespace at the namespace ArgoCD runs in, or create it (kubectl create namespace ${missing})\n`;
    for (const extra of [
      ['--once', '--dry-run'],
      ['--once'],
      ['--health-addr=', '--metrics-addr='],
    ]) {
      const run = await runCli([...args, ...extra]);
      expect(run.code, extra.join(' ')).toBe(1);
      expect(run.stderr).toBe(expected);
      expect(run.stdout).toBe('');
    }
    const status = await runCli(['status', ...args]);
    expect(status.code).toBe(1);
    expect(status.stderr).toBe(expected);
  });
});

describe('--once --dry-run with writes the API server would reject', () => {
  it('shows each rejection beside its action, in the JSON results, and exits 3', async () => {
    const world = await createWorld();
    // An admission policy that refuses every Secret in the target namespace, as 422 Invalid.
    const admission = adminKubeConfig(world.host).makeApiClient(AdmissionregistrationV1Api);
    const policy = uniqueName('refuse-secrets');
    await admission.createValidatingAdmissionPolicy({
      body: {
        metadata: { name: policy },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: {
            resourceRules: [
              {
                apiGroups: [''],
                apiVersions: ['v1'],
                operations: ['CREATE'],
                resources: ['secrets'],
              },
            ],
          },
          validations: [{ expression: 'false', reason: 'Invalid', message: 'no Secrets here' }],
        },
      },
    });
    await admission.createValidatingAdmissionPolicyBinding({
      body: {
        metadata: { name: policy },
        spec: {
          policyName: policy,
          validationActions: ['Deny'],
          matchResources: {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': world.target } },
          },
        },
      },
    });
    for (const cluster of ['one', 'two', 'three']) {
      // One child plane, three addresses: otherwise two of them would be server collisions.
      const annotations = { [`${PREFIX}server`]: `https://${cluster}.child.example:6443` };
      const ns = await createSourceNamespace(world, { cluster, annotations });
      await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfigYaml(world.child));
    }
    const args = [...world.baseArgs, '--once', '--dry-run'];

    // The policy takes effect once the API server has loaded it.
    const text = await eventually(async () => {
      const run = await runCli(args);
      return run.code === 3 ? run : undefined;
    }, 'the admission policy to take effect');
    for (const cluster of ['one', 'two', 'three']) {
      expect(text.stdout).toMatch(
        new RegExp(
          `\\+ ${world.target}/cluster-${cluster} would be rejected by the API server: 422 Invalid[^\\n]* \\(cluster "${cluster}"\\)\\n`,
        ),
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
    expect(plan.formatVersion).toBe('3');
    const rows = (plan.results ?? []).map((r) => [r.kind, r.cluster, r.status, r.verdict]);
    expect(rows.sort()).toEqual([
      ['create', 'one', 'dry-run', 'rejected'],
      ['create', 'three', 'dry-run', 'rejected'],
      ['create', 'two', 'dry-run', 'rejected'],
    ]);
    expect(plan.results?.[0]?.error).toMatch(/^422 Invalid/);
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
      `waiting  ${name} (cluster "vc"): no kubeconfig Secret in namespace ${name} that the configured providers read (looking for k3k-*-kubeconfig (or controlled by a k3k.io Cluster) with kubeconfig.yaml), but Secret vc-vc (its keys: config) matches the vcluster provider (vc-* with config), which is not configured; add it with \`--provider vcluster\` (chart value \`providers: [vcluster]\`)`,
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

describe('a kubeconfig under the wrong key', () => {
  it('is refused by name, with its key names and the fix, and status exits 2', async () => {
    const world = await createWorld();
    const ns = await createSourceNamespace(world, { cluster: 'wrong' });
    const name = ns.metadata?.name ?? '';
    const secret = `k3k-${name}-kubeconfig`;
    await putSecret(world.hostApi, name, secret, { kubeconfig: kubeconfigYaml(world.child) });

    const run = await runCli([...world.baseArgs, '--once', '--dry-run']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `refused  ${name} (cluster "wrong"): namespace ${name}: Secret ${secret} matches k3k-*-kubeconfig of the k3k provider but has no key kubeconfig.yaml (its keys: kubeconfig); store the kubeconfig under kubeconfig.yaml, or read key kubeconfig with \`--provider 'custom:k3k-*-kubeconfig=kubeconfig'\``,
    );

    const status = await runCli(['status', ...world.baseArgs, '--namespace', name]);
    expect(status.code, status.stdout).toBe(2);
    expect(status.stdout).toContain('kubeconfig-key-missing');

    // An applying run records it as a refusal, where `kubectl events` shows it.
    expect((await runCli([...world.baseArgs, '--once'])).code).toBe(0);
    const events = (await world.hostApi.listNamespacedEvent({ namespace: name })).items;
    expect(events.map((e) => e.reason)).toEqual(['Refused']);
    expect(events[0]?.message).toContain(`Secret ${secret} matches k3k-*-kubeconfig`);

    // What it suggests works.
    const fixed = await runCli([
      ...world.baseArgs,
      ...['--once', '--dry-run', '--provider', 'custom:k3k-*-kubeconfig=kubeconfig'],
    ]);
    expect(fixed.stdout).toContain('cluster-wrong will be created');
  });
});

describe('a status filter that matches nothing', () => {
  it('says so: an unknown --namespace is an error, a mistyped --managed-by names the values seen', async () => {
    const world = await createWorld();
    const ns = await createSourceNamespace(world, { cluster: 'seen' });
    await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfigYaml(world.child));

    const nope = await runCli(['status', ...world.baseArgs, '--namespace', 'nope']);
    expect(nope.code).toBe(1);
    expect(nope.stderr).toBe(
      `error: --namespace nope: no managed namespace or registration of that name (managed namespaces carry the label ${PREFIX}managed-by=${world.managedBy})\n`,
    );

    const typo = `${world.managedBy}x`;
    const args = ['--kubeconfig', world.host.kubeconfigPath, '--target-namespace', world.target];
    const mistyped = await runCli(['status', ...args, '--managed-by', typo]);
    expect(mistyped.code).toBe(0);
    expect(mistyped.stdout).toContain(
      `No namespace is labelled ${PREFIX}managed-by=${typo}, and no registration in ${world.target} carries that label.\n`,
    );
    expect(mistyped.stdout).toContain(
      `Did you mean --managed-by ${world.managedBy}? Namespaces carry ${PREFIX}managed-by=${world.managedBy}.\n`,
    );

    // --once, its dry run and the daemon say it too, at start-up, naming the setting as given.
    const warning = `--managed-by ${JSON.stringify(typo)}: no namespace is labelled ${PREFIX}managed-by=${typo}; did you mean --managed-by ${world.managedBy}? Namespaces carry ${PREFIX}managed-by=${world.managedBy}.`;
    for (const extra of [['--once'], ['--once', '--dry-run']]) {
      const run = await runCli([...args, '--managed-by', typo, '--log-format=text', ...extra]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(warning);
    }
    const fromEnv = await runCli([...args, '--once', '--dry-run', '--log-format=text'], {
      ACR_MANAGED_BY: typo,
    });
    expect(fromEnv.stderr).toContain(
      `ACR_MANAGED_BY (for --managed-by) ${JSON.stringify(typo)}: no namespace`,
    );
    const daemon = startDaemon([
      ...args,
      ...['--managed-by', typo, '--health-addr=127.0.0.1:0', '--metrics-addr=127.0.0.1:0'],
    ]);
    try {
      await daemon.healthPort();
      expect(daemon.logs.some((line) => line['msg'] === warning)).toBe(true);
    } finally {
      await daemon.stop();
    }

    // Spelled right, nothing is said.
    const right = await runCli([...world.baseArgs, '--once', '--dry-run', '--log-format=text']);
    expect(right.stderr).not.toContain('did you mean');
  });

  it('the JSON plan has results even when there is nothing to do', async () => {
    const world = await createWorld();
    const run = await runCli([...world.baseArgs, '--once', '--dry-run', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as JsonPlan).results).toEqual([]);
  });
});
