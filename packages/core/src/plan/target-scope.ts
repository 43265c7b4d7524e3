// Which sources a target admits: those whose labels its selector matches (targets.ts). A
// source the selector leaves out is planned as any unmanaged one: its registration in that
// target is kept until its source is proven gone, never deleted because a selector changed.

import { selectorMatches } from '../config/label-selector.js';
import type { Config, Snapshot } from '../common/types.js';

export function scopeSnapshot(snapshot: Snapshot, config: Config): Snapshot {
  const selector = config.target?.selector;
  if (selector === undefined || selector.length === 0) return snapshot;
  const clusters = snapshot.clusters?.filter((cluster) =>
    selectorMatches(selector, cluster.labels),
  );
  return {
    ...snapshot,
    namespaces: snapshot.namespaces.filter((namespace) =>
      selectorMatches(selector, namespace.labels),
    ),
    ...(clusters === undefined ? {} : { clusters }),
  };
}
