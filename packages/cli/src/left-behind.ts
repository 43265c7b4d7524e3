// Registrations left behind: a target removed from the settings deletes nothing (nothing
// proves its registrations may go, and they are still ArgoCD's clusters), so `status` lists
// what it can still see of them: this host's registrations (its managed-by and host identity)
// in namespaces of this cluster that no target writes, with the command that removes them.
// A removed target in another cluster is no longer read at all, so it cannot be listed.

import { labelKeys } from '@argocd-cluster-registrar/core';
import type { Config } from '@argocd-cluster-registrar/core';
import { listLabelledSecrets } from '@argocd-cluster-registrar/k8s-adapter';
import type { FoundRegistration, KubeAccess } from '@argocd-cluster-registrar/k8s-adapter';
import type { RunTarget } from './targets.js';

export async function leftBehind(
  access: KubeAccess,
  targets: readonly RunTarget[],
): Promise<FoundRegistration[]> {
  const config = targets[0]?.config;
  if (config?.hostId === undefined) return [];
  const written = new Set(
    targets.filter((target) => !target.remote).map((target) => target.config.targetNamespace),
  );
  const found = await listLabelledSecrets(
    access,
    ownSelector(config),
    labelKeys(config.labelPrefix).cluster,
  );
  return (found ?? []).filter((registration) => !written.has(registration.namespace));
}

/** What `status` says of them; nothing when there are none. */
export function leftBehindText(
  behind: readonly FoundRegistration[],
  config: Config | undefined,
): string {
  if (behind.length === 0 || config === undefined) return '';
  const namespaces = [...new Set(behind.map((registration) => registration.namespace))];
  const lines = [
    '',
    `Left behind: ${behind.length} registration(s) of this host in namespaces no target writes; they are kept (removing a target deletes nothing):`,
    ...behind.map(
      (registration) =>
        `  ${registration.namespace}/${registration.name}${registration.cluster === undefined ? '' : ` (cluster ${registration.cluster})`}`,
    ),
    'Remove them, once ArgoCD no longer needs them, with:',
    ...namespaces.map(
      (namespace) => `  kubectl delete secret -n ${namespace} -l ${ownSelector(config)}`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

function ownSelector(config: Config): string {
  const keys = labelKeys(config.labelPrefix);
  return `${keys.managedBy}=${config.managedBy},${keys.hostId}=${config.hostId ?? ''}`;
}
