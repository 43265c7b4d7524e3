// The kubeconfig loader on its own: files, merge order, in-cluster, credentials and
// refusals. No server is needed; kube-access.test.ts reaches the real API server with it.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CA_CERT_PEM,
  CLIENT_CERT_PEM,
  CLIENT_KEY_PEM,
} from '../../core/src/test-fixtures/certificates.js';
import { kubeClusterFromText, loadKubeCluster } from './kube-config.js';
import { TOKEN_FILE_MAX_AGE_MS, tokenFileCredentials } from './kube-credentials.js';

let dir: string;
const NOWHERE = { serviceHost: '', tokenPath: '/nonexistent' };
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'acr-kube-config-'));
});
afterEach(() => {
  vi.unstubAllEnvs();
});

function write(path: string, text: string): string {
  const full = join(dir, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, text);
  return full;
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');

/** A kubeconfig with one context `name` pointing at cluster and user `name`. */
function kubeconfig(
  name: string,
  cluster: Record<string, unknown>,
  user: Record<string, unknown>,
  current: string | null = name,
): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    ...(current !== null ? { 'current-context': current } : {}),
    clusters: [{ name, cluster }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name } }],
  });
}

describe('kubeconfig files', () => {
  it("resolves relative file paths against the kubeconfig's own directory", async () => {
    write('rel/pki/ca.crt', CA_CERT_PEM);
    write('rel/pki/client.crt', CLIENT_CERT_PEM);
    write('rel/pki/client.key', CLIENT_KEY_PEM);
    write('rel/token', 'file-token\n');
    const path = write(
      'rel/config',
      [
        'apiVersion: v1',
        'current-context: c',
        'clusters: [{name: c, cluster: {server: "https://10.1.2.3:6443/", certificate-authority: pki/ca.crt}}]',
        'users: [{name: u, user: {client-certificate: pki/client.crt, client-key: ./pki/client.key, tokenFile: token}}]',
        'contexts: [{name: c, context: {cluster: c, user: u}}]',
      ].join('\n'),
    );
    const { cluster, source } = loadKubeCluster({ kubeconfig: path }, NOWHERE);
    expect(source).toBe(`${path} (context c)`);
    expect(cluster.server).toBe('https://10.1.2.3:6443');
    expect(cluster.ca?.toString()).toBe(CA_CERT_PEM);
    const credential = await cluster.credentials.current();
    expect(credential.cert?.toString()).toBe(CLIENT_CERT_PEM);
    expect(credential.key?.toString()).toBe(CLIENT_KEY_PEM);
    expect(credential.authorization).toBe('Bearer file-token');
  });

  it('prefers inline data over files, and reads TLS options', async () => {
    const cluster = kubeClusterFromText(
      kubeconfig(
        'x',
        {
          server: 'https://x.example',
          'certificate-authority-data': b64(CA_CERT_PEM),
          'certificate-authority': '/nonexistent/ca.crt',
          'insecure-skip-tls-verify': true,
          'tls-server-name': 'kubernetes.default',
        },
        { username: 'ann', password: 'pw' },
      ),
    );
    expect(cluster.ca?.toString()).toBe(CA_CERT_PEM);
    expect(cluster.insecureSkipTlsVerify).toBe(true);
    expect(cluster.tlsServerName).toBe('kubernetes.default');
    expect((await cluster.credentials.current()).authorization).toBe(`Basic ${b64('ann:pw')}`);
  });

  it('merges $KUBECONFIG files as kubectl does: the first to set a value wins', () => {
    const first = write(
      'merge/first',
      JSON.stringify({
        clusters: [{ name: 'shared', cluster: { server: 'https://first.example' } }],
        users: [{ name: 'shared', user: { token: 'a' } }],
        contexts: [{ name: 'shared', context: { cluster: 'shared', user: 'shared' } }],
      }),
    );
    const second = write(
      'merge/second',
      kubeconfig('shared', { server: 'https://second.example' }, { token: 'b' }),
    );
    const third = write(
      'merge/third',
      kubeconfig('only-third', { server: 'https://third.example' }, {}, 'only-third'),
    );
    vi.stubEnv('KUBECONFIG', [first, join(dir, 'merge/missing'), second, third].join(delimiter));
    // current-context comes from the second file (the first sets none), the cluster from the first.
    const merged = loadKubeCluster({}, NOWHERE);
    expect(merged.cluster.server).toBe('https://first.example');
    expect(merged.source).toBe(`${[first, second, third].join(delimiter)} (context shared)`);
    expect(loadKubeCluster({ context: 'only-third' }, NOWHERE).cluster.server).toBe(
      'https://third.example',
    );
  });

  it('names the problem, and the file, without quoting it', () => {
    expect(() => kubeClusterFromText(kubeconfig('x', {}, {}, null))).toThrow(
      'the kubeconfig has no current context; pass --context',
    );
    expect(() => kubeClusterFromText(kubeconfig('x', {}, {}))).toThrow(
      'cluster x in the kubeconfig has no server',
    );
    const missingKey = kubeconfig(
      'x',
      { server: 'https://x.example' },
      { 'client-certificate-data': b64(CLIENT_CERT_PEM), 'client-key': '/nonexistent/s3cr3t.key' },
    );
    expect(() => kubeClusterFromText(missingKey)).toThrow(
      'cannot read client key file /nonexistent/s3cr3t.key (ENOENT)',
    );
    const noToken = kubeconfig(
      'x',
      { server: 'https://x.example' },
      { tokenFile: '/nonexistent/t' },
    );
    expect(() => kubeClusterFromText(noToken)).toThrow(
      'cannot read token file /nonexistent/t (ENOENT)',
    );
  });
});

