import { describe, expect, it } from 'vitest';
import type { Config } from '../common/types.js';
import {
  CONFIG_DEFAULTS,
  formatConfigError,
  parseConfig,
  parseProviderEntry,
  type ConfigError,
  type ConfigInput,
} from './config.js';
import { PROVIDER_PRESETS } from './provider-presets.js';

function valid(input: ConfigInput): Config {
  const result = parseConfig(input);
  if (!result.ok)
    throw new Error(
      `expected a valid config, got ${result.errors.map(formatConfigError).join('; ')}`,
    );
  return result.config;
}

function errorsOf(input: ConfigInput): readonly ConfigError[] {
  const result = parseConfig(input);
  if (result.ok) throw new Error('expected errors');
  return result.errors;
}

function onlyError(input: ConfigInput): ConfigError {
  const errors = errorsOf(input);
  expect(errors).toHaveLength(1);
  return errors[0] as ConfigError;
}

describe('parseConfig defaults', () => {
  it('gives the documented defaults for an empty input', () => {
    expect(valid({})).toEqual({
      targetNamespace: 'argocd',
      labelPrefix: 'argocd-cluster-registrar/',
      managedBy: 'cluster-registrar',
      providers: [PROVIDER_PRESETS.k3k],
      intervalMs: 60_000,
      demotedTtlMs: 7 * 24 * 3_600_000,
      credentialRefreshWindowMs: 0,
      execCredentials: false,
      execPolicy: { allowedServers: [], aksServerIds: [], eksClusterNames: [], eksRoleArns: [] },
      drainOnTerminate: false,
      capiClusters: false,
      capiClusterNames: 'namespace-name',
      capiClusterNameLabel: false,
      probeChildren: false,
      probeFailures: 3,
      probeIntervalMs: 180_000,
      kamajiSleep: false,
      vclusterSleep: false,
      referenceMode: 'off',
      secretreaderPath: 'kubeconfig-secretreader',
      clusterProfiles: false,
      clusterProfileNamespace: 'argocd',
      clusterManager: 'argocd-cluster-registrar',
    });
  });

  it('exposes the defaults in their input form', () => {
    expect(CONFIG_DEFAULTS).toEqual({
      targetNamespace: 'argocd',
      labelPrefix: 'argocd-cluster-registrar/',
      managedBy: 'cluster-registrar',
      providers: ['k3k'],
      interval: '60s',
      demotedTTL: '168h',
      credentialRefreshWindow: '0s',
      execCredentials: false,
      execAllowedServers: [],
      execAksServerIds: [],
      execEksClusterNames: [],
      execEksRoleArns: [],
      drainOnTerminate: false,
      capiClusters: false,
      capiClusterNames: 'namespace-name',
      capiClusterNameLabel: false,
      probeChildren: false,
      probeFailures: 3,
      probeInterval: '3m',
      kamajiSleep: false,
      vclusterSleep: false,
      referenceMode: 'off',
      secretreaderPath: 'kubeconfig-secretreader',
      clusterProfiles: false,
      clusterProfileNamespace: '',
      clusterManager: 'argocd-cluster-registrar',
    });
    expect(valid({ ...CONFIG_DEFAULTS })).toEqual(valid({}));
  });

  it('takes every setting', () => {
    // Host names and GUIDs compare case-insensitively, so they are kept in lower case.
    const POLICY = {
      allowedServers: ['10.0.0.0/8', '.corp.example'],
      aksServerIds: ['6dae42f8-4368-4678-94ff-3960e28e3630'],
      eksClusterNames: ['team-*'],
      eksRoleArns: ['arn:aws:iam::123456789012:role/ArgoCD'],
    };
    expect(
      valid({
        targetNamespace: 'gitops',
        labelPrefix: 'registrar.example.com/',
        managedBy: 'team_a.prod-1',
        providers: ['vcluster', 'capi', 'custom:*-kc=a.yaml,b;exec', 'capa-eks'],
        interval: '1m30s',
        demotedTTL: '24h',
        credentialRefreshWindow: '720h',
        execCredentials: true,
        execAllowedServers: ['10.0.0.0/8', '.Corp.Example'],
        execAksServerIds: ['6DAE42F8-4368-4678-94FF-3960E28E3630'],
        execEksClusterNames: ['team-*'],
        execEksRoleArns: ['arn:aws:iam::123456789012:role/ArgoCD'],
        drainOnTerminate: true,
        capiClusters: true,
        capiClusterNames: 'name',
        capiClusterNameLabel: true,
        probeChildren: true,
        probeFailures: '5',
        probeInterval: '90s',
        kamajiSleep: true,
        vclusterSleep: true,
        referenceMode: 'on-or-copy',
        secretreaderPath: '/usr/local/bin/kubeconfig-secretreader',
        clusterProfiles: true,
        clusterProfileNamespace: 'fleet-inventory',
        clusterManager: 'registrar-east',
      }),
    ).toEqual({
      targetNamespace: 'gitops',
      labelPrefix: 'registrar.example.com/',
      managedBy: 'team_a.prod-1',
      // The global exec gate and the allow-lists ride on every provider, for the translator.
      providers: [
        { ...PROVIDER_PRESETS.vcluster, execCredentials: true, execPolicy: POLICY },
        { ...PROVIDER_PRESETS.capi, execCredentials: true, execPolicy: POLICY },
        {
          name: 'custom',
          secretNamePattern: '*-kc',
          keys: ['a.yaml', 'b'],
          loopbackRewrite: false,
          execClouds: ['aws', 'azure', 'gcp'],
          execCredentials: true,
          execPolicy: POLICY,
        },
        { ...PROVIDER_PRESETS['capa-eks'], execCredentials: true, execPolicy: POLICY },
      ],
      intervalMs: 90_000,
      demotedTtlMs: 86_400_000,
      credentialRefreshWindowMs: 720 * 3_600_000,
      execCredentials: true,
      execPolicy: POLICY,
      drainOnTerminate: true,
      capiClusters: true,
      capiClusterNames: 'name',
      capiClusterNameLabel: true,
      probeChildren: true,
      probeFailures: 5,
      probeIntervalMs: 90_000,
      kamajiSleep: true,
      vclusterSleep: true,
      referenceMode: 'on-or-copy',
      secretreaderPath: '/usr/local/bin/kubeconfig-secretreader',
      clusterProfiles: true,
      clusterProfileNamespace: 'fleet-inventory',
      clusterManager: 'registrar-east',
    });
  });

  it('puts profiles in the target namespace unless told otherwise, and checks both names', () => {
    expect(valid({ targetNamespace: 'gitops' }).clusterProfileNamespace).toBe('gitops');
    expect(onlyError({ clusterProfileNamespace: 'Inventory' }).setting).toBe(
      'clusterProfileNamespace',
    );
    // Said once, not once by each reader it passes through.
    expect(onlyError({ clusterProfileNamespace: 42 } as unknown as ConfigInput).message).toContain(
      'must be a string',
    );
    expect(onlyError({ clusterManager: 'not a label value' }).setting).toBe('clusterManager');
  });

  it('reads Cluster sources with the capi preset when --capi-clusters is on and no provider is set', () => {
    expect(valid({ capiClusters: true }).providers.map((provider) => provider.name)).toEqual([
      'k3k',
      'capi',
    ]);
    // Providers the user wrote are taken as written.
    expect(
      valid({ capiClusters: true, providers: ['vcluster'] }).providers.map((p) => p.name),
    ).toEqual(['vcluster']);
    expect(valid({ capiClusters: true, secretKey: 'value' }).providers.map((p) => p.name)).toEqual([
      'custom',
    ]);
  });

  it('refuses a probe failure count that is not a whole number from 1 to 100', () => {
    for (const value of ['0', '101', '2.5', 'three', -1]) {
      expect(onlyError({ probeFailures: value })).toEqual({
        setting: 'probeFailures',
        value: String(value),
        message: 'must be a whole number from 1 to 100, e.g. 3',
      });
    }
  });

  it('refuses a probe interval under a second, as it refuses such an interval', () => {
    expect(onlyError({ probeInterval: '500ms' })).toEqual({
      setting: 'probeInterval',
      value: '500ms',
      message: 'must be at least 1s, such as 30s, 60s, 1m30s or 5m',
    });
    expect(onlyError({ probeInterval: 'often' }).setting).toBe('probeInterval');
  });

  it('refuses an unknown name form for Cluster sources, naming the accepted ones', () => {
    const result = parseConfig({ capiClusterNames: 'namespace/name' });
    expect(result).toEqual({
      ok: false,
      errors: [
        {
          setting: 'capiClusterNames',
          value: 'namespace/name',
          message: 'must be one of name, namespace-name',
        },
      ],
    });
  });

  it('refuses an unknown reference mode and a plugin path ArgoCD could not run as given', () => {
    expect(parseConfig({ referenceMode: 'true' })).toEqual({
      ok: false,
      errors: [
        { setting: 'referenceMode', value: 'true', message: 'must be one of off, on, on-or-copy' },
      ],
    });
    for (const path of ['bin/kubeconfig-secretreader', '/usr/bin/a b', '', '/x;rm']) {
      const result = parseConfig({ secretreaderPath: path });
      expect(result.ok ? undefined : result.errors.map((e) => e.setting)).toEqual([
        'secretreaderPath',
      ]);
    }
    expect(parseConfig({ secretreaderPath: '/opt/plugins/kubeconfig-secretreader' }).ok).toBe(true);
  });
});

