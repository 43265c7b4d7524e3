// Outcome Events against the real host plane, sent through the fault proxy: best-effort
// notes must not hold the daemon's loop for long when the API server stops answering.

import { describe, expect, it } from 'vitest';
import { createSettledRepeat, parseConfig } from '@argocd-cluster-registrar/core';
import type { NamespaceOutcome, Plan } from '@argocd-cluster-registrar/core';
import { startFaultProxy } from '@argocd-cluster-registrar/testkit';
import {
  createApplier,
  createGatherer,
  loadKubeAccess,
} from '@argocd-cluster-registrar/k8s-adapter';
import type { Gatherer } from '@argocd-cluster-registrar/k8s-adapter';
import { createLogger, silentLogger } from './logging.js';
import { accessThrough } from './test-support/proxied-access.js';
import { RegistrarMetrics } from './metrics.js';
import { OutcomeReporter } from './outcome-events.js';
import { runPass } from './reconciler.js';
import type { PassReport } from './reconciler.js';
import {
  createSourceNamespace,
  createWorld,
  kubeconfigYaml,
  putK3kKubeconfig,
} from './test-support/e2e.js';

/** The gatherer, with every namespace's candidates unread (a watch out of sync). */
function unreadEverywhere(gatherer: Gatherer): Gatherer {
  const full: Gatherer['full'] = async () => {
    const result = await gatherer.full();
    return {
      ...result,
      snapshot: {
        ...result.snapshot,
        unreadNamespaces: result.snapshot.namespaces.map((ns) => ({
          name: ns.name,
          reason: 'injected',
        })),
      },
      failures: [
        ...result.failures,
        {
          read: { verb: 'watch', watch: 'secret metadata' },
          scope: 'watch secret metadata',
          failure: { kind: 'transient', message: 'injected', retryable: true },
        },
      ],
    };
  };
  return { translate: gatherer.translate, full, refresh: full };
}

async function setUp(clusters: number) {
  const world = await createWorld();
  const parsed = parseConfig({ targetNamespace: world.target, managedBy: world.managedBy });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  const config = parsed.config;
  const access = loadKubeAccess({ kubeconfig: world.host.kubeconfigPath });
  for (let i = 0; i < clusters; i += 1) {
    const ns = await createSourceNamespace(world, { cluster: `news${String(i)}` });
    const server = `https://news${String(i)}.example:6443`;
    const kubeconfig = kubeconfigYaml(world.child, { server, user: { token: 't' } });
    await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfig);
  }
  const pass = (gatherer: Gatherer) =>
    runPass(
      {
        config,
        writer: createApplier(access, config),
        gatherer,
        logger: silentLogger,
        metrics: new RegistrarMetrics(),
        repeat: createSettledRepeat(),
        now: Date.now,
      },
      { scope: { full: true }, apply: true },
    );
  return { world, config, access, pass };
}

describe('OutcomeReporter', () => {
  it('reports no news while the input is incomplete, nor when it is complete again', async () => {
    const { world, config, access, pass } = await setUp(2);
    const reporter = new OutcomeReporter(access, world.target, silentLogger);
    const first = reporter.report(await pass(createGatherer(access, config)), false);
    expect(first.map((e) => e.reason)).toEqual(['Registered', 'Registered']);

    const blind = await pass(unreadEverywhere(createGatherer(access, config)));
    expect(blind.plan.outcomes.map((o) => o.reason?.code)).toEqual([
      'input-incomplete',
      'input-incomplete',
    ]);
    expect(reporter.report(blind, false)).toEqual([]);
    expect(reporter.report(await pass(createGatherer(access, config)), false)).toEqual([]);
  });

  it('sends no more Events once one timed out: the rest would each wait out their time-out', async () => {
    const { world, config, access, pass: run } = await setUp(12);
    const pass = await run(createGatherer(access, config));
    expect(pass.results.filter((r) => r.status === 'applied')).toHaveLength(12);

    const proxy = await startFaultProxy(world.host);
    try {
      const proxied = accessThrough(proxy, { requestTimeoutMs: 1000 });
      proxy.hangAll(true);
      const reporter = new OutcomeReporter(proxied, world.target, silentLogger);
      expect(reporter.report(pass, true)).toHaveLength(12);
      await reporter.eventsSent();
      const sent = proxy.log.filter((e) => e.method === 'POST' && e.path.endsWith('/events'));
      // The first round went out together and timed out together; nothing more was sent.
      expect(sent).toHaveLength(8);
      expect(sent.every((e) => e.fault === 'hang')).toBe(true);
    } finally {
      proxy.hangAll(false);
      await proxy.close();
    }
  });
});

/** A pass that planned `outcomes` and `warnings`, wrote nothing, and read nothing else. */
function passOf(outcomes: NamespaceOutcome[], warnings: Plan['warnings'] = []): PassReport {
  return {
    scope: 'full',
    snapshot: { namespaces: [], candidateSecrets: [], clusterSecrets: [], sourceLookups: {} },
    plan: { actions: [], outcomes, warnings },
    results: [],
    previewed: [],
    gatherFailures: [],
    applied: false,
    requests: 0,
    durationMs: 0,
  };
}

function outcome(
  namespace: string,
  state: NamespaceOutcome['state'],
  code?: string,
): NamespaceOutcome {
  return {
    namespace,
    cluster: 'alpha',
    state,
    ...(code === undefined ? {} : { reason: { code, message: `why ${namespace}` } }),
    rejected: [],
  } as NamespaceOutcome;
}

describe('OutcomeReporter log lines', () => {
  it('name a Cluster source as a Cluster: a message per kind, its namespace and sourceCluster as fields', async () => {
    const world = await createWorld();
    const access = loadKubeAccess({ kubeconfig: world.host.kubeconfigPath });
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({
      format: 'json',
      level: 'debug',
      write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    const reporter = new OutcomeReporter(access, world.target, logger);
    reporter.report(
      passOf(
        [
          outcome('team-a', 'waiting', 'waiting-for-kubeconfig'),
          outcome('fleet/alpha', 'waiting', 'waiting-for-kubeconfig'),
          outcome('fleet/beta', 'refused', 'server-collision'),
          outcome('fleet/gamma', 'skipped', 'terminating'),
          outcome('fleet/delta', 'unchanged'),
          outcome('fleet/omega', 'stale', 'kubeconfig-missing'),
        ],
        [
          {
            code: 'prune-disabled',
            message: 'kept',
            namespace: 'fleet/alpha',
            secret: 'cluster-alpha',
          },
        ],
      ),
      false,
    );
    const seen = lines.map((line) => [
      line['msg'],
      line['namespace'],
      line['sourceCluster'],
      line['reason'] ?? line['code'],
    ]);
    expect(seen).toEqual([
      ['namespace waiting for a kubeconfig', 'team-a', undefined, 'waiting-for-kubeconfig'],
      ['Cluster waiting for a kubeconfig', 'fleet', 'alpha', 'waiting-for-kubeconfig'],
      ['Cluster refused', 'fleet', 'beta', 'server-collision'],
      ['Cluster skipped', 'fleet', 'gamma', 'terminating'],
      ['Cluster registered (unchanged)', 'fleet', 'delta', undefined],
      ['registration stale', 'fleet', 'omega', 'kubeconfig-missing'],
      ['plan warning', 'fleet', 'alpha', 'prune-disabled'],
    ]);
  });
});
