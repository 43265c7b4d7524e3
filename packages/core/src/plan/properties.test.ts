// Invariants of plan(), each a fast-check property named for what it guarantees.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from './index.js';
import { applyPlanToSnapshot } from '../test-support/apply-plan.js';
import {
  buildSnapshot,
  plannerInputArb,
  PROPERTY_CONFIG,
  renamingInputArb,
  shuffled,
  unreadSpecArb,
  withUnreadParts,
} from '../test-support/arbitraries.js';
import { registrationProblems } from '../test-support/argo-check.js';
import { DAY, KEYS, NOW, recordedSource, settle, sourcesOf } from '../test-support/fixtures.js';
import { isClusterKey, parseSourceKey, sourceNamespaceOf } from '../config/sources.js';
import type { Action, ObservedSecret, Snapshot, SourceNamespace } from '../common/types.js';

const RUNS = { numRuns: 120 };
/** Enough passes for a rename (create, then demote) behind a hand-over (create, take over). */
const PASSES = 4;
const config = PROPERTY_CONFIG;

const owned = (secret: ObservedSecret): boolean =>
  secret.labels[KEYS.managedBy] === config.managedBy;

function secretNamed(snapshot: Snapshot, name: string): ObservedSecret | undefined {
  return snapshot.clusterSecrets.find(
    (secret) => secret.namespace === config.targetNamespace && secret.name === name,
  );
}

