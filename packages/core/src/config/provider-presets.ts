// Provider presets: where each provisioner writes its child cluster's kubeconfig. Plain data,
// so settings can name and check presets without loading the translation.

import type { Provider, ProviderName } from '../shared/types.js';

export const PROVIDER_PRESETS: Readonly<Record<Exclude<ProviderName, 'custom'>, Provider>> = {
  k3k: {
    name: 'k3k',
    secretNamePattern: 'k3k-*-kubeconfig',
    keys: ['kubeconfig.yaml'],
    loopbackRewrite: false,
  },
  // vcluster's kubeconfig points at localhost (for port-forwarding); the Service is the way in.
  vcluster: {
    name: 'vcluster',
    secretNamePattern: 'vc-*',
    keys: ['config'],
    loopbackRewrite: true,
  },
  // admin.svc addresses the in-cluster Service; admin.conf is the external endpoint.
  kamaji: {
    name: 'kamaji',
    secretNamePattern: '*-admin-kubeconfig',
    keys: ['admin.svc', 'admin.conf'],
    loopbackRewrite: false,
  },
  capi: {
    name: 'capi',
    secretNamePattern: '*-kubeconfig',
    keys: ['value'],
    preferredSecretType: 'cluster.x-k8s.io/secret',
    loopbackRewrite: false,
  },
  // The exec presets read the *user* kubeconfigs, whose exec plugin is translated into
  // ArgoCD's own form (translate/exec/); the CAPI `<cluster>-kubeconfig` of a managed
  // cluster holds a short-lived token instead, refreshed by the provider.
  // CAPA: `<cluster>-user-kubeconfig`, type cluster.x-k8s.io/secret, key `value`.
  'capa-eks': {
    name: 'capa-eks',
    secretNamePattern: '*-user-kubeconfig',
    keys: ['value'],
    preferredSecretType: 'cluster.x-k8s.io/secret',
    loopbackRewrite: false,
    execClouds: ['aws'],
  },
  // CAPZ: `<cluster>-kubeconfig-user`, key `value` (written for Entra ID-enabled AKS).
  'capz-aks': {
    name: 'capz-aks',
    secretNamePattern: '*-kubeconfig-user',
    keys: ['value'],
    loopbackRewrite: false,
    execClouds: ['azure'],
  },
  // GKE user kubeconfigs (`gke-gcloud-auth-plugin`), stored like CAPA's and CAPG's:
  // `<cluster>-user-kubeconfig`, key `value`.
  gke: {
    name: 'gke',
    secretNamePattern: '*-user-kubeconfig',
    keys: ['value'],
    preferredSecretType: 'cluster.x-k8s.io/secret',
    loopbackRewrite: false,
    execClouds: ['gcp'],
  },
};

/** Preset names, in the order they are documented (also what `--provider` accepts). */
export const PROVIDER_PRESET_NAMES = Object.keys(PROVIDER_PRESETS) as readonly Exclude<
  ProviderName,
  'custom'
>[];
