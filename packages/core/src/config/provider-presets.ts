// Provider presets: where each provisioner writes its child cluster's kubeconfig. Plain data,
// so settings can name and check presets without loading the translation.

import type { Provider, ProviderName } from '../common/types.js';

/** vcluster's label naming the vcluster a kubeconfig Secret belongs to. */
export const VCLUSTER_NAME_LABEL = 'vcluster-name';

export type PresetName = Exclude<ProviderName, 'custom'>;

/** A Cluster API kubeconfig Secret's key and type, and no loopback rewrite. */
const CAPI_SECRET = {
  keys: ['value'],
  preferredSecretType: 'cluster.x-k8s.io/secret',
  loopbackRewrite: false,
} as const;

export const PROVIDER_PRESETS: Readonly<Record<PresetName, Provider>> = {
  // The marks of each preset are what its provisioner's own code writes (the README's
  // provider table names the versions read; provider-shapes.test.ts holds the Secrets).
  // k3k names the Secret k3k-<cluster>-kubeconfig through SafeConcatNameWithPrefix, which
  // cuts a name of 64+ characters to 57 (or 56) plus a hash, so no longer `-kubeconfig`; it
  // always sets itself as the controller (SetControllerReference to its k3k.io Cluster).
  k3k: {
    name: 'k3k',
    secretNamePattern: 'k3k-*-kubeconfig',
    keys: ['kubeconfig.yaml'],
    loopbackRewrite: false,
    marks: { controller: { group: 'k3k.io', kind: 'Cluster' } },
  },
  // vcluster's kubeconfig points at localhost (for port-forwarding); the Service is the way in.
  // WriteKubeConfig labels vc-<name> and every exportKubeConfig.additionalSecrets entry
  // (any name) app=vcluster, vcluster-name=<name>; its certificate Secret carries the same
  // labels but no `config` key.
  vcluster: {
    name: 'vcluster',
    secretNamePattern: 'vc-*',
    keys: ['config'],
    loopbackRewrite: true,
    marks: { labels: [{ key: 'app', value: 'vcluster' }, { key: VCLUSTER_NAME_LABEL }] },
  },
  // admin.svc addresses the in-cluster Service; admin.conf is the external endpoint.
  kamaji: {
    name: 'kamaji',
    secretNamePattern: '*-admin-kubeconfig',
    keys: ['admin.svc', 'admin.conf'],
    loopbackRewrite: false,
    marks: {
      labels: [
        { key: 'kamaji.clastix.io/component', value: 'admin-kubeconfig' },
        { key: 'kamaji.clastix.io/name' },
      ],
    },
  },
  // Kamaji's KubeconfigGenerator writes least-privilege kubeconfigs, `<tcp>-<generator>`
  // under `value`, labelled managed-for=<tcp>; the name alone says nothing.
  'kamaji-generated': {
    name: 'kamaji-generated',
    secretNamePattern: '*-*',
    keys: ['value'],
    loopbackRewrite: false,
    marks: { labels: [{ key: 'kamaji.clastix.io/managed-for' }], only: true },
  },
  capi: { name: 'capi', secretNamePattern: '*-kubeconfig', ...CAPI_SECRET },
  // The exec presets read the *user* kubeconfigs, whose exec plugin is translated into
  // ArgoCD's own form (exec-credentials/); the CAPI `<cluster>-kubeconfig` of a managed
  // cluster holds a short-lived token instead, refreshed by the provider.
  'capa-eks': {
    name: 'capa-eks',
    secretNamePattern: '*-user-kubeconfig',
    ...CAPI_SECRET,
    execClouds: ['aws'],
  },
  // CAPZ writes it for Entra ID-enabled AKS.
  'capz-aks': {
    name: 'capz-aks',
    secretNamePattern: '*-kubeconfig-user',
    keys: ['value'],
    loopbackRewrite: false,
    execClouds: ['azure'],
  },
  // GKE user kubeconfigs (`gke-gcloud-auth-plugin`), stored like CAPA's and CAPG's.
  gke: { name: 'gke', secretNamePattern: '*-user-kubeconfig', ...CAPI_SECRET, execClouds: ['gcp'] },
};

/** Preset names, in the order they are documented (also what `--provider` accepts). */
export const PROVIDER_PRESET_NAMES = Object.keys(PROVIDER_PRESETS) as readonly PresetName[];
