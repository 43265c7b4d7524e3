// What the planner and its renderers say about a Cluster API Cluster source: they name it as
// a Cluster, never as a namespace, and a gone Cluster's deletion has a reason of its own.
// A namespace source's wording is covered, word for word, by the tests of each renderer.

import { describe, expect, it } from 'vitest';
import { PROVIDER_PRESETS } from '../config/provider-presets.js';
import { plan } from '../plan/index.js';
import { renderPlanText } from './render-text.js';
import { renderStatusText } from './render-status.js';
import { statusRows } from './status-rows.js';
import {
  KEYS,
  NOW,
  DAY,
  outcomeOf,
  scenario,
  serverOf,
  settle,
  testConfig,
} from '../test-support/fixtures.js';

const CONFIG = testConfig({ providers: [PROVIDER_PRESETS.capi], capiClusters: true });

function registeredFleet() {
  return settle(
    scenario()
      .capiChild('fleet', 'alpha', { labels: { [`${KEYS.prefix}env`]: 'prod' } })
      .capiChild('fleet', 'beta')
      .build(),
    CONFIG,
  );
}

describe('a gone Cluster', () => {
  it('is deleted for its own reason, which the plan and status name as a Cluster', () => {
    const gone = scenario(registeredFleet()).removeCluster('fleet/alpha').build();
    const result = plan(gone, CONFIG, NOW);
    expect(result.actions.map((action) => [action.kind, action.reason])).toEqual([
      ['delete', { code: 'source-cluster-not-found', namespace: 'fleet/alpha' }],
    ]);
    expect(renderPlanText(result)).toContain(
      '    reason: source Cluster fleet/alpha no longer exists',
    );
    const row = statusRows(result, gone, CONFIG).find((r) => r.secret === 'cluster-alpha');
    expect(row).toMatchObject({
      state: 'source-gone',
      reason: { code: 'source-cluster-not-found' },
      next: 'delete (source-cluster-not-found)',
    });
  });

  it('has its own reason when it was re-created with a new uid', () => {
    const recreated = scenario(registeredFleet())
      .removeCluster('fleet/alpha', { state: 'present', uid: 'uid-new', labels: {} })
      .build();
    const result = plan(recreated, CONFIG, NOW);
    expect(result.actions.map((action) => action.reason)).toEqual([
      {
        code: 'source-cluster-replaced',
        namespace: 'fleet/alpha',
        recordedUid: 'uid-fleet-alpha',
        observedUid: 'uid-new',
      },
    ]);
    expect(renderPlanText(result)).toContain(
      '    reason: source Cluster fleet/alpha was re-created (recorded uid uid-fleet-alpha, now uid-new)',
    );
  });

  it('kept on a failed lookup, says that its source Cluster cannot be checked', () => {
    const unknown = scenario(registeredFleet())
      .removeCluster('fleet/alpha', { state: 'unknown', reason: 'timeout' })
      .build();
    expect(plan(unknown, CONFIG, NOW).warnings.map((warning) => warning.message)).toContain(
      'registration cluster-alpha is kept: its source Cluster cannot be checked (looking up Cluster fleet/alpha failed: timeout)',
    );
  });
});

describe('a Cluster being deleted', () => {
  const deleting = () =>
    scenario(registeredFleet())
      .editCluster('fleet/alpha', (cluster) => ({
        ...cluster,
        deletionTimestamp: '2026-11-30T11:59:00Z',
      }))
      .build();

  it('is said to be deleted, not terminating, and kept until the Cluster is gone', () => {
    const result = plan(deleting(), CONFIG, NOW);
    expect(outcomeOf(result, 'fleet/alpha').reason?.message).toBe(
      'Cluster fleet/alpha is being deleted; cluster-alpha is kept until it is gone, so ArgoCD can still finalise its Applications',
    );
  });

  it('is drained with labels copied from the Cluster, and deleted once the Cluster is gone', () => {
    const result = plan(deleting(), { ...CONFIG, drainOnTerminate: true }, NOW);
    expect(outcomeOf(result, 'fleet/alpha').reason?.message).toBe(
      'Cluster fleet/alpha is being deleted; cluster-alpha stays registered without the labels copied from the Cluster, so ApplicationSet generators that select on them remove its Applications while ArgoCD can still reach the cluster; it is deleted once the Cluster is gone',
    );
    expect(renderPlanText(result)).toContain(
      `    reason: Cluster fleet/alpha is being deleted: the copied labels (${KEYS.prefix}env) are removed so ApplicationSet generators drop its Applications while ArgoCD can still reach the cluster; the registration is deleted once the Cluster is gone`,
    );
  });
});

