// Cluster API Clusters as sources: every rule stated for a namespace holds per Cluster.

import { describe, expect, it } from 'vitest';
import { PROVIDER_PRESETS } from '../config/provider-presets.js';
import { plan } from './index.js';
import {
  clusterSecretOf,
  dataOf,
  KEYS,
  NOW,
  outcomeOf,
  scenario,
  serverOf,
  settle,
  testConfig,
} from '../test-support/fixtures.js';
import { renderStatusText } from '../present/render-status.js';
import { statusRows } from '../present/status-rows.js';
import type { Action, NearMissSecret, Plan, Snapshot } from '../common/types.js';

const SECRET_TYPE = 'argocd.argoproj.io/secret-type';
const CONFIG = testConfig({ providers: [PROVIDER_PRESETS.capi], capiClusters: true });

function kinds(result: Plan): string[] {
  return result.actions.map((action) => `${action.kind} ${action.cluster}`);
}

function creates(result: Plan): Extract<Action, { kind: 'create' }>[] {
  return result.actions.filter(
    (action): action is Extract<Action, { kind: 'create' }> => action.kind === 'create',
  );
}

/** Two Clusters in `fleet`, each with its own kubeconfig, registered. */
function twoClusters() {
  return scenario()
    .capiChild('fleet', 'alpha', { labels: { [`${KEYS.prefix}env`]: 'prod' } })
    .capiChild('fleet', 'beta', { labels: { [`${KEYS.prefix}env`]: 'dev' } });
}

