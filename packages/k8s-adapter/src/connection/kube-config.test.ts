// The kubeconfig loader against kubectl, as one table: each case is a set of files, an
// environment and flags, the outcome kubectl (client-go) gives for them, and what the loader
// must give. No server is needed: the outcome is what the first request would carry.
// kube-access.test.ts and the e2e tests reach the real API server with it.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CA_CERT_PEM,
  CLIENT_CERT_PEM,
  CLIENT_KEY_PEM,
} from '../../../core/src/test-fixtures/certificates.js';
import { loadKubeCluster } from './kube-config.js';
import type { KubeconfigChoice } from './kube-config.js';
import { TOKEN_FILE_MAX_AGE_MS, tokenFileSource } from './kube-credentials.js';

const V1 = 'client.authentication.k8s.io/v1';
const b64 = (text: string): string => Buffer.from(text).toString('base64');
const basic = (user: string, password: string): string => `Basic ${b64(`${user}:${password}`)}`;

type Entry = Record<string, unknown>;
/** A kubeconfig with one context `name` on cluster and user `name`. */
function kubeconfig(
  name: string,
  cluster: Entry,
  user: Entry | null,
  current: string | null = name,
): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    ...(current !== null ? { 'current-context': current } : {}),
    clusters: [{ name, cluster }],
    users: user === null ? [] : [{ name, user }],
    contexts: [{ name, context: { cluster: name, ...(user === null ? {} : { user: name }) } }],
  });
}
const S = { server: 'https://k.example:6443' };

/** What one case expects: an error, or what the first request carries. */
interface Outcome {
  readonly error?: RegExp;
  readonly source?: string | RegExp;
  readonly server?: string;
  readonly headers?: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly ca?: string | null;
  readonly cert?: string | null;
  readonly proxy?: string | null;
  readonly tlsServerName?: string;
  readonly insecure?: boolean;
}

interface Case {
  readonly name: string;
  /** What kubectl does with the same input. */
  readonly kubectl: string;
  /** Files relative to the case's directory; `$DIR` in a text is replaced by that directory. */
  readonly files?: Readonly<Record<string, string>>;
  readonly env?: Readonly<Record<string, string>>;
  /** Paths relative to the case's directory. */
  readonly choice?: KubeconfigChoice;
  /** Places a service account under the case's directory. */
  readonly inCluster?: {
    readonly host: string;
    readonly port: string;
    readonly ca?: boolean;
    readonly token?: string;
  };
  readonly expect: Outcome;
}

const PLUGIN = [
  '#!/bin/sh',
  `echo '{"apiVersion":"'"$1"'","kind":"ExecCredential","status":{"token":"exec-'"$2"'"}}'`,
  '',
].join('\n');
const exec = (command: string, apiVersion: string, extra: Entry = {}): Entry => ({
  exec: { command, args: [apiVersion, 'tok'], apiVersion, ...extra },
});

