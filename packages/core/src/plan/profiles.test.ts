// planProfiles: the ClusterProfiles published beside the registrations, by example and by
// property (ownership, positive proof, idempotence, determinism).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from './index.js';
import {
  CLUSTER_MANAGER_LABEL,
  INVENTORY_MEMBER_ID_LABEL,
  planProfiles,
  SECRETREADER_PROVIDER,
} from './profiles.js';
import type { ProfileInput } from './profiles.js';
import { applyProfilePlan } from '../test-support/apply-profile-plan.js';
import { buildSnapshot, plannerInputArb, PROPERTY_CONFIG } from '../test-support/arbitraries.js';
import {
  KEYS,
  NOW,
  PEM,
  MINUTE,
  scenario,
  serverOf,
  settle,
  testConfig,
} from '../test-support/fixtures.js';
import { encodeBase64Text } from '../common/base64.js';
import { sha256Hex } from '../present/sha256.js';
import { isClusterKey, recordedSourceKey } from '../config/sources.js';
import type {
  Config,
  ObservedProfile,
  ProfilePlan,
  ProfileSettings,
  ProfileSnapshot,
  Snapshot,
} from '../common/types.js';

const SETTINGS: ProfileSettings = { namespace: 'inventory', manager: 'argocd-cluster-registrar' };
const EMPTY: ProfileSnapshot = { apiVersion: 'v1alpha1', profiles: [] };

function planFor(
  snapshot: Snapshot,
  profiles: ProfileSnapshot = EMPTY,
  config: Config = testConfig(),
  now = NOW,
  options: Pick<ProfileInput, 'deletionsOnly' | 'maxWrites'> = {},
): ProfilePlan {
  const registrations = plan(snapshot, config, now);
  return planProfiles({
    snapshot,
    plan: registrations,
    profiles,
    settings: SETTINGS,
    config,
    now,
    ...options,
  });
}

/** Registrations and profiles both settled: what a running registrar leaves. */
function settled(snapshot: Snapshot, config: Config = testConfig()): ProfileSnapshot {
  const world = settle(snapshot, config);
  return applyProfilePlan(EMPTY, planFor(world, EMPTY, config));
}

function foreignProfile(name: string, manager = 'ocm'): ObservedProfile {
  return {
    namespace: SETTINGS.namespace,
    name,
    uid: `uid-${name}-foreign`,
    resourceVersion: '7',
    labels: { [CLUSTER_MANAGER_LABEL]: manager },
    annotations: {},
    spec: { displayName: name, clusterManager: { name: manager } },
  };
}

