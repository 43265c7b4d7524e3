// What the provisioners' own objects say of their children's sleep (`--kamaji-sleep`,
// `--vcluster-sleep`), handed to the snapshot as `provisioners`; the planner decides what it
// means (core plan/pause.ts). Nothing is read of a signal that is off, so the registrar then
// needs no access to those objects.
//
// - Kamaji: TenantControlPlanes, at the version discovery finds served for kamaji.clastix.io;
//   only their names and `status.kubernetesResources.version.status` are kept. While the group
//   is not served the signal is simply off (an empty list), said once.
// - vcluster: StatefulSets and Deployments labelled `app=vcluster`, as metadata only.
//
// The daemon watches them (a change plans the namespace again); a one-shot run lists them each
// pass. A signal that could not be read is left out of the snapshot, so a pause it caused
// stands until it is read again.

import type {
  Config,
  ProvisionerObject,
  Snapshot,
  SleepSignal,
} from '@argocd-cluster-registrar/core';
import { classifyApiError } from '../connection/api-failure.js';
import type { ApiFailure } from '../connection/api-failure.js';
import { gatherFailure, type GatherFailure } from './gather-failure.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { ACCEPT_METADATA_LIST, kubeRequest } from '../connection/kube-http.js';
import { LIST_PAGE_SIZE } from '../connection/kube-api.js';
import type { KubeList } from '../kube-objects.js';
import { startListWatch } from '../watch/list-watch.js';
import type { ListWatch, WatchedObject } from '../watch/list-watch.js';

export const KAMAJI_GROUP = 'kamaji.clastix.io';
export const VCLUSTER_SELECTOR = 'app=vcluster';

/** Said once when the Kamaji signal is on but its group is not served. */
export const KAMAJI_ABSENT = `--kamaji-sleep is on, but the API server does not serve ${KAMAJI_GROUP} (Kamaji's CRDs are not installed): the signal is off meanwhile, and looked for again on each full pass`;

/** One collection read for a signal. */
interface Collection {
  readonly kind: ProvisionerObject['kind'];
  readonly path: string;
  readonly labelSelector?: string;
  readonly metadataOnly: boolean;
}

interface Entry {
  readonly resourceVersion: string;
  readonly object: ProvisionerObject;
}

export interface ProvisionerSleepOptions {
  /** `watch`: the daemon (changes reported through onChange); `list`: each read lists. */
  readonly mode: 'watch' | 'list';
  /** Namespaces whose provisioner objects changed in a way the planner looks at. */
  readonly onChange?: (namespaces: readonly string[]) => void;
  readonly onError?: (signal: SleepSignal, failure: ApiFailure) => void;
}

export class ProvisionerSleep {
  private readonly signals: readonly SleepSignal[];
  private readonly watches = new Map<SleepSignal, ListWatch<Entry>[]>();
  /** Kamaji's served version; `null` while the group is absent. */
  private kamajiVersion: string | null | undefined;
  private saidAbsent = false;
  private readonly fresh: string[] = [];
  private readonly unreadSignals: GatherFailure[] = [];
  private stopped = false;

  constructor(
    private readonly access: KubeAccess,
    config: Config,
    private readonly options: ProvisionerSleepOptions,
  ) {
    this.signals = [
      ...(config.kamajiSleep ? (['kamaji'] as const) : []),
      ...(config.vclusterSleep ? (['vcluster'] as const) : []),
    ];
  }

  get on(): boolean {
    return this.signals.length > 0;
  }

  /** What each signal's objects say now; `fullPass` looks for a missing Kamaji group again. */
  async read(fullPass: boolean): Promise<Snapshot['provisioners']> {
    if (!this.on) return undefined;
    const read: { -readonly [K in SleepSignal]?: readonly ProvisionerObject[] } = {};
    for (const signal of this.signals) {
      const collections = await this.collections(signal, fullPass);
      if (collections === undefined) continue;
      const objects =
        this.options.mode === 'watch'
          ? await this.watched(signal, collections)
          : await this.listed(signal, collections);
      if (objects !== undefined) read[signal] = objects;
    }
    return read;
  }

  /** Notices not said yet (the Kamaji group absent), each returned once. */
  notices(): string[] {
    return this.fresh.splice(0);
  }

  stop(): void {
    this.stopped = true;
    for (const watches of this.watches.values()) for (const watch of watches) watch.stop();
    this.watches.clear();
  }

  /** Reads that failed since last asked, each returned once (a one-shot run's). */
  failures(): GatherFailure[] {
    return this.unreadSignals.splice(0);
  }

  /**
   * A watch's failures go to onError (the daemon logs them and keeps watching); a one-shot
   * run's are failures of its pass, so `--once` and `status` say so and exit 1.
   */
  private failed(signal: SleepSignal, failure: ApiFailure): void {
    if (this.options.onError !== undefined) this.options.onError(signal, failure);
    else this.unreadSignals.push(gatherFailure({ verb: 'sleep', signal }, failure));
  }

  /** The collections of a signal; `[]` when Kamaji is absent, `undefined` when unknown. */
  private async collections(
    signal: SleepSignal,
    fullPass: boolean,
  ): Promise<readonly Collection[] | undefined> {
    if (signal === 'vcluster') {
      return (['StatefulSet', 'Deployment'] as const).map((kind) => ({
        kind,
        path: `/apis/apps/v1/${kind === 'StatefulSet' ? 'statefulsets' : 'deployments'}`,
        labelSelector: VCLUSTER_SELECTOR,
        metadataOnly: true,
      }));
    }
    if (this.kamajiVersion === undefined || (this.kamajiVersion === null && fullPass)) {
      const found = await this.discoverKamaji();
      if (found === undefined) return undefined;
      this.kamajiVersion = found;
    }
    const version = this.kamajiVersion;
    if (version === null) {
      if (!this.saidAbsent) this.fresh.push(KAMAJI_ABSENT);
      this.saidAbsent = true;
      return [];
    }
    this.saidAbsent = false;
    return [
      {
        kind: 'TenantControlPlane',
        path: `/apis/${KAMAJI_GROUP}/${encodeURIComponent(version)}/tenantcontrolplanes`,
        metadataOnly: false,
      },
    ];
  }

