// Prometheus text exposition (format 0.0.4), hand-written: a dozen series do not justify a
// dependency, and owning the code keeps label values escaped and cardinality obvious.

import { compareStrings } from '@argocd-cluster-registrar/core';
import type { NamespaceOutcome, OutcomeState } from '@argocd-cluster-registrar/core';
import { version } from './io.js';

type LabelSet = Readonly<Record<string, string>>;

interface Series {
  render(): string[];
}

function labelKey(labels: LabelSet): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(',');
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function renderLabels(labels: LabelSet, extra?: LabelSet): string {
  const all = { ...labels, ...(extra ?? {}) };
  const keys = Object.keys(all).sort();
  if (keys.length === 0) return '';
  return `{${keys.map((k) => `${k}="${escapeLabel(all[k] ?? '')}"`).join(',')}}`;
}

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

abstract class Metric implements Series {
  protected readonly values = new Map<string, { labels: LabelSet; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'gauge' | 'counter',
  ) {}
  protected add(labels: LabelSet, delta: number, replace: boolean): void {
    const key = labelKey(labels);
    const current = this.values.get(key);
    this.values.set(key, { labels, value: replace ? delta : (current?.value ?? 0) + delta });
  }
  get(labels: LabelSet = {}): number | undefined {
    return this.values.get(labelKey(labels))?.value;
  }
  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`];
    // Sorted by the label key each series is stored under: computed once per series, not per
    // comparison (a series per cluster), and by code unit, so no locale data is loaded.
    const sorted = [...this.values].sort(([a], [b]) => compareStrings(a, b));
    for (const [, { labels, value }] of sorted) {
      lines.push(`${this.name}${renderLabels(labels)} ${formatNumber(value)}`);
    }
    return lines;
  }
}

export class Gauge extends Metric {
  constructor(name: string, help: string) {
    super(name, help, 'gauge');
  }
  set(labels: LabelSet, value: number): void {
    this.add(labels, value, true);
  }
  /** Replaces every series at once, so vanished label values disappear. */
  replaceAll(entries: readonly { labels: LabelSet; value: number }[]): void {
    this.values.clear();
    for (const entry of entries) this.add(entry.labels, entry.value, true);
  }
}

export class Counter extends Metric {
  constructor(name: string, help: string) {
    super(name, help, 'counter');
  }
  inc(labels: LabelSet = {}, by = 1): void {
    this.add(labels, by, false);
  }
}

export class Histogram implements Series {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
  ) {
    this.counts = buckets.map(() => 0);
  }
  observe(value: number): void {
    this.sum += value;
    this.count += 1;
    this.buckets.forEach((bound, i) => {
      if (value <= bound) this.counts[i] = (this.counts[i] ?? 0) + 1;
    });
  }
  get observations(): number {
    return this.count;
  }
  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    this.buckets.forEach((bound, i) => {
      lines.push(`${this.name}_bucket{le="${formatNumber(bound)}"} ${this.counts[i] ?? 0}`);
    });
    lines.push(`${this.name}_bucket{le="+Inf"} ${this.count}`);
    lines.push(`${this.name}_sum ${formatNumber(this.sum)}`);
    lines.push(`${this.name}_count ${this.count}`);
    return lines;
  }
}

// A Record, so a new outcome state fails to compile until it has a series here.
const STATE_SERIES: Readonly<Record<OutcomeState, true>> = {
  registered: true,
  unchanged: true,
  waiting: true,
  refused: true,
  stale: true,
  skipped: true,
  drained: true,
};
const STATES = Object.keys(STATE_SERIES) as readonly OutcomeState[];

/**
 * The registrar's metrics, named as the chart's dashboard and alerts expect. Each starts with
 * the project's full name (the process_* ones keep their standard names), so no other
 * exporter's series collide with ours.
 */
export class RegistrarMetrics {
  readonly registrations = new Gauge(
    'argocd_cluster_registrar_registrations',
    'Sources (labelled namespaces and Cluster API Clusters) by outcome state of the last pass.',
  );
  readonly credentialExpiry = new Gauge(
    'argocd_cluster_registrar_credential_expiry_timestamp_seconds',
    'Expiry (Unix seconds) of the registered client certificate, by cluster; stale registrations (kubeconfig gone or unusable) included.',
  );
  readonly credentials = new Gauge(
    'argocd_cluster_registrar_registered_credentials',
    'Registered clusters by credential form (client-certificate, bearer-token, basic-auth, exec); exec forms have no expiry.',
  );
  readonly refusals = new Gauge(
    'argocd_cluster_registrar_refusals',
    'Sources (labelled namespaces and Cluster API Clusters) refused in the last pass, by refusal reason.',
  );
  readonly children = new Gauge(
    'argocd_cluster_registrar_children',
    'Children probed (--probe-children) by state of their last probe: reachable or unreachable.',
  );
  readonly paused = new Gauge(
    'argocd_cluster_registrar_paused_registrations',
    'Registrations the registrar has paused in ArgoCD (skip-reconcile), by reason: paused (the source says so), kamaji-sleeping or vcluster-sleeping (the provisioner says so) or unreachable (failed probes).',
  );
  readonly unreachableSince = new Gauge(
    'argocd_cluster_registrar_child_unreachable_since_timestamp_seconds',
    'Since when (Unix seconds) a probed child has failed every probe, by cluster; absent while it answers.',
  );
  readonly passDuration = new Histogram(
    'argocd_cluster_registrar_pass_duration_seconds',
    'Duration of a gather-plan-apply pass.',
    [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  );
  readonly apiErrors = new Counter(
    'argocd_cluster_registrar_api_errors_total',
    'Kubernetes API errors, by kind.',
  );
  readonly actions = new Counter(
    'argocd_cluster_registrar_actions_total',
    'Planned actions executed, by kind and status.',
  );
  readonly events = new Counter(
    'argocd_cluster_registrar_events_total',
    'Kubernetes Events, by result: sent, failed, timed-out, superseded (a newer one about the same source replaced it before it went out) or dropped (after a time-out, or at shutdown).',
  );
  readonly passes = new Counter(
    'argocd_cluster_registrar_passes_total',
    'Passes run, by scope (full or partial) and result (ok or error).',
  );
  readonly leader = new Gauge(
    'argocd_cluster_registrar_leader',
    '1 while this instance may write (leader, or leader election disabled).',
  );
  readonly lastPass = new Gauge(
    'argocd_cluster_registrar_last_pass_timestamp_seconds',
    'End of the last completed pass (Unix seconds).',
  );
  readonly lastSuccessfulPass = new Gauge(
    'argocd_cluster_registrar_last_successful_pass_timestamp_seconds',
    'End of the last pass that completed without an API error (Unix seconds); the process start time until the first.',
  );
  private readonly rss = new Gauge(
    'process_resident_memory_bytes',
    'Resident memory size in bytes.',
  );
  private readonly buildInfo = new Gauge(
    'argocd_cluster_registrar_build_info',
    'Always 1; its labels name the running build: version, node_version and platform.',
  );
  private readonly started = new Gauge(
    'process_start_time_seconds',
    'Start time of the process since the Unix epoch in seconds.',
  );

  constructor() {
    this.buildInfo.set(
      {
        version: version(),
        node_version: process.versions.node,
        platform: `${process.platform}/${process.arch}`,
      },
      1,
    );
    for (const state of STATES) this.registrations.set({ state }, 0);
    this.leader.set({}, 0);
    const startedAt = Math.round(Date.now() / 1000 - process.uptime());
    this.started.set({}, startedAt);
    // From the start, so an instance that never succeeds is alerted on too.
    this.lastSuccessfulPass.set({}, startedAt);
  }

  /** Sets the outcome-derived gauges from one pass's plan outcomes. */
  recordOutcomes(outcomes: readonly NamespaceOutcome[]): void {
    const byState = new Map<string, number>(STATES.map((s) => [s, 0]));
    const byRefusal = new Map<string, number>();
    const expiry: { labels: LabelSet; value: number }[] = [];
    const byCredential = new Map<string, number>();
    const byReachability = new Map<string, number>();
    const byPause = new Map<string, number>();
    const unreachable: { labels: LabelSet; value: number }[] = [];
    for (const outcome of outcomes) {
      const probe = outcome.probe;
      if (probe !== undefined) {
        const state = probe.failures === 0 ? 'reachable' : 'unreachable';
        byReachability.set(state, (byReachability.get(state) ?? 0) + 1);
        const since =
          probe.failingSince === undefined ? NaN : Date.parse(probe.failingSince) / 1000;
        if (probe.failures > 0 && outcome.cluster !== undefined && Number.isFinite(since))
          unreachable.push({ labels: { cluster: outcome.cluster }, value: since });
      }
      if (outcome.paused !== undefined)
        byPause.set(outcome.paused, (byPause.get(outcome.paused) ?? 0) + 1);
      if (outcome.credential !== undefined)
        byCredential.set(outcome.credential, (byCredential.get(outcome.credential) ?? 0) + 1);
      byState.set(outcome.state, (byState.get(outcome.state) ?? 0) + 1);
      if (outcome.state === 'refused' && outcome.reason !== undefined) {
        byRefusal.set(outcome.reason.code, (byRefusal.get(outcome.reason.code) ?? 0) + 1);
      }
      if (outcome.credentialNotAfter !== undefined && outcome.cluster !== undefined) {
        const seconds = Date.parse(outcome.credentialNotAfter) / 1000;
        if (Number.isFinite(seconds))
          expiry.push({ labels: { cluster: outcome.cluster }, value: seconds });
      }
    }
    this.registrations.replaceAll(
      [...byState].map(([state, value]) => ({ labels: { state }, value })),
    );
    this.refusals.replaceAll(
      [...byRefusal].map(([reason, value]) => ({ labels: { reason }, value })),
    );
    this.credentialExpiry.replaceAll(expiry);
    this.credentials.replaceAll(
      [...byCredential].map(([credential, value]) => ({ labels: { credential }, value })),
    );
    this.children.replaceAll(
      [...byReachability].map(([state, value]) => ({ labels: { state }, value })),
    );
    this.paused.replaceAll([...byPause].map(([reason, value]) => ({ labels: { reason }, value })));
    this.unreachableSince.replaceAll(unreachable);
  }

  render(): string {
    return `${this.series()
      .flatMap(([series]) => series.render())
      .join('\n')}\n`;
  }

  /**
   * The metrics of several targets' daemons as one exposition: each per-pass series once, its
   * samples labelled `target`; the process's own (build, memory, start, leadership) once.
   */
  static renderTargets(targets: readonly { name: string; metrics: RegistrarMetrics }[]): string {
    const [first] = targets;
    if (first === undefined) return '';
    const each = targets.map((target) => ({ name: target.name, series: target.metrics.series() }));
    const lines: string[] = [];
    first.metrics.series().forEach(([series, perTarget], index) => {
      if (!perTarget) {
        lines.push(...series.render());
        return;
      }
      each.forEach((target, nth) => {
        const rendered = target.series[index]?.[0].render() ?? [];
        for (const line of nth === 0 ? rendered : rendered.slice(2))
          lines.push(line.startsWith('#') ? line : withTarget(line, target.name));
      });
    });
    return `${lines.join('\n')}\n`;
  }

  /** Every series in exposition order, and whether it is a target's (else the process's). */
  private series(): [Series, boolean][] {
    this.rss.set({}, process.memoryUsage.rss());
    return [
      [this.registrations, true],
      [this.credentialExpiry, true],
      [this.credentials, true],
      [this.refusals, true],
      [this.children, true],
      [this.paused, true],
      [this.unreachableSince, true],
      [this.passDuration, true],
      [this.apiErrors, true],
      [this.actions, true],
      [this.events, true],
      [this.passes, true],
      [this.leader, false],
      [this.lastPass, true],
      [this.lastSuccessfulPass, true],
      [this.buildInfo, false],
      [this.rss, false],
      [this.started, false],
    ];
  }
}

/** `name{a="b"} 1` → `name{a="b",target="t"} 1`; `name 1` → `name{target="t"} 1`. */
function withTarget(line: string, target: string): string {
  const label = `target="${escapeLabel(target)}"`;
  const brace = line.indexOf('{');
  const space = line.indexOf(' ');
  if (brace >= 0 && brace < space)
    return `${line.slice(0, brace + 1)}${label},${line.slice(brace + 1)}`;
  return `${line.slice(0, space)}{${label}}${line.slice(space)}`;
}
