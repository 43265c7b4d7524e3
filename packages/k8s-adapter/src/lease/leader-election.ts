// Leader election on a coordination.k8s.io/v1 Lease, the client-go way: every write is
// conditional on the Lease's resourceVersion, and expiry is judged by how long the record
// has stayed unchanged on *our* monotonic clock, so neither clock skew between replicas nor a
// step of a replica's wall clock matters.
//
// Fencing: leadership is *provably* held only until the lease duration has passed since the
// last successful renewal was sent, on this process's monotonic clock. A standby can only
// take over once it has seen our last renewal unchanged for a whole lease duration, and it
// sees it no earlier than we sent it, so before that instant no one else can hold the
// Lease. Every write checks the fence right before it is sent (write-fence.ts), and the fence
// shuts earlier than that instant, at the renew deadline (2/3 of the lease, as client-go's
// leader stops leading): a write checked just before it still has the last third of the
// lease (5 s by default) to reach the API server while no one else can hold the Lease (the
// 20-minute chaos run found writes that a slow network delivered after the hand-over when
// the fence stayed open to the end). A process paused past the deadline (SIGSTOP, a long GC)
// finds the fence shut when it resumes.

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Config } from '@argocd-cluster-registrar/core';
import { classifyApiError } from '../connection/api-failure.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { createLease, readLease, replaceLease } from '../connection/kube-api.js';
import { microTime } from '../kube-objects.js';
import type { KubeLease } from '../kube-objects.js';
import { LeadershipLost } from '../connection/write-fence.js';
import type { WriteFence } from '../connection/write-fence.js';

export interface LeaderElector extends WriteFence {
  /** The holderIdentity this elector writes. */
  readonly identity: string;
  isLeader(): boolean;
  start(): void;
  /** Stops renewing and releases the Lease, so a standby takes over at once. */
  stop(): Promise<void>;
}

export interface LeaderElectionOptions {
  /**
   * Unique per process; default the host name, a random part (as controller-runtime's) and the
   * pid (host name and pid alone repeat: two pods with hostNetwork on one node, both pid 1).
   */
  readonly identity?: string;
  /** How long a Lease stays valid without renewal; default 15 (client-go's default). */
  readonly leaseDurationSeconds?: number;
  onChange(leader: boolean): void;
  /** Monotonic milliseconds; injected by tests. Default performance.now. */
  readonly monotonicNow?: () => number;
}

const DEFAULT_LEASE_DURATION_SECONDS = 15;
/** Releasing the Lease on shutdown is a courtesy: never worth more than this of a SIGTERM. */
const RELEASE_BUDGET_MS = 2000;

/** `${sanitised prefix}-${managedBy}` as a DNS-1123 subdomain, e.g. 'argocd-cluster-registrar-cluster-registrar'. */
export function leaseName(config: Pick<Config, 'labelPrefix' | 'managedBy'>): string {
  const clean = (text: string): string => text.toLowerCase().replace(/[^a-z0-9.-]+/g, '-');
  const joined = `${clean(config.labelPrefix.replace(/\/+$/, ''))}-${clean(config.managedBy)}`;
  return joined
    .replace(/-{2,}/g, '-')
    .slice(0, 253)
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
}

