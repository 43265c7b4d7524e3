import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { ObservedSecret, Provider, TranslationResult } from '../common/types.js';
import { matchGlob } from '../config/glob.js';
import { selectKubeconfig, translateSecretKey } from './providers.js';
import { PROVIDER_PRESETS } from '../config/provider-presets.js';
import type { Translator } from './providers.js';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

const tokenKubeconfig = (server: string): string =>
  stringify({
    clusters: [{ name: 'c', cluster: { server } }],
    users: [{ name: 'u', user: { token: 'tok' } }],
  });

function secret(
  name: string,
  data: Record<string, string>,
  fields: Partial<ObservedSecret> = {},
): ObservedSecret {
  return {
    namespace: 'ns',
    name,
    uid: `uid-${name}`,
    resourceVersion: '1',
    type: 'Opaque',
    labels: {},
    annotations: {},
    data,
    ...fields,
  };
}

const { k3k, vcluster, kamaji, capi } = PROVIDER_PRESETS;

/** Translates `server=<url>` texts; `bad` refuses. Records every call. */
function fakeTranslator(): { translate: Translator; calls: string[] } {
  const calls: string[] = [];
  const translate: Translator = (observed, key, provider) => {
    calls.push(`${provider.name}:${observed.name}[${key}]`);
    const value = observed.data[key] ?? '';
    if (value === 'bad')
      return {
        ok: false,
        refusal: { code: 'server-missing', message: `${observed.name}[${key}] is bad` },
      };
    return {
      ok: true,
      translation: {
        server: value,
        config: { bearerToken: 't', tlsClientConfig: { insecure: false } },
        warnings: [],
        credential: 'bearer-token',
      },
    };
  };
  return { translate, calls };
}

describe('PROVIDER_PRESETS', () => {
  it('matches the documented presets', () => {
    expect(PROVIDER_PRESETS).toEqual({
      k3k: {
        name: 'k3k',
        secretNamePattern: 'k3k-*-kubeconfig',
        keys: ['kubeconfig.yaml'],
        loopbackRewrite: false,
        marks: { controller: { group: 'k3k.io', kind: 'Cluster' } },
      },
      vcluster: {
        name: 'vcluster',
        secretNamePattern: 'vc-*',
        keys: ['config'],
        loopbackRewrite: true,
        marks: { labels: [{ key: 'app', value: 'vcluster' }, { key: 'vcluster-name' }] },
      },
      kamaji: {
        name: 'kamaji',
        secretNamePattern: '*-admin-kubeconfig',
        keys: ['admin.svc', 'admin.conf'],
        loopbackRewrite: false,
        marks: {
          labels: [
            { key: 'kamaji.clastix.io/component', value: 'admin-kubeconfig' },
            { key: 'kamaji.clastix.io/name' },
          ],
        },
      },
      'kamaji-generated': {
        name: 'kamaji-generated',
        secretNamePattern: '*-*',
        keys: ['value'],
        loopbackRewrite: false,
        marks: { labels: [{ key: 'kamaji.clastix.io/managed-for' }], only: true },
      },
      capi: {
        name: 'capi',
        secretNamePattern: '*-kubeconfig',
        keys: ['value'],
        preferredSecretType: 'cluster.x-k8s.io/secret',
        loopbackRewrite: false,
      },
      'capa-eks': {
        name: 'capa-eks',
        secretNamePattern: '*-user-kubeconfig',
        keys: ['value'],
        preferredSecretType: 'cluster.x-k8s.io/secret',
        loopbackRewrite: false,
        execClouds: ['aws'],
      },
      'capz-aks': {
        name: 'capz-aks',
        secretNamePattern: '*-kubeconfig-user',
        keys: ['value'],
        loopbackRewrite: false,
        execClouds: ['azure'],
      },
      gke: {
        name: 'gke',
        secretNamePattern: '*-user-kubeconfig',
        keys: ['value'],
        preferredSecretType: 'cluster.x-k8s.io/secret',
        loopbackRewrite: false,
        execClouds: ['gcp'],
      },
    });
  });

  it.each([
    [k3k, 'k3k-a-kubeconfig', true],
    [k3k, 'k3k-a-kubeconfig-x', false],
    [vcluster, 'vc-my-vcluster', true],
    [vcluster, 'vc-config-my-vcluster', true],
    [kamaji, 'tenant-00-admin-kubeconfig', true],
    [capi, 'cluster-a-kubeconfig', true],
    [PROVIDER_PRESETS['capa-eks'], 'eks-a-user-kubeconfig', true],
    [PROVIDER_PRESETS['capa-eks'], 'eks-a-kubeconfig', false],
    [PROVIDER_PRESETS['capz-aks'], 'aks-a-kubeconfig-user', true],
    [PROVIDER_PRESETS['capz-aks'], 'aks-a-kubeconfig', false],
    [PROVIDER_PRESETS.gke, 'gke-a-user-kubeconfig', true],
  ] as const)('%s glob vs %s', (provider, name, expected) => {
    expect(matchGlob(provider.secretNamePattern, name)).toBe(expected);
  });
});

