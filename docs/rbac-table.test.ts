// architecture.md's RBAC table says what the chart grants: every rule of the rendered
// ClusterRole and Role (every optional one switched on) has its row, with the same verbs, and
// every row names a rule the chart renders. A rule added, widened or narrowed without its row
// fails here.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { render, rulesOf } from '../charts/argocd-cluster-registrar/tests/chart-support.js';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const HEADING = '## RBAC, and who may mark a namespace';

/** A row or rule as `<Role|ClusterRole> <resource>[.<group>]: <verbs, sorted>[ on one name]`. */
function grant(kind: string, resource: string, verbs: readonly string[], oneName: boolean): string {
  return `${kind} ${resource}: ${[...verbs].sort().join(', ')}${oneName ? ' on one name' : ''}`;
}

/** The first cells of the table under the RBAC heading. */
function tableGrants(markdown: string): string[] {
  const start = markdown.indexOf(HEADING);
  if (start === -1) return [];
  const end = markdown.indexOf('\n#', start + HEADING.length);
  const section = markdown.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^\| (ClusterRole|Role)\b[^`|]*`([^`:]+): ([^`]+)`([^|]*)\|/gm)].map(
    ([, kind = '', resource = '', verbs = '', rest = '']) =>
      grant(kind, resource, verbs.split(/,\s*/), rest.includes('on one name')),
  );
}

describe("architecture.md's RBAC table", () => {
  it('has a row for every rule the chart renders, with its verbs, and no other', async () => {
    const manifests = await render({
      capiClusters: true,
      kamajiSleep: true,
      vclusterSleep: true,
      leaderElection: { enabled: true },
    });
    const rendered = (['ClusterRole', 'Role'] as const).flatMap((kind) =>
      manifests
        .filter((manifest) => manifest.kind === kind)
        .flatMap(rulesOf)
        .flatMap((rule) =>
          rule.resources.flatMap((resource) =>
            rule.apiGroups.map((group) =>
              grant(
                kind,
                group === '' ? resource : `${resource}.${group}`,
                rule.verbs,
                rule.resourceNames !== undefined,
              ),
            ),
          ),
        ),
    );
    const table = tableGrants(readFileSync(join(REPO, 'docs', 'architecture.md'), 'utf8'));
    expect(table.sort()).toEqual(rendered.sort());
  });
});