describe('plan properties', () => {
  it('never plans an action on a Secret it does not own', () => {
    fc.assert(
      fc.property(plannerInputArb, (input) => {
        const snapshot = buildSnapshot(input);
        for (const action of plan(snapshot, config, NOW).actions) {
          if (action.kind === 'create') {
            expect(
              secretNamed(snapshot, action.secret.name),
              `create over an existing ${action.secret.name}`,
            ).toBeUndefined();
            expect(action.secret.labels[KEYS.managedBy]).toBe(config.managedBy);
            continue;
          }
          const target = secretNamed(snapshot, action.target.name);
          expect(target, `${action.kind} of a missing ${action.target.name}`).toBeDefined();
          if (target === undefined) continue;
          expect(owned(target), `${action.kind} of foreign ${target.name}`).toBe(true);
          expect(action.target).toEqual({
            namespace: target.namespace,
            name: target.name,
            uid: target.uid,
            resourceVersion: target.resourceVersion,
          });
          if (action.kind !== 'delete')
            expect(action.secret.labels[KEYS.managedBy]).toBe(config.managedBy);
        }
      }),
      RUNS,
    );
  });

  it('never deletes without positive proof, for either kind of source', () => {
    const cases = { namespaceDeletes: 0, clusterDeletes: 0 };
    fc.assert(
      fc.property(plannerInputArb, (input) => {
        const snapshot = buildSnapshot(input);
        for (const action of plan(snapshot, config, NOW).actions) {
          if (action.kind !== 'delete') continue;
          const target = secretNamed(snapshot, action.target.name);
          if (target === undefined) throw new Error('delete of a missing Secret');
          expect(target.labels[KEYS.prune]).not.toBe('disabled');
          const reason = action.reason;
          if (reason.code !== 'demotion-expired') {
            // The proof is about the very source the registration records, and its code
            // names that source's kind.
            expect(recordedSource(target).key).toBe(reason.namespace);
            const kind = isClusterKey(reason.namespace) ? 'cluster' : 'namespace';
            expect(reason.code.startsWith(`source-${kind}-`)).toBe(true);
            if (kind === 'cluster') cases.clusterDeletes += 1;
            else cases.namespaceDeletes += 1;
          }
          const managed = sourcesOf(snapshot).find((ns) => ns.name === reason.namespace);
          const lookup = snapshot.sourceLookups[reason.namespace];
          switch (reason.code) {
            case 'source-namespace-not-found':
            case 'source-cluster-not-found':
              expect(managed).toBeUndefined();
              expect(lookup).toEqual({ state: 'notFound' });
              break;
            case 'source-namespace-replaced':
            case 'source-cluster-replaced': {
              expect(recordedSource(target).uid).toBe(reason.recordedUid);
              const observed =
                managed?.uid ?? (lookup?.state === 'present' ? lookup.uid : undefined);
              expect(observed).toBe(reason.observedUid);
              expect(observed).not.toBe(reason.recordedUid);
              break;
            }
            case 'demotion-expired':
              expect(target.labels['argocd.argoproj.io/secret-type']).toBeUndefined();
              expect(target.annotations[KEYS.staleSince]).toBe(reason.staleSince);
              expect(NOW - Date.parse(reason.staleSince)).toBeGreaterThan(config.demotedTtlMs);
              break;
          }
        }
      }),
      RUNS,
    );
    reportCases('positive proof', cases);
  });

  it('never deletes on an unknown lookup or an unusable kubeconfig', () => {
    fc.assert(
      fc.property(plannerInputArb, (input) => {
        const built = buildSnapshot(input);
        const snapshot: Snapshot = {
          ...built,
          candidateSecrets: built.candidateSecrets.map((secret) => ({
            ...secret,
            data: { 'kubeconfig.yaml': 'bm90IGEga3ViZWNvbmZpZw==' },
          })),
          sourceLookups: Object.fromEntries(
            Object.keys(built.sourceLookups).map((name) => [
              name,
              { state: 'unknown', reason: 'timeout' } as const,
            ]),
          ),
        };
        const deletions = plan(snapshot, config, NOW).actions.filter(
          (action) => action.kind === 'delete',
        );
        // What proof is left: an expired demotion, or a managed source of that key with another
        // uid (a namespace's or a Cluster's code, by its kind).
        for (const { reason } of deletions) {
          if (reason.code === 'demotion-expired') continue;
          expect(reason.code).toBe(
            isClusterKey(reason.namespace)
              ? 'source-cluster-replaced'
              : 'source-namespace-replaced',
          );
          const managed = sourcesOf(snapshot).find((ns) => ns.name === reason.namespace);
          expect(managed?.uid).toBeDefined();
          expect(managed?.uid).not.toBe('recordedUid' in reason ? reason.recordedUid : undefined);
        }
      }),
      RUNS,
    );
  });

  it('is idempotent: once a plan is applied, the next pass never writes the same Secret again, and a few passes reach a plan with no actions', () => {
    fc.assert(
      fc.property(plannerInputArb, (input) => {
        const snapshot = buildSnapshot(input);
        const first = plan(snapshot, config, NOW);
        const applied = applyPlanToSnapshot(snapshot, first);
        // The next pass only takes the steps that waited for this one to be observed
        // (a demotion after a rename, a hand-over of a renamed namespace's old name).
        const written = new Set(first.actions.map((action) => writtenName(action)));
        for (const action of plan(applied, config, NOW).actions)
          expect(written.has(writtenName(action)), `${action.kind} ${action.cluster} again`).toBe(
            false,
          );
        expect(plan(settle(applied, config, NOW, PASSES), config, NOW).actions).toEqual([]);
      }),
      RUNS,
    );
  });

  it('partial application is safe: whatever subset of a plan succeeds, pass after pass, no healthy labelled namespace is left without an active registration', () => {
    const cases = { renames: 0, laterDemotions: 0, droppedCreates: 0, healthyClusters: 0 };
    fc.assert(
      fc.property(
        renamingInputArb,
        // Per pass, which actions succeed (missing entries succeed): any subset, shrinkable.
        fc.array(fc.array(fc.boolean(), { maxLength: 8 }), { maxLength: PASSES }),
        (input, successes) => {
          let snapshot = buildSnapshot(input);
          if (sourcesOf(snapshot).some((ns) => renamedAway(snapshot, ns))) cases.renames += 1;
          if (sourcesOf(snapshot).some((ns) => isClusterKey(ns.name) && isHealthy(snapshot, ns)))
            cases.healthyClusters += 1;
          for (let pass = 0; pass < PASSES; pass++) {
            const result = plan(snapshot, config, NOW);
            if (result.actions.length === 0) break;
            const mask = successes[pass] ?? [];
            const succeeded = result.actions.filter((_, i) => mask[i] ?? true);
            if (pass > 0 && succeeded.some((action) => action.kind === 'demote'))
              cases.laterDemotions += 1;
            if (result.actions.some((action, i) => action.kind === 'create' && mask[i] === false))
              cases.droppedCreates += 1;
            const healthy = sourcesOf(snapshot).filter((ns) => isHealthy(snapshot, ns));
            const after = applyPlanToSnapshot(snapshot, { ...result, actions: succeeded });
            for (const ns of healthy) {
              expect(
                activeRegistrationsOf(after, ns),
                `${ns.name} lost its registration after ${succeeded.map((a) => `${a.kind} ${a.cluster}`).join(', ')} of ${result.actions.map((a) => `${a.kind} ${a.cluster}`).join(', ')}`,
              ).not.toEqual([]);
            }
            snapshot = after;
          }
        },
      ),
      { numRuns: 500 },
    );
    reportCases('partial application', cases);
  });

  it('gives the same plan, byte for byte, for every order of the inputs', () => {
    fc.assert(
      fc.property(plannerInputArb, fc.integer(), (input, seed) => {
        const snapshot = buildSnapshot(input);
        const permuted: Snapshot = {
          namespaces: shuffled(snapshot.namespaces, seed),
          clusters: shuffled(snapshot.clusters ?? [], seed + 4),
          candidateSecrets: shuffled(snapshot.candidateSecrets, seed + 1),
          clusterSecrets: shuffled(snapshot.clusterSecrets, seed + 2),
          sourceLookups: Object.fromEntries(
            shuffled(Object.entries(snapshot.sourceLookups), seed + 3),
          ),
        };
        expect(JSON.stringify(plan(permuted, config, NOW))).toBe(
          JSON.stringify(plan(snapshot, config, NOW)),
        );
      }),
      RUNS,
    );
  });

  it('converges: passes over time reach a state where every registered namespace is served by its own registration', () => {
    fc.assert(
      fc.property(plannerInputArb, (input) => {
        let snapshot = buildSnapshot(input);
        for (const now of [NOW, NOW + 2 * DAY]) {
          snapshot = settle(snapshot, config, now, PASSES);
          const result = plan(snapshot, config, now);
          for (const outcome of result.outcomes) {
            if (outcome.state !== 'registered' && outcome.state !== 'unchanged') continue;
            if (outcome.reason?.code === 'terminating') continue;
            const registration = secretNamed(snapshot, `cluster-${outcome.cluster ?? ''}`);
            expect(registration && recordedSource(registration).key).toBe(outcome.namespace);
            expect(registration?.labels['argocd.argoproj.io/secret-type']).toBe('cluster');
          }
          // No demoted registration outlives the TTL unless something keeps it on purpose.
          if (now > NOW) {
            for (const secret of snapshot.clusterSecrets) {
              if (!owned(secret) || secret.labels[KEYS.orphanedSecretType] === undefined) continue;
              const since = Date.parse(secret.annotations[KEYS.staleSince] ?? '');
              const claimedBySource = result.outcomes.some(
                (outcome) =>
                  outcome.namespace === recordedSource(secret).key &&
                  `cluster-${outcome.cluster ?? ''}` === secret.name,
              );
              // A source that cannot be read may claim the name again: the planner keeps the
              // registration and says so with a source-unknown warning naming it.
              const sourceUnread = result.warnings.some(
                (warning) => warning.code === 'source-unknown' && warning.secret === secret.name,
              );
              if (
                secret.labels[KEYS.prune] !== 'disabled' &&
                !claimedBySource &&
                !sourceUnread &&
                !Number.isNaN(since)
              ) {
                expect(now - since).toBeLessThanOrEqual(config.demotedTtlMs);
              }
            }
          }
        }
      }),
      { numRuns: 80 },
    );
  });

  it('never rests a create, takeover, server change, demotion, deletion, stale or waiting verdict on input that was not read', () => {
    const cases = { unreadNamespaces: 0, unreadClusterSecrets: 0, withheldWrites: 0 };
    fc.assert(
      fc.property(plannerInputArb, unreadSpecArb, (input, spec) => {
        const complete = buildSnapshot(input);
        const snapshot = withUnreadParts(complete, spec);
        const unread = new Set((snapshot.unreadNamespaces ?? []).map((entry) => entry.name));
        const targetUnread = snapshot.clusterSecretsUnread !== undefined;
        if (unread.size > 0) cases.unreadNamespaces += 1;
        if (targetUnread) cases.unreadClusterSecrets += 1;
        const result = plan(snapshot, config, NOW);
        if (result.actions.length < plan(complete, config, NOW).actions.length)
          cases.withheldWrites += 1;
        for (const outcome of result.outcomes) {
          if (!unread.has(sourceNamespaceOf(outcome.namespace))) continue;
          expect(outcome.state, outcome.namespace).not.toBe('stale');
          expect(outcome.state, outcome.namespace).not.toBe('waiting');
        }
        for (const action of result.actions) {
          const what = `${action.kind} ${action.cluster} (${action.reason.code})`;
          if (action.kind === 'create')
            expect(unread.has(sourceNamespaceOf(action.reason.namespace)), what).toBe(false);
          if (!targetUnread) continue;
          expect(action.kind, what).toBe('update');
          expect(['taken-over', 'restored-from-demotion', 'server-changed'], what).not.toContain(
            action.reason.code,
          );
        }
      }),
      { numRuns: 200 },
    );
    reportCases('incomplete input', cases);
  });

  it('never writes two active registrations of one server for different namespaces', () => {
    fc.assert(
      fc.property(plannerInputArb, (input) => {
        const snapshot = buildSnapshot(input);
        const result = plan(snapshot, config, NOW);
        const after = applyPlanToSnapshot(snapshot, result);
        const written = new Set(
          result.actions
            .filter((action) => action.kind === 'create' || action.kind === 'update')
            .map((action) => (action.kind === 'create' ? action.secret.name : action.target.name)),
        );
        const active = after.clusterSecrets.filter(
          (secret) => secret.labels['argocd.argoproj.io/secret-type'] === 'cluster',
        );
        const server = (secret: ObservedSecret): string =>
          normalise(atobText(secret.data['server'] ?? ''));
        // A renamed namespace's old and new registrations share its server for one pass (the
        // old one is demoted once the new one is observed): ArgoCD sees the same cluster twice,
        // never two clusters on one address.
        const source = (secret: ObservedSecret): string => {
          const recorded = recordedSource(secret);
          return `${recorded.key ?? '?'}#${recorded.uid ?? '?'}`;
        };
        for (const name of written) {
          const secret = active.find((candidate) => candidate.name === name);
          if (secret === undefined) continue;
          const sharing = active
            .filter(
              (other) =>
                other !== secret &&
                server(other) === server(secret) &&
                !(owned(other) && source(other) === source(secret)),
            )
            .map((other) => other.name);
          expect(sharing, `${name} shares its server`).toEqual([]);
        }
      }),
      RUNS,
    );
  });

  it('emits only configs ArgoCD accepts: padded base64, one credential form, never insecure with a CA', () => {
    let runs = 0;
    let writingRuns = 0;
    let execRuns = 0;
    fc.assert(
      fc.property(plannerInputArb, (input) => {
        const snapshot = buildSnapshot(input);
        runs++;
        let exec = false;
        let wrote = false;
        for (const action of plan(snapshot, config, NOW).actions) {
          if (action.kind === 'delete') continue;
          wrote = true;
          expect(
            registrationProblems(action.secret.data),
            `${action.kind} ${action.secret.name}`,
          ).toEqual([]);
          const text = atobText(action.secret.data['config'] ?? '');
          if (text.includes('"awsAuthConfig"') || text.includes('"execProviderConfig"'))
            exec = true;
        }
        if (wrote) writingRuns++;
        if (exec) execRuns++;
      }),
      RUNS,
    );
    // The interesting case: a written registration that carries an exec form.
    console.info(
      `ArgoCD validity: ${writingRuns} of ${runs} runs wrote registrations, ${execRuns} of them an exec one`,
    );
    // A floor, not a rate: seeds vary; about half the writing runs carry one (12 of 21 seen).
    expect(execRuns).toBeGreaterThan(0);
  });
});

