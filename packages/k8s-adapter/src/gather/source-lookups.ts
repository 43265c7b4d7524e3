// Which sources that owned registrations record but that are not among the managed ones
// (a namespace, or `<namespace>/<name>` of a Cluster) a pass looks up, and the rule for
// reusing an answer between passes. The lookup itself, and what a 404 proves, is the one
// the write-time proof uses too (connection/source-lookup.ts).
import {
  isClusterKey,
  labelKeys,
  parseSourceKey,
  recordedSourceKey,
} from '@argocd-cluster-registrar/core';
import type { Config, ObservedSecret, SourceLookup } from '@argocd-cluster-registrar/core';
import type { ClusterApi } from '../connection/cluster-api.js';
import { mapBounded } from '../concurrency.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { lookUpSource } from '../connection/source-lookup.js';
import type { GatherRead } from './gather-failure.js';
import type { Pass } from './gather-failure.js';
import type { Unread } from './unread.js';

/** Concurrent reads per pass: enough to hide latency, few enough to stay polite. */
export const READ_CONCURRENCY = 16;

/**
 * A `notFound` stays true for the uid a registration recorded (uids are never reused); a
 * `present` answer can only err on the side of keeping a registration, so it is reused
 * between full passes (an unmanaged namespace sends no watch events) and asked again on
 * each. A terminating namespace is asked again each time: it is about to become `notFound`;
 * an `unknown` always.
 */
export function reusableLookup(lookup: SourceLookup, fullPass: boolean): boolean {
  if (lookup.state === 'notFound') return true;
  return lookup.state === 'present' && lookup.deletionTimestamp === undefined && !fullPass;
}

export class SourceLookups {
  private readonly answers = new Map<string, SourceLookup>();
  private readonly keys;
  /** GETs made, over the gatherer's life. */
  asked = 0;

  constructor(
    private readonly access: KubeAccess,
    private readonly config: Config,
  ) {
    this.keys = labelKeys(config.labelPrefix);
  }

  /** A source changed: its answer may be another now (`undefined`: any may be). */
  forget(names: readonly string[] | undefined): void {
    if (names === undefined) this.answers.clear();
    else for (const name of names) this.answers.delete(name);
  }

  /**
   * Sources recorded by owned registrations that are not among the managed ones, sorted;
   * Clusters only with Cluster sources on (off, the planner keeps their registrations and
   * says why).
   */
  unmanagedSources(
    clusterSecrets: readonly ObservedSecret[],
    managed: ReadonlyMap<string, unknown>,
    clusters: ReadonlySet<string>,
  ): string[] {
    const names = new Set<string>();
    for (const secret of clusterSecrets) {
      if (secret.labels[this.keys.managedBy] !== this.config.managedBy) continue;
      const source = recordedSourceKey(secret.labels, this.keys);
      if (source === undefined || managed.has(source) || clusters.has(source)) continue;
      if (isClusterKey(source) && !this.config.capiClusters) continue;
      names.add(source);
    }
    return [...names].sort();
  }

  /** The lookups of `names` for the snapshot: reused where the rule allows, else asked. */
  async lookUp(
    pass: Pass,
    names: readonly string[],
    unread: Unread,
    api: ClusterApi | undefined,
    fullPass: boolean,
  ): Promise<Record<string, SourceLookup>> {
    const toAsk: string[] = [];
    for (const name of names) {
      const waits = isClusterKey(name) ? unread.clusterLookups : unread.namespaceLookups;
      const kept = this.answers.get(name);
      if (waits !== undefined) this.answers.set(name, { state: 'unknown', reason: waits });
      else if (kept === undefined || !reusableLookup(kept, fullPass)) toAsk.push(name);
    }
    const answers = await mapBounded(toAsk, READ_CONCURRENCY, (name) => this.ask(pass, name, api));
    toAsk.forEach((name, index) => this.answers.set(name, answers[index] as SourceLookup));
    const needed = new Set(names);
    for (const name of this.answers.keys()) if (!needed.has(name)) this.answers.delete(name);
    const lookups: Record<string, SourceLookup> = {};
    for (const name of names) {
      lookups[name] = this.answers.get(name) ?? { state: 'unknown', reason: 'not looked up' };
      // An unknown answer is asked again next time.
      if (lookups[name].state === 'unknown') this.answers.delete(name);
    }
    return lookups;
  }

  private async ask(pass: Pass, name: string, api: ClusterApi | undefined): Promise<SourceLookup> {
    this.asked += 1;
    const answer = await lookUpSource(this.access, name, api);
    if (answer.sent) pass.requests += 1;
    if (answer.failure !== undefined) pass.record(lookupRead(name), answer.failure);
    return answer.lookup;
  }
}

function lookupRead(key: string): GatherRead {
  const source = parseSourceKey(key);
  return source.kind === 'Namespace'
    ? { verb: 'get', kind: 'Namespace', name: source.name }
    : { verb: 'get', kind: 'Cluster', namespace: source.namespace, name: source.name };
}
