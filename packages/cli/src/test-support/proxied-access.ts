// A KubeAccess to a fault proxy, loaded from a kubeconfig file the way the CLI loads any.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadKubeAccess } from '@argocd-cluster-registrar/k8s-adapter';
import type { KubeAccess } from '@argocd-cluster-registrar/k8s-adapter';

export function accessThrough(
  proxy: { readonly kubeConfig: string },
  extra: Partial<Pick<KubeAccess, 'requestTimeoutMs'>> = {},
): KubeAccess {
  const path = join(mkdtempSync(join(tmpdir(), 'acr-proxied-')), 'kubeconfig');
  writeFileSync(path, proxy.kubeConfig, { mode: 0o600 });
  return { ...loadKubeAccess({ kubeconfig: path }), source: 'fault proxy', ...extra };
}
