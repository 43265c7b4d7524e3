// Ownership with host identities (host-identity.ts): a registration is ours only when its
// managed-by and its host identity are both ours; another host's is foreign; a registration
// from before host identities is adopted in a local target only.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from './index.js';
import { applyPlanToSnapshot } from '../test-support/apply-plan.js';
import { buildSnapshot, plannerInputArb, PROPERTY_CONFIG } from '../test-support/arbitraries.js';
import {
  clusterSecretOf,
  dataOf,
  KEYS,
  NOW,
  outcomeOf,
  registeredAlpha,
  scenario,
  serverOf,
  testConfig,
} from '../test-support/fixtures.js';
import type { Config, ObservedSecret, Snapshot } from '../common/types.js';

const HOST_A = 'host-a';
const HOST_B = 'host-b';
const local = testConfig({ hostId: HOST_A });
const remote = testConfig({ hostId: HOST_A, target: { name: 'hub', remote: true } });

/** team-a's registration as the registrar of `host` (or one without identities) wrote it. */
function registeredBy(host: string | undefined): Snapshot {
  const base = registeredAlpha();
  return scenario(base)
    .editClusterSecret('cluster-alpha', (secret) => withHost(secret, host))
    .build();
}

function withHost(secret: ObservedSecret, host: string | undefined): ObservedSecret {
  const labels = Object.fromEntries(
    Object.entries(secret.labels).filter(([key]) => key !== KEYS.hostId),
  );
  return { ...secret, labels: host === undefined ? labels : { ...labels, [KEYS.hostId]: host } };
}

