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
import { LeadershipLost } from '../connection/write-fence.js';
import type { WriteFence } from '../connection/write-fence.js';
import type { KubeLease } from '../kube-objects.js';
import { electionTiming, heldLease, leaseName, releasedLease } from './lease-terms.js';
import type { ElectionTiming, LeaseHolder } from './lease-terms.js';

export { leaseName } from './lease-terms.js';

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
  /**
   * Where the Lease lives on the host; default the target namespace. With several targets it
   * is a namespace of this host, whichever targets are elsewhere.
   */
  readonly namespace?: string;
  /** Monotonic milliseconds; injected by tests. Default performance.now. */
  readonly monotonicNow?: () => number;
}

/** Releasing the Lease on shutdown is a courtesy: never worth more than this of a SIGTERM. */
const RELEASE_BUDGET_MS = 2000;

/**
 * Everything one elector knows between attempts. The steps below are functions of it;
 * nothing else is shared between them. Times are monotonic milliseconds, except the Lease's
 * own timestamps.
 */
interface ElectorState extends LeaseHolder {
  readonly access: KubeAccess;
  readonly timing: ElectionTiming;
  readonly monotonic: () => number;
  readonly onChange: (leader: boolean) => void;
  running: boolean;
  leader: boolean;
  lastRenewAt: number;
  /** When the last successful renewal was sent; the fence is open for a renew deadline after it. */
  renewSentAt: number;
  /** The current attempt's requests end by then. */
  attemptDeadline: number;
  lastLease: KubeLease | undefined;
  /** Holder, renewTime and resourceVersion of the Lease as last read, and since when. */
  observedRecord: string;
  observedAt: number;
  timer: NodeJS.Timeout | undefined;
  inFlight: Promise<void>;
}

export function createLeaderElector(
  access: KubeAccess,
  config: Config,
  options: LeaderElectionOptions,
): LeaderElector {
  const state = createElectorState(access, config, options);
  return {
    identity: state.identity,
    isLeader: () => isLeader(state),
    holds: () => fenceOpen(state),
    check() {
      if (!fenceOpen(state)) throw new LeadershipLost();
    },
    start: () => {
      start(state);
    },
    stop: () => stop(state),
  };
}

function createElectorState(
  access: KubeAccess,
  config: Config,
  options: LeaderElectionOptions,
): ElectorState {
  return {
    access,
    name: leaseName(config),
    namespace: options.namespace ?? config.targetNamespace,
    identity: options.identity ?? `${hostname()}_${randomBytes(4).toString('hex')}_${process.pid}`,
    timing: electionTiming(options.leaseDurationSeconds),
    monotonic: options.monotonicNow ?? (() => performance.now()),
    onChange: (leader) => {
      options.onChange(leader);
    },
    running: false,
    leader: false,
    lastRenewAt: 0,
    renewSentAt: Number.NEGATIVE_INFINITY,
    attemptDeadline: 0,
    lastLease: undefined,
    observedRecord: '',
    observedAt: 0,
    timer: undefined,
    inFlight: Promise.resolve(),
  };
}

// Also false when renewals stalled for longer than the deadline, even if the loop has not
// noticed yet (a blocked event loop must not let two leaders write).
function isLeader(state: ElectorState): boolean {
  return (
    state.leader &&
    state.monotonic() - state.lastRenewAt < state.timing.renewDeadlineMs &&
    fenceOpen(state)
  );
}

function fenceOpen(state: ElectorState): boolean {
  return state.leader && state.monotonic() < state.renewSentAt + state.timing.renewDeadlineMs;
}

function setLeader(state: ElectorState, value: boolean): void {
  if (state.leader === value) return;
  state.leader = value;
  state.onChange(value);
}

function start(state: ElectorState): void {
  if (state.running) return;
  state.running = true;
  loop(state);
}

function loop(state: ElectorState): void {
  if (!state.running) return;
  state.inFlight = attempt(state).finally(() => {
    if (state.running)
      state.timer = setTimeout(() => {
        loop(state);
      }, state.timing.retryPeriodMs);
  });
}

/** The request options that keep a request inside the current attempt's budget. */
function bounded(state: ElectorState): { readonly timeoutMs: number } {
  return { timeoutMs: Math.max(1, state.attemptDeadline - state.monotonic()) };
}

