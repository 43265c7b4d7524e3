import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { RefusalCode, TranslationResult } from '../common/types.js';
import { translateKubeconfig } from './kubeconfig.js';
import type { TranslateContext } from './kubeconfig.js';
import { PROVIDER_PRESETS } from '../config/provider-presets.js';
import { argoConfigProblems } from '../test-fixtures/argo-config-check.js';
import {
  kubeconfigClusterFieldsArb,
  kubeconfigObjectArb,
  kubeconfigUserFieldsArb,
  translateContextArb,
  usableKubeconfigObjectArb,
} from '../test-support/arbitraries.js';
import {
  CA_CERT_PEM,
  CA_ISSUER,
  CA_KEY_PEM,
  CLIENT_CERT_PEM,
  CLIENT_KEY_PEM,
  CLIENT_NOT_AFTER,
  OTHER_CA_CERT_PEM,
  RSA_TRADITIONAL_KEY_PEM,
} from '../test-fixtures/certificates.js';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
const CA = b64(CA_CERT_PEM);
const CERT = b64(CLIENT_CERT_PEM);
const KEY = b64(CLIENT_KEY_PEM);
const SERVER = 'https://k3k-a-service.k3k-a:443';

const K3K: TranslateContext = {
  namespace: 'k3k-a',
  secret: 'k3k-a-kubeconfig',
  key: 'kubeconfig.yaml',
  provider: PROVIDER_PRESETS.k3k,
};
const WHERE = 'namespace k3k-a, Secret k3k-a-kubeconfig key kubeconfig.yaml: ';

type Fields = Record<string, unknown>;

/** A one-cluster kubeconfig as k3k writes it; tests state only what differs. */
function kubeconfig(options: { cluster?: Fields; user?: Fields; root?: Fields } = {}): string {
  const cluster = { server: SERVER, 'certificate-authority-data': CA, ...options.cluster };
  const user = { 'client-certificate-data': CERT, 'client-key-data': KEY, ...options.user };
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'default', cluster: dropUndefined(cluster) }],
    users: [{ name: 'default', user: dropUndefined(user) }],
    contexts: [{ name: 'default', context: { cluster: 'default', user: 'default' } }],
    'current-context': 'default',
    ...options.root,
  });
}

