// Public entry of @argocd-cluster-registrar/k8s-adapter: all Kubernetes API traffic.
export { classifyApiError, diagnoseConnection } from './connection/api-failure.js';
export type {
  ApiFailure,
  ApiFailureKind,
  ConnectionDiagnosis,
  ConnectionProblem,
} from './connection/api-failure.js';
export { loadKubeAccess } from './connection/kube-access.js';
export { readHostIdentity } from './connection/host-identity.js';
export type { HostIdentity } from './connection/host-identity.js';
export { KUBECONFIG_PRECEDENCE } from './connection/kube-config.js';
export type {
  InClusterProbe,
  KubeAccess,
  KubeAccessOptions,
  KubeCluster,
} from './connection/kube-access.js';
export { createGatherer } from './gather/listed-world.js';
export { describeRead } from './gather/gather-failure.js';
export type { GatherFailure, GatherRead, ReadKind } from './gather/gather-failure.js';
export type { GatherResult, Gatherer } from './gather/world-source.js';
export type { ActionResult } from './write/apply.js';
export type { ActionStatus } from './write/secret-writer.js';
export { createApplier, createDryRunWriter, dryRunVerdict } from './write/plan-writer.js';
export type { DryRunOptions, DryRunVerdict, PlanWriter } from './write/plan-writer.js';
export { managedNamespaceSelector } from './gather/selectors.js';
export {
  listLabelledSecrets,
  listManagedByValues,
  targetNamespaceState,
} from './gather/namespace-checks.js';
export type { FoundRegistration } from './gather/namespace-checks.js';
export { createLeaderElector, leaseName } from './lease/leader-election.js';
export type { LeaderElector, LeaderElectionOptions } from './lease/leader-election.js';
export {
  recordClusterEvent,
  recordNamespaceEvent,
  recordProfileEvent,
  recordSecretEvent,
} from './write/events.js';
export { mapBounded } from './concurrency.js';
export type { NamespaceEvent } from './write/events.js';
export { createTranslationCache } from './gather/translation-cache.js';
export type { TranslationCache } from './gather/translation-cache.js';
export { LeadershipLost, OPEN_FENCE } from './connection/write-fence.js';
export type { WriteFence } from './connection/write-fence.js';
export { REQUEST_TIMEOUT_MS } from './connection/request-guard.js';
export { createWatchGatherer } from './gather/watched-world.js';
export { createProfileReader } from './gather/cluster-profiles.js';
export type { ProfileRead, ProfileReader } from './gather/cluster-profiles.js';
export { writeProfiles } from './write/profile-writer.js';
export type { ProfileResult } from './write/profile-writer.js';
export type {
  WatchGatherer,
  WatchGathererOptions,
  WatchGathererStats,
} from './gather/watched-world.js';
export type { WorldChange, WatchName } from './gather/world-cache.js';
export type { ListWatchStats, ListWatchTiming } from './watch/list-watch.js';