describe('planProfiles', () => {
  it('publishes a registered source as a profile: labels, spec and a credential-free access provider', () => {
    const world = settle(scenario().child('team-a', { cluster: 'alpha' }).build());
    const result = planFor(world);
    expect(result.actions).toHaveLength(1);
    const action = result.actions[0];
    if (action?.kind !== 'create') throw new Error('expected a create');
    const profile = action.profile;
    expect(profile.name).toBe('alpha');
    expect(profile.namespace).toBe('inventory');
    expect(profile.spec).toEqual({
      displayName: 'alpha',
      clusterManager: { name: 'argocd-cluster-registrar' },
    });
    expect(profile.labels[CLUSTER_MANAGER_LABEL]).toBe('argocd-cluster-registrar');
    expect(profile.labels[INVENTORY_MEMBER_ID_LABEL]).toBe(
      world.namespaces.find((n) => n.name === 'team-a')?.uid,
    );
    expect(profile.labels[KEYS.managedBy]).toBe('cluster-registrar');
    expect(profile.labels[KEYS.sourceNamespace]).toBe('team-a');
    expect(profile.labels['argocd.argoproj.io/secret-type']).toBeUndefined();
    expect(profile.status.accessProviders).toEqual([
      {
        name: SECRETREADER_PROVIDER,
        cluster: {
          server: serverOf('team-a'),
          'certificate-authority-data': encodeBase64Text(PEM.ca),
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
        },
      },
    ]);
    expect(profile.status.properties).toEqual([
      { name: `${KEYS.prefix}provider`, value: 'k3k' },
      { name: `${KEYS.prefix}source`, value: 'team-a' },
    ]);
    expect(profile.status.conditions).toEqual([
      {
        type: 'ControlPlaneHealthy',
        status: 'Unknown',
        reason: 'NotProbed',
        message: 'the registrar does not probe children (--probe-children is off)',
        lastTransitionTime: '2026-11-30T12:00:00Z',
      },
    ]);
    // Never a credential: neither the client key nor the certificate appears anywhere.
    const text = JSON.stringify(result);
    expect(text).not.toContain(encodeBase64Text(PEM.client.key));
    expect(text).not.toContain(encodeBase64Text(PEM.client.cert));
  });

  it('publishes the probed version and health, and keeps a condition time while it holds', () => {
    const config = testConfig({ probeChildren: true });
    const base = settle(scenario().child('team-a', { cluster: 'alpha' }).build(), config);
    const healthy: Snapshot = {
      ...base,
      children: { 'team-a': { failures: 0, version: 'v1.31.4+k3s1' } },
    };
    const first = planFor(healthy, EMPTY, config);
    const created = first.actions[0];
    expect(created?.kind === 'create' ? created.profile.status.version : undefined).toEqual({
      kubernetes: 'v1.31.4+k3s1',
    });
    const profiles = applyProfilePlan(EMPTY, first);
    expect(profiles.profiles[0]?.status?.conditions?.[0]?.status).toBe('True');
    // An hour later, still healthy: nothing to write.
    expect(planFor(healthy, profiles, config, NOW + 60 * MINUTE).actions).toEqual([]);
    const failing: Snapshot = {
      ...healthy,
      children: { 'team-a': { failures: 2, version: 'v1.31.4+k3s1', error: 'connection refused' } },
    };
    const later = planFor(failing, profiles, config, NOW + 60 * MINUTE);
    expect(later.actions.map((a) => a.kind)).toEqual(['status']);
    const condition =
      later.actions[0]?.kind === 'status'
        ? later.actions[0].profile.status.conditions?.[0]
        : undefined;
    expect(condition?.status).toBe('False');
    expect(condition?.lastTransitionTime).toBe('2026-11-30T13:00:00Z');
  });

  it('writes nothing once published (idempotent)', () => {
    const snapshot = scenario().child('team-a', { cluster: 'alpha' }).child('team-b').build();
    const world = settle(snapshot);
    const profiles = settled(snapshot);
    expect(profiles.profiles.map((p) => p.name)).toEqual(['alpha', 'team-b']);
    expect(planFor(world, profiles).actions).toEqual([]);
  });

  it('compares a served status by its digest, and writes back one another hand changed', () => {
    const world = settle(scenario().child('team-a', { cluster: 'alpha' }).build());
    const hashed: ProfileSnapshot = { ...EMPTY, digest: sha256Hex };
    const profiles = applyProfilePlan(hashed, planFor(world, hashed));
    const served = profiles.profiles[0];
    if (served?.status === undefined) throw new Error('expected a published status');
    // What is kept of a status is its conditions and a digest: no CA, no server.
    expect(served.status.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(served)).not.toContain(encodeBase64Text(PEM.ca));
    expect(planFor(world, profiles).actions).toEqual([]);
    // Someone rewrote the access providers (another CA): the digest differs, ours goes back.
    const tampered: ObservedProfile = {
      ...served,
      status: { ...served.status, digest: sha256Hex('{"accessProviders":[]}') },
    };
    const again = planFor(world, { ...profiles, profiles: [tampered] });
    expect(again.actions.map((a) => a.kind)).toEqual(['status']);
  });

  it('leaves a profile of another cluster manager alone and says the name is taken', () => {
    const world = settle(scenario().child('team-a', { cluster: 'alpha' }).build());
    const result = planFor(world, { apiVersion: 'v1alpha1', profiles: [foreignProfile('alpha')] });
    expect(result.actions).toEqual([]);
    expect(result.notices.map((n) => n.code)).toEqual(['profile-name-foreign']);
    expect(result.notices[0]?.message).toContain('cluster manager "ocm"');
  });

  it('treats a profile with our label but another spec manager as foreign, and never deletes it', () => {
    const world = settle(scenario().child('team-a', { cluster: 'alpha' }).build());
    const halfOurs: ObservedProfile = {
      ...foreignProfile('stray'),
      labels: { [CLUSTER_MANAGER_LABEL]: SETTINGS.manager, [KEYS.managedBy]: 'cluster-registrar' },
    };
    const result = planFor(
      { ...world, sourceLookups: { ...world.sourceLookups, stray: { state: 'notFound' } } },
      { apiVersion: 'v1alpha1', profiles: [halfOurs] },
    );
    expect(result.actions.filter((a) => a.cluster === 'stray')).toEqual([]);
  });

  it("keeps others' labels and annotations on our profile and removes only our stale keys", () => {
    const snapshot = scenario()
      .child('team-a', { cluster: 'alpha' })
      .label('team-a', `${KEYS.prefix}env`, 'prod')
      .build();
    const profiles = settled(snapshot);
    const ours = profiles.profiles[0] as ObservedProfile;
    const touched: ProfileSnapshot = {
      ...profiles,
      profiles: [
        {
          ...ours,
          labels: { ...ours.labels, 'kueue.x-k8s.io/queue': 'gpu' },
          annotations: { 'example.com/note': 'kept' },
        },
      ],
    };
    const world = settle(
      scenario(settle(snapshot)).label('team-a', `${KEYS.prefix}env`, null).build(),
    );
    const result = planFor(world, touched);
    expect(result.actions).toHaveLength(1);
    const action = result.actions[0];
    if (action?.kind !== 'update') throw new Error('expected an update');
    expect(action.removeLabels).toEqual([`${KEYS.prefix}env`]);
    expect(action.changed).toEqual(['metadata.labels']);
    const after = applyProfilePlan(touched, result).profiles[0];
    expect(after?.labels['kueue.x-k8s.io/queue']).toBe('gpu');
    expect(after?.annotations).toEqual({ 'example.com/note': 'kept' });
    expect(after?.labels[`${KEYS.prefix}env`]).toBeUndefined();
  });

  it('deletes a profile only with the proof its registration is deleted on', () => {
    const snapshot = scenario().child('team-a', { cluster: 'alpha' }).build();
    const world = settle(snapshot);
    const profiles = settled(snapshot);
    const unknown = scenario(world)
      .removeNamespace('team-a', { state: 'unknown', reason: 'timed out' })
      .build();
    expect(planFor(unknown, profiles).actions).toEqual([]);
    const gone = scenario(world).removeNamespace('team-a').build();
    const result = planFor(gone, profiles);
    expect(result.actions).toEqual([
      {
        kind: 'delete',
        cluster: 'alpha',
        target: expect.objectContaining({ name: 'alpha', namespace: 'inventory' }) as unknown,
        reason: {
          code: 'registration-deleted',
          source: 'team-a',
          proof: 'source-namespace-not-found',
        },
      },
    ]);
    // Profiles that could not be read completely: nothing is deleted.
    expect(planFor(gone, { ...profiles, unread: 'the list was cut' }).actions).toEqual([]);
  });

  it('plans only deletions when asked to (a pass that writes registrations publishes on the next)', () => {
    const snapshot = scenario()
      .child('team-a', { cluster: 'alpha' })
      .child('team-b', { cluster: 'beta' })
      .build();
    const world = settle(snapshot);
    const profiles = settled(snapshot);
    const changed = scenario(world)
      .removeNamespace('team-a')
      .child('team-c', { cluster: 'gamma' })
      .build();
    const only = (deletionsOnly: boolean) =>
      planFor(changed, profiles, testConfig(), NOW, { deletionsOnly }).actions.map(
        (a) => `${a.kind} ${a.cluster}`,
      );
    expect(only(false)).toEqual(['delete alpha', 'create gamma']);
    expect(only(true)).toEqual(['delete alpha']);
  });

  it('writes at most maxWrites profiles a pass and counts the rest; deletions are not held back', () => {
    const snapshot = scenario()
      .child('team-a', { cluster: 'alpha' })
      .child('team-b', { cluster: 'beta' })
      .build();
    const profiles = settled(snapshot);
    const changed = scenario(settle(snapshot))
      .removeNamespace('team-a')
      .child('team-c', { cluster: 'gamma' })
      .child('team-d', { cluster: 'delta' })
      .child('team-e', { cluster: 'epsilon' })
      .build();
    const world = settle(changed);
    const batch = (observed: ProfileSnapshot, snap: Snapshot) =>
      planFor(snap, observed, testConfig(), NOW, { maxWrites: 2 });
    const first = batch(profiles, changed);
    expect(first.actions.map((a) => `${a.kind} ${a.cluster}`)).toEqual([
      'delete alpha',
      'create delta',
      'create gamma',
    ]);
    expect(first.deferred).toBe(1);
    // Published: ours that exist as read (beta; alpha's source is gone), not those to come.
    expect(first.published).toBe(1);
    const second = batch(applyProfilePlan(profiles, first), world);
    expect(second.actions.map((a) => `${a.kind} ${a.cluster}`)).toEqual(['create epsilon']);
    expect(second.deferred).toBe(0);
    expect(second.published).toBe(3);
    expect(
      batch(applyProfilePlan(applyProfilePlan(profiles, first), second), world).actions,
    ).toEqual([]);
  });

  it('deletes a profile left behind once its registration is gone, on the same proof', () => {
    const snapshot = scenario().child('team-a', { cluster: 'alpha' }).build();
    const profiles = settled(snapshot);
    const gone = settle(scenario(settle(snapshot)).removeNamespace('team-a').build());
    expect(gone.clusterSecrets).toEqual([]);
    expect(planFor(gone, profiles).actions.map((a) => a.kind)).toEqual(['delete']);
    const unknown = {
      ...gone,
      sourceLookups: { 'team-a': { state: 'unknown' as const, reason: 'timed out' } },
    };
    expect(planFor(unknown, profiles).actions).toEqual([]);
  });

  it('follows a rename as registrations do: the new name first, the old one once it is demoted', () => {
    const snapshot = scenario().child('team-a', { cluster: 'alpha' }).build();
    let world = settle(snapshot);
    let profiles = settled(snapshot);
    world = scenario(world).label('team-a', KEYS.cluster, 'beta').build();
    // First pass: beta is created; alpha's registration is not demoted yet, nor its profile.
    let result = planFor(world, profiles);
    expect(result.actions.map((a) => `${a.kind}:${a.cluster}`)).toEqual(['create:beta']);
    profiles = applyProfilePlan(profiles, result);
    world = settle(world);
    result = planFor(world, profiles);
    expect(
      result.actions.map(
        (a) => `${a.kind}:${a.cluster}:${a.kind === 'delete' ? a.reason.code : ''}`,
      ),
    ).toEqual(['delete:alpha:renamed']);
    const member = profiles.profiles.map((p) => p.labels[INVENTORY_MEMBER_ID_LABEL]);
    expect(new Set(member).size).toBe(1);
  });

  it("publishes a name once, for the source whose registration it is, when a terminating namespace's label claims it too", () => {
    const world = settle(
      scenario().child('team-a', { cluster: 'alpha' }).child('team-c', { cluster: 'beta' }).build(),
    );
    // team-a is terminating and now claims beta: its registration stays cluster-alpha.
    const claimed = scenario(world)
      .label('team-a', KEYS.cluster, 'beta')
      .editNamespace('team-a', (ns) => ({ ...ns, deletionTimestamp: '2026-11-30T11:59:00Z' }))
      .build();
    const first = planFor(claimed);
    expect(
      first.actions.map(
        (a) =>
          `${a.kind}:${a.cluster}:${a.kind === 'delete' ? '' : a.profile.labels[KEYS.sourceNamespace]}`,
      ),
    ).toEqual(['create:beta:team-c']);
    expect(planFor(claimed, applyProfilePlan(EMPTY, first)).actions).toEqual([]);
  });

  it('publishes no access provider for a credential the plugin cannot read', () => {
    const config = testConfig();
    const world = settle(
      scenario()
        .child('team-a', { cluster: 'alpha', credentials: { username: 'u', password: 'p' } })
        .build(),
      config,
    );
    const action = planFor(world, EMPTY, config).actions[0];
    expect(action?.kind).toBe('create');
    expect(action?.kind === 'create' ? action.profile.status.accessProviders : 'x').toBeUndefined();
  });
});

