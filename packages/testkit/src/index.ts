export {
  CONTROL_PLANE_SCRIPT,
  attachControlPlane,
  compactEtcd,
  finalizeNamespace,
  mintToken,
  restartApiServer,
  runControlPlaneScript,
  startControlPlane,
} from './control-plane.js';
export type { ControlPlane, StartOptions } from './control-plane.js';
export { adminKubeConfig, coreApi, rbacApi, statusOf, tokenKubeConfig } from './client.js';
export { mintClientCertificate, mintServingCertificate } from './client-certificate.js';
export { mintClientCertificateFrom, newClientCa, trustClientCas } from './client-ca.js';
export type { ClientCa } from './client-ca.js';
export { uniqueName } from './names.js';
export { testChildPlane, testHostPlane } from './shared.js';
export type { ProvidedPlane } from './provided.js';
export { kubeconfigText } from './kubeconfig-text.js';
export type { KubeconfigTextOptions } from './kubeconfig-text.js';
export { FAULT_KINDS, seededRandom } from './fault-choice.js';
export type { FaultKind } from './fault-choice.js';
export { startFaultProxy } from './fault-proxy.js';
export type {
  FaultProxy,
  FaultProxyOptions,
  FaultSettings,
  ForwardedWrite,
  ProxyLogEntry,
} from './fault-proxy.js';
export { installArgoCdCrds, startArgoCd } from './argocd.js';
export type { ArgoCd, ArgoCdOptions } from './argocd.js';
export { argoVerdicts, checkClusterSecrets } from './argocd-check.js';
export type { ArgoExecVerdict, ArgoVerdict } from './argocd-check.js';
export { argocdBinaryPath, freePort, kubectl, runCommand, toolsBinDir } from './argocd-tools.js';
export {
  applyObjects,
  clusterConnectionStatus,
  clusterInfos,
  clustersApplicationSet,
  destinationApplication,
  listApplications,
  refreshApplicationSet,
} from './argocd-apps.js';
export type { ArgoApplication, ArgoClusterInfo } from './argocd-apps.js';
export {
  apiServerRequests,
  nonWatchRequests,
  requestBreakdown,
  requestsBetween,
} from './api-server-requests.js';
export type { RequestCounts } from './api-server-requests.js';
export { capiBinaryDir, installCapiCrds, startCapi } from './capi.js';
export { KUEUE_NAMESPACE, installKueueCrds, kueueBinaryDir, startKueue } from './kueue.js';
export type { Kueue } from './kueue.js';
export { installKamajiCrd, KAMAJI_TCP_CRD } from './kamaji.js';
export type { Capi } from './capi.js';
export {
  capiClusterCa,
  capiClusterObjects,
  createCapiCluster,
  pauseCapiCluster,
  waitForCapiKubeconfig,
} from './capi-cluster.js';
export type { CapiClusterCa, CapiClusterSpec } from './capi-cluster.js';
export {
  TEST_CLUSTER_KIND,
  TEST_INFRASTRUCTURE_GROUP,
  TEST_MACHINE_TEMPLATE_KIND,
} from './capi-infrastructure.js';
export { previousRelease } from './previous-release.js';
export type { PreviousRelease } from './previous-release.js';
export { fillTokenSecret, startHub } from './hub.js';
export type { Hub, HubOptions } from './hub.js';
export { startLoopbackProxy } from './argocd-dns-proxy.js';
export type { LoopbackProxy } from './argocd-dns-proxy.js';
export {
  CLUSTER_PROFILE_CRD,
  checkProfiles,
  installClusterProfileCrd,
  inventoryToolsDir,
  secretreaderPath,
  secretreaderProvider,
} from './inventory.js';
export type { ProfileCheck } from './inventory.js';