describe('refusals', () => {
  it('refuses a legacy auth-provider, and says to use an exec plugin', () => {
    const text = kubeconfig(
      'gke',
      { server: 'https://gke.example' },
      { 'auth-provider': { name: 'gcp', config: { 'access-token': 's3cr3t' } } },
    );
    let message = '';
    try {
      kubeClusterFromText(text);
    } catch (err) {
      message = err instanceof Error ? err.message : String(err);
    }
    expect(message).toContain('user gke in the kubeconfig uses the gcp auth-provider');
    expect(message).toContain('exec credential plugin');
    expect(message).toContain('gke-gcloud-auth-plugin');
    expect(message).toContain('kubelogin');
    expect(message).not.toContain('s3cr3t');
  });

  it('refuses proxy-url rather than ignoring it', () => {
    const text = kubeconfig(
      'p',
      { server: 'https://p.example', 'proxy-url': 'http://proxy:3128' },
      {},
    );
    expect(() => kubeClusterFromText(text)).toThrow(
      /cluster p in the kubeconfig sets proxy-url, which is not supported/,
    );
  });

  it('refuses an exec plugin API version it does not speak, or one that needs a terminal', () => {
    const exec = (extra: Record<string, unknown>): string =>
      kubeconfig(
        'e',
        { server: 'https://e.example' },
        { exec: { command: 'get-token', ...extra } },
      );
    expect(() =>
      kubeClusterFromText(exec({ apiVersion: 'client.authentication.k8s.io/v1alpha1' })),
    ).toThrow(
      /exec plugin get-token \(user e\) asks for apiVersion client.authentication.k8s.io\/v1alpha1/,
    );
    expect(() =>
      kubeClusterFromText(
        exec({ apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Always' }),
      ),
    ).toThrow(/needs a terminal/);
  });
});

describe('in-cluster', () => {
  it('uses the service host and port (IPv6 in brackets), ca.crt beside the token, and the token', async () => {
    const token = write('sa/token', 'sa-token-1');
    write('sa/ca.crt', CA_CERT_PEM);
    const { cluster, source } = loadKubeCluster(
      {},
      { serviceHost: 'fd00:10::1', servicePort: '6443', tokenPath: token },
    );
    expect(source).toBe('in-cluster');
    expect(cluster.server).toBe('https://[fd00:10::1]:6443');
    expect(cluster.ca?.toString()).toBe(CA_CERT_PEM);
    expect((await cluster.credentials.current()).authorization).toBe('Bearer sa-token-1');
    expect(loadKubeCluster({}, { serviceHost: '10.0.0.1', tokenPath: token }).cluster.server).toBe(
      'https://10.0.0.1:443',
    );
  });
});

describe('token files', () => {
  it('re-reads a token file once the last read is a minute old, as client-go does', async () => {
    const path = write('rotating/token', 'one');
    let now = 1_000_000;
    const credentials = tokenFileCredentials(path, undefined, {}, () => now);
    expect((await credentials.current()).authorization).toBe('Bearer one');
    write('rotating/token', 'two'); // the kubelet rotated it
    now += TOKEN_FILE_MAX_AGE_MS - 1;
    expect((await credentials.current()).authorization).toBe('Bearer one');
    now += 1;
    expect((await credentials.current()).authorization).toBe('Bearer two');
  });

  it('looks again at once after a 401, and keeps the last token while the file is unreadable', async () => {
    const path = write('rejected/token', 'old');
    const now = 5_000;
    const credentials = tokenFileCredentials(path, undefined, {}, () => now);
    const used = await credentials.current();
    write('rejected/token', 'new');
    credentials.rejected(used);
    expect((await credentials.current()).authorization).toBe('Bearer new');
    const inline = tokenFileCredentials(join(dir, 'rejected/absent'), 'inline', {}, () => now);
    expect((await inline.current()).authorization).toBe('Bearer inline');
  });
});
