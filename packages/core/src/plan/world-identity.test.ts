import { describe, expect, it } from 'vitest';
import { NOW, scenario, settle, testConfig } from '../test-support/fixtures.js';
import type { Snapshot } from '../shared/types.js';
import { identify, sameWorld } from './world-identity.js';

/** Two registered namespaces, every object with a resourceVersion, as a gather returns them. */
function world(): Snapshot {
  const snapshot = settle(scenario().child('team-a').child('team-b').build(), testConfig(), NOW);
  return {
    ...snapshot,
    namespaces: snapshot.namespaces.map((namespace) => ({ ...namespace, resourceVersion: '7' })),
    candidateSecrets: snapshot.candidateSecrets.map((secret) => ({
      ...secret,
      resourceVersion: '8',
    })),
    clusterSecrets: snapshot.clusterSecrets.map((secret) => ({ ...secret, resourceVersion: '9' })),
  };
}

describe('world identity', () => {
  it('knows the same world, also re-listed as new objects of the same versions', () => {
    const snapshot = world();
    const identity = identify(snapshot);
    expect(sameWorld(identity, snapshot)).toBe(true);
    expect(sameWorld(identity, structuredClone(snapshot))).toBe(true);
  });

  it('tells a world with one object at another resourceVersion', () => {
    const snapshot = world();
    const identity = identify(snapshot);
    const [first, ...rest] = snapshot.candidateSecrets;
    if (first === undefined) throw new Error('no candidate Secret');
    const changed = { ...first, resourceVersion: '10' };
    expect(sameWorld(identity, { ...snapshot, candidateSecrets: [changed, ...rest] })).toBe(false);
  });

  it('tells the same objects in another order, or one fewer', () => {
    const snapshot = world();
    const identity = identify(snapshot);
    const reversed = { ...snapshot, namespaces: [...snapshot.namespaces].reverse() };
    expect(sameWorld(identity, reversed)).toBe(false);
    const fewer = { ...snapshot, clusterSecrets: snapshot.clusterSecrets.slice(1) };
    expect(sameWorld(identity, fewer)).toBe(false);
  });

  it('trusts an object without a resourceVersion only as the same object', () => {
    const snapshot = world();
    const unversioned: Snapshot = {
      ...snapshot,
      namespaces: snapshot.namespaces.map((namespace) => ({
        ...namespace,
        resourceVersion: undefined,
      })),
    };
    const identity = identify(unversioned);
    expect(sameWorld(identity, unversioned)).toBe(true);
    expect(sameWorld(identity, structuredClone(unversioned))).toBe(false);
  });

  it('compares the rest of the snapshot as data: lookups, unread lists, near misses', () => {
    const snapshot = world();
    const identity = identify(snapshot);
    expect(
      sameWorld(identity, { ...snapshot, sourceLookups: { gone: { state: 'notFound' } } }),
    ).toBe(false);
    expect(
      sameWorld(identity, {
        ...snapshot,
        unreadNamespaces: [{ name: 'team-a', reason: 'the API server timed out' }],
      }),
    ).toBe(false);
    expect(sameWorld(identity, { ...snapshot, clusterSecretsUnread: 'forbidden' })).toBe(false);
    expect(
      sameWorld(identity, {
        ...snapshot,
        nearMisses: [{ namespace: 'team-a', name: 'kubeconfig', keys: ['config'] }],
      }),
    ).toBe(false);
  });
});
