// The chart's monitoring objects: the PrometheusRule checked and unit-tested by Prometheus's
// own promtool (built from tools/promtool), the ServiceMonitor and the dashboard ConfigMap.
// That the alerts' and the dashboard's queries use only series the daemon really exports is
// proven against a running daemon in monitoring-e2e.test.ts.

import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { YAML, chartDir, find, only, render, repoRoot, run, template } from './chart-support.js';
import type { Manifest } from './chart-support.js';

interface RuleGroup {
  readonly name: string;
  readonly rules: readonly { alert?: string; expr: string }[];
}

let promtool: string;
let scratch: string | undefined;

beforeAll(async () => {
  const built = await run(join(repoRoot, 'tools/build.sh'), ['promtool'], {
    timeoutMs: 30 * 60_000,
  });
  const last = built.stdout.trim().split('\n').at(-1);
  if (built.code !== 0 || last === undefined || last === '')
    throw new Error(`tools/build.sh promtool failed:\n${built.stderr.slice(-2000)}`);
  promtool = last;
  scratch = await mkdtemp(join(tmpdir(), 'acr-alerts-'));
}, 30 * 60_000);

afterAll(async () => {
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

const MONITORED = {
  interval: '60s',
  leaderElection: { enabled: true },
  metrics: { prometheusRule: { enabled: true } },
};

function groupsOf(manifests: readonly Manifest[]): readonly RuleGroup[] {
  const rule = only(manifests, 'PrometheusRule');
  return (rule['spec'] as { groups: readonly RuleGroup[] }).groups;
}

function alertNames(groups: readonly RuleGroup[]): string[] {
  return groups.flatMap((g) => g.rules.flatMap((r) => (r.alert === undefined ? [] : [r.alert])));
}

/** Writes the rendered groups as a Prometheus rule file, beside a copy of the unit tests. */
async function ruleFiles(groups: readonly RuleGroup[]): Promise<{ rules: string; tests: string }> {
  const dir = scratch ?? (await mkdtemp(join(tmpdir(), 'acr-alerts-')));
  const rules = join(dir, 'rules.yaml');
  const tests = join(dir, 'alerts.promtool.yaml');
  await writeFile(rules, YAML.stringify({ groups }));
  await copyFile(join(chartDir, 'tests/alerts.promtool.yaml'), tests);
  return { rules, tests };
}

describe('the PrometheusRule', () => {
  test('passes promtool check rules', async () => {
    const { rules } = await ruleFiles(groupsOf(await render(MONITORED)));
    const checked = await run(promtool, ['check', 'rules', rules]);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toContain('SUCCESS: 6 rules found');
  });

  test('passes its unit tests under promtool test rules, one or more for every alert', async () => {
    const groups = groupsOf(await render(MONITORED));
    const { tests } = await ruleFiles(groups);
    const tested = await run(promtool, ['test', 'rules', tests]);
    expect(tested.code, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stdout).toContain('SUCCESS');

    const unitTests = YAML.parse(await readFile(tests, 'utf8')) as {
      tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const firing = new Set(
      unitTests.tests.flatMap((t) =>
        t.alert_rule_test.filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname),
      ),
    );
    expect(alertNames(groups).filter((name) => !firing.has(name))).toEqual([]);
  });

  test('the unit tests fail when an alert stops firing (they test the rendered rules)', async () => {
    const groups = groupsOf(await render(MONITORED)).map((group) => ({
      ...group,
      rules: group.rules.map((rule) =>
        rule.alert === 'ArgoCDClusterRegistrarRefusals'
          ? { ...rule, expr: rule.expr.replace('> 0', '> 5') }
          : rule,
      ),
    }));
    const { tests } = await ruleFiles(groups);
    const tested = await run(promtool, ['test', 'rules', tests]);
    expect(tested.code).not.toBe(0);
    expect(tested.stdout + tested.stderr).toContain('ArgoCDClusterRegistrarRefusals');
  });

  test('follows the interval, and has no leader alert without leader election', async () => {
    const groups = groupsOf(
      await render({ interval: '5m', metrics: { prometheusRule: { enabled: true } } }),
    );
    expect(alertNames(groups)).toEqual([
      'ArgoCDClusterRegistrarCredentialExpiring',
      'ArgoCDClusterRegistrarRefusals',
      'ArgoCDClusterRegistrarStaleRegistrations',
      'ArgoCDClusterRegistrarChildUnreachable',
      'ArgoCDClusterRegistrarNoSuccessfulPass',
    ]);
    const pass = groups[0]?.rules.find((r) => r.alert === 'ArgoCDClusterRegistrarNoSuccessfulPass');
    expect(pass?.expr).toContain('> 3 * 300');
  });

  test('a selector value replaces the default matchers everywhere', async () => {
    const manifests = await render({
      metrics: {
        prometheusRule: { enabled: true, selector: 'job="registrar"' },
        dashboard: { enabled: true },
      },
    });
    for (const rule of groupsOf(manifests).flatMap((g) => g.rules)) {
      expect(rule.expr).toContain('{job="registrar"');
      expect(rule.expr).not.toContain('namespace="registrar-system"');
    }
    const dashboard = find(manifests, 'ConfigMap', 'acr-argocd-cluster-registrar-dashboard');
    const json = (dashboard?.['data'] as Record<string, string>)['argocd-cluster-registrar.json'];
    expect(json).toContain('{job=\\"registrar\\"}');
  });
});

describe('opt-in monitoring objects', () => {
  test('none is rendered by default', async () => {
    const manifests = await render();
    for (const kind of ['PrometheusRule', 'ServiceMonitor', 'ConfigMap', 'Service'])
      expect(find(manifests, kind), kind).toBeUndefined();
  });

  test('the ServiceMonitor scrapes the metrics Service it brings along, with its labels', async () => {
    const manifests = await render({
      metrics: { serviceMonitor: { enabled: true, labels: { release: 'kps' }, interval: '30s' } },
    });
    const monitor = only(manifests, 'ServiceMonitor');
    const service = only(manifests, 'Service');
    expect(monitor.metadata.labels?.['release']).toBe('kps');
    const spec = monitor['spec'] as {
      selector: { matchLabels: Record<string, string> };
      endpoints: { port: string; interval?: string }[];
    };
    for (const [key, value] of Object.entries(spec.selector.matchLabels))
      expect(service.metadata.labels?.[key]).toBe(value);
    const ports = (service['spec'] as { ports: { name: string }[] }).ports.map((p) => p.name);
    expect(spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '30s' }]);
    expect(ports).toContain('metrics');
  });

  test('the dashboard ConfigMap carries the sidecar label and parses as a dashboard', async () => {
    const manifests = await render({ metrics: { dashboard: { enabled: true } } });
    const configMap = only(manifests, 'ConfigMap');
    expect(configMap.metadata.labels?.['grafana_dashboard']).toBe('1');
    const json = (configMap['data'] as Record<string, string>)['argocd-cluster-registrar.json'];
    const dashboard = JSON.parse(json ?? '') as {
      panels: { targets: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
    expect(exprs.length).toBeGreaterThan(10);
    for (const expr of exprs)
      expect(expr).toContain(
        'job="acr-argocd-cluster-registrar-metrics",namespace="registrar-system"',
      );
  });

  test.each(['serviceMonitor', 'prometheusRule', 'dashboard'])(
    'metrics.%s without metrics fails the render',
    async (part) => {
      const result = await template({ metrics: { enabled: false, [part]: { enabled: true } } });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(
        `values: metrics.${part}.enabled is true but metrics.enabled is false`,
      );
    },
  );
});
