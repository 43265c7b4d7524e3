// The chart's dashboard and alerts query only what the daemon exports: every metric name in
// their PromQL is looked up in the /metrics of a daemon running against the real host plane
// (with one cluster registered and one refused, so the per-cluster series exist too).

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  createSourceNamespace,
  createWorld,
  eventually,
  httpGet,
  kubeconfigYaml,
  putK3kKubeconfig,
  registration,
  startReadyDaemon,
} from '../../../packages/cli/src/test-support/e2e.js';
import type { RunningDaemon } from '../../../packages/cli/src/test-support/e2e.js';
import { only, render } from './chart-support.js';

// PromQL words that are not metric names: aggregation and set operators and their modifiers.
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'offset',
  'and',
  'or',
  'unless',
]);

/**
 * The metric names a PromQL expression reads: identifiers outside label matchers, strings and
 * range brackets that are neither functions (followed by "(") nor keywords. Grafana variables
 * ($__rate_interval) sit inside the brackets.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(
      /\bby\s*\([^)]*\)|\bwithout\s*\([^)]*\)|\bon\s*\([^)]*\)|\bignoring\s*\([^)]*\)/g,
      ' ',
    );
  const names: string[] = [];
  for (const match of bare.matchAll(/[A-Za-z_:][\w:]*(?!\w)(?!\s*\()/g)) {
    const name = match[0];
    const at = match.index;
    // A number's exponent or a unit suffix (86400, 1e3) is no identifier.
    if (at > 0 && /[\d.]/.test(bare[at - 1] ?? '')) continue;
    if (!KEYWORDS.has(name)) names.push(name);
  }
  return names;
}

describe('metricNames', () => {
  test('finds the series of an expression, not its functions, labels or keywords', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le) (rate(a_bucket{job="x",le!="1"}[$__rate_interval]))) / on (job, instance) group_left b < 7 * 86400 and c{s="d e"} == 1',
      ),
    ).toEqual(['a_bucket', 'b', 'c']);
  });
});

describe('the dashboard and the alerts against a running daemon', () => {
  let daemon: RunningDaemon | undefined;
  let exported: Set<string>;

  beforeAll(async () => {
    const world = await createWorld();
    const ok = await createSourceNamespace(world, { cluster: 'dashboard' });
    await putK3kKubeconfig(world, ok.metadata?.name ?? '', kubeconfigYaml(world.child));
    const refused = await createSourceNamespace(world, { cluster: 'Not_Valid' });
    await putK3kKubeconfig(
      world,
      refused.metadata?.name ?? '',
      kubeconfigYaml(world.child, { server: 'https://other.example' }),
    );
    const ready = await startReadyDaemon(world, ['--interval=10m']);
    daemon = ready.daemon;
    await eventually(() => registration(world, 'dashboard'), 'the registration');
    const body = await eventually(async () => {
      const text = (await httpGet(ready.port, '/metrics')).body;
      return text.includes('argocd_cluster_registrar_actions_total{') ? text : undefined;
    }, 'metrics after the first write');
    // Families (a counter with no sample yet is still declared) and every sample's name.
    exported = new Set(
      body
        .split('\n')
        .flatMap((line) =>
          line.startsWith('# TYPE ')
            ? [line.split(' ')[2] ?? '']
            : line.startsWith('#')
              ? []
              : [/^[^{ ]+/.exec(line)?.[0] ?? ''],
        )
        .filter((name) => name !== ''),
    );
  }, 120_000);

  afterAll(async () => {
    await daemon?.stop('SIGKILL');
  });

  test('every metric the dashboard queries is exported', async () => {
    const configMap = only(
      await render({ metrics: { dashboard: { enabled: true } } }),
      'ConfigMap',
    );
    const json = (configMap['data'] as Record<string, string>)['argocd-cluster-registrar.json'];
    const dashboard = JSON.parse(json ?? '') as { panels: { targets: { expr: string }[] }[] };
    const used = dashboard.panels.flatMap((p) => p.targets.flatMap((t) => metricNames(t.expr)));
    expect(used.length).toBeGreaterThan(10);
    expect([...new Set(used)].filter((name) => !exported.has(name))).toEqual([]);
  });

  test('every metric the alerts query is exported', async () => {
    const rule = only(
      await render({
        leaderElection: { enabled: true },
        metrics: { prometheusRule: { enabled: true } },
      }),
      'PrometheusRule',
    );
    const groups = (rule['spec'] as { groups: { rules: { expr: string }[] }[] }).groups;
    const used = groups.flatMap((g) => g.rules.flatMap((r) => metricNames(r.expr)));
    expect(used.length).toBeGreaterThanOrEqual(5);
    expect([...new Set(used)].filter((name) => !exported.has(name))).toEqual([]);
  });

  test('the check can fail: a name the daemon does not export is caught', () => {
    expect(exported.has('registrar_registrations')).toBe(false);
    expect(exported.has('argocd_cluster_registrar_registrations')).toBe(true);
    expect(exported.has('argocd_cluster_registrar_build_info')).toBe(true);
  });
});
