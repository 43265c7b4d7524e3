// The daemon command: the probes and metrics servers, the manager, and an orderly stop on
// the first SIGTERM/SIGINT.

import { providerLabel } from '@argocd-cluster-registrar/core';
import type { Config } from '@argocd-cluster-registrar/core';
import {
  createApplier,
  createDryRunWriter,
  managedNamespaceSelector,
} from '@argocd-cluster-registrar/k8s-adapter';
import type { KubeAccess } from '@argocd-cluster-registrar/k8s-adapter';
import { serverOf } from '../connect.js';
import { EXIT_OK } from '../exit-codes.js';
import type { CliOptions } from '../flags.js';
import { version } from '../io.js';
import type { Logger } from '../logging.js';
import { Daemon, stopSignal } from '../manager.js';
import { RegistrarMetrics } from '../metrics.js';
import { startServers } from '../server.js';

export async function runDaemon(
  options: CliOptions,
  config: Config,
  access: KubeAccess,
  logger: Logger,
): Promise<number> {
  const metrics = new RegistrarMetrics();
  const daemon = new Daemon({
    access,
    // A dry-run daemon sends nothing at all: it logs what it would do, once per plan.
    writerFor: (writerAccess) =>
      options.dryRun
        ? createDryRunWriter({ labelPrefix: config.labelPrefix })
        : createApplier(writerAccess, config),
    config,
    logger,
    metrics,
    leaderElect: options.leaderElect,
    resyncPeriodMs: options.resyncPeriodMs,
  });
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
    targetNamespace: config.targetNamespace,
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