describe('parseConfig validation', () => {
  it.each([
    ['Argocd', 'uppercase'],
    ['argo_cd', 'underscore'],
    ['-argocd', 'leading dash'],
    ['a'.repeat(64), 'too long'],
    ['', 'empty'],
    ['argo.cd', 'a subdomain, not a label'],
  ])('refuses targetNamespace %j (%s)', (targetNamespace) => {
    expect(onlyError({ targetNamespace })).toEqual({
      setting: 'targetNamespace',
      value: targetNamespace,
      message:
        'must be a namespace name: a DNS-1123 label (lower-case letters, digits and "-", starting and ending with a letter or digit, at most 63 characters)',
    });
  });

  it('accepts a 63-character namespace', () => {
    expect(valid({ targetNamespace: 'a'.repeat(63) }).targetNamespace).toHaveLength(63);
  });

  it('refuses a labelPrefix without the trailing slash and suggests it', () => {
    expect(onlyError({ labelPrefix: 'registrar.example.com' })).toEqual({
      setting: 'labelPrefix',
      value: 'registrar.example.com',
      message:
        'must end in "/" (did you mean registrar.example.com/?); expected a DNS subdomain followed by "/" (for example argocd-cluster-registrar/ or registrar.example.com/)',
    });
  });

  it.each(['Registrar/', '/', 'a..b/', 'a/b/', 'under_score/', `${'a'.repeat(64)}/`])(
    'refuses labelPrefix %j',
    (labelPrefix) => {
      const error = onlyError({ labelPrefix });
      expect(error.setting).toBe('labelPrefix');
      expect(error.message).toContain('expected a DNS subdomain followed by "/"');
    },
  );

  it.each([
    'argocd.argoproj.io/',
    'notifications.argoproj.io/',
    'kubernetes.io/',
    'node.kubernetes.io/',
    'k8s.io/',
    'cluster.x-k8s.io/',
  ])('refuses labelPrefix %j, in a namespace ArgoCD or Kubernetes interpret', (labelPrefix) => {
    const error = onlyError({ labelPrefix });
    expect(error.setting).toBe('labelPrefix');
    expect(error.message).toContain('reserved');
    expect(error.message).toContain('expected a DNS subdomain followed by "/"');
  });

  it.each(['argocd-cluster-registrar/', 'registrar.example.com/', 'my-kubernetes.io.example.com/'])(
    'accepts labelPrefix %j outside the reserved namespaces',
    (labelPrefix) => {
      expect(valid({ labelPrefix }).labelPrefix).toBe(labelPrefix);
    },
  );

  it.each(['', '-x', 'x-', 'a b', 'a/b', 'x'.repeat(64)])('refuses managedBy %j', (managedBy) => {
    expect(onlyError({ managedBy })).toEqual({
      setting: 'managedBy',
      value: managedBy,
      message:
        'must be a non-empty label value: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit',
    });
  });

  it('refuses an interval under one second', () => {
    expect(onlyError({ interval: '500ms' })).toEqual({
      setting: 'interval',
      value: '500ms',
      message: 'must be at least 1s, such as 30s, 60s, 1m30s or 5m',
    });
    expect(valid({ interval: '1s' }).intervalMs).toBe(1000);
  });

  it('says a negative duration is negative, with examples the setting accepts', () => {
    expect(onlyError({ interval: '-5s' })).toEqual({
      setting: 'interval',
      value: '-5s',
      message:
        'must not be negative; expected a Go duration of at least 1s, such as 30s, 60s, 1m30s or 5m',
    });
    expect(onlyError({ demotedTTL: '-1h' }).message).toBe(
      'must not be negative; expected a Go duration such as 500ms, 60s, 1m30s or 168h (units ns, us, ms, s, m, h)',
    );
  });

  it.each(['interval', 'demotedTTL', 'credentialRefreshWindow'] as const)(
    'refuses a malformed %s',
    (setting) => {
      expect(onlyError({ [setting]: '60' })).toEqual({
        setting,
        value: '60',
        message:
          'must be a Go duration such as 500ms, 60s, 1m30s or 168h (units ns, us, ms, s, m, h)',
      });
    },
  );

  it('accepts a zero demotedTTL and credentialRefreshWindow', () => {
    const config = valid({ demotedTTL: '0s', credentialRefreshWindow: '0' });
    expect([config.demotedTtlMs, config.credentialRefreshWindowMs]).toEqual([0, 0]);
  });

  it('reports every error at once', () => {
    expect(
      errorsOf({ targetNamespace: 'X', managedBy: '', interval: 'soon', providers: ['k4k'] }).map(
        (e) => e.setting,
      ),
    ).toEqual(['targetNamespace', 'managedBy', 'interval', 'providers']);
  });

  it('refuses an unknown setting instead of ignoring it', () => {
    const input = { targetNamespace: 'argocd', clusters: ['a'] } as unknown as ConfigInput;
    const error = onlyError(input);
    expect(error.setting).toBe('clusters');
    expect(error.value).toBe('["a"]');
    expect(error.message).toMatch(
      /^unknown setting; known settings are targetNamespace, labelPrefix, /,
    );
  });

  it('refuses values of the wrong type (settings read from JSON or YAML)', () => {
    const input = { interval: 60, targetNamespace: 7 } as unknown as ConfigInput;
    expect(errorsOf(input)).toEqual([
      { setting: 'targetNamespace', value: '7', message: 'must be a string' },
      {
        setting: 'interval',
        value: '60',
        message:
          'must be a Go duration such as 500ms, 60s, 1m30s or 168h (units ns, us, ms, s, m, h)',
      },
    ]);
  });
});

