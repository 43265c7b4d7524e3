// The daemon command: the probes and metrics servers, the manager, and an orderly stop on
// the first SIGTERM/SIGINT.

import { providerLabel } from '@argocd-cluster-registrar/core';
import type { Config } from '@argocd-cluster-registrar/core';
import {
  createApplier,
  createDryRunWriter,
  createLeaderElector,
  managedNamespaceSelector,
} from '@argocd-cluster-registrar/k8s-adapter';
import type { KubeAccess, LeaderElector } from '@argocd-cluster-registrar/k8s-adapter';
import { serverOf } from '../connect.js';
import { EXIT_OK } from '../exit-codes.js';
import type { CliOptions } from '../flags.js';
import { version } from '../io.js';
import type { Logger } from '../logging.js';
import { Daemon, stopSignal } from '../manager.js';
import { UsageError } from '../exit-codes.js';
import { leaseNamespace, type RunTarget } from '../targets.js';
import { TargetDaemons } from '../target-daemons.js';
import { RegistrarMetrics } from '../metrics.js';
import { startServers } from '../server.js';

export async function runDaemon(
  options: CliOptions,
  config: Config,
  targets: readonly RunTarget[],
  access: KubeAccess,
  logger: Logger,
): Promise<number> {
  // Several targets: one Lease on this host fences the writes to every one of them.
  const several = targets.length > 1 || targets[0]?.name !== undefined;
  const leaseAt = several ? leaseNamespace(targets) : undefined;
  if (several && options.leaderElect && leaseAt === undefined)
    throw new UsageError(
      '--leader-elect keeps its Lease in a namespace of this host: with every target in another cluster, run in-cluster (the Lease goes to the namespace the registrar runs in) or add a target in this cluster',
    );
  // Created before the daemons it serves, which are told of every change.
  let runs: readonly { name: string; daemon: Daemon; metrics: RegistrarMetrics }[] = [];
  const elector: LeaderElector | undefined =
    several && options.leaderElect && leaseAt !== undefined
      ? createLeaderElector(access, config, {
          namespace: leaseAt,
          onChange: (leader) => {
            for (const run of runs) run.metrics.leader.set({}, leader ? 1 : 0);
            logger.info(leader ? 'became the leader' : 'not the leader; standing by', {
              identity: elector?.identity ?? '',
            });
            for (const run of runs) run.daemon.leadershipChanged(leader);
          },
        })
      : undefined;
  runs = targets.map((target) => {
    const metrics = new RegistrarMetrics();
    const daemon = new Daemon({
      access,
      // A dry-run daemon sends nothing at all: it logs what it would do, once per plan.
      // Proofs of deletion are re-read on this host, wherever the target is.
      writerFor: (writerAccess) =>
        options.dryRun
          ? createDryRunWriter({ labelPrefix: config.labelPrefix })
          : createApplier(writerAccess, target.config, access),
      config: target.config,
      logger: target.name === undefined ? logger : logger.child({ target: target.name }),
      metrics,
      leaderElect: options.leaderElect,
      resyncPeriodMs: options.resyncPeriodMs,
      ...(target.remote ? { targetAccess: target.access } : {}),
      ...(elector === undefined ? {} : { elector }),
    });
    return { name: target.name ?? '', daemon, metrics };
  });
  const [single] = runs;
  const daemon =
    runs.length === 1 && single !== undefined && !several
      ? single.daemon
      : new TargetDaemons(runs, elector);
  const metrics =
    runs.length === 1 && single !== undefined && !several
      ? single.metrics
      : { render: () => RegistrarMetrics.renderTargets(runs) };
  const servers = await startServers({
    healthAddr: options.healthAddr,
    metricsAddr: options.metricsAddr,
    endpoints: {
      healthz: () => daemon.healthz(),
      readyz: () => daemon.readyz(),
      metrics: () => metrics.render(),
    },
    logger,
  });
  logger.info('starting', {
    version: version(),
    source: access.source,
    server: serverOf(access),
    ...(several
      ? {
          targets: targets
            .map(
              (target) =>
                `${target.name ?? ''}=${target.config.targetNamespace}${target.remote ? `@${serverOf(target.access)}` : ''}`,
            )
            .join(' '),
        }
      : { targetNamespace: config.targetNamespace }),
    selector: managedNamespaceSelector(config),
    // As given (`custom:<glob>=<key>;exec`), not just the preset name.
    providers: config.providers.map(providerLabel).join(' '),
    interval: `${config.intervalMs / 1000}s`,
    resyncPeriod: `${options.resyncPeriodMs / 1000}s`,
    dryRun: options.dryRun,
    leaderElect: options.leaderElect,
  });

  const stopped = stopSignal();
  daemon.start();
  const signal = await stopped;
  logger.info('shutting down', { signal });
  await daemon.stop();
  await servers.close();
  logger.info('stopped');
  return EXIT_OK;
}