/** The Secret an action writes (create) or changes (the others). */
function writtenName(action: Action): string {
  return action.kind === 'create' ? action.secret.name : action.target.name;
}

/** Active registrations we own that record `ns` (name and uid) as their source. */
function activeRegistrationsOf(snapshot: Snapshot, ns: SourceNamespace): string[] {
  return snapshot.clusterSecrets
    .filter(
      (secret) =>
        secret.namespace === config.targetNamespace &&
        owned(secret) &&
        secret.labels['argocd.argoproj.io/secret-type'] === 'cluster' &&
        recordedSource(secret).key === ns.name &&
        recordedSource(secret).uid === ns.uid,
    )
    .map((secret) => secret.name);
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * Healthy: managed, not terminating, a cluster name (label, or a Cluster's own name) that
 * makes a valid Secret name, not in conflict (a managed namespace holding managed Clusters),
 * and an active registration of its own before the plan. Its kubeconfig may be gone or
 * broken (a stale registration is kept), and it may claim another name than the one
 * registered.
 */
function isHealthy(snapshot: Snapshot, ns: SourceNamespace): boolean {
  const cluster = ns.labels[KEYS.cluster] ?? clusterNameOf(ns.name);
  const namespaceName = sourceNamespaceOf(ns.name);
  const conflict =
    snapshot.namespaces.some((other) => other.name === namespaceName) &&
    (snapshot.clusters ?? []).some((other) => other.namespace === namespaceName);
  return (
    !conflict &&
    ns.labels[KEYS.managedBy] === config.managedBy &&
    ns.deletionTimestamp === undefined &&
    cluster !== undefined &&
    `cluster-${cluster}`.length <= 253 &&
    DNS_SUBDOMAIN.test(`cluster-${cluster}`) &&
    activeRegistrationsOf(snapshot, ns).length > 0
  );
}

/** A Cluster's own name: the name it registers under without a label (fixtures' naming). */
function clusterNameOf(key: string): string | undefined {
  const source = parseSourceKey(key);
  return source.kind === 'Cluster' ? source.name : undefined;
}

/** A healthy namespace whose cluster label no longer names its registration. */
function renamedAway(snapshot: Snapshot, ns: SourceNamespace): boolean {
  return (
    isHealthy(snapshot, ns) &&
    !activeRegistrationsOf(snapshot, ns).includes(
      `cluster-${ns.labels[KEYS.cluster] ?? clusterNameOf(ns.name) ?? ns.name}`,
    )
  );
}

/**
 * Prints how often a property's interesting cases occurred, and fails when one never did: a
 * property that never meets its case proves nothing about it.
 */
function reportCases(property: string, cases: Readonly<Record<string, number>>): void {
  console.info(
    `${property}: ${Object.entries(cases)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ')}`,
  );
  for (const [name, count] of Object.entries(cases))
    expect(count, `${property}: no ${name} generated`).toBeGreaterThan(0);
}

function atobText(value: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(value), (char) => char.charCodeAt(0)));
}

/** A deliberately independent normalisation: lower-case, default port and trailing / dropped. */
function normalise(server: string): string {
  const lower = server.trim().toLowerCase().replace(/\/+$/, '');
  return lower
    .replace(/^https:\/\/([^/]+):443$/, 'https://$1')
    .replace(/^http:\/\/([^/]+):80$/, 'http://$1');
}