function dropUndefined(fields: Fields): Fields {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function translated(result: TranslationResult) {
  if (!result.ok)
    throw new Error(
      `expected a translation, got ${result.refusal.code}: ${result.refusal.message}`,
    );
  expect(argoConfigProblems(result.translation.server, result.translation.config)).toEqual([]);
  return result.translation;
}

function refused(result: TranslationResult, code: RefusalCode): string {
  if (result.ok) throw new Error(`expected refusal ${code}, got a translation`);
  expect(result.refusal.code).toBe(code);
  expect(
    result.refusal.message.startsWith(WHERE) || result.refusal.message.startsWith('namespace '),
  ).toBe(true);
  return result.refusal.message;
}

describe('translateKubeconfig: a clean k3k kubeconfig', () => {
  it('translates server, CA and client certificate', () => {
    const translation = translated(translateKubeconfig(kubeconfig(), K3K));
    expect(translation).toEqual({
      server: SERVER,
      config: { tlsClientConfig: { insecure: false, caData: CA, certData: CERT, keyData: KEY } },
      warnings: [],
      credential: 'client-certificate',
      clientCertificate: { issuer: CA_ISSUER, notAfter: CLIENT_NOT_AFTER },
    });
  });

  it('keeps tlsClientConfig keys in a fixed order', () => {
    const translation = translated(
      translateKubeconfig(
        kubeconfig({
          cluster: { 'tls-server-name': 'api.child', 'proxy-url': 'http://proxy:3128' },
        }),
        K3K,
      ),
    );
    expect(JSON.stringify(translation.config)).toBe(
      JSON.stringify({
        tlsClientConfig: {
          insecure: false,
          serverName: 'api.child',
          caData: CA,
          certData: CERT,
          keyData: KEY,
        },
        proxyUrl: 'http://proxy:3128',
      }),
    );
  });

  it('removes trailing slashes from the server', () => {
    expect(
      translated(
        translateKubeconfig(kubeconfig({ cluster: { server: 'https://api.child:6443//' } }), K3K),
      ).server,
    ).toBe('https://api.child:6443');
  });

  it('keeps the server otherwise as written', () => {
    expect(
      translated(
        translateKubeconfig(kubeconfig({ cluster: { server: 'https://API.child:443' } }), K3K),
      ).server,
    ).toBe('https://API.child:443');
  });

  it('accepts base64 wrapped over lines (Go skips CR and LF) and re-emits it canonically', () => {
    const wrapped = CA.replace(/(.{64})/g, '$1\n');
    expect(wrapped).toContain('\n');
    expect(
      translated(
        translateKubeconfig(
          kubeconfig({ cluster: { 'certificate-authority-data': wrapped } }),
          K3K,
        ),
      ).config.tlsClientConfig.caData,
    ).toBe(CA);
  });

  it('accepts a CA bundle of several certificates', () => {
    const bundle = b64(`${CA_CERT_PEM}\n${OTHER_CA_CERT_PEM}`);
    expect(
      translated(
        translateKubeconfig(kubeconfig({ cluster: { 'certificate-authority-data': bundle } }), K3K),
      ).config.tlsClientConfig.caData,
    ).toBe(bundle);
  });

  it('works without a CA (system roots)', () => {
    expect(
      translated(
        translateKubeconfig(
          kubeconfig({ cluster: { 'certificate-authority-data': undefined } }),
          K3K,
        ),
      ).config.tlsClientConfig,
    ).toEqual({
      insecure: false,
      certData: CERT,
      keyData: KEY,
    });
  });

  it('accepts a traditional RSA key', () => {
    const key = b64(RSA_TRADITIONAL_KEY_PEM);
    expect(
      translated(translateKubeconfig(kubeconfig({ user: { 'client-key-data': key } }), K3K)).config
        .tlsClientConfig.keyData,
    ).toBe(key);
  });

  it('accepts an SEC1 EC key', () => {
    translated(
      translateKubeconfig(kubeconfig({ user: { 'client-key-data': b64(CA_KEY_PEM) } }), K3K),
    );
  });

  it('parses JSON kubeconfigs', () => {
    const json = JSON.stringify({
      clusters: [{ name: 'c', cluster: { server: SERVER } }],
      users: [{ name: 'u', user: { token: 'abc' } }],
    });
    expect(translated(translateKubeconfig(json, K3K)).config).toEqual({
      bearerToken: 'abc',
      tlsClientConfig: { insecure: false },
    });
  });

  it('ignores fields ArgoCD has no use for', () => {
    const text = kubeconfig({
      cluster: { extensions: [{ name: 'x', extension: {} }], 'disable-compression': true },
      root: { preferences: {} },
    });
    translated(translateKubeconfig(text, K3K));
  });
});

describe('context choice', () => {
  const cluster = (name: string, server: string) => ({ name, cluster: { server } });
  const user = (name: string, token: string) => ({ name, user: { token } });
  const context = (name: string, clusterName: string, userName: string) => ({
    name,
    context: { cluster: clusterName, user: userName },
  });

  it('uses the only cluster and user even without contexts or current-context', () => {
    const text = stringify({ clusters: [cluster('c', 'https://a')], users: [user('u', 't')] });
    expect(translated(translateKubeconfig(text, K3K)).server).toBe('https://a');
  });

  it('uses the only pair when current-context dangles, with a warning naming the dangling name', () => {
    const text = stringify({
      clusters: [cluster('c', 'https://a')],
      users: [user('u', 't')],
      'current-context': 'gone',
    });
    const translation = translated(translateKubeconfig(text, K3K));
    expect(translation.server).toBe('https://a');
    expect(translation.warnings).toEqual([
      {
        code: 'current-context-dangling',
        namespace: 'k3k-a',
        secret: 'k3k-a-kubeconfig',
        message: `${WHERE}current-context names context "gone", which the kubeconfig does not define; used its only cluster "c" and user "u" (kubectl would refuse this kubeconfig: point current-context at a context for them)`,
      },
    ]);
  });

  it('warns when the only pair is used although current-context names another cluster', () => {
    const text = stringify({
      clusters: [cluster('c', 'https://a')],
      users: [user('u', 't')],
      contexts: [context('x', 'elsewhere', 'u')],
      'current-context': 'x',
    });
    const translation = translated(translateKubeconfig(text, K3K));
    expect(translation.warnings.map((warning) => warning.message)).toEqual([
      `${WHERE}context "x" names cluster "elsewhere", which the kubeconfig does not define; used its only cluster "c" and user "u" (kubectl would refuse this kubeconfig: point current-context at a context for them)`,
    ]);
  });

  it('does not warn when current-context leads to the only pair, or is not set', () => {
    const pair = { clusters: [cluster('c', 'https://a')], users: [user('u', 't')] };
    const followed = stringify({
      ...pair,
      contexts: [context('x', 'c', 'u')],
      'current-context': 'x',
    });
    expect(translated(translateKubeconfig(followed, K3K)).warnings).toEqual([]);
    expect(translated(translateKubeconfig(stringify(pair), K3K)).warnings).toEqual([]);
  });

  it('follows current-context when there are several clusters', () => {
    const text = stringify({
      clusters: [cluster('a', 'https://a'), cluster('b', 'https://b')],
      users: [user('ua', 'ta'), user('ub', 'tb')],
      contexts: [context('ctx-a', 'a', 'ua'), context('ctx-b', 'b', 'ub')],
      'current-context': 'ctx-b',
    });
    const translation = translated(translateKubeconfig(text, K3K));
    expect(translation.server).toBe('https://b');
    expect(translation.config.bearerToken).toBe('tb');
  });

  it('follows current-context with one cluster and two users', () => {
    const text = stringify({
      clusters: [cluster('a', 'https://a')],
      users: [user('ua', 'ta'), user('ub', 'tb')],
      contexts: [context('x', 'a', 'ub')],
      'current-context': 'x',
    });
    expect(translated(translateKubeconfig(text, K3K)).config.bearerToken).toBe('tb');
  });

  it('refuses several clusters without current-context, never guesses', () => {
    const text = stringify({
      clusters: [cluster('a', 'https://a'), cluster('b', 'https://b')],
      users: [user('u', 't')],
      contexts: [context('ctx-a', 'a', 'u')],
    });
    const message = refused(translateKubeconfig(text, K3K), 'kubeconfig-no-context');
    expect(message).toBe(
      `${WHERE}the kubeconfig has 2 clusters and 1 users and no current-context, so there is no way to tell which cluster to register; set current-context, or store a kubeconfig with exactly one cluster and one user`,
    );
  });

  it('refuses a kubeconfig without clusters or users', () => {
    expect(
      refused(
        translateKubeconfig(stringify({ users: [user('u', 't')] }), K3K),
        'kubeconfig-no-context',
      ),
    ).toContain('defines no cluster');
    expect(
      refused(
        translateKubeconfig(stringify({ clusters: [cluster('c', 'https://a')] }), K3K),
        'kubeconfig-no-context',
      ),
    ).toContain('defines no user');
    refused(translateKubeconfig('apiVersion: v1\nkind: Config\n', K3K), 'kubeconfig-no-context');
  });

  it.each([
    [
      'current-context names no context',
      { contexts: [], 'current-context': 'x' },
      'current-context names context "x", which the kubeconfig does not define',
    ],
    [
      'context names a missing cluster',
      { contexts: [context('x', 'nope', 'ua')], 'current-context': 'x' },
      'context "x" names cluster "nope"',
    ],
    [
      'context names a missing user',
      { contexts: [context('x', 'a', 'nope')], 'current-context': 'x' },
      'context "x" names user "nope"',
    ],
    [
      'context without a user',
      { contexts: [{ name: 'x', context: { cluster: 'a' } }], 'current-context': 'x' },
      'names no user',
    ],
    [
      'duplicate contexts',
      { contexts: [context('x', 'a', 'ua'), context('x', 'b', 'ub')], 'current-context': 'x' },
      'defines 2 times',
    ],
  ])('refuses when %s', (_why, extra, expected) => {
    const text = stringify({
      clusters: [cluster('a', 'https://a'), cluster('b', 'https://b')],
      users: [user('ua', 't'), user('ub', 't')],
      ...extra,
    });
    expect(refused(translateKubeconfig(text, K3K), 'kubeconfig-context-dangling')).toContain(
      expected,
    );
  });
});

describe('server rules', () => {
  it('warns that an http:// server gets the credentials unencrypted', () => {
    expect(
      translated(
        translateKubeconfig(kubeconfig({ cluster: { server: 'HTTP://api.child:8080' } }), K3K),
      ).warnings,
    ).toEqual([
      {
        code: 'server-plain-http',
        namespace: 'k3k-a',
        secret: 'k3k-a-kubeconfig',
        message: `${WHERE}cluster "default" has server http://api.child:8080, plain HTTP: ArgoCD will send the credentials and everything it deploys unencrypted, readable and alterable on the way`,
      },
    ]);
  });

  it('refuses a missing server, naming the fix', () => {
    expect(
      refused(
        translateKubeconfig(kubeconfig({ cluster: { server: undefined } }), K3K),
        'server-missing',
      ),
    ).toBe(
      `${WHERE}cluster "default" has no server; set its server to the child API server's https:// address, or set the \`<label-prefix>server\` namespace annotation`,
    );
  });

  it.each([
    'api.child:6443',
    'ftp://api.child',
    'https://',
    'https://user:pw@api.child',
    'https://api.child?x=1',
  ])('refuses invalid server %j', (server) => {
    const message = refused(
      translateKubeconfig(kubeconfig({ cluster: { server } }), K3K),
      'server-invalid',
    );
    expect(message).not.toContain('pw@');
  });

  it.each([
    'https://kubernetes.default.svc',
    'https://KUBERNETES.default.svc.cluster.local.:443',
    'https://kubernetes',
  ])('refuses in-cluster server %j', (server) => {
    expect(
      refused(translateKubeconfig(kubeconfig({ cluster: { server } }), K3K), 'server-in-cluster'),
    ).toContain('its own service account');
  });

  it.each([
    'https://127.0.0.1:6443',
    'https://localhost:8443',
    'https://[::1]:443',
    'https://0.0.0.0:6443',
  ])('refuses loopback %j for k3k with the annotation hint', (server) => {
    const message = refused(
      translateKubeconfig(kubeconfig({ cluster: { server } }), K3K),
      'server-loopback',
    );
    expect(message).toContain('the `<label-prefix>server` namespace annotation');
  });

  const VCLUSTER: TranslateContext = {
    namespace: 'team-a',
    secret: 'vc-my-vcluster',
    key: 'config',
    provider: PROVIDER_PRESETS.vcluster,
  };

  it('rewrites loopback to the vcluster Service and warns', () => {
    const translation = translated(
      translateKubeconfig(kubeconfig({ cluster: { server: 'https://localhost:8443' } }), VCLUSTER),
    );
    expect(translation.server).toBe('https://my-vcluster.team-a');
    expect(translation.config.tlsClientConfig.serverName).toBeUndefined();
    expect(translation.warnings).toEqual([
      {
        code: 'loopback-rewritten',
        namespace: 'team-a',
        secret: 'vc-my-vcluster',
        message:
          'namespace team-a, Secret vc-my-vcluster key config: server https://localhost:8443 is a loopback address; registered the vcluster Service https://my-vcluster.team-a instead',
      },
    ]);
  });

  it('leaves a non-loopback vcluster server alone', () => {
    const translation = translated(
      translateKubeconfig(kubeconfig({ cluster: { server: 'https://vc.example.com' } }), VCLUSTER),
    );
    expect(translation.server).toBe('https://vc.example.com');
    expect(translation.warnings).toEqual([]);
  });

  it('refuses a loopback rewrite to https://kubernetes.default, the host cluster itself', () => {
    const context: TranslateContext = {
      ...VCLUSTER,
      namespace: 'default',
      secret: 'vc-kubernetes',
    };
    expect(
      refused(
        translateKubeconfig(kubeconfig({ cluster: { server: 'https://127.0.0.1' } }), context),
        'server-in-cluster',
      ),
    ).toContain(
      "the vcluster Service it rewrites to, https://kubernetes.default, is the host cluster's own API service",
    );
  });

  it('refuses a loopback rewrite when the Secret is not vc-<name>', () => {
    const context: TranslateContext = { ...VCLUSTER, secret: 'my-kubeconfig' };
    expect(
      refused(
        translateKubeconfig(kubeconfig({ cluster: { server: 'https://127.0.0.1' } }), context),
        'server-loopback',
      ),
    ).toContain('neither a vcluster-name label nor a vc-<vcluster> Secret name');
  });

  it('still refuses in-cluster servers for vcluster', () => {
    refused(
      translateKubeconfig(
        kubeconfig({ cluster: { server: 'https://kubernetes.default.svc' } }),
        VCLUSTER,
      ),
      'server-in-cluster',
    );
  });

  it('does not check the server when the namespace overrides it', () => {
    const context: TranslateContext = { ...K3K, serverOverridden: true };
    expect(
      translated(
        translateKubeconfig(kubeconfig({ cluster: { server: 'https://api.child' } }), context),
      ).server,
    ).toBe('https://api.child');
    for (const server of [
      'https://127.0.0.1:6443',
      'https://kubernetes.default.svc',
      undefined,
      'not a url',
    ]) {
      const result = translateKubeconfig(kubeconfig({ cluster: { server } }), context);
      expect(result.ok).toBe(true);
    }
  });
});

describe('TLS', () => {
  it('drops the CA when insecure, with a warning', () => {
    const translation = translated(
      translateKubeconfig(kubeconfig({ cluster: { 'insecure-skip-tls-verify': true } }), K3K),
    );
    expect(translation.config.tlsClientConfig).toEqual({
      insecure: true,
      certData: CERT,
      keyData: KEY,
    });
    expect(translation.warnings.map((warning) => warning.code)).toEqual(['insecure-drops-ca']);
    expect(translation.warnings[0]?.message).toContain(WHERE);
    expect(translation.warnings[0]?.message).toContain('will not verify');
  });

  it('insecure without a CA is warned about too: ArgoCD will not verify the server', () => {
    const translation = translated(
      translateKubeconfig(
        kubeconfig({
          cluster: { 'insecure-skip-tls-verify': true, 'certificate-authority-data': undefined },
        }),
        K3K,
      ),
    );
    expect(translation.warnings).toEqual([
      {
        code: 'tls-unverified',
        namespace: 'k3k-a',
        secret: 'k3k-a-kubeconfig',
        message: `${WHERE}cluster "default" sets insecure-skip-tls-verify: ArgoCD will not verify the server's certificate, so anyone on the network path can pose as the server and receive the credentials`,
      },
    ]);
  });

  it('reads YAML 1.1 booleans as kubectl does', () => {
    const text = kubeconfig().replace(
      'certificate-authority-data',
      'insecure-skip-tls-verify: yes\n      certificate-authority-data',
    );
    expect(translated(translateKubeconfig(text, K3K)).config.tlsClientConfig.insecure).toBe(true);
  });

  it('refuses a non-boolean insecure flag', () => {
    refused(
      translateKubeconfig(kubeconfig({ cluster: { 'insecure-skip-tls-verify': 'maybe' } }), K3K),
      'kubeconfig-not-yaml',
    );
  });

  it('maps tls-server-name to serverName', () => {
    expect(
      translated(
        translateKubeconfig(kubeconfig({ cluster: { 'tls-server-name': 'k3k-a-service' } }), K3K),
      ).config.tlsClientConfig.serverName,
    ).toBe('k3k-a-service');
  });

  it.each([
    ['unpadded base64', CA.replace(/=+$/, '')],
    ['URL-safe base64', b64(`${CA_CERT_PEM}??>>`).replace(/\+/g, '-').replace(/\//g, '_')],
    ['base64 with spaces', `${CA.slice(0, 8)} ${CA.slice(8)}`],
    ['base64 of text that is not PEM', b64('hello')],
    ['base64 of binary', Buffer.from([0xff, 0x00, 0x30]).toString('base64')],
    ['a PEM key instead of a certificate', KEY],
    ['a corrupt certificate', b64(CA_CERT_PEM.replace(/\n[A-Za-z0-9+/]{64}\n/, '\nAAAA\n'))],
    ['raw PEM instead of base64', CA_CERT_PEM],
  ])('refuses a CA that is %s', (_why, value) => {
    expect(
      refused(
        translateKubeconfig(kubeconfig({ cluster: { 'certificate-authority-data': value } }), K3K),
        'ca-invalid',
      ),
    ).toContain('certificate-authority-data of cluster "default"');
  });
});

describe('credentials', () => {
  it('prefers the client certificate over token and basic auth', () => {
    const translation = translated(
      translateKubeconfig(kubeconfig({ user: { token: 't', username: 'u', password: 'p' } }), K3K),
    );
    expect(translation.config.bearerToken).toBeUndefined();
    expect(translation.config.username).toBeUndefined();
    expect(translation.config.tlsClientConfig.certData).toBe(CERT);
  });

  it('uses the token when there is no certificate, over basic auth', () => {
    const translation = translated(
      translateKubeconfig(
        kubeconfig({
          user: {
            'client-certificate-data': undefined,
            'client-key-data': undefined,
            token: 'tok',
            username: 'u',
            password: 'p',
          },
        }),
        K3K,
      ),
    );
    expect(translation.config).toEqual({
      bearerToken: 'tok',
      tlsClientConfig: { insecure: false, caData: CA },
    });
    expect(translation.clientCertificate).toBeUndefined();
  });

  it('uses basic auth last', () => {
    const translation = translated(
      translateKubeconfig(
        kubeconfig({
          user: {
            'client-certificate-data': undefined,
            'client-key-data': undefined,
            username: 'admin',
            password: 'pw',
          },
        }),
        K3K,
      ),
    );
    expect(translation.config).toEqual({
      username: 'admin',
      password: 'pw',
      tlsClientConfig: { insecure: false, caData: CA },
    });
  });

  it.each([
    ['nothing', {}, 'no client certificate, token or username and password'],
    ['a username only', { username: 'admin' }, 'a username but no password'],
    ['a password only', { password: 'pw' }, 'a password but no username'],
    ['an empty token', { token: '' }, 'no client certificate, token or username and password'],
    ['a null token', { token: null }, 'no client certificate, token or username and password'],
  ])('refuses a user with %s', (_why, fields, expected) => {
    const text = kubeconfig({
      user: { 'client-certificate-data': undefined, 'client-key-data': undefined, ...fields },
    });
    expect(refused(translateKubeconfig(text, K3K), 'credentials-missing')).toBe(
      `${WHERE}user "default" has ${expected}; use a kubeconfig with a client certificate or token`,
    );
  });

  it('refuses a certificate without a key and the reverse', () => {
    expect(
      refused(
        translateKubeconfig(kubeconfig({ user: { 'client-key-data': undefined } }), K3K),
        'client-cert-incomplete',
      ),
    ).toContain('client-certificate-data but no client-key-data');
    expect(
      refused(
        translateKubeconfig(
          kubeconfig({ user: { 'client-certificate-data': undefined, token: 't' } }),
          K3K,
        ),
        'client-cert-incomplete',
      ),
    ).toContain('client-key-data but no client-certificate-data');
  });

  it.each([
    [
      'certificate',
      { 'client-certificate-data': 'not base64' },
      'client-certificate-data of user "default" is not padded standard base64',
    ],
    ['certificate', { 'client-certificate-data': KEY }, 'does not hold a PEM CERTIFICATE block'],
    ['key', { 'client-key-data': CERT }, 'does not hold a PEM PRIVATE KEY block'],
    [
      'key',
      { 'client-key-data': b64(CLIENT_KEY_PEM.replace(/PRIVATE KEY/g, 'ENCRYPTED PRIVATE KEY')) },
      'encrypted',
    ],
    [
      'key',
      {
        'client-key-data': b64(
          '-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nAAAA\n-----END RSA PRIVATE KEY-----\n',
        ),
      },
      'encrypted',
    ],
    ['key', { 'client-key-data': 'QUJD' }, 'does not hold a PEM PRIVATE KEY block'],
  ])('refuses an invalid %s', (_what, fields, expected) => {
    expect(
      refused(translateKubeconfig(kubeconfig({ user: fields }), K3K), 'client-cert-invalid'),
    ).toContain(expected);
  });

  it('refuses exec plugins with the documented message, naming both gates', () => {
    const text = kubeconfig({
      user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws' } },
    });
    expect(refused(translateKubeconfig(text, K3K), 'exec-plugin')).toBe(
      `namespace k3k-a, Secret k3k-a-kubeconfig key kubeconfig.yaml: the kubeconfig uses an exec plugin ("aws"), which would run a command inside ArgoCD; use a kubeconfig with a client certificate or token; or, for an EKS, AKS or GKE plugin, have it translated into ArgoCD's own form: turn on --exec-credentials (chart value execCredentials) and use a provider that allows exec (capa-eks, capz-aks or gke, or a custom provider ending in ;exec (custom:<glob>=<key>;exec))`,
    );
  });

  it('refuses auth-provider plugins', () => {
    refused(
      translateKubeconfig(kubeconfig({ user: { 'auth-provider': { name: 'gcp' } } }), K3K),
      'auth-provider',
    );
  });

  it('ignores an empty exec block as client-go does', () => {
    translated(translateKubeconfig(kubeconfig({ user: { exec: null } }), K3K));
  });

  it('refuses impersonation', () => {
    expect(
      refused(translateKubeconfig(kubeconfig({ user: { as: 'someone' } }), K3K), 'impersonation'),
    ).toContain('"as"');
    refused(
      translateKubeconfig(kubeconfig({ user: { 'as-groups': ['g'] } }), K3K),
      'impersonation',
    );
  });

  it('refuses a password that YAML reads as a number, as kubectl does', () => {
    const text = kubeconfig({
      user: {
        'client-certificate-data': undefined,
        'client-key-data': undefined,
        username: 'admin',
      },
    }).replace('username: admin', 'username: admin\n      password: 123456');
    expect(refused(translateKubeconfig(text, K3K), 'kubeconfig-not-yaml')).toContain(
      '"password" of user "default" is not a string (quote it)',
    );
  });
});

describe('file references', () => {
  it.each([
    ['cluster', 'certificate-authority', '/etc/ca.crt', 'certificate-authority-data'],
    ['user', 'client-certificate', '/etc/client.crt', 'client-certificate-data'],
    ['user', 'client-key', '/etc/client.key', 'client-key-data'],
    ['user', 'tokenFile', '/var/run/token', 'token'],
  ])('refuses %s.%s', (section, field, path, inline) => {
    const text = kubeconfig(
      section === 'cluster' ? { cluster: { [field]: path } } : { user: { [field]: path } },
    );
    const message = refused(translateKubeconfig(text, K3K), 'file-reference');
    expect(message).toContain(`("${field}")`);
    expect(message).toContain(`embed the content as "${inline}"`);
  });

  it('reports every file reference at once', () => {
    const text = kubeconfig({
      cluster: { 'certificate-authority-data': undefined, 'certificate-authority': '/etc/ca.crt' },
      user: {
        'client-certificate-data': undefined,
        'client-key-data': undefined,
        'client-certificate': '/etc/client.crt',
        'client-key': '/etc/client.key',
        tokenFile: '/var/run/token',
      },
    });
    expect(refused(translateKubeconfig(text, K3K), 'file-reference')).toBe(
      `${WHERE}cluster "default" refers to a file ("certificate-authority") and user "default" refers to files ("client-certificate", "client-key", "tokenFile"), which would name files inside the ArgoCD pod; embed the contents as "certificate-authority-data", "client-certificate-data", "client-key-data", "token" (\`kubectl config view --raw --flatten\`)`,
    );
  });
});

describe('proxy-url', () => {
  it.each(['http://proxy:3128', 'https://proxy', 'socks5://proxy:1080'])(
    'passes %j through',
    (proxy) => {
      expect(
        translated(translateKubeconfig(kubeconfig({ cluster: { 'proxy-url': proxy } }), K3K)).config
          .proxyUrl,
      ).toBe(proxy);
    },
  );

  it('warns that ArgoCD will connect through the proxy the kubeconfig names', () => {
    expect(
      translated(
        translateKubeconfig(kubeconfig({ cluster: { 'proxy-url': 'http://proxy:3128' } }), K3K),
      ).warnings,
    ).toEqual([
      {
        code: 'proxy-url',
        namespace: 'k3k-a',
        secret: 'k3k-a-kubeconfig',
        message: `${WHERE}cluster "default" sets proxy-url http://proxy:3128: ArgoCD will connect to this cluster through that proxy, which learns where ArgoCD connects and can block the connection`,
      },
    ]);
  });

  it.each(['ftp://proxy', 'http://user:secret@proxy:3128', 'proxy:3128'])('refuses %j', (proxy) => {
    const message = refused(
      translateKubeconfig(kubeconfig({ cluster: { 'proxy-url': proxy } }), K3K),
      'proxy-url-invalid',
    );
    expect(message).not.toContain('secret@');
  });
});

describe('unreadable text', () => {
  it.each([
    ['empty text', '', 'the kubeconfig is empty'],
    ['a YAML list', '- a\n- b\n', 'the kubeconfig is not a YAML mapping'],
    ['a scalar', 'hello', 'is not a YAML mapping'],
    ['broken YAML', 'clusters: [\n', 'the kubeconfig is not valid YAML ('],
    ['duplicate keys', 'a: 1\na: 2\n', 'is not valid YAML'],
    ['two documents', 'a: 1\n---\nb: 2\n', 'is not valid YAML'],
    ['a custom tag', 'clusters: !foo x\n', 'is not valid YAML'],
    ['a binary tag', 'a: !!binary aGk=\n', 'is not valid YAML'],
    ['clusters not a list', 'clusters: {a: 1}\n', '"clusters" is not a list'],
    [
      'an entry without a name',
      'clusters: [{cluster: {server: "https://a"}}]\n',
      'clusters[0] has no name',
    ],
    ['a cluster body that is a string', 'clusters: [{name: a, cluster: x}]\n', 'is not a mapping'],
    [
      'a server that is a number',
      'clusters: [{name: a, cluster: {server: 1}}]\nusers: [{name: u, user: {token: t}}]\n',
      '"server" of cluster "a" is not a string',
    ],
  ])('refuses %s', (_why, text, expected) => {
    expect(refused(translateKubeconfig(text, K3K), 'kubeconfig-not-yaml')).toContain(expected);
  });

  it('keeps date-looking strings as strings', () => {
    const text = stringify({
      clusters: [{ name: 'c', cluster: { server: SERVER } }],
      users: [{ name: 'u', user: { token: '2001-12-14' } }],
    });
    expect(translated(translateKubeconfig(text, K3K)).config.bearerToken).toBe('2001-12-14');
  });

  it('omits the key from messages when the context has none', () => {
    const message = refused(
      translateKubeconfig('', { namespace: 'ns', secret: 's', provider: PROVIDER_PRESETS.k3k }),
      'kubeconfig-not-yaml',
    );
    expect(message.startsWith('namespace ns, Secret s: ')).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------
// Properties

describe('properties', () => {
  it('arbitrary text as a kubeconfig never throws', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.string({
            unit: fc.constantFrom(...'{}[]:-&*!|>\'"#%@`, \n\tab?=~'.split('')),
            maxLength: 80,
          }),
        ),
        translateContextArb,
        (text, context) => {
          const result = translateKubeconfig(text, context);
          expect(typeof result.ok).toBe('boolean');
        },
      ),
      { numRuns: 500 },
    );
  });

  it('arbitrary bytes decoded as Latin-1 never throw', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        translateKubeconfig(String.fromCharCode(...bytes), K3K);
      }),
    );
  });

  it('every emitted config is valid for ArgoCD', () => {
    let translations = 0;
    fc.assert(
      fc.property(
        fc.oneof(kubeconfigObjectArb, usableKubeconfigObjectArb),
        translateContextArb,
        fc.boolean(),
        (object, context, overridden) => {
          const result = translateKubeconfig(stringify(object), {
            ...context,
            ...(overridden ? { serverOverridden: true } : {}),
          });
          if (!result.ok) {
            expect(
              result.refusal.message.startsWith(
                `namespace ${context.namespace}, Secret ${context.secret} key ${context.key}: `,
              ),
            ).toBe(true);
            return;
          }
          translations++;
          const { server, config } = result.translation;
          // With an override the server is replaced by the planner; everything else must hold.
          const problems = argoConfigProblems(
            overridden ? 'https://override.example' : server,
            config,
          );
          expect(problems).toEqual([]);
          if (config.tlsClientConfig.certData !== undefined)
            expect(result.translation.clientCertificate).toBeDefined();
        },
      ),
      { numRuns: 1000 },
    );
    // The generator must actually reach successful translations for the property to mean
    // anything: about half of the runs translate, so 100 of 1000 leaves a wide margin.
    expect(translations).toBeGreaterThan(100);
  });

  it('mutations of a valid kubeconfig give a valid config or a refusal', () => {
    fc.assert(
      fc.property(kubeconfigClusterFieldsArb, kubeconfigUserFieldsArb, (cluster, user) => {
        const result = translateKubeconfig(kubeconfig({ cluster, user }), K3K);
        if (result.ok)
          expect(argoConfigProblems(result.translation.server, result.translation.config)).toEqual(
            [],
          );
      }),
      { numRuns: 500 },
    );
  });
});
