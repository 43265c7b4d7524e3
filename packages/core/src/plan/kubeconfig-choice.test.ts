import { describe, expect, it } from 'vitest';
import { encodeBase64Text } from '../common/base64.js';
import { PROVIDER_PRESETS } from '../config/provider-presets.js';
import {
  kubeconfigSecret,
  kubeconfigYaml,
  NOW,
  outcomeOf,
  scenario,
  settle,
  testConfig,
} from '../test-support/fixtures.js';
import type { NearMissSecret, Snapshot } from '../common/types.js';
import { plan } from './index.js';
import { parseConfig } from '../config/config.js';

const withNearMisses = (snapshot: Snapshot, nearMisses: NearMissSecret[]): Snapshot => ({
  ...snapshot,
  nearMisses,
});

describe('a namespace without a usable kubeconfig names the Secret that almost matched', () => {
  it('a vcluster Secret under the default k3k provider: suggests --provider vcluster', () => {
    const snapshot = withNearMisses(scenario().namespace('team-a', { cluster: 'alpha' }).build(), [
      { namespace: 'team-a', name: 'vc-alpha', keys: ['certificate', 'config', 'key'] },
      { namespace: 'team-a', name: 'vc-config-alpha', keys: ['config.yaml'] },
    ]);
    const outcome = outcomeOf(plan(snapshot, testConfig(), NOW), 'team-a');
    expect(outcome).toMatchObject({
      state: 'waiting',
      reason: { code: 'waiting-for-kubeconfig' },
    });
    expect(outcome.reason?.message).toBe(
      'no kubeconfig Secret in namespace team-a that the configured providers read (looking for k3k-*-kubeconfig (or controlled by a k3k.io Cluster) with kubeconfig.yaml), but Secret vc-alpha (its keys: certificate, config, key) matches the vcluster provider (vc-* with config), which is not configured; add it with `--provider vcluster` (chart value `providers: [vcluster]`), keeping k3k in the list if other namespaces need it; it is registered as soon as one matches',
    );
  });

  it('an exec user kubeconfig: suggests the exec preset its name is for, not capi', () => {
    const snapshot = withNearMisses(scenario().namespace('team-a', { cluster: 'alpha' }).build(), [
      { namespace: 'team-a', name: 'prod-user-kubeconfig', keys: ['value'] },
    ]);
    const message = outcomeOf(plan(snapshot, testConfig(), NOW), 'team-a').reason?.message;
    expect(message).toContain(
      "but Secret prod-user-kubeconfig (its keys: value) matches the capa-eks provider (*-user-kubeconfig with value), which is not configured; add it with `--provider capa-eks` (chart value `providers: [capa-eks]`) with `--exec-credentials` (its exec plugin is translated into ArgoCD's own form), or gke if that is the cloud it signs in to, keeping k3k in the list",
    );
    expect(message).not.toContain('--provider capi');
  });

  it('a custom ;exec provider is named with its ;exec, and so is the entry it suggests', () => {
    const parsed = parseConfig({ providers: ['custom:*-eks=value;exec'], execCredentials: true });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const snapshot = withNearMisses(scenario().namespace('team-a', { cluster: 'alpha' }).build(), [
      { namespace: 'team-a', name: 'prod-eks', keys: ['kubeconfig'] },
    ]);
    const message = outcomeOf(plan(snapshot, parsed.config, NOW), 'team-a').reason?.message;
    expect(message).toContain('of the custom:*-eks=value;exec provider but has no key value');
    expect(message).toContain("`--provider 'custom:*-eks=kubeconfig;exec'`");
  });

  it('a registered cluster whose provider no longer matches is stale with the near miss, not "no Secret is left"', () => {
    const registered = settle(scenario().child('team-a', { cluster: 'alpha' }).build());
    const snapshot = withNearMisses(scenario(registered).removeKubeconfig('team-a').build(), [
      { namespace: 'team-a', name: 'vc-alpha', keys: ['config'] },
    ]);
    const outcome = outcomeOf(plan(snapshot, testConfig(), NOW), 'team-a');
    expect(outcome.state).toBe('stale');
    expect(outcome.reason?.message).toBe(
      'no kubeconfig Secret that the configured providers read is left in namespace team-a, but Secret vc-alpha (its keys: config) matches the vcluster provider (vc-* with config), which is not configured; add it with `--provider vcluster` (chart value `providers: [vcluster]`), keeping k3k in the list if other namespaces need it; cluster-alpha keeps its last registered credentials until this is fixed',
    );
  });

  it("a Secret with the provider's name but another key is refused: names its keys and the key to use, never a value", () => {
    const snapshot = scenario()
      .namespace('team-a', { cluster: 'alpha' })
      .kubeconfig('team-a', { key: 'kubeconfig' })
      .build();
    const outcome = outcomeOf(plan(snapshot, testConfig(), NOW), 'team-a');
    expect(outcome.state).toBe('refused');
    expect(outcome.reason).toEqual({
      code: 'kubeconfig-key-missing',
      message:
        'namespace team-a: Secret k3k-team-a-kubeconfig matches k3k-*-kubeconfig of the k3k provider but has no key kubeconfig.yaml (its keys: kubeconfig); store the kubeconfig under kubeconfig.yaml, or read key kubeconfig with `--provider \'custom:k3k-*-kubeconfig=kubeconfig\'` (chart value `providers: ["custom:k3k-*-kubeconfig=kubeconfig"]`)',
    });
    expect(outcome.reason?.message).not.toContain(encodeBase64Text(kubeconfigYaml()).slice(0, 16));
  });

  it('a Secret with the marks but another key is refused as read by its marks', () => {
    const snapshot = scenario()
      .namespace('team-a', { cluster: 'alpha' })
      .secret({
        ...kubeconfigSecret('team-a', { name: 'k3k-hashed-a1b2c3', key: 'value' }),
        ownerReferences: [
          {
            apiVersion: 'k3k.io/v1beta1',
            kind: 'Cluster',
            name: 'alpha',
            controller: true,
          },
        ],
      })
      .build();
    const outcome = outcomeOf(plan(snapshot, testConfig(), NOW), 'team-a');
    expect(outcome.state).toBe('refused');
    expect(outcome.reason?.message).toContain(
      'namespace team-a: Secret k3k-hashed-a1b2c3 is read by the k3k provider (controlled by a k3k.io Cluster) but has no key kubeconfig.yaml (its keys: value)',
    );
  });

  it('a registered namespace whose Secret moved to another key is stale with the refusal', () => {
    const registered = settle(scenario().child('team-a', { cluster: 'alpha' }).build());
    const snapshot = scenario(registered).kubeconfig('team-a', { key: 'kubeconfig' }).build();
    const outcome = outcomeOf(plan(snapshot, testConfig(), NOW), 'team-a');
    expect(outcome.state).toBe('stale');
    expect(outcome.reason?.code).toBe('kubeconfig-key-missing');
  });

  it('stays waiting for Secrets a provisioner writes beside its kubeconfig (no key that names a kubeconfig)', () => {
    const vcluster = testConfig({ providers: [PROVIDER_PRESETS.vcluster] });
    const marks = { app: 'vcluster', 'vcluster-name': 'alpha' };
    const snapshot = scenario()
      .namespace('team-a', { cluster: 'alpha' })
      // vcluster's config Secret, and its certificate Secret (kubeadm's admin.conf among
      // certificates, under vcluster's own labels), both there before vc-alpha is written.
      .kubeconfig('team-a', { name: 'vc-config-alpha', key: 'config.yaml' })
      .secret({
        ...kubeconfigSecret('team-a', { name: 'alpha-certs', key: 'admin.conf' }),
        labels: marks,
      })
      .build();
    const outcome = outcomeOf(plan(snapshot, vcluster, NOW), 'team-a');
    expect(outcome.state).toBe('waiting');
  });

  it('is not refused while another Secret of the namespace is a usable candidate', () => {
    const snapshot = scenario()
      .child('team-a', { cluster: 'alpha' })
      .kubeconfig('team-a', { name: 'k3k-old-kubeconfig', key: 'kubeconfig' })
      .build();
    const outcome = outcomeOf(plan(snapshot, testConfig(), NOW), 'team-a');
    expect(outcome.state).toBe('registered');
  });

  it('a Secret with another name: suggests a provider for that name', () => {
    const snapshot = withNearMisses(scenario().namespace('team-a', { cluster: 'alpha' }).build(), [
      { namespace: 'team-a', name: 'alpha-access', keys: ['kubeconfig.yaml'] },
    ]);
    expect(outcomeOf(plan(snapshot, testConfig(), NOW), 'team-a').reason?.message).toContain(
      "Secret alpha-access has key kubeconfig.yaml, but its name does not match k3k-*-kubeconfig of the k3k provider; rename it to match, or read it with `--provider 'custom:alpha-access=kubeconfig.yaml'`",
    );
  });

  it('names the configured providers to keep, and skips Secrets that only look alike', () => {
    const config = testConfig({ providers: [PROVIDER_PRESETS.k3k, PROVIDER_PRESETS.kamaji] });
    const snapshot = withNearMisses(scenario().namespace('team-a', { cluster: 'alpha' }).build(), [
      { namespace: 'team-a', name: 'vc-config-alpha', keys: ['config.yaml'] },
      { namespace: 'team-a', name: 'alpha-kubeconfig', keys: ['value'] },
    ]);
    const message = outcomeOf(plan(snapshot, config, NOW), 'team-a').reason?.message ?? '';
    expect(message).toContain(
      'Secret alpha-kubeconfig (its keys: value) matches the capi provider (*-kubeconfig with value), which is not configured; add it with `--provider capi` (chart value `providers: [capi]`), keeping k3k and kamaji in the list if other namespaces need them',
    );
    expect(message).not.toContain('vc-config-alpha');
  });

  it('says what it always said when nothing almost matched', () => {
    const snapshot = scenario().namespace('team-a', { cluster: 'alpha' }).build();
    expect(outcomeOf(plan(snapshot, testConfig(), NOW), 'team-a').reason?.message).toBe(
      'no kubeconfig Secret in namespace team-a yet (looking for k3k-*-kubeconfig (or controlled by a k3k.io Cluster) with kubeconfig.yaml); it is registered as soon as one appears',
    );
  });
});