/** One round: read the Lease, then create it, renew it, or leave it to its live holder. */
async function attempt(state: ElectorState): Promise<void> {
  // Expiry and the renew deadline are judged on the monotonic clock: a wall-clock step on a
  // standby (NTP, a VM resumed) must not make it take over while the leader's fence is open.
  const wall = Date.now();
  const now = state.monotonic();
  state.attemptDeadline = now + state.timing.attemptBudgetMs;
  let current: KubeLease;
  try {
    current = await readLease(state.access, state.namespace, state.name, bounded(state));
  } catch (err) {
    if (classifyApiError(err).kind !== 'not-found') failedToRenew(state, now);
    else await acquire(state, wall, now);
    return;
  }
  observe(state, current, now);
  if (heldByAnother(state, current, now)) {
    setLeader(state, false);
    return;
  }
  await renew(state, current, wall, now);
}

/** There is no Lease: create it, holding it. */
function acquire(state: ElectorState, wall: number, now: number): Promise<void> {
  const lease = (): KubeLease => heldLease(state, state.timing.durationMs / 1000, wall, undefined);
  return send(state, now, () =>
    createLease(state.access, state.namespace, lease(), bounded(state)),
  );
}

/**
 * Renews our Lease, or takes over one whose holder let it expire. Conditional on the
 * resourceVersion just read: of two replicas racing, one gets 409.
 */
function renew(state: ElectorState, current: KubeLease, wall: number, now: number): Promise<void> {
  const lease = (): KubeLease => heldLease(state, state.timing.durationMs / 1000, wall, current);
  return send(state, now, () =>
    replaceLease(state.access, state.namespace, state.name, lease(), bounded(state)),
  );
}

/**
 * Sends a holder's record: renewed when the API server takes it, a failed renewal when not
 * (someone else wrote first, or the API is unreachable: the next attempt tries again).
 */
async function send(
  state: ElectorState,
  now: number,
  write: () => Promise<KubeLease>,
): Promise<void> {
  try {
    const sentAt = state.monotonic();
    renewed(state, await write(), now, sentAt);
  } catch {
    failedToRenew(state, now);
  }
}

/** Records the Lease as read, and since when (on our clock) its record has stood unchanged. */
function observe(state: ElectorState, lease: KubeLease, now: number): void {
  state.lastLease = lease;
  const record = `${lease.spec?.holderIdentity ?? ''}|${lease.spec?.renewTime ?? ''}|${lease.metadata?.resourceVersion ?? ''}`;
  if (record !== state.observedRecord) {
    state.observedRecord = record;
    state.observedAt = now;
  }
}

/** Another identity holds the Lease, and we have not yet seen it unchanged for its duration. */
function heldByAnother(state: ElectorState, lease: KubeLease, now: number): boolean {
  const holder = lease.spec?.holderIdentity ?? '';
  const heldForMs = (lease.spec?.leaseDurationSeconds ?? state.timing.durationMs / 1000) * 1000;
  return holder !== '' && holder !== state.identity && now < state.observedAt + heldForMs;
}

function renewed(state: ElectorState, lease: KubeLease, now: number, sentAt: number): void {
  observe(state, lease, now);
  state.lastRenewAt = now;
  state.renewSentAt = sentAt;
  setLeader(state, true);
}

function failedToRenew(state: ElectorState, now: number): void {
  if (state.leader && now - state.lastRenewAt > state.timing.renewDeadlineMs)
    setLeader(state, false);
}

async function stop(state: ElectorState): Promise<void> {
  state.running = false;
  clearTimeout(state.timer);
  // Bounded twice over: an attempt's requests end within its budget, and shutdown waits no
  // longer than the release budget for it.
  let waited: NodeJS.Timeout | undefined;
  await Promise.race([
    state.inFlight,
    new Promise<void>((resolve) => {
      waited = setTimeout(resolve, RELEASE_BUDGET_MS);
    }),
  ]);
  clearTimeout(waited);
  if (!state.leader) return;
  // Stop acting as leader before the Lease is released, so two never overlap.
  setLeader(state, false);
  await release(state);
}

/** Hands the Lease back, so a standby takes over at once. */
async function release(state: ElectorState): Promise<void> {
  const lease = state.lastLease;
  if (lease?.spec?.holderIdentity !== state.identity) return;
  const now = Date.now();
  state.attemptDeadline =
    state.monotonic() + Math.min(state.timing.attemptBudgetMs, RELEASE_BUDGET_MS);
  try {
    await replaceLease(
      state.access,
      state.namespace,
      state.name,
      releasedLease(state, lease, now),
      bounded(state),
    );
  } catch {
    // Not released: the standby takes over when the Lease expires instead.
  }
}
