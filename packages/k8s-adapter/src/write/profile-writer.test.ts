// Every profile the planner writes is valid for the inventory module's own ClusterProfile CRD
// (its OpenAPI schema and CEL rules, applied by a real API server: not a copy of our own),
// across the forms a registration takes; written once, the profiles read back as planned, so
// planning again against the real server writes nothing.

import { beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64Text, plan, planProfiles } from '@argocd-cluster-registrar/core';
import type {
  Config,
  ObservedSecret,
  Snapshot,
  SourceNamespace,
} from '@argocd-cluster-registrar/core';
import {
  installClusterProfileCrd,
  kubeconfigText,
  uniqueName,
} from '@argocd-cluster-registrar/testkit';
import { createClusterProfile } from '../connection/cluster-profile-api.js';
import { createProfileReader } from '../gather/cluster-profiles.js';
import { PREFIX, host, testConfig } from '../test-support/host.js';
import type { Host } from '../test-support/host.js';
import { writeProfiles } from './profile-writer.js';

let h: Host;
beforeAll(async () => {
  h = await host();
  await installClusterProfileCrd(h.plane);
}, 600_000);

function source(name: string, labels: Record<string, string>): SourceNamespace {
  return {
    name,
    uid: `00000000-0000-4000-8000-${String(name.length).padStart(12, '0')}`.slice(0, 36),
    labels,
    annotations: {},
    creationTimestamp: '2026-12-01T00:00:00Z',
  };
}

function kubeconfigSecret(namespace: string, cluster: string[], user: string[]): ObservedSecret {
  return {
    namespace,
    name: `k3k-${namespace}-kubeconfig`,
    uid: `uid-${namespace}`,
    resourceVersion: '1',
    type: 'Opaque',
    labels: {},
    annotations: {},
    data: {
      'kubeconfig.yaml': encodeBase64Text(
        kubeconfigText({ server: `https://${namespace}.child.example.com:6443`, cluster, user }),
      ),
    },
  };
}

describe('ClusterProfiles against the module CRD', () => {
  it('are accepted as written, spec and status, in every form, and read back unchanged', async () => {
    const inventory = uniqueName('inventory');
    await h.core.createNamespace({ body: { metadata: { name: inventory } } });
    const config: Config = testConfig({
      clusterProfiles: true,
      clusterProfileNamespace: inventory,
      probeChildren: true,
    });
    // Real PEM data (the translation parses it): the plane's own admin kubeconfig's.
    const field = (key: string): string =>
      new RegExp(`${key}: (\\S+)`).exec(h.plane.kubeConfig)?.[1] ?? '';
    const caData = `certificate-authority-data: ${field('certificate-authority-data')}`;
    const certUser = [
      `client-certificate-data: ${field('client-certificate-data')}`,
      `client-key-data: ${field('client-key-data')}`,
    ];
    const long = 'v'.repeat(63);
    const worlds: [string, string, string[], string[]][] = [
      ['cert', 'alpha', [caData], certUser],
      ['token', 'team.beta-1', ['insecure-skip-tls-verify: true'], ['token: abc']],
      [
        'named',
        'gamma',
        [caData, 'tls-server-name: kube.internal', 'proxy-url: http://proxy.example:3128'],
        ['token: abc'],
      ],
      ['basic', 'delta', [caData], ['username: u', 'password: p']],
    ];
    const namespaces = worlds.map(([ns, cluster], i) =>
      source(`${ns}-${inventory}`.slice(0, 63), {
        [`${PREFIX}managed-by`]: config.managedBy,
        [`${PREFIX}cluster`]: `${cluster}-${String(i)}`,
        [`${PREFIX}team`]: long,
      }),
    );
    const snapshot: Snapshot = {
      namespaces,
      candidateSecrets: worlds.map(([, , cluster, user], i) =>
        kubeconfigSecret(namespaces[i]?.name ?? '', cluster, user),
      ),
      clusterSecrets: [],
      sourceLookups: {},
      children: {
        [namespaces[0]?.name ?? '']: { failures: 0, version: 'v1.36.3+k3s1' },
        [namespaces[1]?.name ?? '']: { failures: 4, error: `dial tcp: ${'x'.repeat(3000)}` },
      },
    };
    const registrations = plan(snapshot, config, Date.now());
    expect(registrations.outcomes.map((o) => o.state)).toEqual(worlds.map(() => 'registered'));
    // The registrations as if written: what the planner reads on the next pass.
    const written: Snapshot = {
      ...snapshot,
      clusterSecrets: registrations.actions.flatMap((a) =>
        a.kind === 'create'
          ? [{ ...a.secret, uid: `uid-${a.secret.name}`, resourceVersion: '1' }]
          : [],
      ),
    };
    const reader = createProfileReader(h.access, {
      namespace: inventory,
      mode: 'list',
      rediscoverMs: 60_000,
    });
    const settings = { namespace: inventory, manager: config.clusterManager };
    const first = await reader.read(Date.now());
    if (first.state !== 'read') throw new Error(first.why);
    const profilePlan = planProfiles({
      snapshot: written,
      plan: plan(written, config, Date.now()),
      profiles: first.snapshot,
      settings,
      config,
      now: Date.now(),
    });
    expect(profilePlan.actions.map((a) => a.kind)).toEqual(worlds.map(() => 'create'));
    const results = await writeProfiles(h.access, profilePlan);
    expect(results.map((r) => [r.action.cluster, r.status, r.failure?.message])).toEqual(
      profilePlan.actions.map((a) => [a.cluster, 'applied', undefined]),
    );

    const again = await reader.read(Date.now());
    if (again.state !== 'read') throw new Error(again.why);
    expect(again.snapshot.profiles).toHaveLength(worlds.length);
    // Each result names the profile it created by uid (its Events are recorded on it).
    expect(Object.fromEntries(results.map((r) => [r.action.cluster, r.uid]))).toEqual(
      Object.fromEntries(again.snapshot.profiles.map((p) => [p.name, p.uid])),
    );
    const replanned = planProfiles({
      snapshot: written,
      plan: plan(written, config, Date.now()),
      profiles: again.snapshot,
      settings,
      config,
      now: Date.now() + 60_000,
    });
    expect(replanned.actions).toEqual([]);
  });

  it('are read by a watching reader on its first read, not reported as not listed yet', async () => {
    const inventory = uniqueName('inventory');
    await h.core.createNamespace({ body: { metadata: { name: inventory } } });
    const version = 'v1alpha1';
    await createClusterProfile(
      h.access,
      version,
      inventory,
      {
        apiVersion: `multicluster.x-k8s.io/${version}`,
        kind: 'ClusterProfile',
        metadata: { name: 'present', namespace: inventory },
        spec: { displayName: 'present', clusterManager: { name: 'someone' } },
      },
      { fieldManager: 'test' },
    );
    const reader = createProfileReader(h.access, {
      namespace: inventory,
      mode: 'watch',
      rediscoverMs: 60_000,
    });
    try {
      const first = await reader.read(Date.now());
      expect(first.state === 'read' ? first.snapshot.profiles.map((p) => p.name) : first).toEqual([
        'present',
      ]);
    } finally {
      reader.stop();
    }
  });
});
