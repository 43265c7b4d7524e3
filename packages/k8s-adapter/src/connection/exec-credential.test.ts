// Exec credential plugins, run for real: a small Node script stands in for
// gke-gcloud-auth-plugin or kubelogin, counting its runs in a file.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createExecPlugin, readCredential } from './exec-credential.js';
import type { ExecPluginOptions } from './exec-credential.js';
import { kubeClusterFromText } from './kube-config.js';
import type { ExecConfig } from './kubeconfig-files.js';

const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';

let dir: string;
let plugin: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'acr-exec-'));
  plugin = join(dir, 'plugin.mjs');
  writeFileSync(
    plugin,
    [
      "import { readFileSync, writeFileSync } from 'node:fs';",
      'const env = process.env;',
      "let count = 0; try { count = Number(readFileSync(env.COUNT_FILE, 'utf8')); } catch {}",
      'count += 1; writeFileSync(env.COUNT_FILE, String(count));',
      "if (env.INFO_FILE) writeFileSync(env.INFO_FILE, env.KUBERNETES_EXEC_INFO ?? '');",
      'if (env.HANG) setInterval(() => {}, 1000);',
      "else if (env.FAIL) { process.stdout.write('tok-s3cr3t'); process.stderr.write('plugin: login expired\\n'); process.exit(3); }",
      'else process.stdout.write(JSON.stringify({',
      "  apiVersion: env.ANSWER_VERSION ?? process.argv[2], kind: 'ExecCredential',",
      '  status: { token: `tok-${count}`, ...(env.EXPIRES ? { expirationTimestamp: env.EXPIRES } : {}) },',
      '}));',
    ].join('\n'),
  );
});

let runs = 0;
function config(apiVersion: string, env: Record<string, string> = {}): ExecConfig {
  runs += 1;
  const countFile = join(dir, `count-${runs}`);
  return {
    command: process.execPath,
    args: [plugin, apiVersion],
    apiVersion,
    env: Object.entries({ COUNT_FILE: countFile, ...env }).map(([name, value]) => ({
      name,
      value,
    })),
  };
}
const runsOf = (exec: ExecConfig): number => {
  const file = exec.env?.find((e) => e.name === 'COUNT_FILE')?.value ?? '';
  try {
    return Number(readFileSync(file, 'utf8'));
  } catch {
    return 0;
  }
};

async function failureOf(exec: ExecConfig, options: ExecPluginOptions = {}): Promise<string> {
  try {
    await createExecPlugin(exec, 'u', options).get();
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  return 'no failure';
}

describe('exec credential plugins', () => {
  it('runs the plugin once and keeps its credential until its expirationTimestamp', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const exec = config(V1, { EXPIRES: '2026-01-01T00:10:00Z' });
    const credentials = createExecPlugin(exec, 'u', { now: () => now });
    const [a, b] = await Promise.all([credentials.get(), credentials.get()]);
    expect(a.token).toBe('tok-1');
    expect(b).toBe(a);
    now = Date.parse('2026-01-01T00:09:59Z');
    expect((await credentials.get()).token).toBe('tok-1');
    expect(runsOf(exec)).toBe(1);
    now = Date.parse('2026-01-01T00:10:00Z');
    expect((await credentials.get()).token).toBe('tok-2');
    expect(runsOf(exec)).toBe(2);
  });

  it('drops the credential the API server rejected (401), and only that one', async () => {
    const exec = config(V1BETA1);
    const credentials = createExecPlugin(exec, 'u');
    const first = await credentials.get();
    credentials.rejected({ token: 'some other' });
    expect(await credentials.get()).toBe(first);
    credentials.rejected(first);
    expect((await credentials.get()).token).toBe('tok-2');
  });

  it('passes env and, with provideClusterInfo, the cluster in KUBERNETES_EXEC_INFO', async () => {
    const infoFile = join(dir, 'info.json');
    const text = JSON.stringify({
      'current-context': 'c',
      clusters: [
        {
          name: 'c',
          cluster: {
            server: 'https://c.example:6443',
            'tls-server-name': 'api.c',
            extensions: [
              { name: 'client.authentication.k8s.io/exec', extension: { audience: 'x' } },
            ],
          },
        },
      ],
      users: [
        {
          name: 'u',
          user: { exec: { ...config(V1, { INFO_FILE: infoFile }), provideClusterInfo: true } },
        },
      ],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    });
    const cluster = kubeClusterFromText(text);
    expect((await cluster.credentials.current()).headers['Authorization']).toBe('Bearer tok-1');
    expect(JSON.parse(readFileSync(infoFile, 'utf8'))).toEqual({
      apiVersion: V1,
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        cluster: {
          server: 'https://c.example:6443',
          'tls-server-name': 'api.c',
          config: { audience: 'x' },
        },
      },
    });
  });

  it('names the command when the plugin fails, never what it printed', async () => {
    const message = await failureOf(config(V1, { FAIL: '1' }));
    expect(message).toBe(`exec plugin ${process.execPath} (user u) exited with status 3`);
    expect(message).not.toContain('s3cr3t');
    expect(
      await failureOf({
        command: join(dir, 'absent-plugin'),
        apiVersion: V1,
        installHint: 'install it',
      }),
    ).toBe(
      `exec plugin ${join(dir, 'absent-plugin')} (user u) could not be started (ENOENT); install it`,
    );
    expect(await failureOf(config(V1, { ANSWER_VERSION: V1BETA1 }))).toBe(
      `exec plugin ${process.execPath} (user u) answered with apiVersion ${V1BETA1}, but the kubeconfig asks for ${V1}`,
    );
  });

  it('kills a plugin that does not answer in time', async () => {
    const exec = config(V1, { HANG: '1' });
    expect(await failureOf(exec, { timeoutMs: 300 })).toBe(
      `exec plugin ${process.execPath} (user u) did not answer within 0.3 s and was killed`,
    );
  });

  it('reads a client certificate answer and refuses half of one', () => {
    const answer = (status: Record<string, unknown>): string =>
      JSON.stringify({ apiVersion: V1, kind: 'ExecCredential', status });
    expect(readCredential(answer({ clientCertificateData: 'C', clientKeyData: 'K' }), V1)).toEqual({
      clientCertificateData: 'C',
      clientKeyData: 'K',
    });
    expect(() => readCredential(answer({ clientCertificateData: 'C' }), V1)).toThrow(
      /without its key/,
    );
    expect(() => readCredential(answer({}), V1)).toThrow(
      /neither a token nor a client certificate/,
    );
    expect(() => readCredential('tok-s3cr3t', V1)).toThrow(/not JSON/);
  });
});
