// The kubeconfig Secrets of k3k, vcluster and Kamaji exactly as their controllers write them
// (name, labels, ownerReferences, keys), taken from their sources at the versions the README's
// provider table names, registered through the planner with the presets as a user sets them.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeBase64Text } from '../common/base64.js';
import { plan } from '../plan/index.js';
import { PROVIDER_PRESETS } from './provider-presets.js';
import {
  kubeconfigYaml,
  KEYS,
  NOW,
  outcomeOf,
  scenario,
  settle,
  testConfig,
} from '../test-support/fixtures.js';
import type { ObservedSecret, Plan } from '../common/types.js';

/** k3k's controller.SafeConcatName (pkg/controller/controller.go), for the fixture's name. */
function k3kSafeConcatName(...parts: string[]): string {
  const full = parts.filter((part) => part !== '').join('-');
  if (full.length < 64) return full;
  const digest = createHash('sha256').update(full).digest('hex');
  const c = full[56] ?? '';
  return /[a-z0-9]/.test(c)
    ? `${full.slice(0, 57)}-${digest.slice(0, 5)}`
    : `${full.slice(0, 56)}-${digest.slice(0, 6)}`;
}

const b64 = encodeBase64Text;

function created(result: Plan): string[] {
  return result.actions.flatMap((action) => (action.kind === 'create' ? [action.secret.name] : []));
}

describe('k3k: the Secret its controller owns, whatever its name', () => {
  // 60 characters: k3k-<name>-kubeconfig would be 75, so k3k hashes it.
  const cluster = 'payments-eu-west-1-production-tenant-blue-green-rollout-0001';
  const name = k3kSafeConcatName('k3k', cluster, 'kubeconfig');

  /** ensureKubeconfigSecret: SetControllerReference to the Cluster, key kubeconfig.yaml. */
  function k3kSecret(namespace: string, secretName: string): ObservedSecret {
    return {
      namespace,
      name: secretName,
      uid: `uid-${secretName}`,
      resourceVersion: '1',
      type: 'Opaque',
      labels: {},
      annotations: {},
      ownerReferences: [
        { apiVersion: 'k3k.io/v1beta1', kind: 'Cluster', name: cluster, controller: true },
      ],
      data: { 'kubeconfig.yaml': b64(kubeconfigYaml({ server: 'https://10.43.12.7' })) },
    };
  }

  it('names a 60-character cluster with a hash, not -kubeconfig', () => {
    expect(cluster).toHaveLength(60);
    expect(name).toHaveLength(63);
    expect(name.endsWith('-kubeconfig')).toBe(false);
  });

  it('registers the hashed Secret with the default settings', () => {
    const snapshot = scenario()
      .namespace('k3k-payments')
      .secret(k3kSecret('k3k-payments', name))
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(created(result)).toEqual(['cluster-k3k-payments']);
    expect(outcomeOf(result, 'k3k-payments').source).toMatchObject({
      secret: name,
      key: 'kubeconfig.yaml',
      provider: 'k3k',
    });
    expect(outcomeOf(result, 'k3k-payments').source?.chosenBy).toContain(
      'controlled by a k3k.io Cluster',
    );
  });

  it('does not take a Secret another controller owns under that name', () => {
    const foreign = {
      ...k3kSecret('k3k-payments', name),
      ownerReferences: [
        { apiVersion: 'example.com/v1', kind: 'Cluster', name: cluster, controller: true },
      ],
    };
    const snapshot = scenario().namespace('k3k-payments').secret(foreign).build();
    expect(outcomeOf(plan(snapshot, testConfig(), NOW), 'k3k-payments').state).toBe('waiting');
  });
});