describe('registering Cluster API Clusters', () => {
  it('registers two Clusters of one namespace, each from its own <name>-kubeconfig, with labels from its Cluster', () => {
    const result = plan(twoClusters().build(), CONFIG, NOW);
    expect(kinds(result)).toEqual(['create alpha', 'create beta']);
    const [alpha, beta] = creates(result);
    expect(alpha?.reason).toEqual({ code: 'new-registration', namespace: 'fleet/alpha' });
    expect(alpha?.secret.labels).toEqual({
      [SECRET_TYPE]: 'cluster',
      [KEYS.managedBy]: 'cluster-registrar',
      [KEYS.cluster]: 'alpha',
      [KEYS.sourceKind]: 'Cluster',
      [KEYS.sourceNamespace]: 'fleet',
      [KEYS.sourceCluster]: 'alpha',
      [KEYS.sourceClusterUid]: 'uid-fleet-alpha',
      [KEYS.provider]: 'capi',
      [`${KEYS.prefix}env`]: 'prod',
    });
    expect(dataOf(alpha?.secret ?? { data: {} }, 'server')).toBe(serverOf('alpha.fleet'));
    expect(dataOf(beta?.secret ?? { data: {} }, 'server')).toBe(serverOf('beta.fleet'));
    expect(beta?.secret.labels[`${KEYS.prefix}env`]).toBe('dev');
    expect(outcomeOf(result, 'fleet/beta')).toMatchObject({
      state: 'registered',
      cluster: 'beta',
      source: { namespace: 'fleet', secret: 'beta-kubeconfig', key: 'value', provider: 'capi' },
    });
  });

  it('takes the cluster name from the <prefix>cluster label, else the Cluster name, under capiClusterNames: name', () => {
    const snapshot = scenario()
      .capiChild('fleet', 'alpha', { cluster: 'prod-eu' })
      .capiChild('fleet', 'beta')
      .build();
    expect(kinds(plan(snapshot, CONFIG, NOW))).toEqual(['create beta', 'create prod-eu']);
  });

  it('names a Cluster <namespace>.<name> under namespace-name, so Clusters of two namespaces never contend', () => {
    const snapshot = scenario()
      .capiChild('team-a', 'prod')
      .capiChild('team-b', 'prod')
      // Not team-a's prod-x: a dot, which no namespace name holds, separates the two parts.
      .capiChild('team', 'a-prod-x')
      .capiChild('team-a', 'prod-x')
      .build();
    const namespaced = { ...CONFIG, capiClusterNames: 'namespace-name' } as const;
    expect(kinds(plan(snapshot, namespaced, NOW))).toEqual([
      'create team-a.prod',
      'create team-a.prod-x',
      'create team-b.prod',
      'create team.a-prod-x',
    ]);
  });

  it('refuses a <namespace>.<name> longer than a label value, which the registration records', () => {
    const namespace = 'n'.repeat(40);
    const snapshot = scenario().capiChild(namespace, 'c'.repeat(30)).build();
    const result = plan(snapshot, { ...CONFIG, capiClusterNames: 'namespace-name' }, NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, `${namespace}/${'c'.repeat(30)}`)).toMatchObject({
      state: 'refused',
      reason: { code: 'name-invalid' },
    });
  });

  it('ignores a Cluster’s <prefix>cluster label under namespace-name, with a warning naming the label and the setting, unless capiClusterNameLabel allows it', () => {
    const snapshot = scenario()
      .capiChild('team-b', 'squat', { cluster: 'team-a.prod' })
      .capiChild('team-a', 'prod')
      .build();
    const namespaced = { ...CONFIG, capiClusterNames: 'namespace-name' } as const;
    const result = plan(snapshot, namespaced, NOW);
    expect(kinds(result)).toEqual(['create team-a.prod', 'create team-b.squat']);
    expect(result.warnings).toContainEqual({
      code: 'cluster-label-ignored',
      namespace: 'team-b/squat',
      message: `Cluster team-b/squat carries ${KEYS.cluster}=team-a.prod, which is ignored: with \`--capi-cluster-names namespace-name\` a Cluster registers as <namespace>.<name> (team-b.squat) unless \`--capi-cluster-name-label\` (chart value \`capiClusterNameLabel: true\`) lets the label choose its name`,
    });
    const allowed = plan(snapshot, { ...namespaced, capiClusterNameLabel: true }, NOW);
    expect(kinds(allowed)).toEqual(['create team-a.prod']);
    expect(outcomeOf(allowed, 'team-b/squat').reason?.code).toBe('name-claimed');
    expect(allowed.warnings.map((warning) => warning.code)).not.toContain('cluster-label-ignored');
  });

  it('reads reserved keys off the Cluster as off a namespace, and never copies them', () => {
    const snapshot = scenario()
      .capiChild('fleet', 'alpha', {
        labels: { [KEYS.project]: 'payments', 'team.example.com/owner': 'x' },
        annotations: {
          [KEYS.namespaces]: 'apps, jobs',
          [KEYS.server]: 'https://alpha.example.com',
          [`${KEYS.prefix}note`]: 'hello',
        },
      })
      .build();
    const [create] = creates(plan(snapshot, CONFIG, NOW));
    if (create === undefined) throw new Error('expected a create for fleet/alpha');
    const { secret } = create;
    expect(dataOf(secret, 'project')).toBe('payments');
    expect(dataOf(secret, 'namespaces')).toBe('apps,jobs');
    expect(dataOf(secret, 'server')).toBe('https://alpha.example.com');
    expect(secret.labels[KEYS.project]).toBeUndefined();
    expect(secret.labels['team.example.com/owner']).toBeUndefined();
    expect(secret.annotations[`${KEYS.prefix}note`]).toBe('hello');
  });

  it('reads <name>-user-kubeconfig under capa-eks, never another Cluster’s Secret', () => {
    const config = testConfig({
      providers: [PROVIDER_PRESETS['capa-eks'], PROVIDER_PRESETS.capi],
      capiClusters: true,
    });
    // alpha-user-kubeconfig would match capi's *-kubeconfig for a Cluster named alpha-user.
    const snapshot = scenario()
      .cluster('fleet', 'alpha')
      .kubeconfig('fleet', { name: 'beta-kubeconfig', key: 'value', server: serverOf('beta') })
      .build();
    const result = plan(snapshot, config, NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'fleet/alpha')).toMatchObject({
      state: 'waiting',
      reason: {
        code: 'waiting-for-kubeconfig',
        message:
          'no kubeconfig Secret of Cluster fleet/alpha yet (looking for alpha-user-kubeconfig with value; alpha-kubeconfig with value in namespace fleet); it is registered as soon as one appears',
      },
    });
  });
});

