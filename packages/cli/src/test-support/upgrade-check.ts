// What an upgrade from the previous release may change in the registrations it takes over:
// the e2e case and the bench's long one judge the same way.
import type { V1Secret } from '@kubernetes/client-node';
import { PREFIX } from './e2e.js';
import type { World } from './e2e.js';

/** 0.2.0 as first completed, by commit: a fresh clone may not have the tag `v0.2.0`. */
export const V0_2_0 = '00a8308';

/**
 * The fields of a registration the current build rewrites on purpose when it takes over from
 * 0.2.0 (CHANGELOG.md): anything else rewritten is a regression. 0.2.0 recorded no host
 * identity; adopting its registrations in a local target adds this host's and nothing else.
 */
export const INTENDED_REWRITES: readonly string[] = [`labels.${PREFIX}host-id`];

/** Our registrations (active and demoted), by name. */
export async function registrations(world: World): Promise<Map<string, V1Secret>> {
  const listed = await world.hostApi.listNamespacedSecret({
    namespace: world.target,
    labelSelector: `${PREFIX}managed-by=${world.managedBy}`,
  });
  return new Map(listed.items.map((secret) => [secret.metadata?.name ?? '', secret]));
}

/** What differs between two versions of a registration: `labels.<key>`, `data.<key>`, ... */
export function changedFields(before: V1Secret, after: V1Secret): string[] {
  const fields: string[] = [];
  const compare = (
    kind: string,
    a: Record<string, string> = {},
    b: Record<string, string> = {},
  ) => {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)]))
      if (a[key] !== b[key]) fields.push(`${kind}.${key}`);
  };
  compare('labels', before.metadata?.labels, after.metadata?.labels);
  compare('annotations', before.metadata?.annotations, after.metadata?.annotations);
  compare('data', before.data, after.data);
  if (before.type !== after.type) fields.push('type');
  return fields.sort();
}

/** The takeover's effect on what it found: names lost or added, and unintended rewrites. */
export function takeoverChanges(
  before: ReadonlyMap<string, V1Secret>,
  after: ReadonlyMap<string, V1Secret>,
): { lost: string[]; added: string[]; rewritten: Map<string, string[]>; unintended: string[] } {
  const rewritten = new Map<string, string[]>();
  for (const [name, was] of before) {
    const now = after.get(name);
    if (now === undefined || now.metadata?.resourceVersion === was.metadata?.resourceVersion)
      continue;
    rewritten.set(name, changedFields(was, now));
  }
  return {
    lost: [...before.keys()].filter((name) => !after.has(name)),
    added: [...after.keys()].filter((name) => !before.has(name)),
    rewritten,
    unintended: [...rewritten].flatMap(([name, fields]) => {
      const extra = fields.filter((field) => !INTENDED_REWRITES.includes(field));
      return extra.length === 0 ? [] : [`${name}: ${extra.join(', ')}`];
    }),
  };
}
