// `status` rows and their renderings, from a world with a namespace or registration in every
// state. The rows come from the plan's outcomes and actions; the table is compared whole,
// with colour off.

import { describe, expect, it } from 'vitest';
import { plan } from '../plan/index.js';
import { renderStatusText, statusFailing, statusToJson } from './render-status.js';
import { statusRows } from './status-rows.js';
import {
  HOUR,
  KEYS,
  NOW,
  scenario,
  serverOf,
  settle,
  testConfig,
} from '../test-support/fixtures.js';
import type { Snapshot } from '../common/types.js';

const config = testConfig({ drainOnTerminate: true });

/** Every state at once: registered, unchanged, waiting, refused, stale, drained, demoted, pinned, source-gone, foreign. */
function everyState(): Snapshot {
  const earlier = settle(
    scenario()
      .child('team-a', { cluster: 'alpha' })
      .child('team-s', { cluster: 'stale' })
      .child('team-d', { cluster: 'drain', labels: { [`${KEYS.prefix}team`]: 'payments' } })
      .child('team-n', { cluster: 'old' })
      .child('team-p', { cluster: 'pinned' })
      .child('team-g', { cluster: 'gone' })
      .build(),
    config,
    NOW,
  );
  // team-n renamed: the new name registered, the old one demoted.
  const renamed = settle(
    scenario(earlier).label('team-n', KEYS.cluster, 'new').build(),
    config,
    NOW,
  );
  return scenario(renamed)
    .child('team-b', { cluster: 'beta' })
    .namespace('team-w', { cluster: 'waiting' })
    .child('team-r', { cluster: 'refused', server: 'https://legacy.example.com' })
    .foreign('vcluster-legacy', { server: 'https://legacy.example.com' })
    .removeKubeconfig('team-s')
    .editNamespace('team-d', (ns) => ({ ...ns, deletionTimestamp: '2026-11-30T12:30:00Z' }))
    .removeNamespace('team-p', { state: 'unknown', reason: 'timeout' })
    .removeNamespace('team-g')
    .build();
}

