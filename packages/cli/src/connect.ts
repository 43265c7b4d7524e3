// Which API server a command talks to, and what to tell the user when it cannot talk to
// it at all. The classification of the failures is the adapter's (diagnoseConnection);
// this file only adds where the connection came from and which flags to check.

import { diagnoseConnection, loadKubeAccess } from '@argocd-cluster-registrar/k8s-adapter';
import type { GatherFailure, KubeAccess } from '@argocd-cluster-registrar/k8s-adapter';
import { UsageError } from './exit-codes.js';
import type { CliOptions } from './flags.js';

export function connect(options: CliOptions): KubeAccess {
  try {
    return loadKubeAccess({
      ...(options.kubeconfig !== undefined ? { kubeconfig: options.kubeconfig } : {}),
      ...(options.context !== undefined ? { context: options.context } : {}),
    });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

export function serverOf(access: KubeAccess): string {
  return access.cluster.server;
}

/**
 * A pass where every read failed for lack of a connection is better reported as one clear
 * error than as a list of failed reads: throws a UsageError saying so.
 */
export function refuseUnreachable(
  failures: readonly Pick<GatherFailure, 'failure'>[],
  access: KubeAccess,
): void {
  const diagnosis = diagnoseConnection(failures.map((f) => f.failure));
  if (diagnosis === undefined) return;
  const hint =
    access.source === 'in-cluster' ? '' : '; check --kubeconfig/--context (or $KUBECONFIG)';
  const server = serverOf(access);
  switch (diagnosis.kind) {
    case 'unreachable':
      throw new UsageError(
        `cannot reach the API server ${server} (kubeconfig ${access.source}): ${diagnosis.detail}${hint}`,
      );
    case 'no-conversation':
      throw new UsageError(
        `cannot talk to the API server ${server} (kubeconfig ${access.source}): ${diagnosis.detail}${hint}`,
      );
    case 'no-credential':
      throw new UsageError(
        `cannot authenticate to the API server ${server} (kubeconfig ${access.source}): ${diagnosis.detail}${hint}`,
      );
    case 'rejected':
      throw new UsageError(
        `the API server ${server} rejected the credentials of ${access.source} (${diagnosis.detail})${hint}`,
      );
  }
}
