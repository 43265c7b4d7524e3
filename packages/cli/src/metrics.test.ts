import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { NamespaceOutcome } from '@argocd-cluster-registrar/core';
import { RegistrarMetrics } from './metrics.js';

const outcome = (
  namespace: string,
  state: NamespaceOutcome['state'],
  extra: Partial<NamespaceOutcome> = {},
): NamespaceOutcome => ({
  namespace,
  state,
  rejected: [],
  ...extra,
});

describe('RegistrarMetrics', () => {
  it('exposes every series in Prometheus text format', () => {
    const metrics = new RegistrarMetrics();
    metrics.recordOutcomes([
      outcome('a', 'registered', { cluster: 'a', credentialNotAfter: '2027-01-01T00:00:00Z' }),
      outcome('b', 'unchanged', { cluster: 'b' }),
      outcome('c', 'refused', {
        cluster: 'c"quoted',
        reason: { code: 'name-invalid', message: 'bad' },
      }),
      outcome('d', 'refused', { reason: { code: 'name-invalid', message: 'bad' } }),
    ]);
    metrics.passDuration.observe(0.2);
    metrics.apiErrors.inc({ kind: 'transient' });
    metrics.actions.inc({ kind: 'create', status: 'applied' });
    metrics.leader.set({}, 1);
    const text = metrics.render();
    expect(text).toContain('# TYPE argocd_cluster_registrar_registrations gauge');
    expect(text).toContain('argocd_cluster_registrar_registrations{state="registered"} 1\n');
    expect(text).toContain('argocd_cluster_registrar_registrations{state="waiting"} 0\n');
    expect(text).toContain('argocd_cluster_registrar_refusals{reason="name-invalid"} 2\n');
    expect(text).toContain(
      'argocd_cluster_registrar_credential_expiry_timestamp_seconds{cluster="a"} 1798761600\n',
    );
    expect(text).toContain('argocd_cluster_registrar_pass_duration_seconds_bucket{le="0.25"} 1\n');
    expect(text).toContain('argocd_cluster_registrar_pass_duration_seconds_bucket{le="0.1"} 0\n');
    expect(text).toContain('argocd_cluster_registrar_pass_duration_seconds_bucket{le="+Inf"} 1\n');
    expect(text).toContain('argocd_cluster_registrar_pass_duration_seconds_count 1\n');
    expect(text).toContain('argocd_cluster_registrar_api_errors_total{kind="transient"} 1\n');
    expect(text).toContain(
      'argocd_cluster_registrar_actions_total{kind="create",status="applied"} 1\n',
    );
    expect(text).toContain('argocd_cluster_registrar_leader 1\n');
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
    expect(text.endsWith('\n')).toBe(true);
  });

  it('exports the expiry of the certificate a stale registration still holds', () => {
    // Core puts the registered certificate's expiry on a stale outcome (outcomes.ts); it is
    // exported like any other, so an unrefreshable registration's expiry can be alerted on.
    const metrics = new RegistrarMetrics();
    metrics.recordOutcomes([
      outcome('a', 'stale', {
        cluster: 'a',
        credentialNotAfter: '2027-01-01T00:00:00Z',
        reason: { code: 'no-candidate', message: 'gone' },
      }),
    ]);
    expect(metrics.render()).toContain(
      'argocd_cluster_registrar_credential_expiry_timestamp_seconds{cluster="a"} 1798761600\n',
    );
  });

  it('counts probed children by reachability and paused registrations by reason', () => {
    const metrics = new RegistrarMetrics();
    metrics.recordOutcomes([
      outcome('a', 'unchanged', { cluster: 'a', probe: { failures: 0, version: 'v1.31.2' } }),
      outcome('b', 'unchanged', {
        cluster: 'b',
        paused: 'unreachable',
        probe: { failures: 4, error: 'no answer', failingSince: '2027-01-01T00:00:00Z' },
      }),
      outcome('c', 'unchanged', { cluster: 'c', paused: 'paused' }),
    ]);
    const text = metrics.render();
    expect(text).toContain('argocd_cluster_registrar_children{state="reachable"} 1\n');
    expect(text).toContain('argocd_cluster_registrar_children{state="unreachable"} 1\n');
    expect(text).toContain('argocd_cluster_registrar_paused_registrations{reason="paused"} 1\n');
    expect(text).toContain(
      'argocd_cluster_registrar_paused_registrations{reason="unreachable"} 1\n',
    );
    expect(text).toContain(
      'argocd_cluster_registrar_child_unreachable_since_timestamp_seconds{cluster="b"} 1798761600\n',
    );
    expect(text).not.toContain('unreachable_since_timestamp_seconds{cluster="a"}');
  });

  it('counts exec registrations by their form, with no expiry series for them', () => {
    const metrics = new RegistrarMetrics();
    metrics.recordOutcomes([
      outcome('a', 'registered', {
        cluster: 'a',
        credential: 'client-certificate',
        credentialNotAfter: '2027-01-01T00:00:00Z',
      }),
      outcome('b', 'unchanged', { cluster: 'b', credential: 'exec' }),
      outcome('c', 'registered', { cluster: 'c', credential: 'exec' }),
    ]);
    const text = metrics.render();
    expect(text).toContain(
      'argocd_cluster_registrar_registered_credentials{credential="exec"} 2\n',
    );
    expect(text).toContain(
      'argocd_cluster_registrar_registered_credentials{credential="client-certificate"} 1\n',
    );
    expect(text).not.toMatch(
      /argocd_cluster_registrar_credential_expiry_timestamp_seconds\{cluster="[bc]"\}/,
    );
  });

  it('counts drained registrations, with a zero series before any', () => {
    const metrics = new RegistrarMetrics();
    expect(metrics.render()).toContain(
      'argocd_cluster_registrar_registrations{state="drained"} 0\n',
    );
    metrics.recordOutcomes([
      outcome('a', 'drained', { cluster: 'a' }),
      outcome('b', 'unchanged', { cluster: 'b' }),
    ]);
    expect(metrics.render()).toContain(
      'argocd_cluster_registrar_registrations{state="drained"} 1\n',
    );
  });

  it('forgets clusters and refusal reasons that are gone', () => {
    const metrics = new RegistrarMetrics();
    metrics.recordOutcomes([
      outcome('a', 'refused', {
        cluster: 'a',
        reason: { code: 'server-collision', message: 'x' },
        credentialNotAfter: '2027-01-01T00:00:00Z',
      }),
    ]);
    metrics.recordOutcomes([]);
    const text = metrics.render();
    expect(text).not.toContain('server-collision');
    expect(text).not.toContain('cluster="a"');
    expect(text).toContain('argocd_cluster_registrar_registrations{state="refused"} 0');
  });

  it('escapes label values', () => {
    const metrics = new RegistrarMetrics();
    metrics.apiErrors.inc({ kind: 'a"b\\c\nd' });
    expect(metrics.render()).toContain(
      'argocd_cluster_registrar_api_errors_total{kind="a\\"b\\\\c\\nd"} 1',
    );
  });

  it('names the running build in build_info', () => {
    const text = new RegistrarMetrics().render();
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(text).toContain('# TYPE argocd_cluster_registrar_build_info gauge');
    expect(text).toContain(
      `argocd_cluster_registrar_build_info{node_version="${process.versions.node}",platform="${process.platform}/${process.arch}",version="${pkg.version}"} 1\n`,
    );
  });

  it('defines only series under the project prefix, besides the standard process ones', () => {
    const names = new RegistrarMetrics()
      .render()
      .split('\n')
      .flatMap((line) => /^# TYPE (\S+) /.exec(line)?.[1] ?? []);
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) expect(name).toMatch(/^(argocd_cluster_registrar_|process_)/);
  });
});