describe('providers', () => {
  it('keeps the precedence order given', () => {
    expect(valid({ providers: ['capi', 'k3k'] }).providers.map((p) => p.name)).toEqual([
      'capi',
      'k3k',
    ]);
  });

  it('maps each preset to its definition', () => {
    for (const name of ['k3k', 'vcluster', 'kamaji', 'capi'] as const) {
      expect(valid({ providers: [name] }).providers).toEqual([PROVIDER_PRESETS[name]]);
    }
  });

  it('refuses an unknown provider, naming the accepted forms', () => {
    expect(onlyError({ providers: ['k3k', 'K3K'] })).toEqual({
      setting: 'providers',
      value: 'K3K',
      message:
        'unknown provider; expected one of k3k, vcluster, kamaji, kamaji-generated, capi, capa-eks, capz-aks, gke, or custom:<glob>=<key>[,<key>...][;exec] (for example custom:*-kubeconfig=value)',
    });
  });

  it('refuses an empty list', () => {
    expect(onlyError({ providers: [] }).message).toBe(
      'must list at least one provider, each one of k3k, vcluster, kamaji, kamaji-generated, capi, capa-eks, capz-aks, gke, or custom:<glob>=<key>[,<key>...][;exec] (for example custom:*-kubeconfig=value)',
    );
  });

  it.each([
    [
      'custom:k3k-*',
      'a custom provider needs "=" between the Secret-name glob and its keys; expected custom:<glob>=<key>[,<key>...][;exec]',
    ],
    [
      'custom:=kubeconfig',
      'the Secret-name glob is empty; expected a glob over Secret names: * any run, ? one character, [...] a class (for example k3k-*-kubeconfig)',
    ],
    [
      'custom:vc-*=',
      '"" is not a Secret data key: expected 1-253 letters, digits, "-", "_" or "." (for example kubeconfig.yaml)',
    ],
    [
      'custom:vc-*=a,,b',
      '"" is not a Secret data key: expected 1-253 letters, digits, "-", "_" or "." (for example kubeconfig.yaml)',
    ],
    [
      'custom:vc-*=a b',
      '"a b" is not a Secret data key: expected 1-253 letters, digits, "-", "_" or "." (for example kubeconfig.yaml)',
    ],
    [
      'custom:vc-*=a,a',
      'lists a key twice; expected custom:<glob>=<key>[,<key>...][;exec] with distinct keys',
    ],
  ])('refuses %j', (entry, message) => {
    expect(onlyError({ providers: [entry] })).toEqual({
      setting: 'providers',
      value: entry,
      message,
    });
  });

  it('refuses a malformed glob, saying what is wrong with it', () => {
    const error = onlyError({ providers: ['custom:vc-[a=config'] });
    expect(error.value).toBe('custom:vc-[a=config');
    expect(error.message).toMatch(
      /^the Secret-name glob "vc-\[a" is malformed \(.+\); expected a glob over Secret names/,
    );
  });

  it('refuses duplicates, including a custom entry equal to a preset', () => {
    expect(onlyError({ providers: ['k3k', 'vcluster', 'k3k'] })).toEqual({
      setting: 'providers',
      value: 'k3k',
      message: 'is listed twice; list each provider once',
    });
    expect(onlyError({ providers: ['capi', 'custom:*-kubeconfig=value'] })).toEqual({
      setting: 'providers',
      value: 'custom:*-kubeconfig=value',
      message: 'duplicates capi (same Secret-name glob and keys); list each provider once',
    });
  });

  it('parses one entry for the CLI', () => {
    expect(parseProviderEntry('custom:vc-*=config')).toEqual({
      ok: true,
      provider: {
        name: 'custom',
        secretNamePattern: 'vc-*',
        keys: ['config'],
        loopbackRewrite: false,
      },
    });
  });
});