export function createLeaderElector(
  access: KubeAccess,
  config: Config,
  options: LeaderElectionOptions,
): LeaderElector {
  const name = leaseName(config);
  const namespace = config.targetNamespace;
  const identity =
    options.identity ?? `${hostname()}_${randomBytes(4).toString('hex')}_${process.pid}`;
  const durationMs = (options.leaseDurationSeconds ?? DEFAULT_LEASE_DURATION_SECONDS) * 1000;
  // client-go's proportions: renew deadline 2/3 of the lease, retry every 2/15 of it.
  const renewDeadlineMs = (durationMs * 2) / 3;
  const retryPeriodMs = Math.max(100, durationMs / 7.5);

  let running = false;
  let leader = false;
  const monotonic = options.monotonicNow ?? (() => performance.now());
  /** Monotonic, as every time below but the Lease's own timestamps. */
  let lastRenewAt = 0;
  /** Monotonic time the last successful renewal was sent; the fence is open for a renew deadline after it. */
  let renewSentAt = Number.NEGATIVE_INFINITY;
  // Each attempt (read + write) must end well before the renew deadline, or a hung request
  // would keep us from noticing that renewals stopped working.
  const attemptBudgetMs = Math.max(500, renewDeadlineMs / 2);
  let attemptDeadline = 0;
  const bounded = () => ({ timeoutMs: Math.max(1, attemptDeadline - monotonic()) });
  let lastLease: KubeLease | undefined;
  let observedRecord = '';
  let observedAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();

  const setLeader = (value: boolean): void => {
    if (leader === value) return;
    leader = value;
    options.onChange(value);
  };

  /** `wall`: epoch milliseconds, only for the Lease's acquireTime and renewTime. */
  const desired = (wall: number, previous: KubeLease | undefined): KubeLease => {
    const spec = previous?.spec ?? {};
    const renewing = spec.holderIdentity === identity;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      // Carrying the observed resourceVersion makes the replace conditional.
      metadata: {
        name,
        namespace,
        ...(previous?.metadata?.resourceVersion
          ? { resourceVersion: previous.metadata.resourceVersion }
          : {}),
      },
      spec: {
        holderIdentity: identity,
        leaseDurationSeconds: durationMs / 1000,
        acquireTime: renewing && spec.acquireTime ? spec.acquireTime : microTime(wall),
        renewTime: microTime(wall),
        leaseTransitions:
          (spec.leaseTransitions ?? 0) + (renewing || previous === undefined ? 0 : 1),
      },
    };
  };

  const observe = (lease: KubeLease, now: number): void => {
    lastLease = lease;
    const record = `${lease.spec?.holderIdentity ?? ''}|${lease.spec?.renewTime ?? ''}|${lease.metadata?.resourceVersion ?? ''}`;
    if (record !== observedRecord) {
      observedRecord = record;
      observedAt = now;
    }
  };

  const renewed = (lease: KubeLease, now: number, sentAt: number): void => {
    observe(lease, now);
    lastRenewAt = now;
    renewSentAt = sentAt;
    setLeader(true);
  };

  const fenceOpen = (): boolean => leader && monotonic() < renewSentAt + renewDeadlineMs;

  const failedToRenew = (now: number): void => {
    if (leader && now - lastRenewAt > renewDeadlineMs) setLeader(false);
  };

  const tryAcquireOrRenew = async (): Promise<void> => {
    // Expiry and the renew deadline are judged on the monotonic clock: a wall-clock step on a
    // standby (NTP, a VM resumed) must not make it take over while the leader's fence is open.
    const wall = Date.now();
    const now = monotonic();
    attemptDeadline = now + attemptBudgetMs;
    let current: KubeLease;
    try {
      current = await readLease(access, namespace, name, bounded());
    } catch (err) {
      if (classifyApiError(err).kind !== 'not-found') {
        failedToRenew(now);
        return;
      }
      try {
        const sentAt = monotonic();
        renewed(
          await createLease(access, namespace, desired(wall, undefined), bounded()),
          now,
          sentAt,
        );
      } catch {
        // Someone else created it first (409), or the API is unreachable: try again later.
        failedToRenew(now);
      }
      return;
    }
    observe(current, now);
    const holder = current.spec?.holderIdentity ?? '';
    const heldForMs = (current.spec?.leaseDurationSeconds ?? durationMs / 1000) * 1000;
    if (holder !== '' && holder !== identity && now < observedAt + heldForMs) {
      setLeader(false);
      return;
    }
    try {
      // Conditional on the resourceVersion just read: of two replicas racing, one gets 409.
      const sentAt = monotonic();
      renewed(
        await replaceLease(access, namespace, name, desired(wall, current), bounded()),
        now,
        sentAt,
      );
    } catch {
      failedToRenew(now);
    }
  };

  const loop = (): void => {
    if (!running) return;
    inFlight = tryAcquireOrRenew().finally(() => {
      if (running) timer = setTimeout(loop, retryPeriodMs);
    });
  };

  return {
    identity,
    // Also false when renewals stalled for longer than the deadline, even if the loop has
    // not noticed yet (a blocked event loop must not let two leaders write).
    isLeader: () => leader && monotonic() - lastRenewAt < renewDeadlineMs && fenceOpen(),
    holds: fenceOpen,
    check() {
      if (!fenceOpen()) throw new LeadershipLost();
    },
    start() {
      if (running) return;
      running = true;
      loop();
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      // Bounded twice over: an attempt's requests end within its budget, and shutdown waits
      // no longer than the release budget for it.
      let waited: NodeJS.Timeout | undefined;
      await Promise.race([
        inFlight,
        new Promise<void>((resolve) => {
          waited = setTimeout(resolve, RELEASE_BUDGET_MS);
        }),
      ]);
      clearTimeout(waited);
      if (!leader) return;
      // Stop acting as leader before the Lease is released, so two never overlap.
      setLeader(false);
      const lease = lastLease;
      if (lease?.spec?.holderIdentity !== identity) return;
      const now = Date.now();
      attemptDeadline = monotonic() + Math.min(attemptBudgetMs, RELEASE_BUDGET_MS);
      try {
        await replaceLease(
          access,
          namespace,
          name,
          {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: {
              name,
              namespace,
              ...(lease.metadata?.resourceVersion
                ? { resourceVersion: lease.metadata.resourceVersion }
                : {}),
            },
            spec: {
              holderIdentity: '',
              leaseDurationSeconds: 1,
              acquireTime: microTime(now),
              renewTime: microTime(now),
              leaseTransitions: lease.spec.leaseTransitions ?? 0,
            },
          },
          bounded(),
        );
      } catch {
        // Not released: the standby takes over when the Lease expires instead.
      }
    },
  };
}
