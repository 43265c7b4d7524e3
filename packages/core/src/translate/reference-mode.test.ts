// Reference mode: what a registration says when ArgoCD is to read the source's own Secret
// through the kubeconfig-secretreader plugin, what the plugin cannot read (refused under
// `on`, copied under `on-or-copy`), and that a credential rotation then writes nothing.

import { describe, expect, it } from 'vitest';
import { encodeBase64Text } from '../common/base64.js';
import { PROVIDER_PRESETS } from '../config/provider-presets.js';
import {
  KEYS,
  NOW,
  PEM,
  configOf,
  kubeconfigSecret,
  kubeconfigYaml,
  outcomeOf,
  scenario,
  serverOf,
  settle,
  testConfig,
} from '../test-support/fixtures.js';
import { plan } from '../plan/index.js';
import { planProfiles } from '../plan/profiles.js';
import { createSecretKeyTranslator } from './providers.js';
import { parseConfig } from '../config/config.js';
import { argoConfigProblems } from '../test-fixtures/argo-config-check.js';
import {
  GKE_SERVER,
  gkeUserKubeconfig,
  providerSecret,
} from '../test-fixtures/cloud-kubeconfigs.js';
import type { ReferenceMode, TranslationResult } from '../common/types.js';

const PLUGIN = '/usr/local/bin/kubeconfig-secretreader';

function translate(mode: ReferenceMode, text: string, namespace = 'team-a'): TranslationResult {
  const secret = kubeconfigSecret(namespace, { text });
  return createSecretKeyTranslator({ reference: { mode, command: PLUGIN } })(
    secret,
    'kubeconfig.yaml',
    PROVIDER_PRESETS.k3k,
  );
}

const noContext = kubeconfigYaml().replace(/^current-context: .*$/m, '');
const withExtensions = `${kubeconfigYaml()}extensions:\n- name: x\n  extension: {}\n`;

describe('reference mode', () => {
  it('points ArgoCD at the source Secret through the plugin: server and CA kept, no credential copied', () => {
    const result = translate('on', kubeconfigYaml({ tlsServerName: 'child.internal' }));
    expect(result).toMatchObject({ ok: true });
    if (!result.ok) return;
    expect(result.translation.credential).toBe('secret-reference');
    expect(result.translation.clientCertificate).toBeUndefined();
    expect(result.translation.server).toBe('https://child.example.com:6443');
    expect(argoConfigProblems(result.translation.server, result.translation.config)).toEqual([]);
    expect(result.translation.config).toEqual({
      tlsClientConfig: {
        insecure: false,
        serverName: 'child.internal',
        caData: encodeBase64Text(PEM.ca),
      },
      execProviderConfig: {
        command: PLUGIN,
        args: [],
        apiVersion: 'client.authentication.k8s.io/v1',
        provideClusterInfo: true,
        config: {
          name: 'k3k-team-a-kubeconfig',
          namespace: 'team-a',
          key: 'kubeconfig.yaml',
          context: 'default',
        },
      },
    });
  });

  it('reads a token kubeconfig by reference too', () => {
    const result = translate('on', kubeconfigYaml({ credentials: { token: 'secret-token' } }));
    expect(result.ok && result.translation.credential).toBe('secret-reference');
    expect(JSON.stringify(result)).not.toContain('secret-token');
  });

  it('copies as before with reference mode off', () => {
    const result = translate('off', kubeconfigYaml());
    expect(result.ok && result.translation.credential).toBe('client-certificate');
    expect(result.ok && result.translation.config.tlsClientConfig.certData).toBe(
      encodeBase64Text(PEM.client.cert),
    );
  });

  const unreadable: readonly {
    readonly what: string;
    readonly text: string;
    readonly why: RegExp;
  }[] = [
    {
      what: 'username and password',
      text: kubeconfigYaml({ credentials: { username: 'u', password: 'p' } }),
      why: /username and password/,
    },
    { what: 'no current-context', text: noContext, why: /no current-context/ },
    { what: 'kubeconfig extensions', text: withExtensions, why: /extensions/ },
  ];

  for (const { what, text, why } of unreadable) {
    it(`refuses a kubeconfig the plugin cannot read under on (${what}), naming the Secret and the fix`, () => {
      const result = translate('on', text);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.refusal.code).toBe('reference-unreadable');
      expect(result.refusal.message).toMatch(why);
      expect(result.refusal.message).toContain(
        'namespace team-a, Secret k3k-team-a-kubeconfig key kubeconfig.yaml',
      );
      expect(result.refusal.message).toContain('on-or-copy');
    });

    it(`copies it with a warning under on-or-copy (${what})`, () => {
      const result = translate('on-or-copy', text);
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.translation.credential).not.toBe('secret-reference');
      expect(result.translation.config.execProviderConfig).toBeUndefined();
      expect(result.translation.warnings).toEqual([
        expect.objectContaining({ code: 'reference-fallback', namespace: 'team-a' }),
      ]);
      expect(result.translation.warnings[0]?.message).toMatch(why);
    });
  }

  it('refuses an exec kubeconfig the exec gates let through, as the plugin refuses user.exec', () => {
    const gke = parseConfig({
      providers: ['gke'],
      execCredentials: true,
      execAllowedServers: [GKE_SERVER.replace('https://', '')],
    });
    if (!gke.ok) throw new Error(JSON.stringify(gke.errors));
    const [provider] = gke.config.providers;
    if (provider === undefined) throw new Error('no provider');
    const secret = providerSecret('team-c', 'prod-gke-user-kubeconfig', gkeUserKubeconfig());
    const under = (mode: ReferenceMode): TranslationResult =>
      createSecretKeyTranslator({ reference: { mode, command: PLUGIN } })(
        secret,
        'value',
        provider,
      );
    const on = under('on');
    expect(on.ok ? on.translation.credential : on.refusal.code).toBe('reference-unreadable');
    const copy = under('on-or-copy');
    expect(copy.ok ? copy.translation.credential : copy.refusal.code).toBe('exec');
  });

  it("names only the source's own Secret and namespace, whatever namespace its context sets", () => {
    const text = kubeconfigYaml().replace(
      '    user: admin\n',
      '    user: admin\n    namespace: argocd\n',
    );
    const result = translate('on', text, 'team-b');
    expect(result.ok && result.translation.config.execProviderConfig?.config).toEqual({
      name: 'k3k-team-b-kubeconfig',
      namespace: 'team-b',
      key: 'kubeconfig.yaml',
      context: 'default',
    });
  });
});