describe('a Cluster whose Secret no configured provider reads', () => {
  const k3kAndCapi = testConfig({
    providers: [PROVIDER_PRESETS.k3k, PROVIDER_PRESETS.capi],
    capiClusters: true,
  });
  const withNearMisses = (snapshot: Snapshot, nearMisses: NearMissSecret[]): Snapshot => ({
    ...snapshot,
    nearMisses,
  });

  it('gets the near-miss hints a namespace gets, for its own Secrets only', () => {
    const snapshot = withNearMisses(scenario().cluster('fleet', 'alpha').build(), [
      { namespace: 'fleet', name: 'alpha-user-kubeconfig', keys: ['value'] },
      { namespace: 'fleet', name: 'beta-user-kubeconfig', keys: ['value'] },
    ]);
    const outcome = outcomeOf(plan(snapshot, k3kAndCapi, NOW), 'fleet/alpha');
    expect(outcome).toMatchObject({ state: 'waiting', reason: { code: 'waiting-for-kubeconfig' } });
    expect(outcome.reason?.message).toBe(
      "no kubeconfig Secret of Cluster fleet/alpha that the configured providers read (looking for k3k-alpha-kubeconfig with kubeconfig.yaml; alpha-kubeconfig with value in namespace fleet), but Secret alpha-user-kubeconfig (its keys: value) matches the capa-eks provider (*-user-kubeconfig with value), which is not configured; add it with `--provider capa-eks` (chart value `providers: [capa-eks]`) with `--exec-credentials` (its exec plugin is translated into ArgoCD's own form), or gke if that is the cloud it signs in to, keeping k3k and capi in the list if other namespaces need them; it is registered as soon as one matches",
    );
  });

  it('a Secret with its name and a configured key, under another name: says the name to use', () => {
    const snapshot = withNearMisses(scenario().cluster('fleet', 'alpha').build(), [
      { namespace: 'fleet', name: 'alpha-kubecfg', keys: ['value'] },
    ]);
    expect(outcomeOf(plan(snapshot, k3kAndCapi, NOW), 'fleet/alpha').reason?.message).toContain(
      "but Secret alpha-kubecfg has key value, but the capi provider reads Cluster alpha's kubeconfig from alpha-kubeconfig; rename it to alpha-kubeconfig",
    );
  });

  it('a Secret named for another Cluster is no hint', () => {
    const snapshot = withNearMisses(scenario().cluster('fleet', 'alpha').build(), [
      { namespace: 'fleet', name: 'alphabet-user-kubeconfig', keys: ['value'] },
    ]);
    expect(outcomeOf(plan(snapshot, k3kAndCapi, NOW), 'fleet/alpha').reason?.message).toBe(
      'no kubeconfig Secret of Cluster fleet/alpha yet (looking for k3k-alpha-kubeconfig with kubeconfig.yaml; alpha-kubeconfig with value in namespace fleet); it is registered as soon as one appears',
    );
  });
});

describe('removing a Cluster source only on positive proof', () => {
  it('deletes only the registration of the Cluster that is not found', () => {
    const registered = settle(twoClusters().build(), CONFIG);
    const gone = scenario(registered).removeCluster('fleet/alpha').build();
    const result = plan(gone, CONFIG, NOW);
    expect(kinds(result)).toEqual(['delete alpha']);
    expect(result.actions[0]?.reason).toEqual({
      code: 'source-cluster-not-found',
      namespace: 'fleet/alpha',
    });
  });

  it('deletes a registration whose Cluster was re-created (new uid)', () => {
    const registered = settle(twoClusters().build(), CONFIG);
    const recreated = scenario(registered)
      .removeCluster('fleet/alpha', { state: 'present', uid: 'uid-new', labels: {} })
      .build();
    expect(plan(recreated, CONFIG, NOW).actions.map((action) => action.reason)).toEqual([
      {
        code: 'source-cluster-replaced',
        namespace: 'fleet/alpha',
        recordedUid: 'uid-fleet-alpha',
        observedUid: 'uid-new',
      },
    ]);
  });

  it('keeps the registration on an unknown or missing lookup, even when a namespace of that name is gone', () => {
    const registered = settle(twoClusters().build(), CONFIG);
    const unknown = scenario(registered)
      .removeCluster('fleet/alpha', { state: 'unknown', reason: 'timeout' })
      .lookup('fleet', { state: 'notFound' })
      .build();
    const missing = { ...unknown, sourceLookups: { fleet: { state: 'notFound' as const } } };
    for (const snapshot of [unknown, missing]) {
      const result = plan(snapshot, CONFIG, NOW);
      expect(result.actions).toEqual([]);
      expect(result.warnings.map((warning) => warning.code)).toContain('source-unknown');
    }
  });

  it('says Cluster sources are off when a Cluster registration cannot be checked for that reason', () => {
    const registered = settle(twoClusters().build(), CONFIG);
    const off = { ...CONFIG, capiClusters: false };
    const result = plan({ ...registered, clusters: [] }, off, NOW);
    expect(result.actions).toEqual([]);
    expect(result.warnings.map((warning) => warning.message)).toContain(
      'registration cluster-alpha is kept: its source Cluster cannot be checked (Cluster fleet/alpha was not looked up (Cluster sources are off: --capi-clusters))',
    );
  });

  it('keeps a registration whose kubeconfig Secret is gone, as stale', () => {
    const registered = settle(twoClusters().build(), CONFIG);
    const result = plan(
      scenario(registered).removeKubeconfig('fleet', 'alpha-kubeconfig').build(),
      CONFIG,
      NOW,
    );
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'fleet/alpha').state).toBe('stale');
    expect(outcomeOf(result, 'fleet/beta').state).toBe('unchanged');
  });

  it('keeps a deleting Cluster registered until it is gone, and drains it when asked', () => {
    const registered = settle(twoClusters().build(), CONFIG);
    const deleting = scenario(registered)
      .editCluster('fleet/alpha', (cluster) => ({
        ...cluster,
        deletionTimestamp: '2026-11-30T11:59:00Z',
      }))
      .build();
    const kept = plan(deleting, CONFIG, NOW);
    expect(kept.actions).toEqual([]);
    expect(outcomeOf(kept, 'fleet/alpha')).toMatchObject({
      state: 'unchanged',
      reason: { code: 'terminating' },
    });
    const drained = plan(deleting, { ...CONFIG, drainOnTerminate: true }, NOW);
    expect(kinds(drained)).toEqual(['update alpha']);
    const update = drained.actions[0];
    expect(update?.kind === 'update' && update.reason).toEqual({
      code: 'drained',
      namespace: 'fleet/alpha',
      labels: [`${KEYS.prefix}env`],
    });
  });
});

