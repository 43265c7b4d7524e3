// The messages a user meets before the first pass (flags, variables, listen addresses) and
// the refusal of a kubeconfig that points at the host cluster: each names the setting in
// the form it was given and says what would be accepted, with exit code 1.

import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSourceNamespace,
  createWorld,
  kubeconfigYaml,
  putK3kKubeconfig,
  runCli,
} from '../test-support/e2e.js';

const HELP_HINT = 'Run with --help for the accepted flags.';

describe('start-up messages', () => {
  it('--interval 0 suggests only intervals it accepts', async () => {
    const run = await runCli(['--once', '--interval', '0']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error: --interval "0": must be at least 1s, such as 30s, 60s, 1m30s or 5m\n',
    );
    expect(run.stderr).not.toContain('500ms');
  });

  it('--interval -5s says the duration is negative', async () => {
    const run = await runCli(['--once', '--interval', '-5s']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error: --interval "-5s": must not be negative; expected a Go duration of at least 1s, such as 30s, 60s, 1m30s or 5m\n',
    );
  });

  it('points at --help once, in one wording', async () => {
    for (const args of [['--intervall=5s'], ['once'], ['--once', '--interval=0']]) {
      const run = await runCli(args);
      expect(run.code).toBe(1);
      expect(run.stderr).not.toContain('(see --help)');
      expect(run.stderr.split('--help').length - 1).toBe(1);
      expect(run.stderr.endsWith(`${HELP_HINT}\n`)).toBe(true);
    }
  });

  it('--provider with a legacy flag names the flags, not the chart values', async () => {
    const run = await runCli(['--once', '--provider', 'k3k', '--secret-key', 'foo']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error: --provider "k3k": cannot be combined with --secret-key; pick one: either list --provider (for example custom:k3k-*-kubeconfig=foo) or keep the legacy --secret-name-pattern/--secret-key pair without --provider\n',
    );
    expect(run.stderr).not.toMatch(/secretKey|secretNamePattern/);
  });

  it('warns at start-up when only one of the two exec gates is on', async () => {
    // No cluster is needed: the warning comes before the connection (which fails here).
    const missing = ['--kubeconfig', '/nonexistent/kubeconfig', '--log-format=text'];
    const presetOnly = await runCli(['--once', '--provider', 'capa-eks', ...missing]);
    expect(presetOnly.stderr).toContain(
      'provider capa-eks allows exec translation, but --exec-credentials (chart value execCredentials) is off, so exec kubeconfigs are refused',
    );
    const flagOnly = await runCli(['--once', '--exec-credentials', ...missing], {});
    expect(flagOnly.stderr).toContain(
      '--exec-credentials (chart value execCredentials) is on, but no provider allows exec translation',
    );
    const both = await runCli(['--once', '--exec-credentials', '--provider=gke', ...missing]);
    expect(both.stderr).toContain(
      'exec translation is on, but its allow-lists are empty, so it refuses every GKE registration, until its server is on --exec-allowed-servers (chart value execAllowedServers)',
    );
    const allowed = await runCli([
      '--once',
      '--exec-credentials',
      '--provider=gke',
      '--exec-allowed-servers=34.77.0.0/16',
      ...missing,
    ]);
    expect(allowed.stderr).not.toContain('exec translation');
  });

  it('refuses a malformed exec allow-list entry, naming the flag and the accepted form', async () => {
    const run = await runCli(['--once', '--exec-allowed-servers', '*.example.com']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error: --exec-allowed-servers "*.example.com": must be a CIDR or address (10.0.0.0/8, 34.77.120.15, 2600:1900::/28), a host name matched exactly (api.example.com) or a domain suffix with a leading dot, matched by its subdomains only (.example.com), without a scheme or port; write .example.com for the subdomains of example.com\n',
    );
    const fromEnv = await runCli(['--once'], { ACR_EXEC_EKS_ROLE_ARNS: 'arn:aws:iam::1:role/x' });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toContain(
      'error: ACR_EXEC_EKS_ROLE_ARNS (for --exec-eks-role-arns) "arn:aws:iam::1:role/x": must be an IAM role ARN',
    );
  });

  it('answers a bad boolean variable in variable terms', async () => {
    const run = await runCli([], { ACR_ONCE: '1' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error: ACR_ONCE (for --once) has invalid value "1": expected ACR_ONCE=true or ACR_ONCE=false\n',
    );
  });

  it('refuses an unknown ACR_ variable with the closest known name', async () => {
    const run = await runCli(['--once'], { ACR_INTERVALL: '5s' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error: unknown environment variable ACR_INTERVALL (did you mean ACR_INTERVAL?)\n',
    );
  });

  describe('an address in use', () => {
    let taken: Server | undefined;
    afterEach(async () => {
      await new Promise((resolve) => taken?.close(resolve));
      taken = undefined;
    });

    async function occupiedAddress(): Promise<string> {
      const server = createServer();
      taken = server;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      return `127.0.0.1:${address.port}`;
    }

    it('names the flag that chose it', async () => {
      const world = await createWorld();
      const address = await occupiedAddress();
      const run = await runCli([...world.baseArgs, '--health-addr', address, '--metrics-addr=']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `error: --health-addr "${address}": cannot listen on ${address} (address already in use, EADDRINUSE); another process listens there: pick a free address with --health-addr, or '' to disable\n`,
      );
    });

    it('names the variable when the address came from the environment', async () => {
      const world = await createWorld();
      const address = await occupiedAddress();
      const run = await runCli([...world.baseArgs, '--health-addr='], {
        ACR_METRICS_ADDR: address,
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `error: ACR_METRICS_ADDR (for --metrics-addr) "${address}": cannot listen on ${address}`,
      );
    });
  });

  it('the in-cluster refusal names the real server annotation', async () => {
    const world = await createWorld();
    const ns = await createSourceNamespace(world, { cluster: 'inside' });
    await putK3kKubeconfig(
      world,
      ns.metadata?.name ?? '',
      kubeconfigYaml(world.child, { server: 'https://kubernetes.default.svc:443' }),
    );
    const run = await runCli([...world.baseArgs, '--once', '--dry-run']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "set the `argocd-cluster-registrar/server` namespace annotation to the child API server's address",
    );
    expect(run.stdout).not.toContain('<label-prefix>');
  });
});