describe('legacy secretNamePattern / secretKey', () => {
  it('map to one custom provider', () => {
    expect(valid({ secretNamePattern: 'vc-*', secretKey: 'config' }).providers).toEqual([
      { name: 'custom', secretNamePattern: 'vc-*', keys: ['config'], loopbackRewrite: false },
    ]);
  });

  it('fill the missing half from the seed defaults', () => {
    expect(valid({ secretKey: 'config' }).providers).toEqual([
      {
        name: 'custom',
        secretNamePattern: 'k3k-*-kubeconfig',
        keys: ['config'],
        loopbackRewrite: false,
      },
    ]);
    expect(valid({ secretNamePattern: 'mine-*' }).providers).toEqual([
      {
        name: 'custom',
        secretNamePattern: 'mine-*',
        keys: ['kubeconfig.yaml'],
        loopbackRewrite: false,
      },
    ]);
  });

  it('cannot be combined with providers: the error says to pick one', () => {
    expect(
      onlyError({ providers: ['vcluster'], secretNamePattern: 'vc-*', secretKey: 'config' }),
    ).toEqual({
      setting: 'providers',
      value: 'vcluster',
      message:
        'cannot be combined with secretNamePattern and secretKey; pick one: either list providers (for example custom:vc-*=config) or keep the legacy secretNamePattern/secretKey pair without providers',
    });
    // A caller names the other settings in its own vocabulary (the CLI: flags).
    const asFlags = parseConfig(
      { providers: ['k3k'], secretKey: 'foo' },
      { nameOf: (setting) => `--${setting}` },
    );
    expect(asFlags.ok ? [] : asFlags.errors.map((e) => e.message)).toEqual([
      'cannot be combined with --secretKey; pick one: either list --providers (for example custom:k3k-*-kubeconfig=foo) or keep the legacy --secretNamePattern/--secretKey pair without --providers',
    ]);
    expect(onlyError({ providers: ['k3k'], secretKey: 'x' }).message).toMatch(
      /^cannot be combined with secretKey; pick one/,
    );
  });

  it('are validated like a custom entry', () => {
    expect(errorsOf({ secretNamePattern: '', secretKey: 'a/b' })).toEqual([
      {
        setting: 'secretNamePattern',
        value: '',
        message:
          'the Secret-name glob is empty; expected a glob over Secret names: * any run, ? one character, [...] a class (for example k3k-*-kubeconfig)',
      },
      {
        setting: 'secretKey',
        value: 'a/b',
        message:
          '"a/b" is not a Secret data key: expected 1-253 letters, digits, "-", "_" or "." (for example kubeconfig.yaml)',
      },
    ]);
  });
});

describe('formatConfigError', () => {
  it('names the setting, the value and the accepted form on one line', () => {
    expect(formatConfigError(onlyError({ interval: '0s' }))).toBe(
      'interval "0s": must be at least 1s, such as 30s, 60s, 1m30s or 5m',
    );
  });
});