describe('vcluster: every kubeconfig it exports carries its labels', () => {
  /** WriteKubeConfig (pkg/util/kubeconfig): labels app and vcluster-name, five keys. */
  function vclusterSecret(namespace: string, secretName: string, server: string): ObservedSecret {
    return {
      namespace,
      name: secretName,
      uid: `uid-${secretName}`,
      resourceVersion: '1',
      type: 'Opaque',
      labels: { app: 'vcluster', 'vcluster-name': 'dev' },
      annotations: {},
      data: {
        config: b64(kubeconfigYaml({ server })),
        'certificate-authority': b64('ca'),
        'client-certificate': b64('cert'),
        'client-key': b64('key'),
        token: '',
      },
    };
  }
  const vcluster = testConfig({ providers: [PROVIDER_PRESETS.vcluster] });

  it('registers an additional exported Secret of any name', () => {
    const snapshot = scenario()
      .namespace('team-a')
      .secret(vclusterSecret('team-a', 'argocd-access', 'https://dev.team-a.example.com'))
      .build();
    const result = plan(snapshot, vcluster, NOW);
    expect(created(result)).toEqual(['cluster-team-a']);
    expect(outcomeOf(result, 'team-a').source?.secret).toBe('argocd-access');
  });

  it('rewrites a loopback server to the Service the vcluster-name label names', () => {
    const snapshot = scenario()
      .namespace('team-a')
      .secret(vclusterSecret('team-a', 'exported', 'https://localhost:8443'))
      .build();
    const result = plan(snapshot, vcluster, NOW);
    const create = result.actions.find((action) => action.kind === 'create');
    expect(create?.kind === 'create' ? create.secret.data.server : undefined).toBe(
      b64('https://dev.team-a'),
    );
  });

  it('prefers a Secret with the labels over one that only has a vc-* name', () => {
    const unlabelled = {
      ...vclusterSecret('team-a', 'vc-aaa', 'https://other.example.com'),
      labels: {},
    };
    const snapshot = scenario()
      .namespace('team-a')
      .secret(unlabelled)
      .secret(vclusterSecret('team-a', 'vc-dev', 'https://dev.team-a.example.com'))
      .build();
    expect(outcomeOf(plan(snapshot, vcluster, NOW), 'team-a').source?.secret).toBe('vc-dev');
  });
});