const CASES: readonly Case[] = [
  // Loading precedence.
  {
    name: '--kubeconfig beats $KUBECONFIG and the service account',
    kubectl: 'the --kubeconfig file only',
    files: {
      a: kubeconfig('a', { server: 'https://a.example' }, { token: 'a' }),
      b: kubeconfig('b', { server: 'https://b.example' }, { token: 'b' }),
    },
    env: { KUBECONFIG: '$DIR/b' },
    inCluster: { host: '10.0.0.1', port: '443' },
    choice: { kubeconfig: 'a' },
    expect: { server: 'https://a.example', source: /\/a \(context a\)$/ },
  },
  {
    name: '$KUBECONFIG beats the service account',
    kubectl: 'controller-runtime: $KUBECONFIG before in-cluster',
    files: { b: kubeconfig('b', { server: 'https://b.example' }, { token: 'b' }) },
    env: { KUBECONFIG: '$DIR/b' },
    inCluster: { host: '10.0.0.1', port: '443' },
    expect: { server: 'https://b.example', headers: { Authorization: 'Bearer b' } },
  },
  {
    name: 'the service account beats ~/.kube/config',
    kubectl: 'controller-runtime: in-cluster before the home file',
    files: {
      'home/.kube/config': kubeconfig('h', { server: 'https://h.example' }, { token: 'h' }),
    },
    env: { HOME: '$DIR/home' },
    inCluster: { host: '10.0.0.1', port: '443', token: 'sa' },
    expect: {
      server: 'https://10.0.0.1:443',
      source: 'in-cluster',
      headers: { Authorization: 'Bearer sa' },
    },
  },
  {
    name: '~/.kube/config when nothing else is there',
    kubectl: 'the home file',
    files: {
      'home/.kube/config': kubeconfig('h', { server: 'https://h.example' }, { token: 'h' }),
    },
    env: { HOME: '$DIR/home' },
    expect: { server: 'https://h.example', headers: { Authorization: 'Bearer h' } },
  },
  {
    name: '--context is never dropped for the service account',
    kubectl: 'kubectl: the context from the files (controller-runtime would ignore it in-cluster)',
    files: {
      'home/.kube/config': kubeconfig('h', { server: 'https://h.example' }, { token: 'h' }),
    },
    env: { HOME: '$DIR/home' },
    inCluster: { host: '10.0.0.1', port: '443' },
    choice: { context: 'h' },
    expect: { server: 'https://h.example' },
  },
  {
    name: 'a missing --kubeconfig file',
    kubectl: 'error naming the file',
    choice: { kubeconfig: 'absent' },
    expect: { error: /no kubeconfig found \(tried .*\/absent\)/ },
  },
  {
    name: 'an unknown --context',
    kubectl: 'error: context "nope" does not exist',
    files: { a: kubeconfig('a', S, { token: 'a' }) },
    choice: { kubeconfig: 'a', context: 'nope' },
    expect: { error: /context nope not found/ },
  },
  {
    name: 'no current-context',
    kubectl: 'error: no context chosen',
    files: { a: kubeconfig('a', S, { token: 'a' }, null) },
    choice: { kubeconfig: 'a' },
    expect: { error: /has no current context; pass --context/ },
  },
  {
    name: 'a cluster without a server',
    kubectl: 'error: no server found for cluster',
    files: { a: kubeconfig('a', {}, { token: 'a' }) },
    choice: { kubeconfig: 'a' },
    expect: { error: /cluster a in kubeconfig .* has no server/ },
  },
  // Merging $KUBECONFIG files.
  {
    name: 'the first file to set current-context, a cluster or a user wins; missing files are skipped',
    kubectl: 'first-wins merge',
    files: {
      one: JSON.stringify({
        clusters: [{ name: 'x', cluster: { server: 'https://first.example' } }],
        users: [{ name: 'x', user: { token: 'first' } }],
        contexts: [{ name: 'x', context: { cluster: 'x', user: 'x' } }],
      }),
      two: kubeconfig('x', { server: 'https://second.example' }, { token: 'second' }),
      three: kubeconfig('y', { server: 'https://third.example' }, { token: 'third' }),
    },
    env: { KUBECONFIG: ['$DIR/one', '$DIR/missing', '$DIR/two', '$DIR/three'].join(delimiter) },
    expect: {
      server: 'https://first.example',
      headers: { Authorization: 'Bearer first' },
      source: /one:.*two:.*three \(context x\)$/,
    },
  },
  {
    name: 'a context only a later file names',
    kubectl: 'the merged context',
    files: {
      one: kubeconfig('x', S, { token: 'x' }),
      two: kubeconfig('y', { server: 'https://y.example' }, { token: 'y' }),
    },
    env: { KUBECONFIG: ['$DIR/one', '$DIR/two'].join(delimiter) },
    choice: { context: 'y' },
    expect: { server: 'https://y.example', headers: { Authorization: 'Bearer y' } },
  },
  // Relative paths and file credentials.
  {
    name: 'certificate files relative to the kubeconfig',
    kubectl: 'resolved against the file that names them',
    files: {
      'rel/pki/ca.crt': CA_CERT_PEM,
      'rel/pki/c.crt': CLIENT_CERT_PEM,
      'rel/pki/c.key': CLIENT_KEY_PEM,
      'rel/config': kubeconfig(
        'r',
        { ...S, 'certificate-authority': 'pki/ca.crt' },
        { 'client-certificate': 'pki/c.crt', 'client-key': './pki/c.key' },
      ),
    },
    choice: { kubeconfig: 'rel/config' },
    expect: { ca: CA_CERT_PEM, cert: CLIENT_CERT_PEM, headers: { Authorization: undefined } },
  },
  {
    name: 'a relative tokenFile, trimmed',
    kubectl: 'Bearer with the file content',
    files: { 'tf/token': 'file-token\n', 'tf/config': kubeconfig('t', S, { tokenFile: 'token' }) },
    choice: { kubeconfig: 'tf/config' },
    expect: { headers: { Authorization: 'Bearer file-token' } },
  },
  {
    name: 'tokenFile wins over token',
    kubectl: 'the file, the inline token only while the file cannot be read',
    files: {
      'tw/token': 'from-file',
      'tw/config': kubeconfig('t', S, { token: 'inline', tokenFile: 'token' }),
    },
    choice: { kubeconfig: 'tw/config' },
    expect: { headers: { Authorization: 'Bearer from-file' } },
  },
  {
    name: 'an empty token file',
    kubectl: 'error: read empty token from file',
    files: { 'te/token': '\n', 'te/config': kubeconfig('t', S, { tokenFile: 'token' }) },
    choice: { kubeconfig: 'te/config' },
    expect: { error: /cannot read token file .*te\/token \(empty\)/ },
  },
  {
    name: 'an exec command with a directory part, relative to the kubeconfig',
    kubectl: 'runs bin/plugin beside the file',
    files: { 'ex/bin/plugin': PLUGIN, 'ex/config': kubeconfig('e', S, exec('./bin/plugin', V1)) },
    choice: { kubeconfig: 'ex/config' },
    expect: { headers: { Authorization: 'Bearer exec-tok' } },
  },
  // Each credential form.
  {
    name: 'an inline token',
    kubectl: 'Bearer',
    files: { a: kubeconfig('a', S, { token: 'tkn' }) },
    choice: { kubeconfig: 'a' },
    expect: { headers: { Authorization: 'Bearer tkn' } },
  },
  {
    name: 'username and password',
    kubectl: 'Basic',
    files: { a: kubeconfig('a', S, { username: 'ann', password: 'pw' }) },
    choice: { kubeconfig: 'a' },
    expect: { headers: { Authorization: basic('ann', 'pw') } },
  },
  {
    name: 'username and a token together',
    kubectl: 'error: username/password or bearer token may be set, but not both',
    files: { a: kubeconfig('a', S, { username: 'ann', password: 'pw', token: 't' }) },
    choice: { kubeconfig: 'a' },
    expect: { error: /sets both a username\/password and a bearer token/ },
  },
  {
    name: 'inline client certificate and CA data win over files',
    kubectl: '*-data overrides the file',
    files: {
      a: kubeconfig(
        'a',
        {
          ...S,
          'certificate-authority-data': b64(CA_CERT_PEM),
          'certificate-authority': '/nonexistent/ca',
        },
        {
          'client-certificate-data': b64(CLIENT_CERT_PEM),
          'client-key-data': b64(CLIENT_KEY_PEM),
          'client-certificate': '/nonexistent/c',
        },
      ),
    },
    choice: { kubeconfig: 'a' },
    expect: { ca: CA_CERT_PEM, cert: CLIENT_CERT_PEM },
  },
  {
    name: 'a client certificate without its key',
    kubectl: 'error: client-key-data or client-key must be specified',
    files: { a: kubeconfig('a', S, { 'client-certificate-data': b64(CLIENT_CERT_PEM) }) },
    choice: { kubeconfig: 'a' },
    expect: { error: /has a client certificate without its key/ },
  },
  {
    name: 'an unreadable client key file',
    kubectl: 'error naming the file',
    files: {
      a: kubeconfig('a', S, {
        'client-certificate-data': b64(CLIENT_CERT_PEM),
        'client-key': '/nonexistent/s.key',
      }),
    },
    choice: { kubeconfig: 'a' },
    expect: { error: /cannot read client key file \/nonexistent\/s.key \(ENOENT\)/ },
  },
  {
    name: 'a context without a user',
    kubectl: 'anonymous, with the cluster CA',
    files: { a: kubeconfig('a', { ...S, 'certificate-authority-data': b64(CA_CERT_PEM) }, null) },
    choice: { kubeconfig: 'a' },
    expect: { ca: CA_CERT_PEM, headers: { Authorization: undefined } },
  },
  {
    name: 'an auth-provider client-node has no authenticator for',
    kubectl: 'error: no Auth Provider found for name',
    files: {
      a: kubeconfig('a', S, {
        'auth-provider': { name: 'openstack', config: { secret: 's3cr3t' } },
      }),
    },
    choice: { kubeconfig: 'a' },
    expect: { error: /uses the openstack auth-provider, which is not supported/ },
  },
  // Impersonation.
  {
    name: 'as:',
    kubectl: 'Impersonate-User',
    files: { a: kubeconfig('a', S, { token: 't', as: 'jane' }) },
    choice: { kubeconfig: 'a' },
    expect: { headers: { Authorization: 'Bearer t', 'Impersonate-User': 'jane' } },
  },
  {
    name: 'as-groups, as-uid and as-user-extra',
    kubectl: 'Impersonate-Group (one each), Impersonate-Uid, Impersonate-Extra-<escaped key>',
    files: {
      a: kubeconfig('a', S, {
        token: 't',
        as: 'jane',
        'as-groups': ['dev', 'ops'],
        'as-uid': '42',
        'as-user-extra': { 'acme.com/team': ['red'] },
      }),
    },
    choice: { kubeconfig: 'a' },
    expect: {
      headers: {
        'Impersonate-User': 'jane',
        'Impersonate-Group': ['dev', 'ops'],
        'Impersonate-Uid': '42',
        'Impersonate-Extra-acme.com%2Fteam': ['red'],
      },
    },
  },
  {
    name: 'as-groups without as',
    kubectl: 'the API server refuses groups without a user to impersonate',
    files: { a: kubeconfig('a', S, { token: 't', 'as-groups': ['dev'] }) },
    choice: { kubeconfig: 'a' },
    expect: { error: /sets as-groups, as-uid or as-user-extra without as/ },
  },
  // Proxies.
  {
    name: 'proxy-url',
    kubectl: 'through that proxy',
    files: {
      a: kubeconfig(
        'a',
        { ...S, 'proxy-url': 'http://user:pw@proxy.example:3128' },
        { token: 't' },
      ),
    },
    choice: { kubeconfig: 'a' },
    expect: { proxy: 'http://proxy.example:3128' },
  },
  {
    name: 'HTTPS_PROXY for an https server',
    kubectl: 'through the environment proxy',
    files: { a: kubeconfig('a', S, { token: 't' }) },
    env: { HTTPS_PROXY: 'proxy.example:3128' },
    choice: { kubeconfig: 'a' },
    expect: { proxy: 'http://proxy.example:3128' },
  },
  {
    name: 'NO_PROXY naming the domain',
    kubectl: 'direct',
    files: { a: kubeconfig('a', S, { token: 't' }) },
    env: { HTTPS_PROXY: 'http://proxy.example:3128', NO_PROXY: 'other.example,.example' },
    choice: { kubeconfig: 'a' },
    expect: { proxy: null },
  },
  {
    name: 'NO_PROXY naming a CIDR',
    kubectl: 'direct',
    files: { a: kubeconfig('a', { server: 'https://10.1.2.3:6443' }, { token: 't' }) },
    env: { https_proxy: 'http://proxy.example:3128', no_proxy: '10.0.0.0/8' },
    choice: { kubeconfig: 'a' },
    expect: { proxy: null },
  },
  {
    name: 'a loopback server with HTTPS_PROXY',
    kubectl: 'direct (Go never proxies loopback)',
    files: { a: kubeconfig('a', { server: 'https://127.0.0.1:6443' }, { token: 't' }) },
    env: { HTTPS_PROXY: 'http://proxy.example:3128' },
    choice: { kubeconfig: 'a' },
    expect: { proxy: null },
  },
  {
    name: 'proxy-url beats HTTPS_PROXY',
    kubectl: 'proxy-url',
    files: {
      a: kubeconfig('a', { ...S, 'proxy-url': 'socks5://socks.example:1080' }, { token: 't' }),
    },
    env: { HTTPS_PROXY: 'http://proxy.example:3128' },
    choice: { kubeconfig: 'a' },
    expect: { proxy: 'socks5://socks.example:1080' },
  },
  {
    name: 'HTTP_PROXY is not used for an https server',
    kubectl: 'direct',
    files: { a: kubeconfig('a', S, { token: 't' }) },
    env: { HTTP_PROXY: 'http://proxy.example:3128' },
    choice: { kubeconfig: 'a' },
    expect: { proxy: null },
  },
  // TLS.
  {
    name: 'tls-server-name',
    kubectl: 'verifies the certificate for that name',
    files: {
      a: kubeconfig('a', { ...S, 'tls-server-name': 'kubernetes.default' }, { token: 't' }),
    },
    choice: { kubeconfig: 'a' },
    expect: { tlsServerName: 'kubernetes.default', insecure: false },
  },
  {
    name: 'insecure-skip-tls-verify',
    kubectl: 'no verification',
    files: { a: kubeconfig('a', { ...S, 'insecure-skip-tls-verify': true }, { token: 't' }) },
    choice: { kubeconfig: 'a' },
    expect: { insecure: true, ca: null },
  },
  {
    name: 'insecure-skip-tls-verify together with a CA',
    kubectl: 'error: specifying a root certificates file with the insecure flag is not allowed',
    files: {
      a: kubeconfig(
        'a',
        { ...S, 'insecure-skip-tls-verify': true, 'certificate-authority-data': b64(CA_CERT_PEM) },
        { token: 't' },
      ),
    },
    choice: { kubeconfig: 'a' },
    expect: { error: /insecure-skip-tls-verify together with a certificate authority/ },
  },
  {
    name: 'a server without a scheme, with a CA',
    kubectl: 'https:// (TLS is configured)',
    files: {
      a: kubeconfig(
        'a',
        { server: '10.0.0.9:6443', 'certificate-authority-data': b64(CA_CERT_PEM) },
        { token: 't' },
      ),
    },
    choice: { kubeconfig: 'a' },
    expect: { server: 'https://10.0.0.9:6443' },
  },
  {
    name: 'a server without a scheme and no TLS settings',
    kubectl: 'http://',
    files: { a: kubeconfig('a', { server: 'localhost:8080' }, null) },
    choice: { kubeconfig: 'a' },
    expect: { server: 'http://localhost:8080' },
  },
  // Exec plugins.
  {
    name: 'exec v1',
    kubectl: 'the plugin token',
    files: { bin: PLUGIN, a: kubeconfig('a', S, exec('$DIR/bin', V1)) },
    choice: { kubeconfig: 'a' },
    expect: { headers: { Authorization: 'Bearer exec-tok' } },
  },
  {
    name: 'exec v1beta1',
    kubectl: 'the plugin token',
    files: {
      bin: PLUGIN,
      a: kubeconfig('a', S, exec('$DIR/bin', 'client.authentication.k8s.io/v1beta1')),
    },
    choice: { kubeconfig: 'a' },
    expect: { headers: { Authorization: 'Bearer exec-tok' } },
  },
  {
    name: 'exec v1alpha1',
    kubectl: 'error: no longer supported',
    files: { a: kubeconfig('a', S, exec('get-token', 'client.authentication.k8s.io/v1alpha1')) },
    choice: { kubeconfig: 'a' },
    expect: { error: /asks for apiVersion client.authentication.k8s.io\/v1alpha1/ },
  },
  {
    name: 'exec that needs a terminal',
    kubectl: 'error without a terminal (interactiveMode: Always)',
    files: { a: kubeconfig('a', S, exec('get-token', V1, { interactiveMode: 'Always' })) },
    choice: { kubeconfig: 'a' },
    expect: { error: /needs a terminal/ },
  },
  // In-cluster.
  {
    name: 'in-cluster: IPv6 service host, ca.crt and the token file',
    kubectl: 'https://[host]:port, the service account token',
    inCluster: { host: 'fd00:10::1', port: '6443', ca: true, token: 'sa-1' },
    expect: {
      server: 'https://[fd00:10::1]:6443',
      ca: CA_CERT_PEM,
      headers: { Authorization: 'Bearer sa-1' },
      source: 'in-cluster',
    },
  },
  {
    name: 'in-cluster on port 8080, without ca.crt',
    kubectl: 'still https, with the system roots',
    inCluster: { host: '10.0.0.1', port: '8080', ca: false },
    expect: { server: 'https://10.0.0.1:8080', ca: null },
  },
];

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'acr-kubeconfig-table-'));
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const SA = 'var/run/secrets/kubernetes.io/serviceaccount';
const PROXY_VARS = [
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'NO_PROXY',
  'no_proxy',
];

