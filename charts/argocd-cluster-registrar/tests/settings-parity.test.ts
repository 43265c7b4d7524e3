// The chart refuses at render time what the CLI refuses at start-up, with the same message:
// each values file below is turned into the flags the chart renders for it (through the
// settings table) and handed to the CLI's main; helm must fail with the CLI's words, naming
// the chart value instead of the flag. The chart's checks are generated from the CLI's
// (settings-validation.ts); this proves the generated template means the same.

import { describe, expect, test } from 'vitest';
import { main } from '../../../packages/cli/src/main.js';
import { SETTINGS } from '../../../packages/cli/src/settings.js';
import { template } from './chart-support.js';

type Values = Record<string, string | number | boolean | readonly string[]>;

/** The container arguments the chart renders for these values (the settings table's map). */
function flagsFor(values: Values): string[] {
  return Object.entries(values).flatMap(([key, value]) => {
    const setting = SETTINGS.find((s) => s.chart?.value === key);
    if (setting === undefined) throw new Error(`no setting for chart value ${key}`);
    const entries = Array.isArray(value) ? value : [value];
    return entries.map((entry) => `--${setting.name}=${String(entry)}`);
  });
}

/** What the CLI says on stderr, started with those flags (it stops before connecting). */
async function cliSays(values: Values): Promise<string[]> {
  const lines: string[] = [];
  await main({
    // An unreachable, absent kubeconfig: nothing this test starts may reach a cluster.
    argv: [
      '--once',
      '--dry-run',
      '--log-format=json',
      '--kubeconfig=/nonexistent',
      ...flagsFor(values),
    ],
    env: {},
    stdout: () => undefined,
    stderr: (text) => lines.push(...text.split('\n').filter((line) => line !== '')),
    stdoutIsTty: false,
    stderrIsTty: false,
  });
  return lines;
}

describe('the chart refuses what the CLI refuses, in the same words', () => {
  test.each<Values>([
    { interval: 5 },
    { interval: '500ms' },
    { interval: '1 minute' },
    { demotedTTL: '-5s' },
    { demotedTTL: '3000000h' },
    { credentialRefreshWindow: '7d' },
    { resyncPeriod: '30s' },
    { resyncPeriod: '10' },
    { resyncPeriod: '-1h' },
    { targetNamespace: 'Argo_CD' },
    { labelPrefix: 'example.com' },
    { labelPrefix: 'Example.com/' },
    { managedBy: '-team' },
    { providers: ['custom:k3k-[=kubeconfig'] },
    { providers: ['custom:k3k-[a-]=kubeconfig'] },
    { providers: ['custom:[]=kubeconfig'] },
    { providers: ['custom:a\\=kubeconfig'] },
    { providers: ['vcluster', 'k3s'] },
    { providers: ['custom:vc-*'] },
    { providers: ['custom:=config'] },
    { providers: ['custom:vc-*=config;exce'] },
    { providers: ['custom:vc-*=config;exec;exec'] },
    { providers: ['custom:vc-*=a b'] },
    { providers: ['custom:vc-*=config,value,config'] },
    { providers: ['vcluster', 'k3k', 'vcluster'] },
    { secretNamePattern: 'x[' },
    { secretKey: 'a/b' },
    { providers: ['vcluster'], secretNamePattern: 'vc-*', secretKey: 'config' },
    { providers: ['vcluster', 'k3k'], secretNamePattern: 'vc-[' },
    { providers: ['vcluster'], secretKey: 'config' },
  ])('%j', async (values) => {
    const said = await cliSays(values);
    expect(said[0], said.join('\n')).toMatch(/^error: --[a-z-]+ "/);
    // `error: --flag "value": message` → the message.
    const [, value, message] =
      /^error: --[a-z-]+ ("(?:[^"\\]|\\.)*"): (.*)$/.exec(said[0] ?? '') ?? [];
    const [key] = Object.keys(values);
    const rendered = await template(values);
    expect(rendered.code).not.toBe(0);
    // Each surface names the other settings in its own vocabulary: the CLI flags, the chart
    // values (core's messages take a namer).
    const inChartTerms = (message ?? '').replace(
      /--([a-z-]+)/g,
      (flag, name: string) => SETTINGS.find((s) => s.name === name)?.chart?.value ?? flag,
    );
    expect(rendered.stderr).toContain(`values: ${key ?? ''} ${value ?? ''}: ${inChartTerms}`);
  });

  test('execCredentials without a provider that allows exec: the CLI warns, the chart refuses', async () => {
    const said = await cliSays({ execCredentials: true, providers: ['k3k'] });
    const warning = said
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level?: string; msg?: string })
      .find((entry) => entry.level === 'warn')?.msg;
    expect(warning).toContain('no provider allows exec translation');
    for (const values of [
      { execCredentials: true },
      { execCredentials: true, providers: ['k3k'] },
    ]) {
      const rendered = await template(values);
      expect(rendered.code).not.toBe(0);
      expect(rendered.stderr).toContain(`values: ${warning ?? ''}`);
    }
  });

  test('what the CLI accepts renders', async () => {
    const values: Values = {
      interval: '1m30s',
      demotedTTL: 0,
      credentialRefreshWindow: '1.5h',
      labelPrefix: 'registrar.example.com/',
      managedBy: 'Team_A.prod',
      execCredentials: true,
      providers: [
        'kamaji',
        'custom:*-kubeconfig=value,config',
        'custom:k3k-[^x]\\-*=kubeconfig.yaml;exec',
        'capa-eks',
      ],
    };
    const said = await cliSays(values);
    // Past the settings, the CLI gets as far as the (absent) kubeconfig.
    expect(said.join('\n')).not.toMatch(/error: --/);
    expect(said.join('\n')).toContain('/nonexistent');
    const rendered = await template(values);
    expect(rendered.code, rendered.stderr).toBe(0);
  });
});
