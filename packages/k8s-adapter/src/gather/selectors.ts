// The label selector of the namespaces this instance manages, built in one place: the
// gatherer lists with it, the watch watches with it, the CLI logs it.

import { labelKeys } from '@argocd-cluster-registrar/core';
import type { Config } from '@argocd-cluster-registrar/core';

export function managedNamespaceSelector(
  config: Pick<Config, 'labelPrefix' | 'managedBy'>,
): string {
  return `${labelKeys(config.labelPrefix).managedBy}=${config.managedBy}`;
}
