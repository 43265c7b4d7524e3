// User kubeconfigs as the managed-cluster providers write them (YAML as client-go's
// clientcmd.Write prints it), for the exec translation tests:
// - CAPA (cluster-api-provider-aws, pkg/cloud/services/eks/config.go,
//   createUserKubeconfigSecret): Secret `<cluster>-user-kubeconfig`, type
//   cluster.x-k8s.io/secret, key `value`; user `<eks>-user`, exec apiVersion v1beta1,
//   `aws-iam-authenticator token -i <eks>` or `aws eks get-token --cluster-name <eks>`.
//   The EKS name defaults to `<namespace>_<control plane>`.
// - CAPZ (cluster-api-provider-azure, azure/services/managedclusters): Secret
//   `<cluster>-kubeconfig-user`, key `value`, holding AKS's user credentials for an Entra ID
//   cluster: `kubelogin get-token --environment … --server-id … --client-id … --tenant-id …
//   --login devicecode`, with AKS's install hint.
// - GKE (`gcloud container clusters get-credentials`): `gke-gcloud-auth-plugin`, no args,
//   provideClusterInfo true, gcloud's install hint.

import { encodeBase64Text } from '../common/base64.js';
import type { ObservedSecret } from '../common/types.js';
import { CA_CERT_PEM } from './certificates.js';

const CA_DATA = encodeBase64Text(CA_CERT_PEM);

export const EKS_SERVER =
  'https://0A1B2C3D4E5F60718293A4B5C6D7E8F9.gr7.eu-west-1.eks.amazonaws.com';
export const AKS_SERVER = 'https://prod-aks-4f2a1c.hcp.westeurope.azmk8s.io:443';
export const GKE_SERVER = 'https://34.77.120.15';

/** The exec block's lines, indented under `user:`. */
function userKubeconfig(options: {
  readonly cluster: string;
  readonly user: string;
  readonly server: string;
  readonly exec: readonly string[];
}): string {
  const context = `${options.user}@${options.cluster}`;
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${CA_DATA}`,
    `    server: ${options.server}`,
    `  name: ${options.cluster}`,
    'contexts:',
    '- context:',
    `    cluster: ${options.cluster}`,
    `    user: ${options.user}`,
    `  name: ${context}`,
    `current-context: ${context}`,
    'kind: Config',
    'preferences: {}',
    'users:',
    `- name: ${options.user}`,
    '  user:',
    '    exec:',
    ...options.exec.map((line) => `      ${line}`),
    '',
  ].join('\n');
}

/** CAPA's exec block: `aws-iam-authenticator token -i <eks>` unless other lines are given. */
export function capaUserKubeconfig(
  eksName = 'team-a_prod-control-plane',
  exec: readonly string[] = [
    'apiVersion: client.authentication.k8s.io/v1beta1',
    'args:',
    '- token',
    '- -i',
    `- ${eksName}`,
    'command: aws-iam-authenticator',
    'env: null',
    'interactiveMode: IfAvailable',
    'provideClusterInfo: false',
  ],
): string {
  return userKubeconfig({ cluster: eksName, user: `${eksName}-user`, server: EKS_SERVER, exec });
}

export const AKS_SERVER_ID = '6dae42f8-4368-4678-94ff-3960e28e3630';

export function capzUserKubeconfig(
  exec: readonly string[] = [
    'apiVersion: client.authentication.k8s.io/v1beta1',
    'args:',
    '- get-token',
    '- --environment',
    '- AzurePublicCloud',
    '- --server-id',
    `- ${AKS_SERVER_ID}`,
    '- --client-id',
    '- 80faf920-1908-4b52-b5ef-a8e7bedfc67a',
    '- --tenant-id',
    '- 72f988bf-86f1-41af-91ab-2d7cd011db47',
    '- --login',
    '- devicecode',
    'command: kubelogin',
    'env: null',
    'installHint: |2',
    '',
    '  kubelogin is not installed which is required to connect to AAD enabled cluster.',
    '',
    '  To learn more, please go to https://aka.ms/aks/kubelogin',
    'provideClusterInfo: false',
  ],
): string {
  return userKubeconfig({
    cluster: 'prod-aks',
    user: 'clusterUser_prod-rg_prod-aks',
    server: AKS_SERVER,
    exec,
  });
}

export function gkeUserKubeconfig(
  exec: readonly string[] = [
    'apiVersion: client.authentication.k8s.io/v1beta1',
    'command: gke-gcloud-auth-plugin',
    'installHint: Install gke-gcloud-auth-plugin for use with kubectl by following',
    '  https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin',
    'provideClusterInfo: true',
  ],
): string {
  return userKubeconfig({
    cluster: 'gke_acme-prod_europe-west1_prod-gke',
    user: 'gke_acme-prod_europe-west1_prod-gke',
    server: GKE_SERVER,
    exec,
  });
}

/** A Secret as the API serves it (`data` base64), in `namespace`. */
export function providerSecret(
  namespace: string,
  name: string,
  kubeconfigText: string,
  type = 'cluster.x-k8s.io/secret',
): ObservedSecret {
  return {
    namespace,
    name,
    uid: `uid-${namespace}-${name}`,
    resourceVersion: '1',
    type,
    labels: {
      'cluster.x-k8s.io/cluster-name': name.replace(/-(user-kubeconfig|kubeconfig-user)$/, ''),
    },
    annotations: {},
    data: { value: encodeBase64Text(kubeconfigText) },
  };
}