describe('names and servers across both kinds of source', () => {
  it('demotes the old registration once a relabelled Cluster’s new one is observed', () => {
    const registered = settle(twoClusters().build(), CONFIG);
    const renamed = scenario(registered)
      .editCluster('fleet/alpha', (cluster) => ({
        ...cluster,
        labels: { ...cluster.labels, [KEYS.cluster]: 'alpha-2' },
      }))
      .build();
    const first = plan(renamed, CONFIG, NOW);
    expect(kinds(first)).toEqual(['create alpha-2']);
    // Found by the Cluster's source key, not by the namespace it is in.
    expect(first.followUps?.map((next) => `${next.source} ${next.secret}`)).toEqual([
      'fleet/alpha cluster-alpha',
    ]);
    const settled = settle(renamed, CONFIG);
    const old = clusterSecretOf(settled, 'cluster-alpha');
    expect(old.labels[SECRET_TYPE]).toBeUndefined();
    expect(old.labels[KEYS.supersededBy]).toBe('alpha-2');
  });

  it('gives a contested name to the older source, whichever its kind, and keeps it with the incumbent', () => {
    const config = testConfig({
      providers: [PROVIDER_PRESETS.k3k, PROVIDER_PRESETS.capi],
      capiClusters: true,
    });
    const contested = scenario()
      .child('team-a', { cluster: 'alpha', created: '2026-02-01T00:00:00Z' })
      .capiChild('fleet', 'alpha', { created: '2026-01-01T00:00:00Z' })
      .build();
    const first = plan(contested, config, NOW);
    expect(creates(first).map((create) => create.reason.namespace)).toEqual(['fleet/alpha']);
    expect(outcomeOf(first, 'team-a')).toMatchObject({
      state: 'refused',
      reason: { code: 'name-claimed' },
    });
    // The namespace registered first: the older Cluster arriving later does not take it.
    const incumbent = settle(
      scenario().child('team-a', { cluster: 'alpha', created: '2026-02-01T00:00:00Z' }).build(),
      config,
    );
    const later = scenario(incumbent)
      .capiChild('fleet', 'alpha', { created: '2026-01-01T00:00:00Z' })
      .build();
    const result = plan(later, config, NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'fleet/alpha').state).toBe('refused');
  });

  it("names the Cluster's server annotation, not the namespace's, when a Cluster's kubeconfig has a loopback server", () => {
    const config = testConfig({
      providers: [PROVIDER_PRESETS.k3k, PROVIDER_PRESETS.capi],
      capiClusters: true,
    });
    const snapshot = scenario()
      .capiChild('fleet', 'alpha', { server: 'https://127.0.0.1:6443' })
      .child('team-a', { server: 'https://127.0.0.1:6443' })
      .build();
    const result = plan(snapshot, config, NOW);
    const cluster = outcomeOf(result, 'fleet/alpha');
    expect(cluster).toMatchObject({ state: 'refused', reason: { code: 'server-loopback' } });
    expect(cluster.reason?.message).toContain('server` annotation of the Cluster');
    expect(cluster.reason?.message).not.toContain('namespace annotation');
    const namespace = outcomeOf(result, 'team-a');
    expect(namespace).toMatchObject({ state: 'refused', reason: { code: 'server-loopback' } });
    expect(namespace.reason?.message).toContain('server` namespace annotation');
  });

  it('refuses a Cluster whose server another registration already holds', () => {
    const snapshot = scenario()
      .capiChild('fleet', 'alpha')
      .capiChild('fleet', 'beta', { server: serverOf('alpha.fleet') })
      .build();
    const result = plan(snapshot, CONFIG, NOW);
    expect(kinds(result)).toEqual(['create alpha']);
    expect(outcomeOf(result, 'fleet/beta')).toMatchObject({
      state: 'refused',
      reason: { code: 'server-collision' },
    });
  });

  it('refuses a managed namespace that also holds managed Clusters, and those Clusters, keeping what is registered', () => {
    const config = testConfig({
      providers: [PROVIDER_PRESETS.k3k, PROVIDER_PRESETS.capi],
      capiClusters: true,
    });
    const registered = settle(scenario().child('fleet', { cluster: 'fleet' }).build(), config);
    const both = scenario(registered).capiChild('fleet', 'alpha').build();
    const result = plan(both, config, NOW);
    expect(result.actions).toEqual([]);
    const message = `namespace fleet carries ${KEYS.managedBy}=cluster-registrar and also holds Clusters that carry it (alpha), so it is not clear whether the namespace or its Clusters are the clusters to register; remove the label from the namespace to register its Clusters, or from the Clusters to register the namespace`;
    expect(outcomeOf(result, 'fleet')).toMatchObject({
      state: 'refused',
      reason: {
        code: 'source-conflict',
        message: `${message} (cluster-fleet stays registered meanwhile)`,
      },
    });
    expect(outcomeOf(result, 'fleet/alpha')).toMatchObject({
      state: 'refused',
      reason: {
        code: 'source-conflict',
        message: `Cluster fleet/alpha is not registered: ${message}`,
      },
    });
  });
});

