// Invariants of plan(), each a fast-check property named for what it guarantees.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from './plan/index.js';
import { applyPlanToSnapshot } from './test-support/apply-plan.js';
import {
  buildSnapshot,
  plannerInputArb,
  PROPERTY_CONFIG,
  shuffled,
} from './test-support/arbitraries.js';
import { registrationProblems } from './test-support/argo-check.js';
import { DAY, KEYS, NOW, settle } from './test-support/fixtures.js';
import type { ObservedSecret, Snapshot } from './types.js';

const RUNS = { numRuns: 120 };
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

  it('never deletes without positive proof', () => {
    fc.assert(
      fc.property(plannerInputArb, (input) => {
        const snapshot = buildSnapshot(input);
        for (const action of plan(snapshot, config, NOW).actions) {
          if (action.kind !== 'delete') continue;
          const target = secretNamed(snapshot, action.target.name);
          if (target === undefined) throw new Error('delete of a missing Secret');
          expect(target.labels[KEYS.prune]).not.toBe('disabled');
          const reason = action.reason;
          const managed = snapshot.namespaces.find((ns) => ns.name === reason.namespace);
          const lookup = snapshot.sourceLookups[reason.namespace];
          switch (reason.code) {
            case 'source-namespace-not-found':
              expect(managed).toBeUndefined();
              expect(lookup).toEqual({ state: 'notFound' });
              break;
            case 'source-namespace-replaced': {
              expect(target.labels[KEYS.sourceNamespaceUid]).toBe(reason.recordedUid);
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
        // What proof is left: an expired demotion, or a managed namespace of that name with another uid.
        for (const { reason } of deletions) {
          if (reason.code === 'demotion-expired') continue;
          expect(reason.code).toBe('source-namespace-replaced');
          const managed = snapshot.namespaces.find((ns) => ns.name === reason.namespace);
          expect(managed?.uid).toBeDefined();
          expect(managed?.uid).not.toBe(
            reason.code === 'source-namespace-replaced' ? reason.recordedUid : undefined,
          );
        }
      }),
      RUNS,
    );
  });

  it('is idempotent: applying the plan and planning again yields no actions', () => {
    fc.assert(
      fc.property(plannerInputArb, (input) => {
        const snapshot = buildSnapshot(input);
        const applied = applyPlanToSnapshot(snapshot, plan(snapshot, config, NOW));
        expect(plan(applied, config, NOW).actions).toEqual([]);
      }),
      RUNS,
    );
  });

  it('gives the same plan, byte for byte, for every order of the inputs', () => {
    fc.assert(
      fc.property(plannerInputArb, fc.integer(), (input, seed) => {
        const snapshot = buildSnapshot(input);
        const permuted: Snapshot = {
          namespaces: shuffled(snapshot.namespaces, seed),
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
          // Three plans: an expired demotion is deleted in one pass and its name registered
          // afresh in the next (no action relies on another of the same plan), then checked.
          snapshot = settle(snapshot, config, now, 3);
          const result = plan(snapshot, config, now);
          for (const outcome of result.outcomes) {
            if (outcome.state !== 'registered' && outcome.state !== 'unchanged') continue;
            if (outcome.reason?.code === 'terminating') continue;
            const registration = secretNamed(snapshot, `cluster-${outcome.cluster ?? ''}`);
            expect(registration?.labels[KEYS.sourceNamespace]).toBe(outcome.namespace);
            expect(registration?.labels['argocd.argoproj.io/secret-type']).toBe('cluster');
          }
          // No demoted registration outlives the TTL unless something keeps it on purpose.
          if (now > NOW) {
            for (const secret of snapshot.clusterSecrets) {
              if (!owned(secret) || secret.labels[KEYS.orphanedSecretType] === undefined) continue;
              const since = Date.parse(secret.annotations[KEYS.staleSince] ?? '');
              const claimedBySource = result.outcomes.some(
                (outcome) =>
                  outcome.namespace === secret.labels[KEYS.sourceNamespace] &&
                  `cluster-${outcome.cluster ?? ''}` === secret.name,
              );
              if (
                secret.labels[KEYS.prune] !== 'disabled' &&
                !claimedBySource &&
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

  it('never writes two active registrations of one server', () => {
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
        for (const name of written) {
          const secret = active.find((candidate) => candidate.name === name);
          if (secret === undefined) continue;
          const sharing = active
            .filter((other) => other !== secret && server(other) === server(secret))
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