describe('host identity', () => {
  it('records this host on every registration it writes', () => {
    const result = plan(scenario().child('team-a', { cluster: 'alpha' }).build(), local, NOW);
    expect(result.actions).toMatchObject([
      { kind: 'create', secret: { labels: { [KEYS.hostId]: HOST_A } } },
    ]);
  });

  it('never updates, demotes or deletes another host’s registration, even when its source is gone here', () => {
    const other = scenario(registeredBy(HOST_B)).removeNamespace('team-a').build();
    expect(plan(other, local, NOW).actions).toEqual([]);
    // Renamed here: the other host's cluster-alpha is still not ours to demote.
    const renamed = scenario(registeredBy(HOST_B)).label('team-a', KEYS.cluster, 'beta').build();
    const actions = plan(renamed, local, NOW).actions;
    expect(actions.every((action) => action.kind === 'create')).toBe(true);
  });

  it('refuses a name another host holds, naming that host and the fix (a name template)', () => {
    const result = plan(registeredBy(HOST_B), local, NOW);
    expect(result.actions).toEqual([]);
    const outcome = outcomeOf(result, 'team-a');
    expect(outcome.state).toBe('refused');
    expect(outcome.reason?.code).toBe('target-foreign');
    expect(outcome.reason?.message).toBe(
      `Secret argocd/cluster-alpha exists and is not this registrar's: it is the registration of another host (${KEYS.hostId}=host-b; this host is host-a), and only that host may change it; give this host's clusters names of their own with a target with a nameTemplate (--targets-file), such as host-a-{name}`,
    );
  });

  it('refuses a server another host registered under another name', () => {
    const snapshot = scenario(registeredBy(HOST_B))
      .child('team-b', { cluster: 'bravo', server: serverOf('team-a') })
      .build();
    const outcome = outcomeOf(plan(snapshot, local, NOW), 'team-b');
    expect(outcome.reason?.code).toBe('server-collision');
    expect(outcome.reason?.message).toContain('it is the registration of another host');
  });

  it('registers beside another host under a name template', () => {
    const config = testConfig({
      hostId: HOST_A,
      target: { name: 'hub', remote: true, nameTemplate: 'a-{name}' },
    });
    const snapshot = scenario(registeredBy(HOST_B))
      .editClusterSecret('cluster-alpha', (secret) => ({
        ...secret,
        data: { ...secret.data, server: btoa('https://elsewhere.example.com') },
      }))
      .build();
    const [create] = plan(snapshot, config, NOW).actions;
    expect(create).toMatchObject({ kind: 'create', cluster: 'a-alpha' });
    if (create?.kind !== 'create') throw new Error('expected a create');
    expect(create.secret.name).toBe('cluster-a-alpha');
    expect(dataOf(create.secret, 'name')).toBe('a-alpha');
    expect(create.secret.labels[KEYS.cluster]).toBe('a-alpha');
  });

  it('adopts its own registration from before host identities in a local target: only the identity is added', () => {
    const before = registeredBy(undefined);
    const actions = plan(before, local, NOW).actions;
    expect(actions).toHaveLength(1);
    const [update] = actions;
    if (update?.kind !== 'update') throw new Error('expected an update');
    const existing = clusterSecretOf(before, 'cluster-alpha');
    expect(update.secret.labels).toEqual({ ...existing.labels, [KEYS.hostId]: HOST_A });
    expect(update.secret.data).toEqual(existing.data);
    expect(update.secret.annotations).toEqual(existing.annotations);
  });

  it('adopts an unmarked registration when it demotes or restores it, as with any other write', () => {
    const renamed = scenario(registeredBy(undefined)).label('team-a', KEYS.cluster, 'beta').build();
    const observed = applyPlanToSnapshot(renamed, plan(renamed, local, NOW));
    const demote = plan(observed, local, NOW).actions.find((a) => a.kind === 'demote');
    expect(demote?.kind === 'demote' && demote.secret.labels[KEYS.hostId]).toBe(HOST_A);
    // A registration demoted before host identities existed: restoring it adopts it too.
    const demoted = applyPlanToSnapshot(observed, {
      actions: demote ? [demote] : [],
      outcomes: [],
      warnings: [],
    });
    const unmarkedDemoted = scenario(demoted)
      .editClusterSecret('cluster-alpha', (secret) => withHost(secret, undefined))
      .build();
    const reverted = scenario(unmarkedDemoted).label('team-a', KEYS.cluster, 'alpha').build();
    const restore = plan(reverted, local, NOW).actions.find((a) => a.cluster === 'alpha');
    expect(restore).toMatchObject({
      kind: 'update',
      secret: { labels: { [KEYS.hostId]: HOST_A } },
    });
  });

  it('never adopts a registration without identity in a remote target: another host may have written it', () => {
    const result = plan(registeredBy(undefined), remote, NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a').reason?.message).toContain(
      `no ${KEYS.hostId}, and in a target of another cluster it may be another host's, so it is never adopted; if it is this host's, label it (kubectl label secret -n argocd cluster-alpha ${KEYS.hostId}=host-a)`,
    );
  });

  it('property: no action ever touches a registration of another host, or an unmarked one in a remote target', () => {
    let otherHostsSpared = 0;
    fc.assert(
      fc.property(
        plannerInputArb,
        fc.array(fc.constantFrom(HOST_A, HOST_B, undefined), { minLength: 8, maxLength: 8 }),
        fc.boolean(),
        (input, hosts, isRemote) => {
          const built = buildSnapshot(input);
          const blindConfig: Config = {
            ...PROPERTY_CONFIG,
            ...(isRemote ? { target: { name: 'hub', remote: true } } : {}),
          };
          const config: Config = { ...blindConfig, hostId: HOST_A };
          const snapshot: Snapshot = {
            ...built,
            clusterSecrets: built.clusterSecrets.map((secret, index) =>
              secret.labels[KEYS.managedBy] === config.managedBy
                ? withHost(secret, hosts[index % hosts.length])
                : secret,
            ),
          };
          const byName = new Map(snapshot.clusterSecrets.map((secret) => [secret.name, secret]));
          for (const action of plan(snapshot, config, NOW).actions) {
            if (action.kind !== 'delete') expect(action.secret.labels[KEYS.hostId]).toBe(HOST_A);
            if (action.kind === 'create') continue;
            const target = byName.get(action.target.name);
            const recorded = target?.labels[KEYS.hostId];
            expect(recorded === HOST_A || (recorded === undefined && !isRemote)).toBe(true);
          }
          // Interesting: without host identities the plan would have written one of them.
          const blind = plan(snapshot, blindConfig, NOW).actions;
          if (
            blind.some(
              (action) =>
                action.kind !== 'create' &&
                byName.get(action.target.name)?.labels[KEYS.hostId] === HOST_B,
            )
          )
            otherHostsSpared += 1;
        },
      ),
      { numRuns: 200 },
    );
    // How often another host's registration was spared a write it would otherwise get.
    expect(otherHostsSpared).toBeGreaterThan(1);
  });
});