const profileArb: fc.Arbitrary<ObservedProfile> = fc
  .record({
    name: fc.constantFrom('alpha', 'beta', 'gamma', 'team-a', 'team-b', 'other'),
    manager: fc.constantFrom('ocm', 'argocd-cluster-registrar', ''),
    specManager: fc.constantFrom('ocm', 'argocd-cluster-registrar'),
    managedBy: fc.constantFrom('cluster-registrar', 'someone-else', undefined),
    source: fc.constantFrom('ns-a', 'ns-b', 'ns-c', undefined),
  })
  .map(({ name, manager, specManager, managedBy, source }) => ({
    namespace: SETTINGS.namespace,
    name,
    uid: `uid-${name}`,
    resourceVersion: '3',
    labels: {
      ...(manager === '' ? {} : { [CLUSTER_MANAGER_LABEL]: manager }),
      ...(managedBy === undefined ? {} : { [KEYS.managedBy]: managedBy }),
      ...(source === undefined
        ? {}
        : { [KEYS.sourceNamespace]: source, [KEYS.sourceNamespaceUid]: `uid-ns-${source}-old` }),
    },
    annotations: {},
    spec: { displayName: name, clusterManager: { name: specManager } },
  }));

const profilesArb = fc
  .uniqueArray(profileArb, { selector: (p) => p.name, maxLength: 4 })
  .map((profiles): ProfileSnapshot => ({ apiVersion: 'v1alpha1', profiles }));