  /** The preferred served version of kamaji.clastix.io, `null` when absent, `undefined` when unknown. */
  private async discoverKamaji(): Promise<string | null | undefined> {
    try {
      const group = await kubeRequest<{ preferredVersion?: { version?: string } }>(this.access, {
        method: 'GET',
        path: `/apis/${KAMAJI_GROUP}`,
      });
      const version = group.preferredVersion?.version;
      return version === undefined || version === '' ? null : version;
    } catch (err) {
      const failure = classifyApiError(err);
      if (failure.kind === 'not-found') return null;
      this.failed('kamaji', failure);
      return undefined;
    }
  }

  private async listed(
    signal: SleepSignal,
    collections: readonly Collection[],
  ): Promise<ProvisionerObject[] | undefined> {
    const objects: ProvisionerObject[] = [];
    try {
      for (const collection of collections) {
        let token: string | undefined;
        do {
          const page: KubeList<WatchedObject> = await kubeRequest(this.access, {
            method: 'GET',
            path: collection.path,
            query: {
              limit: LIST_PAGE_SIZE,
              continue: token,
              labelSelector: collection.labelSelector,
            },
            ...(collection.metadataOnly ? { accept: ACCEPT_METADATA_LIST } : {}),
          });
          for (const item of page.items ?? []) {
            const object = projected(collection.kind, item);
            if (object !== undefined) objects.push(object);
          }
          token = page.metadata?.continue || undefined;
        } while (token !== undefined);
      }
    } catch (err) {
      this.failed(signal, classifyApiError(err));
      return undefined;
    }
    return objects;
  }

  /** What the signal's watches hold, once each has listed; `undefined` while one is failing. */
  private async watched(
    signal: SleepSignal,
    collections: readonly Collection[],
  ): Promise<ProvisionerObject[] | undefined> {
    let watches = this.watches.get(signal);
    if (watches === undefined) {
      if (collections.length === 0) return [];
      watches = await Promise.all(collections.map((collection) => this.watch(signal, collection)));
      if (this.stopped) {
        for (const watch of watches) watch.stop();
        return undefined;
      }
      this.watches.set(signal, watches);
    }
    if (watches.some((watch) => !watch.synced() || watch.failing() !== undefined)) return undefined;
    return watches.flatMap((watch) => [...watch.store.values()].map((entry) => entry.object));
  }

  /** Starts a watch and waits until it has listed or failed once. */
  private watch(signal: SleepSignal, collection: Collection): Promise<ListWatch<Entry>> {
    return new Promise((resolve) => {
      let settled = false;
      const settle = (): void => {
        if (settled) return;
        settled = true;
        resolve(watch);
      };
      const changed = (namespace: string): void => this.options.onChange?.([namespace]);
      const watch: ListWatch<Entry> = startListWatch<Entry>(this.access, {
        name: `${collection.kind} (${signal} sleep)`,
        path: collection.path,
        ...(collection.labelSelector === undefined
          ? {}
          : { labelSelector: collection.labelSelector }),
        metadataOnly: collection.metadataOnly,
        project: (item) => {
          const object = projected(collection.kind, item);
          return object === undefined
            ? undefined
            : { resourceVersion: item.metadata?.resourceVersion ?? '', object };
        },
        handlers: {
          // Kamaji updates a TenantControlPlane's status often: only what the planner reads
          // plans its namespace again.
          onUpsert: (_key, value, previous) => {
            if (previous === undefined || !sameSleep(previous.object, value.object))
              changed(value.object.namespace);
          },
          onDelete: (_key, previous) => {
            changed(previous.object.namespace);
          },
          onListed: settle,
          onError: (failure) => {
            this.failed(signal, failure);
            settle();
          },
        },
      });
    });
  }
}

/** Only what the planner reads: names, labels, annotations and Kamaji's version status. */
function projected(
  kind: ProvisionerObject['kind'],
  item: WatchedObject,
): ProvisionerObject | undefined {
  const meta = item.metadata;
  if (meta?.name === undefined || meta.namespace === undefined) return undefined;
  const versionStatus = kind === 'TenantControlPlane' ? kamajiVersionStatus(item) : undefined;
  return {
    kind,
    namespace: meta.namespace,
    name: meta.name,
    labels: kind === 'TenantControlPlane' ? {} : { ...meta.labels },
    annotations: kind === 'TenantControlPlane' ? {} : { ...meta.annotations },
    ...(versionStatus === undefined ? {} : { versionStatus }),
  };
}

function kamajiVersionStatus(item: WatchedObject): string | undefined {
  const status = item['status'] as
    { kubernetesResources?: { version?: { status?: unknown } } } | undefined;
  const value = status?.kubernetesResources?.version?.status;
  return typeof value === 'string' ? value : undefined;
}

function sameSleep(a: ProvisionerObject, b: ProvisionerObject): boolean {
  return (
    a.versionStatus === b.versionStatus &&
    JSON.stringify(a.labels) === JSON.stringify(b.labels) &&
    JSON.stringify(a.annotations) === JSON.stringify(b.annotations)
  );
}