describe('kubeconfig conformance with kubectl', () => {
  it.each(CASES.map((c, i) => [c.name, c, i] as const))('%s', async (_name, c, i) => {
    const dir = join(root, String(i));
    const put = (path: string, text: string): void => {
      const full = join(dir, path);
      mkdirSync(join(full, '..'), { recursive: true });
      writeFileSync(full, text.replaceAll('$DIR', dir));
      if (text.startsWith('#!')) chmodSync(full, 0o755);
    };
    for (const [path, text] of Object.entries(c.files ?? {})) put(path, text);
    for (const name of [
      ...PROXY_VARS,
      'KUBECONFIG',
      'KUBERNETES_SERVICE_HOST',
      'KUBERNETES_SERVICE_PORT',
    ])
      vi.stubEnv(name, '');
    vi.stubEnv('HOME', join(dir, 'no-home'));
    for (const [name, value] of Object.entries(c.env ?? {}))
      vi.stubEnv(name, value.replaceAll('$DIR', dir));
    if (c.inCluster !== undefined) {
      vi.stubEnv('KUBERNETES_SERVICE_HOST', c.inCluster.host);
      vi.stubEnv('KUBERNETES_SERVICE_PORT', c.inCluster.port);
      put(`${SA}/token`, c.inCluster.token ?? 'sa');
      if (c.inCluster.ca !== false) put(`${SA}/ca.crt`, CA_CERT_PEM);
    }
    const choice: KubeconfigChoice = {
      ...(c.choice?.kubeconfig !== undefined ? { kubeconfig: join(dir, c.choice.kubeconfig) } : {}),
      ...(c.choice?.context !== undefined ? { context: c.choice.context } : {}),
    };
    const load = async () => {
      const { cluster, source } = loadKubeCluster(choice, { pathPrefix: dir });
      return { cluster, source, credential: await cluster.credentials.current() };
    };
    const want = c.expect;
    if (want.error !== undefined) {
      await expect(load()).rejects.toThrow(want.error);
      return;
    }
    const { cluster, source, credential } = await load();
    if (want.source !== undefined)
      if (typeof want.source === 'string') expect(source).toBe(want.source);
      else expect(source).toMatch(want.source);
    if (want.server !== undefined) expect(cluster.server).toBe(want.server);
    for (const [name, value] of Object.entries(want.headers ?? {}))
      expect(credential.headers[name], name).toEqual(value);
    if (want.ca !== undefined) expect(credential.ca?.toString() ?? null).toBe(want.ca);
    if (want.cert !== undefined) expect(credential.cert?.toString() ?? null).toBe(want.cert);
    if (want.proxy !== undefined) expect(cluster.proxy ?? null).toBe(want.proxy);
    if (want.tlsServerName !== undefined) expect(cluster.tlsServerName).toBe(want.tlsServerName);
    if (want.insecure !== undefined) expect(cluster.insecureSkipTlsVerify).toBe(want.insecure);
  });

  it('has a case for each area kubectl users rely on', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });
});

describe('token files', () => {
  it('re-reads a token file once the last read is a minute old, as client-go does', () => {
    const path = join(root, 'rotating-token');
    writeFileSync(path, 'one');
    let now = 1_000_000;
    const source = tokenFileSource(path, undefined, () => now);
    expect(source.token()).toBe('one');
    writeFileSync(path, 'two'); // the kubelet rotated it
    now += TOKEN_FILE_MAX_AGE_MS - 1;
    expect(source.token()).toBe('one');
    now += 1;
    expect(source.token()).toBe('two');
  });

  it('looks again at once after a 401, and keeps the last token while the file is empty or unreadable', () => {
    const path = join(root, 'rejected-token');
    writeFileSync(path, 'old');
    const source = tokenFileSource(path, undefined, () => 5_000);
    writeFileSync(path, 'new');
    source.rejected();
    expect(source.token()).toBe('new');
    writeFileSync(path, '');
    source.rejected();
    expect(source.token()).toBe('new');
    expect(tokenFileSource(join(root, 'absent'), 'inline', () => 0).token()).toBe('inline');
  });
});