describe('status', () => {
  const snapshot = everyState();
  const result = plan(snapshot, config, NOW + HOUR);
  const rows = statusRows(result, snapshot, config);

  it('has a row in every state, each taken from the plan', () => {
    expect(rows.map((row) => [row.kind, row.namespace ?? row.secret, row.state])).toEqual([
      ['namespace', 'team-a', 'unchanged'],
      ['namespace', 'team-b', 'registered'],
      ['namespace', 'team-d', 'drained'],
      ['namespace', 'team-n', 'unchanged'],
      ['namespace', 'team-r', 'refused'],
      ['namespace', 'team-s', 'stale'],
      ['namespace', 'team-w', 'waiting'],
      ['registration', 'team-g', 'source-gone'],
      ['registration', 'team-n', 'demoted'],
      ['registration', 'team-p', 'pinned'],
      ['foreign', 'vcluster-legacy', 'foreign'],
    ]);
    for (const row of rows.filter((r) => r.kind === 'namespace')) {
      expect(row.state).toBe(result.outcomes.find((o) => o.namespace === row.namespace)?.state);
    }
    expect(rows.find((r) => r.namespace === 'team-g')?.next).toBe(
      'delete (source-namespace-not-found)',
    );
    expect(rows.find((r) => r.namespace === 'team-d')?.next).toBe('update (drained)');
    expect(rows.find((r) => r.namespace === 'team-a')).toMatchObject({
      secret: 'cluster-alpha',
      server: serverOf('team-a'),
      credential: 'client-certificate',
      credentialNotAfter: '2027-11-29T17:57:37Z',
      lastWrite: '2026-11-30T12:00:00Z',
    });
  });

  it('finds the foreign Secret in the way from the refusal, not from its wording', () => {
    const refused = result.outcomes.find((o) => o.namespace === 'team-r');
    expect(refused?.reason).toMatchObject({
      code: 'server-collision',
      blocker: { namespace: 'argocd', name: 'vcluster-legacy' },
    });
    // The same refusal, worded so that it names no Secret: the row is found all the same.
    const reworded = {
      ...result,
      outcomes: result.outcomes.map((o) =>
        o === refused && o.reason !== undefined
          ? { ...o, reason: { ...o.reason, message: 'its server is taken' } }
          : o,
      ),
    };
    expect(
      statusRows(reworded, snapshot, config)
        .filter((row) => row.kind === 'foreign')
        .map((row) => [row.secret, row.reason?.message]),
    ).toEqual([
      [
        'vcluster-legacy',
        'not managed by this registrar; blocks namespace team-r (its name or server is taken)',
      ],
    ]);
  });

  it('renders a table and why each row is what it is', () => {
    expect(renderStatusText(rows, { now: NOW + HOUR })).toBe(TABLE);
  });

  it('is failing when a managed namespace is refused or stale, not for other rows', () => {
    expect(statusFailing(rows)).toBe(true);
    expect(statusFailing(rows.filter((r) => r.state !== 'refused' && r.state !== 'stale'))).toBe(
      false,
    );
  });

  it('is a versioned JSON document with a summary', () => {
    const document = statusToJson(rows, 'argocd', NOW + HOUR);
    expect(document).toMatchObject({
      formatVersion: '1',
      generatedAt: '2026-11-30T13:00:00Z',
      targetNamespace: 'argocd',
      failing: true,
    });
    // Every state, zeros included, as the plan's summary counts every kind.
    expect(document.summary).toEqual({
      demoted: 1,
      drained: 1,
      foreign: 1,
      pinned: 1,
      refused: 1,
      registered: 1,
      skipped: 0,
      'source-gone': 1,
      stale: 1,
      unchanged: 2,
      waiting: 1,
    });
    expect(JSON.parse(JSON.stringify(document))).toEqual(document);
  });

  it("masks the user-info of a foreign Secret's server", () => {
    const world = scenario()
      .child('team-x', { cluster: 'taken' })
      .foreign('by-hand', { clusterName: 'taken', server: 'https://ops:hunter2@x.example' })
      .build();
    const text = renderStatusText(statusRows(plan(world, config, NOW), world, config), {
      now: NOW,
    });
    expect(text).toContain('https://***@x.example');
    expect(text).not.toContain('hunter2');
  });

  it('shows no expiry for exec credentials, and marks an expired one', () => {
    const text = renderStatusText(
      [
        { kind: 'namespace', namespace: 'x', state: 'unchanged', credential: 'exec' },
        {
          kind: 'namespace',
          namespace: 'y',
          state: 'unchanged',
          credential: 'client-certificate',
          credentialNotAfter: '2026-01-01T00:00:00Z',
        },
      ],
      { now: NOW },
    );
    expect(text).toContain('n/a (exec)');
    expect(text).toContain('EXPIRED 2026-01-01');
  });
});