describe('the planner in reference mode', () => {
  const config = testConfig({ referenceMode: 'on', secretreaderPath: PLUGIN });

  it('writes the reference and says so in the outcome', () => {
    const result = plan(scenario().child('team-a').build(), config, NOW);
    expect(result.actions.map((a) => a.kind)).toEqual(['create']);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'registered',
      credential: 'secret-reference',
    });
    expect(outcomeOf(result, 'team-a').credentialNotAfter).toBeUndefined();
  });

  /** team-a registered under `under`, then its kubeconfig holds a certificate of another CA. */
  function rotatedUnder(under: typeof config): ReturnType<typeof plan> {
    const registered = settle(scenario().child('team-a').build(), under, NOW);
    const rotated = scenario(registered)
      .kubeconfig('team-a', { server: serverOf('team-a'), credentials: PEM.other })
      .build();
    return plan(rotated, under, NOW + 7 * 24 * 3_600_000);
  }

  it('writes nothing when the credential in the source Secret rotates', () => {
    // A change of issuer, which a copied registration takes at once.
    expect(rotatedUnder(testConfig()).actions.map((a) => a.kind)).toEqual(['update']);
    const later = rotatedUnder(config);
    expect(later.actions).toEqual([]);
    expect(outcomeOf(later, 'team-a')).toMatchObject({
      state: 'unchanged',
      credential: 'secret-reference',
    });
  });

  it('moves a copied registration to the reference once, then holds still', () => {
    const copied = settle(scenario().child('team-a').build(), testConfig(), NOW);
    const switched = plan(copied, config, NOW);
    expect(switched.actions.map((a) => a.kind)).toEqual(['update']);
    const settled = settle(copied, config, NOW);
    const registration = settled.clusterSecrets.find((s) => s.name === 'cluster-team-a');
    expect(registration === undefined ? undefined : configOf(registration)).toMatchObject({
      execProviderConfig: { provideClusterInfo: true, config: { namespace: 'team-a' } },
    });
    expect(registration?.labels[KEYS.managedBy]).toBe('cluster-registrar');
  });
});

describe('ClusterProfiles of registrations by reference', () => {
  it('still point consumers at the source Secret: a reference is what the plugin reads', () => {
    const config = testConfig({ referenceMode: 'on', secretreaderPath: PLUGIN });
    const world = settle(scenario().child('team-a').build(), config, NOW);
    const profiles = planProfiles({
      snapshot: world,
      plan: plan(world, config, NOW),
      profiles: { apiVersion: 'v1alpha1', profiles: [] },
      settings: { namespace: 'inventory', manager: 'argocd-cluster-registrar' },
      config,
      now: NOW,
    });
    const action = profiles.actions[0];
    expect(action?.kind === 'create' ? action.profile.status.accessProviders : undefined).toEqual([
      expect.objectContaining({
        name: 'kubeconfig-secretreader',
        cluster: expect.objectContaining({
          extensions: [
            {
              name: 'client.authentication.k8s.io/exec',
              extension: {
                name: 'k3k-team-a-kubeconfig',
                namespace: 'team-a',
                key: 'kubeconfig.yaml',
              },
            },
          ],
        }) as unknown,
      }) as unknown,
    ]);
  });
});