describe('translateSecretKey', () => {
  it('decodes the key and translates it with the Secret named in messages', () => {
    const observed = secret('k3k-a-kubeconfig', {
      'kubeconfig.yaml': b64(tokenKubeconfig('https://api.child')),
    });
    const result = translateSecretKey(observed, 'kubeconfig.yaml', k3k);
    expect(result).toEqual({
      ok: true,
      translation: {
        server: 'https://api.child',
        config: { bearerToken: 'tok', tlsClientConfig: { insecure: false } },
        warnings: [],
        credential: 'bearer-token',
      },
    });
  });

  it('refuses a value that is not base64 of UTF-8', () => {
    const binary = secret('k3k-a-kubeconfig', {
      'kubeconfig.yaml': Buffer.from([0x1f, 0x8b, 0x08, 0xff]).toString('base64'),
    });
    expect(translateSecretKey(binary, 'kubeconfig.yaml', k3k)).toEqual({
      ok: false,
      refusal: {
        code: 'kubeconfig-unreadable',
        message:
          'namespace ns, Secret k3k-a-kubeconfig key kubeconfig.yaml: the value is not UTF-8 text (a compressed or binary blob?); store the kubeconfig file itself',
      },
    });
    const notBase64 = secret('k3k-a-kubeconfig', { 'kubeconfig.yaml': 'apiVersion: v1' });
    expect(translateSecretKey(notBase64, 'kubeconfig.yaml', k3k).ok).toBe(false);
  });

  it('refuses a missing key', () => {
    const result = translateSecretKey(secret('k3k-a-kubeconfig', {}), 'kubeconfig.yaml', k3k);
    expect(!result.ok && result.refusal.code).toBe('kubeconfig-unreadable');
  });

  it('names the key in translation refusals', () => {
    const result = translateSecretKey(
      secret('k3k-a-kubeconfig', {
        'kubeconfig.yaml': b64(tokenKubeconfig('https://127.0.0.1:6443')),
      }),
      'kubeconfig.yaml',
      k3k,
    );
    expect(!result.ok && result.refusal.message).toMatch(
      /^namespace ns, Secret k3k-a-kubeconfig key kubeconfig.yaml: /,
    );
  });

  it('passes the vcluster Secret name for the loopback rewrite', () => {
    const observed = secret('vc-my-vcluster', {
      config: b64(tokenKubeconfig('https://localhost:8443')),
    });
    const result = translateSecretKey(observed, 'config', vcluster);
    expect(result.ok && result.translation.server).toBe('https://my-vcluster.ns');
  });

  it('skips server checks when the namespace overrides the server', () => {
    const observed = secret('k3k-a-kubeconfig', {
      'kubeconfig.yaml': b64(tokenKubeconfig('https://127.0.0.1:6443')),
    });
    expect(
      translateSecretKey(observed, 'kubeconfig.yaml', k3k, { serverOverridden: true }).ok,
    ).toBe(true);
  });
});