const TABLE = [
  'NAMESPACE          CLUSTER          STATE        CREDENTIAL          EXPIRES     SERVER                                 LAST WRITE',
  'team-a             alpha            unchanged    client-certificate  2027-11-29  https://team-a.child.example.com:6443  2026-11-30T12:00:00Z',
  'team-b             beta             registered   client-certificate  2027-11-29  https://team-b.child.example.com:6443  -',
  'team-d             drain            drained      client-certificate  -           https://team-d.child.example.com:6443  2026-11-30T12:00:00Z',
  'team-n             new              unchanged    client-certificate  2027-11-29  https://team-n.child.example.com:6443  2026-11-30T12:00:00Z',
  'team-r             refused          refused      -                   -           -                                      -',
  'team-s             stale            stale        client-certificate  2027-11-29  https://team-s.child.example.com:6443  2026-11-30T12:00:00Z',
  'team-w             waiting          waiting      -                   -           -                                      -',
  'team-g             gone             source-gone  client-certificate  -           https://team-g.child.example.com:6443  2026-11-30T12:00:00Z',
  'team-n             old              demoted      client-certificate  -           https://team-n.child.example.com:6443  2026-11-30T12:00:00Z',
  'team-p             pinned           pinned       client-certificate  -           https://team-p.child.example.com:6443  2026-11-30T12:00:00Z',
  '(vcluster-legacy)  vcluster-legacy  foreign      -                   -           https://legacy.example.com             -',
  '',
  'Why:',
  '  namespace team-b: registered',
  '    next pass: create (new-registration)',
  '  namespace team-d: drained (drained): namespace team-d is terminating; cluster-drain stays registered without the labels copied from the namespace, so ApplicationSet generators that select on them remove its Applications while ArgoCD can still reach the cluster; it is deleted once the namespace is gone',
  '    next pass: update (drained)',
  '  namespace team-r: refused (server-collision): server https://legacy.example.com is already registered by Secret argocd/vcluster-legacy, which this registrar does not manage; ArgoCD would pick one of the two at random. If it is a leftover of vcluster-argocd-exporter 0.1.x (a vcluster-<name> Secret), simply delete it; otherwise remove one of the two',
  '  namespace team-s: stale (no-candidate): no kubeconfig Secret is left in namespace team-s; cluster-stale keeps its last registered credentials until this is fixed',
  '  namespace team-w: waiting (waiting-for-kubeconfig): no kubeconfig Secret in namespace team-w yet (looking for k3k-*-kubeconfig (or controlled by a k3k.io Cluster) with kubeconfig.yaml); it is registered as soon as one appears',
  '  cluster-gone (registration of team-g): source-gone (source-namespace-not-found): source namespace team-g is gone',
  '    next pass: delete (source-namespace-not-found)',
  '  cluster-old (registration of team-n): demoted (renamed): demoted for new since 2026-11-30T12:00:00Z; ArgoCD no longer sees it, and relabelling the namespace back restores it',
  '  cluster-pinned (registration of team-p): pinned (source-unknown): registration cluster-pinned is kept: its source namespace cannot be checked (looking up namespace team-p failed: timeout)',
  '  vcluster-legacy (not ours): foreign (blocks): not managed by this registrar; blocks namespace team-r (its name or server is taken)',
  '',
  '7 managed namespaces (1 drained, 1 refused, 1 registered, 1 stale, 2 unchanged, 1 waiting); 1 earlier registration of a managed namespace (renamed away); 2 registrations without a managed namespace; 1 foreign Secret in the way.',
  '',
].join('\n');

describe('status of probed and paused children', () => {
  const probing = testConfig({ probeChildren: true, probeFailures: 2 });
  const registered = settle(
    scenario().child('team-a', { cluster: 'alpha' }).child('team-b', { cluster: 'beta' }).build(),
    probing,
    NOW,
  );
  const probed: Snapshot = {
    ...registered,
    children: {
      'team-a': { failures: 0, version: 'v1.31.2' },
      'team-b': {
        failures: 2,
        error: 'GET https://team-b.example.com/version: connect ECONNREFUSED',
        failingSince: '2026-11-30T11:58:00Z',
      },
    },
  };
  const paused = settle(probed, probing, NOW);

  it('shows each child’s version or unreachability, and why a paused one is paused', () => {
    const rows = statusRows(plan(paused, probing, NOW + HOUR), paused, probing);
    expect(rows.map((row) => [row.namespace, row.paused, row.probe?.failures])).toEqual([
      ['team-a', undefined, 0],
      ['team-b', 'unreachable', 2],
    ]);
    const text = renderStatusText(rows, { now: NOW + HOUR });
    expect(text).toContain('STATE      CHILD');
    expect(text).toMatch(/team-a +alpha +unchanged +v1\.31\.2 /);
    expect(text).toMatch(/team-b +beta +unchanged +unreachable \(2 failed\), paused /);
    expect(text).toContain(
      '    paused in ArgoCD: its child is unreachable since 2026-11-30T11:58:00Z: GET https://team-b.example.com/version: connect ECONNREFUSED',
    );
  });

  it('has no CHILD column when nothing is probed or paused', () => {
    const rows = statusRows(plan(registered, testConfig(), NOW + HOUR), registered, testConfig());
    expect(renderStatusText(rows, { now: NOW + HOUR })).not.toContain('CHILD');
  });
});
