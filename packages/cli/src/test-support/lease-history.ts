// Every version of the leader-election Lease, as a watch on the real API server saw it, so a
// write can be judged against the Lease itself: it counts against its sender only if, when
// the proxy received it, the Lease was valid for another holder (renewTime +
// leaseDurationSeconds not yet past). Polling the holder is too coarse: it turns a write sent
// right after a correct takeover into a false violation. Judged after the fact, with the
// whole history, so a watch event that arrives after the write it explains changes nothing.
//
// A watch that breaks (an API server restart) starts again from the current version: the
// versions in between are missed. That can only hide a violation (a renewal unseen makes a
// Lease look expired sooner), never invent one.

import { KubeConfig, Watch } from '@kubernetes/client-node';
import type { V1Lease } from '@kubernetes/client-node';

export interface LeaseVersion {
  readonly resourceVersion: string;
  /** Empty when released. */
  readonly holder: string;
  /** renewTime, epoch ms. */
  readonly renewedAt: number;
  /** renewTime + leaseDurationSeconds, epoch ms. */
  readonly validUntil: number;
}

export interface LeaseHistory {
  readonly versions: readonly LeaseVersion[];
  /**
   * The holder of the Lease in force at `at` (the version renewed last at or before it) when
   * it is still valid then and `isSender` says it is not the writer's; undefined otherwise.
   */
  otherValidHolder(at: number, isSender: (holder: string) => boolean): string | undefined;
  stop(): void;
}

/** See {@link LeaseHistory.otherValidHolder}; pure, over the versions seen. */
export function otherValidHolderAt(
  versions: readonly LeaseVersion[],
  at: number,
  isSender: (holder: string) => boolean,
): string | undefined {
  let current: LeaseVersion | undefined;
  for (const version of versions)
    if (
      version.renewedAt <= at &&
      (current === undefined || version.renewedAt >= current.renewedAt)
    )
      current = version;
  if (current === undefined || current.holder === '' || isSender(current.holder)) return undefined;
  return current.validUntil > at ? current.holder : undefined;
}

function versionOf(lease: V1Lease): LeaseVersion | undefined {
  const spec = lease.spec;
  const renew = spec?.renewTime;
  if (spec === undefined || renew === undefined) return undefined;
  const renewedAt = new Date(renew).getTime();
  return {
    resourceVersion: lease.metadata?.resourceVersion ?? '',
    holder: spec.holderIdentity ?? '',
    renewedAt,
    validUntil: renewedAt + (spec.leaseDurationSeconds ?? 0) * 1000,
  };
}

export function watchLease(kubeConfig: string, namespace: string, name: string): LeaseHistory {
  const kc = new KubeConfig();
  kc.loadFromString(kubeConfig);
  const watch = new Watch(kc);
  const versions: LeaseVersion[] = [];
  const seen = new Set<string>();
  const state: { stopped: boolean; abort?: AbortController } = { stopped: false };

  const start = (): void => {
    if (state.stopped) return;
    const again = (): void => {
      if (!state.stopped) setTimeout(start, 200);
    };
    watch
      .watch(
        `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
        { fieldSelector: `metadata.name=${name}` },
        (_type: string, lease: V1Lease) => {
          const version = versionOf(lease);
          if (version === undefined || seen.has(version.resourceVersion)) return;
          seen.add(version.resourceVersion);
          versions.push(version);
        },
        again,
      )
      .then((abort) => {
        state.abort = abort;
        if (state.stopped) abort.abort();
      })
      .catch(again);
  };
  start();

  return {
    versions,
    otherValidHolder: (at, isSender) => otherValidHolderAt(versions, at, isSender),
    stop() {
      state.stopped = true;
      state.abort?.abort();
    },
  };
}

/**
 * The writes of the process `pid` (identities end in `_<pid>`) received while the Lease was
 * valid for another holder, each with that holder.
 */
export function writesAgainstTheLease(
  history: LeaseHistory,
  writes: readonly {
    readonly receivedAt: number;
    readonly method: string;
    readonly path: string;
  }[],
  pid: number | undefined,
): string[] {
  const isSender = (holder: string): boolean =>
    pid !== undefined && holder.endsWith(`_${String(pid)}`);
  return writes.flatMap((write) => {
    const other = history.otherValidHolder(write.receivedAt, isSender);
    return other === undefined ? [] : [`${write.method} ${write.path} (Lease valid for ${other})`];
  });
}
