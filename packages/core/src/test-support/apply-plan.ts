// A pure model of the applier, for tests: executes a plan's actions against a snapshot with
// the same preconditions the real applier uses (create fails if the name exists; update,
// demote and delete only when uid and resourceVersion still match). It models the API's
// result, not the API: no fake server, just the next snapshot.

import type { ObservedSecret, Plan, Snapshot } from '../common/types.js';

export function applyPlanToSnapshot(snapshot: Snapshot, result: Plan): Snapshot {
  const secrets = new Map<string, ObservedSecret>();
  for (const secret of snapshot.clusterSecrets)
    secrets.set(`${secret.namespace}/${secret.name}`, secret);
  for (const action of result.actions) {
    switch (action.kind) {
      case 'create': {
        const key = `${action.secret.namespace}/${action.secret.name}`;
        if (secrets.has(key)) break; // 409 AlreadyExists
        secrets.set(key, {
          ...action.secret,
          uid: `uid-${action.secret.name}-created`,
          resourceVersion: '1',
        });
        break;
      }
      case 'update':
      case 'demote': {
        const key = `${action.target.namespace}/${action.target.name}`;
        const current = secrets.get(key);
        if (
          current?.uid !== action.target.uid ||
          current.resourceVersion !== action.target.resourceVersion
        )
          break;
        secrets.set(key, {
          ...action.secret,
          uid: current.uid,
          resourceVersion: String(Number(current.resourceVersion) + 1),
        });
        break;
      }
      case 'delete': {
        const key = `${action.target.namespace}/${action.target.name}`;
        const current = secrets.get(key);
        if (
          current?.uid === action.target.uid &&
          current.resourceVersion === action.target.resourceVersion
        )
          secrets.delete(key);
        break;
      }
    }
  }
  return { ...snapshot, clusterSecrets: [...secrets.values()] };
}
