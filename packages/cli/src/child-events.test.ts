// Child news: Paused/Resumed once the write landed, Unreachable/Reachable when the probes
// change their mind, and nothing for a healthy child a new process sees for the first time.

import { describe, expect, it } from 'vitest';
import type { Action, NamespaceOutcome } from '@argocd-cluster-registrar/core';
import type { ActionResult } from '@argocd-cluster-registrar/k8s-adapter';
import { childNews, type ChildSeen } from './child-events.js';

const UPDATE = {
  kind: 'update',
  cluster: 'alpha',
  reason: { code: 'metadata-changed', namespace: 'team-a' },
} as unknown as Action;

/** This pass's write of the registration: none planned, or planned with this result. */
function pass(status?: ActionResult['status']): ActionResult | undefined {
  return status === undefined ? undefined : { action: UPDATE, status };
}

function outcome(extra: Partial<NamespaceOutcome>): NamespaceOutcome {
  return { namespace: 'team-a', cluster: 'alpha', state: 'unchanged', rejected: [], ...extra };
}

const DOWN = { failures: 3, error: 'GET https://a/version: connect ECONNREFUSED' };
const UP = { failures: 0, version: 'v1.31.2' };

function reasons(news: ReturnType<typeof childNews>): string[] {
  return news?.events.map((event) => event.reason) ?? [];
}

describe('childNews', () => {
  it('says nothing of a healthy child seen for the first time', () => {
    expect(reasons(childNews(outcome({ probe: UP }), undefined, pass(), 'argocd'))).toEqual([]);
  });

  it('reports an unreachable child, then its pause once the write landed', () => {
    const seen: ChildSeen = { paused: undefined, reachable: true };
    const failing = childNews(outcome({ probe: { ...DOWN, failures: 1 } }), seen, pass(), 'argocd');
    expect(failing?.events).toEqual([
      {
        namespace: 'team-a',
        type: 'Warning',
        reason: 'Unreachable',
        message:
          'The child API server does not answer with the registered credentials: GET https://a/version: connect ECONNREFUSED',
      },
    ]);
    const unlanded = childNews(
      outcome({ probe: DOWN, paused: 'unreachable' }),
      failing?.seen,
      pass('conflict'),
      'argocd',
    );
    expect(unlanded).toBeUndefined();
    const landed = childNews(
      outcome({ probe: DOWN, paused: 'unreachable' }),
      failing?.seen,
      pass('applied'),
      'argocd',
    );
    expect(reasons(landed)).toEqual(['Paused']);
    expect(landed?.events[0]?.message).toContain(
      'argocd.argoproj.io/skip-reconcile on Secret argocd/cluster-alpha',
    );
    const back = childNews(outcome({ probe: UP }), landed?.seen, pass('applied'), 'argocd');
    expect(reasons(back)).toEqual(['Reachable', 'Resumed']);
  });

  it('reports a pause by the source’s own mark without any probe', () => {
    const news = childNews(outcome({ paused: 'paused' }), undefined, pass('applied'), 'argocd');
    expect(reasons(news)).toEqual(['Paused']);
    expect(news?.events[0]?.message).toContain('the source is marked paused');
  });

  it('posts nothing after a restart when the registration already carries the pause', () => {
    // A new process: nothing seen yet, and no write planned, since the registration already
    // has skip-reconcile and the pause reason.
    const byMark = childNews(outcome({ paused: 'paused' }), undefined, pass(), 'argocd');
    expect(reasons(byMark)).toEqual([]);
    const unprobed = childNews(outcome({ paused: 'unreachable' }), undefined, pass(), 'argocd');
    expect(reasons(unprobed)).toEqual([]);
    // Its first probe after the restart fails again: still nothing new.
    const probed = childNews(
      outcome({ paused: 'unreachable', probe: DOWN }),
      unprobed?.seen,
      pass(),
      'argocd',
    );
    expect(reasons(probed)).toEqual([]);
    // It answers: that is news.
    const seen = probed?.seen ?? unprobed?.seen;
    const back = childNews(outcome({ probe: UP }), seen, pass('applied'), 'argocd');
    expect(reasons(back)).toEqual(['Reachable', 'Resumed']);
  });
});
