// The terms of the elector's Lease: its name, when the elector acts (client-go's proportions of
// the lease duration), and what it writes: a holder's record (renewing keeps acquireTime;
// taking over from another holder counts a transition) and the released record a stopping
// leader leaves. Each carries the resourceVersion it was read at, which makes the
// replace conditional. Times are epoch milliseconds: only the Lease's own timestamps use them.
import type { Config } from '@argocd-cluster-registrar/core';
import { microTime } from '../kube-objects.js';
import type { KubeLease, ObjectMeta } from '../kube-objects.js';

/** Which Lease, and who writes it. */
export interface LeaseHolder {
  readonly name: string;
  readonly namespace: string;
  readonly identity: string;
}

/** When the elector acts, all derived from the lease duration. */
export interface ElectionTiming {
  readonly durationMs: number;
  /** The leader stops leading, and the fence shuts, this long after its last renewal: 2/3. */
  readonly renewDeadlineMs: number;
  /** Between attempts: 2/15 of the lease. */
  readonly retryPeriodMs: number;
  /**
   * Each attempt (read + write) must end well before the renew deadline, or a hung request
   * would keep us from noticing that renewals stopped working.
   */
  readonly attemptBudgetMs: number;
}

/** Default 15 s, client-go's. */
export function electionTiming(leaseDurationSeconds = 15): ElectionTiming {
  const durationMs = leaseDurationSeconds * 1000;
  const renewDeadlineMs = (durationMs * 2) / 3;
  return {
    durationMs,
    renewDeadlineMs,
    retryPeriodMs: Math.max(100, durationMs / 7.5),
    attemptBudgetMs: Math.max(500, renewDeadlineMs / 2),
  };
}

/** `${sanitised prefix}-${managedBy}` as a DNS-1123 subdomain, e.g. 'argocd-cluster-registrar-cluster-registrar'. */
export function leaseName(config: Pick<Config, 'labelPrefix' | 'managedBy'>): string {
  const clean = (text: string): string => text.toLowerCase().replace(/[^a-z0-9.-]+/g, '-');
  const joined = `${clean(config.labelPrefix.replace(/\/+$/, ''))}-${clean(config.managedBy)}`;
  return joined
    .replace(/-{2,}/g, '-')
    .slice(0, 253)
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
}

/** The Lease held by `holder` from `wall` on, replacing `previous` (absent: created). */
export function heldLease(
  holder: LeaseHolder,
  durationSeconds: number,
  wall: number,
  previous: KubeLease | undefined,
): KubeLease {
  const spec = previous?.spec ?? {};
  const renewing = spec.holderIdentity === holder.identity;
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: leaseMetadata(holder, previous),
    spec: {
      holderIdentity: holder.identity,
      leaseDurationSeconds: durationSeconds,
      acquireTime: renewing && spec.acquireTime ? spec.acquireTime : microTime(wall),
      renewTime: microTime(wall),
      leaseTransitions: (spec.leaseTransitions ?? 0) + (renewing || previous === undefined ? 0 : 1),
    },
  };
}

/** No holder, expiring in a second: a standby takes over at its next attempt. */
export function releasedLease(holder: LeaseHolder, previous: KubeLease, wall: number): KubeLease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: leaseMetadata(holder, previous),
    spec: {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: microTime(wall),
      renewTime: microTime(wall),
      leaseTransitions: previous.spec?.leaseTransitions ?? 0,
    },
  };
}

function leaseMetadata(holder: LeaseHolder, previous: KubeLease | undefined): ObjectMeta {
  return {
    name: holder.name,
    namespace: holder.namespace,
    ...(previous?.metadata?.resourceVersion
      ? { resourceVersion: previous.metadata.resourceVersion }
      : {}),
  };
}