describe('selectKubeconfig', () => {
  it('a Secret without any of the keys is not a candidate (vcluster vc-config-<name>)', () => {
    const { translate, calls } = fakeTranslator();
    const selection = selectKubeconfig(
      'ns',
      [secret('vc-config-x', { 'config.yaml': 'x' }), secret('vc-x', { config: 'https://vc' })],
      [vcluster],
      translate,
    );
    expect(calls).toEqual(['vcluster:vc-x[config]']);
    expect(selection.chosen?.candidate).toEqual({
      namespace: 'ns',
      secret: 'vc-x',
      key: 'config',
      provider: 'vcluster',
      chosenBy: 'the first usable candidate of the vcluster provider (its name matches vc-*)',
    });
    expect(selection.rejected).toEqual([]);
  });

  it('a matching name alone is silent: no candidates, nothing rejected', () => {
    const { translate } = fakeTranslator();
    expect(
      selectKubeconfig('ns', [secret('vc-config-x', { other: 'x' })], [vcluster], translate),
    ).toEqual({ rejected: [] });
  });

  it('ignores Secrets of other namespaces', () => {
    const { translate, calls } = fakeTranslator();
    const other = secret(
      'k3k-a-kubeconfig',
      { 'kubeconfig.yaml': 'https://a' },
      { namespace: 'other' },
    );
    expect(selectKubeconfig('ns', [other], [k3k], translate)).toEqual({ rejected: [] });
    expect(calls).toEqual([]);
  });

  it('orders by provider precedence, then name; first clean translation wins; earlier failures are kept', () => {
    const { translate, calls } = fakeTranslator();
    const secrets = [
      secret('z-kubeconfig', { value: 'https://capi-z' }),
      secret('k3k-b-kubeconfig', { 'kubeconfig.yaml': 'https://k3k-b' }),
      secret('k3k-a-kubeconfig', { 'kubeconfig.yaml': 'bad' }),
    ];
    const selection = selectKubeconfig('ns', secrets, [k3k, capi], translate);
    expect(calls).toEqual([
      'k3k:k3k-a-kubeconfig[kubeconfig.yaml]',
      'k3k:k3k-b-kubeconfig[kubeconfig.yaml]',
    ]);
    expect(selection.chosen?.translation.server).toBe('https://k3k-b');
    expect(selection.chosen?.secret.name).toBe('k3k-b-kubeconfig');
    expect(selection.rejected).toEqual([
      {
        candidate: {
          namespace: 'ns',
          secret: 'k3k-a-kubeconfig',
          key: 'kubeconfig.yaml',
          provider: 'k3k',
        },
        refusal: { code: 'server-missing', message: 'k3k-a-kubeconfig[kubeconfig.yaml] is bad' },
      },
    ]);
  });

  it('falls through to a later provider and keeps all failures in order', () => {
    const { translate } = fakeTranslator();
    const secrets = [
      secret('k3k-a-kubeconfig', { 'kubeconfig.yaml': 'bad' }),
      secret('t-admin-kubeconfig', { 'admin.svc': 'bad', 'admin.conf': 'https://ext' }),
    ];
    const selection = selectKubeconfig('ns', secrets, [k3k, kamaji], translate);
    expect(selection.chosen?.candidate).toEqual({
      namespace: 'ns',
      secret: 't-admin-kubeconfig',
      key: 'admin.conf',
      provider: 'kamaji',
      chosenBy:
        'the first usable candidate of the kamaji provider (its name matches *-admin-kubeconfig)',
    });
    expect(
      selection.rejected.map(({ candidate }) => `${candidate.secret}[${candidate.key}]`),
    ).toEqual(['k3k-a-kubeconfig[kubeconfig.yaml]', 't-admin-kubeconfig[admin.svc]']);
  });

  it('tries keys in declared order, skipping absent ones', () => {
    const { translate, calls } = fakeTranslator();
    selectKubeconfig(
      'ns',
      [secret('t-admin-kubeconfig', { 'admin.conf': 'https://ext' })],
      [kamaji],
      translate,
    );
    expect(calls).toEqual(['kamaji:t-admin-kubeconfig[admin.conf]']);
  });

  it('prefers the CAPI Secret type before name order', () => {
    const { translate } = fakeTranslator();
    const secrets = [
      secret('a-kubeconfig', { value: 'https://plain' }),
      secret('b-kubeconfig', { value: 'https://capi' }, { type: 'cluster.x-k8s.io/secret' }),
    ];
    expect(selectKubeconfig('ns', secrets, [capi], translate).chosen?.secret.name).toBe(
      'b-kubeconfig',
    );
  });

  it('a Secret matching two providers is tried under each', () => {
    const { translate, calls } = fakeTranslator();
    const both = secret('vc-a-kubeconfig', { config: 'bad', value: 'https://capi' });
    const selection = selectKubeconfig('ns', [both], [vcluster, capi], translate);
    expect(calls).toEqual(['vcluster:vc-a-kubeconfig[config]', 'capi:vc-a-kubeconfig[value]']);
    expect(selection.chosen?.candidate.provider).toBe('capi');
  });

  it('all failing gives no choice and every reason', () => {
    const { translate } = fakeTranslator();
    const selection = selectKubeconfig(
      'ns',
      [
        secret('k3k-a-kubeconfig', { 'kubeconfig.yaml': 'bad' }),
        secret('k3k-b-kubeconfig', { 'kubeconfig.yaml': 'bad' }),
      ],
      [k3k],
      translate,
    );
    expect(selection.chosen).toBeUndefined();
    expect(selection.rejected).toHaveLength(2);
  });

  it('passes the override option to the translator', () => {
    const seen: unknown[] = [];
    const translate: Translator = (_secret, _key, _provider, options): TranslationResult => {
      seen.push(options);
      return { ok: false, refusal: { code: 'server-missing', message: 'x' } };
    };
    selectKubeconfig(
      'ns',
      [secret('k3k-a-kubeconfig', { 'kubeconfig.yaml': 'x' })],
      [k3k],
      translate,
      { serverOverridden: true },
    );
    expect(seen).toEqual([{ serverOverridden: true }]);
  });

  it('works end to end with the real translator', () => {
    const secrets = [
      secret('k3k-a-kubeconfig', {
        'kubeconfig.yaml': b64(tokenKubeconfig('https://127.0.0.1:6443')),
      }),
      secret('k3k-b-kubeconfig', {
        'kubeconfig.yaml': b64(tokenKubeconfig('https://k3k-b-service.ns')),
      }),
    ];
    const selection = selectKubeconfig('ns', secrets, [k3k], translateSecretKey);
    expect(selection.chosen?.translation.server).toBe('https://k3k-b-service.ns');
    expect(selection.rejected.map(({ refusal }) => refusal.code)).toEqual(['server-loopback']);
  });

  it('is independent of input order', () => {
    const providers: Provider[] = [k3k, capi, kamaji];
    const pool = [
      secret('k3k-a-kubeconfig', { 'kubeconfig.yaml': 'bad' }),
      secret('k3k-b-kubeconfig', { 'kubeconfig.yaml': 'https://b' }),
      secret('x-kubeconfig', { value: 'https://x' }, { type: 'cluster.x-k8s.io/secret' }),
      secret('y-kubeconfig', { value: 'bad' }),
      secret('t-admin-kubeconfig', { 'admin.svc': 'bad', 'admin.conf': 'https://t' }),
      secret('vc-config-a', { other: 'x' }),
    ];
    fc.assert(
      fc.property(fc.subarray(pool), fc.func(fc.integer()), (subset, rank) => {
        const shuffled = [...subset].sort((a, b) => rank(a.name) - rank(b.name));
        const { translate } = fakeTranslator();
        expect(selectKubeconfig('ns', shuffled, providers, translate)).toEqual(
          selectKubeconfig('ns', subset, providers, fakeTranslator().translate),
        );
      }),
    );
  });
});
