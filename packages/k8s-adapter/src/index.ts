// Public entry of @argocd-cluster-registrar/k8s-adapter: all Kubernetes API traffic.
export { classifyApiError, diagnoseConnection } from './api-failure.js';
export type {
  ApiFailure,
  ApiFailureKind,
  ConnectionDiagnosis,
  ConnectionProblem,
} from './api-failure.js';
export { loadKubeAccess } from './kube-access.js';
export type { InClusterProbe, KubeAccess, KubeAccessOptions, KubeCluster } from './kube-access.js';
export { createGatherer } from './gather.js';
export type { GatherFailure, GatherResult, Gatherer } from './gather.js';
export type { ActionResult } from './apply.js';
export type { ActionStatus } from './write/secret-writer.js';
export { createApplier, createDryRunWriter, dryRunVerdict } from './plan-writer.js';
export type { DryRunOptions, DryRunVerdict, PlanWriter } from './plan-writer.js';
export { managedNamespaceSelector } from './selectors.js';
export { listManagedByValues, targetNamespaceState } from './namespace-checks.js';
export { createLeaderElector, leaseName } from './leader-election.js';
export type { LeaderElector, LeaderElectionOptions } from './leader-election.js';
export { recordClusterEvent, recordNamespaceEvent, recordSecretEvent } from './events.js';
export { mapBounded } from './concurrency.js';
export type { NamespaceEvent } from './events.js';
export { createTranslationCache } from './translation-cache.js';
export type { TranslationCache } from './translation-cache.js';
export { LeadershipLost, OPEN_FENCE } from './write-fence.js';
export type { WriteFence } from './write-fence.js';
export { REQUEST_TIMEOUT_MS } from './request-guard.js';
export { createWatchGatherer } from './watch-gatherer.js';
export type { WatchGatherer, WatchGathererOptions, WatchGathererStats } from './watch-gatherer.js';
export type { WorldChange, WatchName } from './world-cache.js';
export type { ListWatchStats, ListWatchTiming } from './list-watch.js';
