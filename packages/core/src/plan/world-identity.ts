// Whether a snapshot is the world the memo's last plan was made from. Kubernetes gives every
// object a new resourceVersion when anything in it changes, so two objects of one uid and
// resourceVersion hold the same content (the rest of the memo relies on the same contract);
// an object without a resourceVersion (hand-made input) is only ever the same object. The
// snapshot's other fields (lookups, unread namespaces, near misses) are small and compared
// as data, so a field added to Snapshot is compared without anyone remembering to.

import type { Snapshot } from '../shared/types.js';

interface Versioned {
  readonly uid: string;
  readonly resourceVersion?: string | undefined;
}

/** A snapshot's objects by uid + resourceVersion, in order, and the rest as JSON. */
export interface WorldIdentity {
  readonly lists: readonly (readonly unknown[])[];
  readonly rest: string;
}

function listsOf(snapshot: Snapshot): readonly (readonly Versioned[])[] {
  return [
    snapshot.namespaces,
    snapshot.clusters ?? [],
    snapshot.candidateSecrets,
    snapshot.clusterSecrets,
  ];
}

const LISTS: ReadonlySet<string> = new Set([
  'namespaces',
  'clusters',
  'candidateSecrets',
  'clusterSecrets',
]);

function restOf(snapshot: Snapshot): string {
  return JSON.stringify(snapshot, (key, value: unknown) =>
    // The top level's lists are compared object by object; everything else as it is.
    LISTS.has(key) && value === (snapshot as unknown as Record<string, unknown>)[key]
      ? undefined
      : value,
  );
}

/** Pairs per object: (uid, resourceVersion), or (the object itself, undefined) without one. */
export function identify(snapshot: Snapshot): WorldIdentity {
  const lists = listsOf(snapshot).map((objects) => {
    const pairs: unknown[] = new Array(objects.length * 2);
    for (let i = 0; i < objects.length; i++) {
      const object = objects[i] as Versioned;
      const version = object.resourceVersion;
      const versioned = version !== undefined && version !== '' && object.uid !== '';
      pairs[2 * i] = versioned ? object.uid : object;
      pairs[2 * i + 1] = versioned ? version : undefined;
    }
    return pairs;
  });
  return { lists, rest: restOf(snapshot) };
}

/** True when `snapshot` holds the objects `identity` was taken from, in the same order. */
export function sameWorld(identity: WorldIdentity, snapshot: Snapshot): boolean {
  const lists = listsOf(snapshot);
  for (let l = 0; l < lists.length; l++) {
    const objects = lists[l] as readonly Versioned[];
    const pairs = identity.lists[l] as readonly unknown[];
    if (pairs.length !== objects.length * 2) return false;
    for (let i = 0; i < objects.length; i++) {
      const object = objects[i] as Versioned;
      const version = pairs[2 * i + 1];
      if (version === undefined) {
        if (pairs[2 * i] !== object) return false;
      } else if (object.uid !== pairs[2 * i] || object.resourceVersion !== version) {
        return false;
      }
    }
  }
  return restOf(snapshot) === identity.rest;
}
