// What a source's owner hears about its child: an Event when the registrar pauses or resumes
// its registration in ArgoCD (once the write landed), and when the probes find it unreachable
// or reachable again. News only: the first pass of a process reports a pause it writes or an
// unreachable child not paused yet, never a healthy child nor a pause its registration already
// carries (an earlier process reported it).

import { ARGOCD_SKIP_RECONCILE_ANNOTATION } from '@argocd-cluster-registrar/core';
import type { NamespaceOutcome, PauseReason } from '@argocd-cluster-registrar/core';
import type { ActionResult } from '@argocd-cluster-registrar/k8s-adapter';

/** An Event on the source, as outcome-events.ts sends it. */
export interface ChildEvent {
  readonly namespace: string;
  readonly type: 'Normal' | 'Warning';
  readonly reason: 'Paused' | 'Resumed' | 'Unreachable' | 'Reachable';
  readonly message: string;
}

/** Why, as a Paused Event says it. */
const PAUSE_WHY: Readonly<Record<PauseReason, string>> = {
  paused: 'the source is marked paused',
  'kamaji-sleeping': 'its Kamaji TenantControlPlane is Sleeping',
  'vcluster-sleeping': 'its vcluster is paused or asleep',
  unreachable: 'the child API server does not answer',
};

export interface ChildSeen {
  readonly paused: NamespaceOutcome['paused'];
  /** `undefined` while the child is not probed. */
  readonly reachable: boolean | undefined;
}

export function childNews(
  outcome: NamespaceOutcome,
  previous: ChildSeen | undefined,
  /** This pass's write of the source's registration, if it planned one. */
  write: ActionResult | undefined,
  targetNamespace: string,
): { seen: ChildSeen; events: ChildEvent[] } | undefined {
  const probe = outcome.probe;
  const reachable = probe === undefined ? undefined : probe.failures === 0;
  let paused = outcome.paused;
  // A pause (or resume) counts once its write landed; until then the last one stands.
  if (paused !== previous?.paused && write !== undefined && write.status !== 'applied')
    paused = previous?.paused;
  if (paused === previous?.paused && reachable === previous?.reachable) return undefined;
  if (previous === undefined && paused === undefined && reachable !== false) {
    return { seen: { paused, reachable }, events: [] };
  }
  // A new process that plans no write finds the pause already on the registration (its
  // skip-reconcile and pause reason): what an earlier process reported stands, news or not.
  if (previous === undefined && paused !== undefined && write === undefined) {
    return {
      seen: { paused, reachable: paused === 'unreachable' ? false : reachable },
      events: [],
    };
  }
  const namespace = outcome.namespace;
  const secret = `${targetNamespace}/cluster-${outcome.cluster ?? ''}`;
  const events: ChildEvent[] = [];
  if (reachable !== previous?.reachable && reachable !== undefined && probe !== undefined) {
    events.push(
      reachable
        ? {
            namespace,
            type: 'Normal',
            reason: 'Reachable',
            message: `The child API server answers again${probe.version === undefined ? '' : ` (Kubernetes ${probe.version})`}`,
          }
        : {
            namespace,
            type: 'Warning',
            reason: 'Unreachable',
            message: `The child API server does not answer with the registered credentials: ${probe.error ?? 'no answer'}`,
          },
    );
  }
  if (paused !== previous?.paused) {
    if (paused !== undefined) {
      events.push({
        namespace,
        type: 'Normal',
        reason: 'Paused',
        message: `Paused in ArgoCD (${ARGOCD_SKIP_RECONCILE_ANNOTATION} on Secret ${secret}): ${PAUSE_WHY[paused]}; the registration and its Applications stay`,
      });
    } else if (previous?.paused !== undefined) {
      events.push({
        namespace,
        type: 'Normal',
        reason: 'Resumed',
        message: `ArgoCD reconciles the cluster again (${ARGOCD_SKIP_RECONCILE_ANNOTATION} removed from Secret ${secret})`,
      });
    }
  }
  return { seen: { paused, reachable }, events };
}
