// Provider presets: where each provisioner writes its child cluster's kubeconfig.

import type { Provider, ProviderName } from './types.js';

export const PROVIDER_PRESETS: Readonly<Record<Exclude<ProviderName, 'custom'>, Provider>> = {
  k3k: { name: 'k3k', secretNamePattern: 'k3k-*-kubeconfig', keys: ['kubeconfig.yaml'], loopbackRewrite: false },
  // vcluster's kubeconfig points at localhost (for port-forwarding); the Service is the way in.
  vcluster: { name: 'vcluster', secretNamePattern: 'vc-*', keys: ['config'], loopbackRewrite: true },
  // admin.svc addresses the in-cluster Service; admin.conf is the external endpoint.
  kamaji: { name: 'kamaji', secretNamePattern: '*-admin-kubeconfig', keys: ['admin.svc', 'admin.conf'], loopbackRewrite: false },
  capi: {
    name: 'capi',
    secretNamePattern: '*-kubeconfig',
    keys: ['value'],
    preferredSecretType: 'cluster.x-k8s.io/secret',
    loopbackRewrite: false,
  },
};
