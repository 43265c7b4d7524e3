// What the inventory namespace holds, for the profile planner: which version of the
// inventory's group is served (discovery), then the ClusterProfiles, listed by a one-shot run
// or watched by the daemon (list once, then the watch keeps them: a steady state sends no
// request for them, whatever their number). Without the CRD the reader says so once and is
// asked again only after an interval, and registrations go on unaffected.

import { createHash } from 'node:crypto';
import { profileStatusText } from '@argocd-cluster-registrar/core';
import type {
  ObservedProfile,
  ProfileSnapshot,
  ProfileStatus,
} from '@argocd-cluster-registrar/core';
import {
  clusterProfilesPath,
  discoverInventory,
  listClusterProfiles,
} from '../connection/cluster-profile-api.js';
import type { KubeClusterProfile } from '../connection/cluster-profile-api.js';
import { classifyApiError } from '../connection/api-failure.js';
import { LIST_PAGE_SIZE } from '../connection/kube-api.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { startListWatch } from '../watch/list-watch.js';
import type { ListWatch, ListWatchTiming, WatchedObject } from '../watch/list-watch.js';

export type ProfileRead =
  | { readonly state: 'read'; readonly snapshot: ProfileSnapshot }
  /** The CRD is not installed (or not in a version we write): nothing to plan. */
  | { readonly state: 'absent'; readonly why: string }
  /** Discovery or the list failed: nothing is planned this pass. */
  | { readonly state: 'unknown'; readonly why: string };

export interface ProfileReader {
  read(now: number): Promise<ProfileRead>;
  /** Requests sent, over the reader's life (watches excepted). */
  readonly requests: () => number;
  /**
   * Moves whenever what read() returns may have changed (a profile came, changed or went, a
   * list completed); a one-shot reader's moves on every read. Equal: the same profiles.
   */
  readonly changes: () => number;
  stop(): void;
}

export interface ProfileReaderOptions {
  readonly namespace: string;
  /** Watch (the daemon) or list on every read (a one-shot run). */
  readonly mode: 'watch' | 'list';
  /** Discovery is asked again at most this often while the group is not served. */
  readonly rediscoverMs: number;
  readonly timing?: Partial<ListWatchTiming>;
}

export function createProfileReader(
  access: KubeAccess,
  options: ProfileReaderOptions,
): ProfileReader {
  let requests = 0;
  let version: string | undefined;
  let absent: { readonly why: string; readonly at: number } | undefined;
  let watch: ListWatch<ObservedProfile> | undefined;
  // Settles when the watch's first list completed or failed: the first pass waits for it
  // rather than planning without the profiles (and saying so) on every start.
  let firstList: Promise<void> | undefined;
  let changes = 0;
  const moved = (): void => {
    changes += 1;
  };

  const discover = async (now: number): Promise<ProfileRead | undefined> => {
    if (version !== undefined) return undefined;
    if (absent !== undefined && now - absent.at < options.rediscoverMs)
      return { state: 'absent', why: absent.why };
    requests += 1;
    const api = await discoverInventory(access);
    if (api.state === 'absent') {
      absent = { why: api.why, at: now };
      return { state: 'absent', why: api.why };
    }
    if (api.state === 'unknown') return { state: 'unknown', why: api.failure.message };
    absent = undefined;
    version = api.version;
    if (options.mode === 'watch') {
      let settle = (): void => undefined;
      firstList = new Promise((resolve) => {
        settle = resolve;
      });
      watch = startListWatch(access, {
        name: 'cluster profiles',
        path: clusterProfilesPath(version, options.namespace),
        project: (object) => observedProfile(object as KubeClusterProfile),
        handlers: {
          onUpsert: moved,
          onDelete: moved,
          onListed: () => {
            moved();
            settle();
          },
          onError: () => {
            moved();
            settle();
          },
          onRecovered: moved,
        },
        ...(options.timing === undefined ? {} : { timing: options.timing }),
      });
    }
    return undefined;
  };

  return {
    requests: () => requests,
    changes: () => changes,
    stop: () => watch?.stop(),
    read: async (now) => {
      const notReady = await discover(now);
      if (notReady !== undefined) return notReady;
      const apiVersion = version as string;
      if (watch !== undefined) {
        if (firstList !== undefined) {
          await firstListOrTimeout(firstList);
          firstList = undefined;
        }
        const failing = watch.failing();
        const profiles = [...watch.store.values()];
        if (!watch.synced())
          return { state: 'unknown', why: failing?.message ?? 'the profiles are not listed yet' };
        return {
          state: 'read',
          snapshot: {
            apiVersion,
            profiles,
            digest: profileDigest,
            ...(failing === undefined ? {} : { unread: failing.message }),
          },
        };
      }
      moved();
      try {
        const profiles: ObservedProfile[] = [];
        let next: string | undefined;
        do {
          requests += 1;
          const page = await listClusterProfiles(access, apiVersion, options.namespace, {
            limit: LIST_PAGE_SIZE,
            continue: next,
          });
          for (const item of page.items ?? []) {
            const profile = observedProfile(item);
            if (profile !== undefined) profiles.push(profile);
          }
          next = page.metadata?.continue === '' ? undefined : page.metadata?.continue;
        } while (next !== undefined);
        return { state: 'read', snapshot: { apiVersion, profiles, digest: profileDigest } };
      } catch (err) {
        return { state: 'unknown', why: classifyApiError(err).message };
      }
    },
  };
}

/**
 * How long the first pass waits for the profiles' first list: a list that hangs (a partition)
 * holds the pass no longer than this, and the pass goes on without them.
 */
const FIRST_LIST_WAIT_MS = 5_000;

async function firstListOrTimeout(listed: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, FIRST_LIST_WAIT_MS);
    timer.unref();
  });
  await Promise.race([listed, timeout]);
  clearTimeout(timer);
}

/** The digest an observed status keeps of what it does not keep whole (core's ObservedProfileStatus). */
export function profileDigest(text: string): string {
  return createHash('sha256').update(text).digest('base64');
}

/** The planner's view of a profile as served (an object without name or uid is dropped). */
export function observedProfile(
  object: KubeClusterProfile | WatchedObject,
): ObservedProfile | undefined {
  const profile = object as KubeClusterProfile;
  const meta = profile.metadata;
  // The CRD's schema holds the status to ProfileStatus's shape.
  const status = profile.status as ProfileStatus | undefined;
  if (meta?.name === undefined || meta.uid === undefined || meta.resourceVersion === undefined)
    return undefined;
  return {
    namespace: meta.namespace ?? '',
    name: meta.name,
    uid: meta.uid,
    resourceVersion: meta.resourceVersion,
    labels: meta.labels ?? {},
    annotations: meta.annotations ?? {},
    spec: profile.spec ?? {},
    ...(status === undefined
      ? {}
      : {
          status: {
            ...(Array.isArray(status.conditions) ? { conditions: status.conditions } : {}),
            digest: profileDigest(profileStatusText(status)),
          },
        }),
  };
}
