// A profile published by a pass after its registration's is said in the source's queued
// `Registered` Event, unless something newer about that source was queued meanwhile: then the
// newer Event stands and the profile gets an Event of its own. Observed through a held queue
// (nothing is sent): how many Events wait, one line per source and one per profile.

import { describe, expect, it } from 'vitest';
import type { Action, NamespaceOutcome, Plan, Snapshot } from '@argocd-cluster-registrar/core';
import type { ActionResult, KubeAccess } from '@argocd-cluster-registrar/k8s-adapter';
import { EventQueue } from './event-queue.js';
import { silentLogger } from './logging.js';
import { OutcomeReporter } from './outcome-events.js';
import type { PassReport } from './reconciler.js';

const snapshot: Snapshot = {
  namespaces: [
    { name: 'team-a', uid: 'uid-team-a', labels: {}, annotations: {}, creationTimestamp: '' },
  ],
  candidateSecrets: [],
  clusterSecrets: [],
  sourceLookups: {},
};
const CREATE = { kind: 'create', cluster: 'alpha', reason: { code: 'new-registration' } };

function passOf(
  outcome: Partial<NamespaceOutcome>,
  writes: readonly Action[],
  profileCreate: boolean,
): PassReport {
  const plan = {
    actions: writes,
    outcomes: [{ namespace: 'team-a', cluster: 'alpha', rejected: [], ...outcome }],
    warnings: [],
  } as unknown as Plan;
  const results: ActionResult[] = writes.map((action) => ({ action, status: 'applied' }));
  const profile = {
    kind: 'create',
    cluster: 'alpha',
    source: 'team-a',
    profile: {},
  } as never;
  return {
    scope: 'full',
    snapshot,
    plan,
    results,
    previewed: [],
    gatherFailures: [],
    applied: true,
    requests: 0,
    durationMs: 0,
    profiles: {
      state: 'planned',
      plan: {
        namespace: 'inventory',
        apiVersion: 'v1alpha1',
        actions: profileCreate ? [profile] : [],
        published: 1,
        deferred: 0,
        notices: [],
      },
      results: profileCreate ? [{ action: profile, status: 'applied', uid: 'uid-profile' }] : [],
    },
  };
}

function reporterWithHeldQueue() {
  const queue = new EventQueue({ perSecond: 10, burst: 1, concurrency: 1 });
  queue.hold();
  const reporter = new OutcomeReporter({} as KubeAccess, 'argocd', silentLogger, queue);
  return { queue, reporter };
}

describe('a profile published the pass after its registration', () => {
  it("is said in the source's Registered Event while that waits", () => {
    const { queue, reporter } = reporterWithHeldQueue();
    reporter.report(passOf({ state: 'registered' }, [CREATE as Action], false), true);
    expect(queue.size).toBe(1);
    reporter.report(passOf({ state: 'unchanged' }, [], true), true);
    expect(queue.size).toBe(1);
    queue.close();
  });

  it('is said there too when a later pass publishes it (a batch), while that Event waits', () => {
    const { queue, reporter } = reporterWithHeldQueue();
    reporter.report(passOf({ state: 'registered' }, [CREATE as Action], false), true);
    // A pass that published other sources' profiles, not this one's.
    reporter.report(passOf({ state: 'unchanged' }, [], false), true);
    reporter.report(passOf({ state: 'unchanged' }, [], true), true);
    expect(queue.size).toBe(1);
    queue.close();
  });

  it('gets its own Event when something newer about the source was queued meanwhile', () => {
    const { queue, reporter } = reporterWithHeldQueue();
    reporter.report(passOf({ state: 'registered' }, [CREATE as Action], false), true);
    const stale = { code: 'kubeconfig-unusable', message: 'the kubeconfig is unusable' };
    reporter.report(passOf({ state: 'stale', reason: stale as never }, [], true), true);
    // The Stale Event replaced the Registered one in its line; the profile's has a line of its own.
    expect(queue.size).toBe(2);
    queue.close();
  });
});
