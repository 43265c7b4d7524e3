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
export { createGatherer } from './gather/listed-world.js';
export { describeRead } from './gather/gather-failure.js';
export type { GatherFailure, GatherRead, ReadKind } from './gather/gather-failure.js';
export type { GatherResult, Gatherer } from './gather/world-source.js';
export { applyPlan } from './apply.js';
export type { ActionResult, ActionStatus, ApplyOptions } from './apply.js';
export { createApplier, createDryRunWriter, dryRunVerdict } from './plan-writer.js';
export type { DryRunOptions, DryRunVerdict, PlanWriter } from './plan-writer.js';
export { managedNamespaceSelector } from './selectors.js';
export { listManagedByValues, targetNamespaceState } from './namespace-checks.js';
export { createLeaderElector, leaseName } from './leader-election.js';
export type { LeaderElector, LeaderElectionOptions } from './leader-election.js';
export { recordClusterEvent, recordNamespaceEvent, recordSecretEvent } from './events.js';
export { mapBounded } from './concurrency.js';
export type { NamespaceEvent } from './events.js';
export { createTranslationCache } from './gather/translation-cache.js';
export type { TranslationCache } from './gather/translation-cache.js';
export { LeadershipLost, OPEN_FENCE } from './write-fence.js';
export type { WriteFence } from './write-fence.js';
export { REQUEST_TIMEOUT_MS } from './request-guard.js';
export { createWatchGatherer } from './gather/watched-world.js';
export type {
  WatchGatherer,
  WatchGathererOptions,
  WatchGathererStats,
} from './gather/watched-world.js';
export type { WorldChange, WatchName } from './world-cache.js';
export type { ListWatchStats, ListWatchTiming } from './list-watch.js';