describe('the text plan', () => {
  it('lists Clusters needing attention as Clusters, under a heading for sources', () => {
    const snapshot = scenario().capiChild('fleet', 'alpha').cluster('fleet', 'beta').build();
    const text = renderPlanText(plan(snapshot, CONFIG, NOW));
    expect(text).toContain('Sources needing attention:\n');
    expect(text).not.toContain('Namespaces needing attention:');
    expect(text).toMatch(/^ {2}waiting {2}Cluster fleet\/beta \(cluster "beta"\): no kubeconfig/m);
  });

  it('says which Cluster a warning is about', () => {
    const snapshot = scenario(registeredFleet())
      .labelSecret('cluster-alpha', KEYS.prune, 'disabled')
      .removeCluster('fleet/alpha')
      .build();
    const text = renderPlanText(plan(snapshot, CONFIG, NOW));
    expect(text).toContain(
      `  ! Cluster fleet/alpha, registration cluster-alpha: cluster-alpha is not deleted although its source Cluster fleet/alpha is gone: it carries ${KEYS.prune}=disabled [prune-disabled]`,
    );
  });
});

describe('names and servers', () => {
  it('a registration pinned to a gone-unchecked Cluster is kept until that Cluster is proven gone', () => {
    const snapshot = scenario(registeredFleet())
      .removeCluster('fleet/alpha', { state: 'unknown', reason: 'timeout' })
      .capiChild('fleet', 'gamma', { labels: { [KEYS.cluster]: 'alpha' } })
      .build();
    expect(outcomeOf(plan(snapshot, CONFIG, NOW), 'fleet/gamma').reason?.message).toBe(
      'cluster-alpha is the registration of Cluster fleet/alpha, which could not be checked (looking up Cluster fleet/alpha failed: timeout); it is kept until that Cluster is proven gone',
    );
  });

  it('a server collision between Clusters says how to hand the server over, or to point one of the sources elsewhere', () => {
    const snapshot = scenario()
      .capiChild('fleet', 'alpha')
      .capiChild('fleet', 'beta', { server: serverOf('alpha.fleet') })
      .build();
    const reason = outcomeOf(plan(snapshot, CONFIG, NOW), 'fleet/beta').reason;
    expect(reason?.message).toBe(
      `server ${serverOf('alpha.fleet')} is being registered this pass as cluster-alpha by Cluster fleet/alpha; ArgoCD would pick one of the two at random, so the registration that holds a server keeps it. If Cluster fleet/alpha should not have it, remove its ${KEYS.managedBy} label and delete argocd/cluster-alpha: Cluster fleet/beta registers on the next pass; otherwise point one of the sources at another server (${KEYS.server} annotation)`,
    );
    expect(reason !== undefined && 'sourceMessage' in reason ? reason.sourceMessage : '').toContain(
      'the server this Cluster’s kubeconfig names',
    );
  });

  it("status says relabelling the Cluster back restores a demoted Cluster's registration", () => {
    const renamed = settle(
      scenario(registeredFleet())
        .editCluster('fleet/alpha', (cluster) => ({
          ...cluster,
          labels: { ...cluster.labels, [KEYS.cluster]: 'alpha-2' },
        }))
        .build(),
      CONFIG,
      NOW,
    );
    const rows = statusRows(plan(renamed, CONFIG, NOW + DAY), renamed, CONFIG);
    const row = rows.find((r) => r.secret === 'cluster-alpha');
    expect(row?.state).toBe('demoted');
    expect(row?.reason?.message).toMatch(
      /; ArgoCD no longer sees it, and relabelling the Cluster back restores it$/,
    );
    expect(renderStatusText(rows, { now: NOW, color: false })).toContain(
      'cluster-alpha (registration of Cluster fleet/alpha): demoted',
    );
  });
});

describe('status rows', () => {
  it('a foreign Secret blocking a Cluster says it blocks that Cluster', () => {
    const snapshot = scenario()
      .capiChild('fleet', 'alpha', { server: 'https://legacy.example.com' })
      .foreign('vcluster-legacy', { server: 'https://legacy.example.com' })
      .build();
    const rows = statusRows(plan(snapshot, CONFIG, NOW), snapshot, CONFIG);
    expect(rows.find((row) => row.kind === 'foreign')?.reason?.message).toBe(
      'not managed by this registrar; blocks Cluster fleet/alpha (its name or server is taken)',
    );
  });

  it('a gone Cluster whose registration a prune veto keeps is pinned, for the Cluster reason', () => {
    const snapshot = scenario(registeredFleet())
      .labelSecret('cluster-alpha', KEYS.prune, 'disabled')
      .removeCluster('fleet/alpha')
      .build();
    const rows = statusRows(plan(snapshot, CONFIG, NOW), snapshot, CONFIG);
    expect(rows.find((row) => row.secret === 'cluster-alpha')).toMatchObject({
      state: 'pinned',
      reason: { code: 'source-cluster-not-found' },
    });
  });
});