describe('Kamaji: the admin kubeconfig and KubeconfigGenerator Secrets', () => {
  const tcp = 'prod';
  /** KubeconfigResource: KamajiLabels + the lifecycle label, controller TenantControlPlane. */
  const admin: ObservedSecret = {
    namespace: 'tenants',
    name: `${tcp}-admin-kubeconfig`,
    uid: 'uid-admin',
    resourceVersion: '1',
    type: 'Opaque',
    labels: {
      'kamaji.clastix.io/project': 'kamaji',
      'kamaji.clastix.io/name': tcp,
      'kamaji.clastix.io/component': 'admin-kubeconfig',
      'kamaji.clastix.io/certificate_lifecycle_controller': 'kubeconfig',
    },
    annotations: {},
    ownerReferences: [
      {
        apiVersion: 'kamaji.clastix.io/v1alpha1',
        kind: 'TenantControlPlane',
        name: tcp,
        controller: true,
      },
    ],
    data: {
      'admin.conf': b64(kubeconfigYaml({ server: 'https://203.0.113.10:6443' })),
      'admin.svc': b64(kubeconfigYaml({ server: 'https://prod.tenants.svc:6443' })),
      'super-admin.conf': b64(kubeconfigYaml({ server: 'https://203.0.113.10:6443' })),
      'super-admin.svc': b64(kubeconfigYaml({ server: 'https://prod.tenants.svc:6443' })),
    },
  };
  /** KubeconfigGeneratorReconciler.generate: `<tcp>-<generator>`, key value. */
  const generated: ObservedSecret = {
    namespace: 'tenants',
    name: `${tcp}-argocd`,
    uid: 'uid-generated',
    resourceVersion: '1',
    type: 'Opaque',
    labels: {
      'kamaji.clastix.io/managed-by': 'argocd',
      'kamaji.clastix.io/managed-for': tcp,
      'kamaji.clastix.io/certificate_lifecycle_controller': 'kubeconfig',
    },
    annotations: {},
    ownerReferences: [
      {
        apiVersion: 'kamaji.clastix.io/v1alpha1',
        kind: 'TenantControlPlane',
        name: tcp,
        controller: true,
      },
    ],
    data: { value: b64(kubeconfigYaml({ server: 'https://prod.tenants.svc:6443' })) },
  };
  const world = () => scenario().namespace('tenants').secret(admin).secret(generated);
  const { kamaji } = PROVIDER_PRESETS;
  const generator = PROVIDER_PRESETS['kamaji-generated'];

  it('chooses the generated Secret when kamaji-generated comes first', () => {
    const result = plan(world().build(), testConfig({ providers: [generator, kamaji] }), NOW);
    expect(outcomeOf(result, 'tenants').source).toMatchObject({
      secret: 'prod-argocd',
      key: 'value',
      provider: 'kamaji-generated',
    });
  });

  it('takes the admin kubeconfig first when kamaji comes first, and says why', () => {
    const result = plan(world().build(), testConfig({ providers: [kamaji, generator] }), NOW);
    const source = outcomeOf(result, 'tenants').source;
    expect(source).toMatchObject({ secret: 'prod-admin-kubeconfig', key: 'admin.svc' });
    expect(source?.chosenBy).toBe(
      'the first usable candidate of the kamaji provider (labelled kamaji.clastix.io/component=admin-kubeconfig and kamaji.clastix.io/name, as kamaji writes its kubeconfig Secrets)',
    );
  });

  it('chooses the Secret the source names in <prefix>kubeconfig-secret, whatever the order', () => {
    const snapshot = world().annotate('tenants', KEYS.kubeconfigSecret, 'prod-argocd').build();
    const result = plan(snapshot, testConfig({ providers: [kamaji, generator] }), NOW);
    const source = outcomeOf(result, 'tenants').source;
    expect(source).toMatchObject({ secret: 'prod-argocd', provider: 'kamaji-generated' });
    expect(source?.chosenBy).toBe(`named by the ${KEYS.kubeconfigSecret} annotation`);
  });

  it('waits, naming the annotation, while the Secret it names is not there', () => {
    const snapshot = world().annotate('tenants', KEYS.kubeconfigSecret, 'prod-gitops').build();
    const outcome = outcomeOf(
      plan(snapshot, testConfig({ providers: [kamaji, generator] }), NOW),
      'tenants',
    );
    expect(outcome.state).toBe('waiting');
    expect(outcome.reason?.message).toContain(
      `no kubeconfig Secret prod-gitops in namespace tenants yet (named by its ${KEYS.kubeconfigSecret} annotation`,
    );
  });

  it('refuses a name whose Secret is there but read by no configured provider, and keeps what is registered', () => {
    // Only kamaji is configured: the generator's Secret exists, and nothing reads it.
    const config = testConfig({ providers: [kamaji] });
    const pinned = (keys: readonly string[]) => {
      const snapshot = world().annotate('tenants', KEYS.kubeconfigSecret, 'prod-argocd').build();
      // As the gatherer records it: the name and key names of a Secret no provider reads.
      return { ...snapshot, nearMisses: [{ namespace: 'tenants', name: 'prod-argocd', keys }] };
    };
    const outcome = outcomeOf(plan(pinned(['value']), config, NOW), 'tenants');
    expect(outcome).toMatchObject({
      state: 'refused',
      reason: { code: 'kubeconfig-secret-invalid' },
    });
    expect(outcome.reason?.message).toContain(
      `annotation ${KEYS.kubeconfigSecret}="prod-argocd" on namespace tenants names Secret prod-argocd, which no configured provider reads (its keys: value; looking for`,
    );
    expect(outcome.reason?.message).toContain('--provider kamaji-generated');
    // Registered before the annotation named it: the registration stays as it was.
    const registered = settle(world().build(), config);
    const wrong = {
      ...scenario(registered).annotate('tenants', KEYS.kubeconfigSecret, 'prod-argocd').build(),
      nearMisses: [{ namespace: 'tenants', name: 'prod-argocd', keys: ['value'] }],
    };
    const result = plan(wrong, config, NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'tenants').state).toBe('refused');
    // Once a configured provider reads it, it is a candidate, and chosen.
    const read = plan(pinned(['value']), testConfig({ providers: [kamaji, generator] }), NOW);
    expect(outcomeOf(read, 'tenants').source).toMatchObject({ secret: 'prod-argocd' });
  });

  it('refuses a name that is no Secret of the source’s own namespace, and keeps what is registered', () => {
    const config = testConfig({ providers: [kamaji, generator] });
    for (const value of [
      'other-team/prod-argocd',
      '../kube-system/admin',
      'prod-argocd/../x',
      'Prod_Argocd',
      'a'.repeat(254),
      'evil\u001b[31m\n',
      'evil\u009b31m',
      '',
    ]) {
      const snapshot = world().annotate('tenants', KEYS.kubeconfigSecret, value).build();
      const outcome = outcomeOf(plan(snapshot, config, NOW), 'tenants');
      expect(outcome, value).toMatchObject({
        state: 'refused',
        reason: { code: 'kubeconfig-secret-invalid' },
      });
      const message = outcome.reason?.message ?? '';
      expect(message).toContain(`annotation ${KEYS.kubeconfigSecret}=`);
      expect(message).toContain('tenants');
      // Quoted, escaped and bounded: nothing a terminal would act on, nothing unbounded.
      const controls = [...message].filter((c) => c < ' ' || (c >= '\u007f' && c <= '\u009f'));
      expect(controls).toEqual([]);
      expect(message.length).toBeLessThan(600);
    }
    // Registered before the annotation went wrong: the registration stays as it was.
    const registered = settle(world().build(), config);
    const wrong = scenario(registered).annotate('tenants', KEYS.kubeconfigSecret, 'a/b').build();
    const result = plan(wrong, config, NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'tenants').state).toBe('refused');
  });

  it('never takes a Secret by the generated preset name pattern alone', () => {
    const unlabelled = { ...generated, labels: {} };
    const snapshot = scenario().namespace('tenants').secret(unlabelled).build();
    expect(
      outcomeOf(plan(snapshot, testConfig({ providers: [generator] }), NOW), 'tenants').state,
    ).toBe('waiting');
  });
});