describe('status of Cluster sources', () => {
  it("shows a Cluster's own namespace under NAMESPACE and the Cluster under SOURCE, with its registration on its row", () => {
    const config = testConfig({
      providers: [PROVIDER_PRESETS.k3k, PROVIDER_PRESETS.capi],
      capiClusters: true,
    });
    const settled = settle(
      twoClusters().child('team-a', { cluster: 'solo' }).capiChild('fleet', 'gamma').build(),
      config,
      NOW,
    );
    const snapshot = scenario(settled)
      .cluster('fleet', 'delta')
      .removeCluster('fleet/gamma')
      .build();
    const rows = statusRows(plan(snapshot, config, NOW), snapshot, config);
    expect(
      rows.map((row) => [row.kind, row.namespace, row.sourceCluster, row.secret, row.state]),
    ).toEqual([
      ['namespace', 'fleet', 'alpha', 'cluster-alpha', 'unchanged'],
      ['namespace', 'fleet', 'beta', 'cluster-beta', 'unchanged'],
      ['namespace', 'fleet', 'delta', undefined, 'waiting'],
      ['namespace', 'team-a', undefined, 'cluster-solo', 'unchanged'],
      ['registration', 'fleet', 'gamma', 'cluster-gamma', 'source-gone'],
    ]);
    const text = renderStatusText(rows, { now: NOW, color: false });
    const table = text.split('\n').map((line) => line.split(/ {2,}/).slice(0, 4));
    expect(table.slice(0, 6)).toEqual([
      ['NAMESPACE', 'SOURCE', 'CLUSTER', 'STATE'],
      ['fleet', 'Cluster/alpha', 'alpha', 'unchanged'],
      ['fleet', 'Cluster/beta', 'beta', 'unchanged'],
      ['fleet', 'Cluster/delta', 'delta', 'waiting'],
      ['team-a', 'Namespace', 'solo', 'unchanged'],
      ['fleet', 'Cluster/gamma', 'gamma', 'source-gone'],
    ]);
    expect(text).toContain('  Cluster fleet/delta: waiting (waiting-for-kubeconfig)');
    expect(text).toContain('  cluster-gamma (registration of Cluster fleet/gamma): source-gone');
    expect(text).toContain(
      '1 managed namespace and 3 managed Clusters (3 unchanged, 1 waiting); 1 registration without a managed source.',
    );
  });

  it('gives each Cluster its own row, named as a Cluster', () => {
    const snapshot = scenario().capiChild('fleet', 'alpha').cluster('fleet', 'beta').build();
    const rows = statusRows(plan(snapshot, CONFIG, NOW), snapshot, CONFIG);
    const text = renderStatusText(rows, { now: NOW, color: false });
    expect(rows.map((row) => [row.namespace, row.sourceCluster, row.state])).toContainEqual([
      'fleet',
      'beta',
      'waiting',
    ]);
    expect(text).toContain('Cluster fleet/beta: waiting (waiting-for-kubeconfig)');
  });
});
