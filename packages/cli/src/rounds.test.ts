// Which writes of a round need a second one, for each kind of source: the old registration
// of a renamed source is found by the source its labels record.

import { describe, expect, it } from 'vitest';
import { labelKeys } from '@argocd-cluster-registrar/core';
import type { Action, ObservedSecret, Plan, Snapshot } from '@argocd-cluster-registrar/core';
import { followUps } from './rounds.js';

const CONFIG = { labelPrefix: 'acr.test/', managedBy: 'registrar' };
const KEYS = labelKeys(CONFIG.labelPrefix);

function registration(cluster: string, source: Record<string, string>): ObservedSecret {
  return {
    namespace: 'argocd',
    name: `cluster-${cluster}`,
    uid: `uid-${cluster}`,
    resourceVersion: '1',
    type: 'Opaque',
    labels: {
      'argocd.argoproj.io/secret-type': 'cluster',
      [KEYS.managedBy]: CONFIG.managedBy,
      [KEYS.cluster]: cluster,
      ...source,
    },
    annotations: {},
    data: {},
  };
}

function create(cluster: string, source: string): Action {
  return {
    kind: 'create',
    cluster,
    secret: {
      namespace: 'argocd',
      name: `cluster-${cluster}`,
      type: 'Opaque',
      labels: {},
      annotations: {},
      data: {},
    },
    reason: { code: 'new-registration', namespace: source },
  };
}

function next(actions: Action[], clusterSecrets: ObservedSecret[]): string[] {
  const plan: Plan = { actions, outcomes: [], warnings: [] };
  const snapshot: Snapshot = {
    namespaces: [],
    candidateSecrets: [],
    clusterSecrets,
    sourceLookups: {},
  };
  return followUps(plan, snapshot, CONFIG).map((followUp) => followUp.next);
}

const CLUSTER_ALPHA = {
  [KEYS.sourceKind]: 'Cluster',
  [KEYS.sourceNamespace]: 'fleet',
  [KEYS.sourceCluster]: 'alpha',
};

describe('followUps', () => {
  it('finds the old registration of a renamed namespace', () => {
    expect(
      next(
        [create('alpha-2', 'team-a')],
        [registration('alpha', { [KEYS.sourceNamespace]: 'team-a' })],
      ),
    ).toEqual([
      'once cluster-alpha-2 is observed, a second round demotes cluster-alpha (namespace team-a was renamed away from it)',
    ]);
  });

  it('finds the old registration of a renamed Cluster, and names it as a Cluster', () => {
    expect(
      next([create('alpha-2', 'fleet/alpha')], [registration('alpha', CLUSTER_ALPHA)]),
    ).toEqual([
      'once cluster-alpha-2 is observed, a second round demotes cluster-alpha (Cluster fleet/alpha was renamed away from it)',
    ]);
  });

  it("does not take a Cluster's registration for that of the namespace it is in", () => {
    expect(next([create('fleet', 'fleet')], [registration('alpha', CLUSTER_ALPHA)])).toEqual([]);
  });
});