const RUNS = { numRuns: 120 };
const config = PROPERTY_CONFIG;

/**
 * The profiles a registrar would have published for the registrations the snapshot holds
 * (ours, recording their sources as the registrations do), plus the generated ones whose names
 * are free: others', half-ours and ours of sources long gone.
 */
function withPublished(snapshot: Snapshot, generated: ProfileSnapshot): ProfileSnapshot {
  const published: ObservedProfile[] = [];
  for (const secret of snapshot.clusterSecrets) {
    if (secret.labels[KEYS.managedBy] !== config.managedBy) continue;
    const cluster = secret.labels[KEYS.cluster];
    if (cluster === undefined) continue;
    const labels = Object.fromEntries(
      Object.entries(secret.labels).filter(([key]) => key.startsWith(KEYS.prefix)),
    );
    published.push({
      namespace: SETTINGS.namespace,
      name: cluster,
      uid: `uid-profile-${cluster}`,
      resourceVersion: '5',
      labels: { ...labels, [CLUSTER_MANAGER_LABEL]: SETTINGS.manager },
      annotations: {},
      spec: { displayName: cluster, clusterManager: { name: SETTINGS.manager } },
    });
  }
  const taken = new Set(published.map((p) => p.name));
  return {
    ...generated,
    profiles: [...published, ...generated.profiles.filter((p) => !taken.has(p.name))],
  };
}

