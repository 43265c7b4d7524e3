// The two gates: the global execCredentials setting and a provider that allows exec. With
// either off an exec kubeconfig is refused as before (code exec-plugin), and the message
// names the gate to turn on; the start-up warning fires when exactly one is on.

import { describe, expect, it } from 'vitest';
import { parseConfig, parseProviderEntry } from '../../config/config.js';
import { translateSecretKey } from '../providers.js';
import { capaUserKubeconfig, providerSecret } from '../../test-fixtures/cloud-kubeconfigs.js';
import type { Config, Provider } from '../../common/types.js';
import { execCredentialsWarning } from './gates.js';

function config(providers: readonly string[], execCredentials?: boolean): Config {
  const result = parseConfig({
    providers,
    ...(execCredentials === undefined ? {} : { execCredentials }),
    // The operator lists the cluster, so only the gates decide here.
    execEksClusterNames: ['prod'],
  });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.config;
}

const first = (from: Config): Provider => {
  const [provider] = from.providers;
  if (provider === undefined) throw new Error('no provider');
  return provider;
};

const secret = providerSecret('team-a', 'prod-user-kubeconfig', capaUserKubeconfig('prod'));
const WHERE = 'namespace team-a, Secret prod-user-kubeconfig key value: ';
const USES =
  'the kubeconfig uses an exec plugin ("aws-iam-authenticator"), which would run a command inside ArgoCD';

function refusalFor(provider: Provider): { code: string; message: string } {
  const result = translateSecretKey(secret, 'value', provider);
  if (result.ok) throw new Error('expected a refusal');
  return result.refusal;
}

describe('exec gates', () => {
  it('are both off by default', () => {
    expect(config(['k3k']).execCredentials).toBe(false);
    expect(first(config(['k3k'])).execClouds).toBeUndefined();
  });

  it('with the global gate off, refuse even for an exec preset, saying to turn it on', () => {
    expect(refusalFor(first(config(['capa-eks'])))).toEqual({
      code: 'exec-plugin',
      message: `${WHERE}${USES}; provider capa-eks allows exec translation, but --exec-credentials (chart value execCredentials) is off; turn on --exec-credentials (chart value execCredentials), or use a kubeconfig with a client certificate or token`,
    });
  });

  it('with a provider that does not allow exec, refuse even when the global gate is on', () => {
    expect(refusalFor(first(config(['custom:*-user-kubeconfig=value'], true)))).toEqual({
      code: 'exec-plugin',
      message: `${WHERE}${USES}; --exec-credentials (chart value execCredentials) is on, but provider custom:*-user-kubeconfig=value does not allow exec translation; use a provider that allows it (capa-eks, capz-aks or gke, or a custom provider ending in ;exec (custom:<glob>=<key>;exec)), or use a kubeconfig with a client certificate or token`,
    });
  });

  it('with both on, translate', () => {
    expect(translateSecretKey(secret, 'value', first(config(['capa-eks'], true))).ok).toBe(true);
    expect(
      translateSecretKey(
        secret,
        'value',
        first(config(['custom:*-user-kubeconfig=value;exec'], true)),
      ).ok,
    ).toBe(true);
  });
});

describe('execCredentialsWarning', () => {
  it('is silent when both gates or neither are on', () => {
    expect(execCredentialsWarning(config(['k3k']))).toBeUndefined();
    expect(execCredentialsWarning(config(['k3k', 'capa-eks'], true))).toBeUndefined();
  });

  it('warns when only the global gate is on', () => {
    expect(execCredentialsWarning(config(['k3k', 'capi'], true))).toBe(
      '--exec-credentials (chart value execCredentials) is on, but no provider allows exec translation, so exec kubeconfigs are still refused; add a provider that allows it (capa-eks, capz-aks or gke, or a custom provider ending in ;exec (custom:<glob>=<key>;exec)) or turn the setting off',
    );
  });

  it('warns when only providers allow exec, naming them', () => {
    expect(execCredentialsWarning(config(['capz-aks', 'custom:x-*=value;exec']))).toBe(
      "providers capz-aks, custom:x-*=value;exec allow exec translation, but --exec-credentials (chart value execCredentials) is off, so exec kubeconfigs are refused; turn it on to translate them into ArgoCD's own forms",
    );
  });
});

describe('custom provider syntax', () => {
  it('takes ;exec after the keys', () => {
    expect(parseProviderEntry('custom:*-kc=a,b;exec')).toEqual({
      ok: true,
      provider: {
        name: 'custom',
        secretNamePattern: '*-kc',
        keys: ['a', 'b'],
        loopbackRewrite: false,
        execClouds: ['aws', 'azure', 'gcp'],
      },
    });
  });

  it.each([
    ['custom:*-kc=a;eks', '"eks" is not a custom provider option; the only one is ;exec'],
    ['custom:*-kc=a;exec;exec', 'lists ;exec twice'],
    ['custom:*-kc=;exec', '"" is not a Secret data key'],
  ])('refuses %j', (entry, message) => {
    const parsed = parseProviderEntry(entry);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain(message);
  });

  it('lets capa-eks and gke share their glob, but not the same provider twice', () => {
    expect(parseConfig({ providers: ['capa-eks', 'gke'] }).ok).toBe(true);
    expect(parseConfig({ providers: ['custom:a-*=v', 'custom:a-*=v;exec'] }).ok).toBe(true);
    expect(parseConfig({ providers: ['gke', 'gke'] }).ok).toBe(false);
  });

  it('refuses a non-boolean execCredentials, naming the setting', () => {
    const result = parseConfig({ execCredentials: 'yes' as unknown as boolean });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors).toEqual([
        { setting: 'execCredentials', value: 'yes', message: 'must be true or false' },
      ]);
  });
});
