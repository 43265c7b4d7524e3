// What a gather read, as data, and one pass over it: every API request of a gather goes
// through a Pass, which counts it and records a failure (a value, never a throw) together
// with the read it is about. Decisions (what was unread, which lookups wait) are taken from
// `read`; `scope` is the same read in words, for logs and messages only.
import { CAPI_GROUP } from '@argocd-cluster-registrar/core';
import type { SleepSignal } from '@argocd-cluster-registrar/core';
import { classifyApiError } from '../connection/api-failure.js';
import type { ApiFailure } from '../connection/api-failure.js';
import type { WatchName } from './world-cache.js';

/** A kind of object a gather reads. */
export type ReadKind = 'Namespace' | 'Secret' | 'Cluster';

/** What one read was about. */
export type GatherRead =
  /** A watch of the daemon's world cache that has not listed yet or is failing. */
  | { readonly verb: 'watch'; readonly watch: WatchName }
  /** A list of `kind` (cluster-wide without `namespace`), with its label selector if any. */
  | {
      readonly verb: 'list';
      readonly kind: ReadKind;
      readonly namespace?: string;
      readonly labelSelector?: string;
    }
  /** One object, by name. */
  | {
      readonly verb: 'get';
      readonly kind: ReadKind;
      readonly namespace?: string;
      readonly name: string;
    }
  /** Discovery of the Cluster API group's served version. */
  | { readonly verb: 'discover'; readonly group: typeof CAPI_GROUP }
  /** What a provisioner marks asleep (`--kamaji-sleep`, `--vcluster-sleep`). */
  | { readonly verb: 'sleep'; readonly signal: SleepSignal };

export interface GatherFailure {
  readonly read: GatherRead;
  /** `read` in words ('list secrets in k3k-a', 'watch namespaces'): for people, never parsed. */
  readonly scope: string;
  readonly failure: ApiFailure;
}

export function gatherFailure(read: GatherRead, failure: ApiFailure): GatherFailure {
  return { read, scope: describeRead(read), failure };
}

const PLURAL: Readonly<Record<ReadKind, string>> = {
  Namespace: 'namespaces',
  Secret: 'secrets',
  Cluster: `clusters.${CAPI_GROUP}`,
};

export function describeRead(read: GatherRead): string {
  switch (read.verb) {
    case 'watch':
      return `watch ${read.watch}`;
    case 'discover':
      return `discover ${read.group}`;
    case 'sleep':
      return `read what ${read.signal} marks asleep (--${read.signal}-sleep)`;
    case 'list': {
      const selector = read.labelSelector === undefined ? '' : ` (${read.labelSelector})`;
      const where = read.namespace === undefined ? '' : ` in ${read.namespace}`;
      return `list ${PLURAL[read.kind]}${selector}${where}`;
    }
    case 'get': {
      const name = read.namespace === undefined ? read.name : `${read.namespace}/${read.name}`;
      return `get ${read.kind.toLowerCase()} ${name}`;
    }
  }
}

export type Outcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly failure: ApiFailure };

/** One gather: counts requests and collects failures. */
export class Pass {
  requests = 0;
  readonly failures: GatherFailure[] = [];

  record(read: GatherRead, failure: ApiFailure): void {
    this.failures.push(gatherFailure(read, failure));
  }

  /** `notFoundIsAnswer`: a 404 is the information sought (a lookup), not a failure. */
  async call<T>(
    read: GatherRead,
    request: () => Promise<T>,
    notFoundIsAnswer = false,
  ): Promise<Outcome<T>> {
    this.requests += 1;
    try {
      return { ok: true, value: await request() };
    } catch (err) {
      const failure = classifyApiError(err);
      if (!(notFoundIsAnswer && failure.kind === 'not-found')) this.record(read, failure);
      return { ok: false, failure };
    }
  }

  /** Follows `continue` tokens; undefined when any page failed. */
  async listAll<T>(
    read: GatherRead,
    page: (token: string | undefined) => Promise<{
      readonly items?: readonly T[];
      readonly metadata?: { readonly continue?: string };
    }>,
  ): Promise<T[] | undefined> {
    const items: T[] = [];
    let token: string | undefined;
    do {
      const result = await this.call(read, () => page(token));
      if (!result.ok) return undefined;
      items.push(...(result.value.items ?? []));
      token = result.value.metadata?.continue || undefined;
    } while (token !== undefined);
    return items;
  }
}