describe('planProfiles properties', () => {
  it('never writes or deletes a profile of another manager', () => {
    fc.assert(
      fc.property(plannerInputArb, profilesArb, (input, generated) => {
        const snapshot = buildSnapshot(input);
        const profiles = withPublished(snapshot, generated);
        const result = planFor(snapshot, profiles, config);
        for (const action of result.actions) {
          const before = profiles.profiles.find((p) => p.name === action.cluster);
          if (before === undefined) {
            expect(action.kind).toBe('create');
            continue;
          }
          expect(before.labels[CLUSTER_MANAGER_LABEL]).toBe(SETTINGS.manager);
          expect(before.spec.clusterManager?.name).toBe(SETTINGS.manager);
          expect(before.labels[KEYS.managedBy]).toBe(config.managedBy);
        }
      }),
      RUNS,
    );
  });

  it('deletes only on the plan proof or a proven-gone source', () => {
    let deletes = 0;
    fc.assert(
      fc.property(plannerInputArb, profilesArb, (input, generated) => {
        const snapshot = buildSnapshot(input);
        const profiles = withPublished(snapshot, generated);
        const registrations = plan(snapshot, config, NOW);
        const result = planProfiles({
          snapshot,
          plan: registrations,
          profiles,
          settings: SETTINGS,
          config,
          now: NOW,
        });
        for (const action of result.actions) {
          if (action.kind !== 'delete') continue;
          deletes += 1;
          const proven = registrations.actions.some(
            (a) => (a.kind === 'delete' || a.kind === 'demote') && a.cluster === action.cluster,
          );
          if (proven) continue;
          // Otherwise the source the profile records is proven gone, as a registration's is.
          const before = profiles.profiles.find((p) => p.name === action.cluster);
          const labels = before?.labels ?? {};
          const source = recordedSourceKey(labels, KEYS) ?? '';
          const uid = labels[KEYS.sourceClusterUid] ?? labels[KEYS.sourceNamespaceUid];
          const lookup = snapshot.sourceLookups[source];
          const managed = isClusterKey(source)
            ? snapshot.clusters?.find((c) => `${c.namespace}/${c.name}` === source)
            : snapshot.namespaces.find((n) => n.name === source);
          const registration = snapshot.clusterSecrets.find(
            (s) => s.name === `cluster-${action.cluster}`,
          );
          const demoted =
            registration !== undefined &&
            registration.labels['argocd.argoproj.io/secret-type'] === undefined;
          const gone =
            lookup?.state === 'notFound' ||
            (lookup?.state === 'present' && lookup.uid !== uid) ||
            (managed !== undefined && managed.uid !== uid) ||
            (managed !== undefined && demoted);
          expect(gone).toBe(true);
        }
      }),
      RUNS,
    );
    expect(deletes).toBeGreaterThan(0);
  });

  it('plans nothing once its plan is applied to a settled world (idempotence)', () => {
    fc.assert(
      fc.property(plannerInputArb, profilesArb, (input, profiles) => {
        const world = settle(buildSnapshot(input), config);
        let current = profiles;
        for (let pass = 0; pass < 3; pass++)
          current = applyProfilePlan(current, planFor(world, current, config));
        expect(planFor(world, current, config).actions).toEqual([]);
      }),
      RUNS,
    );
  });

  it('plans the same whatever order the profiles were listed in', () => {
    fc.assert(
      fc.property(plannerInputArb, profilesArb, (input, profiles) => {
        const world = settle(buildSnapshot(input), config);
        const reversed = { ...profiles, profiles: [...profiles.profiles].reverse() };
        expect(planFor(world, reversed, config)).toEqual(planFor(world, profiles, config));
      }),
      RUNS,
    );
  });
});
