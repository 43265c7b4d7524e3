// Public entry of @argocd-cluster-registrar/core: the pure planning library. Named exports only.
export type * from './types.js';

// Configuration
export {
  CONFIG_DEFAULTS,
  LEGACY_DEFAULTS,
  PROVIDER_FORM,
  parseConfig,
  formatConfigError,
  legacyCombinationProblem,
  type ConfigInput,
  type ParseConfigOptions,
  type ConfigError,
  type ConfigResult,
} from './config.js';
export { parseDuration, formatDuration, DURATION_FORM, type DurationResult } from './duration.js';

// Providers and kubeconfig translation
export {
  PROVIDER_PRESETS,
  PROVIDER_PRESET_NAMES,
  translateSecretKey,
  createSecretKeyTranslator,
  type SecretKeyTranslatorOptions,
  selectKubeconfig,
  type Translator,
  type TranslateOptions,
  type KubeconfigSelection,
} from './providers.js';
export { translateKubeconfig, type TranslateContext } from './kubeconfig.js';
export { KUBECONFIG_LIMITS } from './kubeconfig-limits.js';
export { isCandidate, isNearMiss, NEAR_MISS_RECORD_LIMIT, type SecretKeys } from './near-misses.js';
export {
  execCredentialsWarning,
  execPolicyWarning,
  providerLabel,
  EXEC_FLAG_HINT,
  EXEC_PROVIDER_HINT,
} from './exec-credentials/gates.js';
export { EMPTY_EXEC_POLICY } from './exec-credentials/exec-policy.js';
export { normaliseServer, classifyServer, type ServerKind } from './server-address.js';
export { matchGlob, validateGlob } from './glob.js';
export { formProblem, type FormCheck } from './form-checks.js';
export {
  INTERVAL_FORM,
  LABEL_PREFIX_FORM,
  MANAGED_BY_FORM,
  PROVIDER_ENTRY_FORM,
  PROVIDER_LISTED_TWICE,
  SECRET_KEY_FORM,
  TARGET_NAMESPACE_FORM,
  durationForm,
  EXEC_CAPABLE_PROVIDER,
  secretNamePatternForm,
} from './config-forms.js';
export { readCertificateFacts } from './x509.js';
export { decodeBase64, encodeBase64, encodeBase64Text, decodeBase64Text } from './base64.js';
export { sha256Hex, fingerprint } from './sha256.js';

// Planning
export { plan, createPlanMemo, type PlanOptions, type PlanMemo } from './plan/index.js';
export { describeChanges, type ChangeDescriber } from './render-diff.js';
export {
  labelKeys,
  ARGOCD_SECRET_TYPE_LABEL,
  ARGOCD_CLUSTER_SECRET_TYPE,
  ARGOCD_SKIP_RECONCILE_ANNOTATION,
  type LabelKeys,
} from './label-keys.js';
export {
  registrationName,
  buildRegistration,
  isDnsSubdomain,
  formatTimestamp,
  REGISTRATION_DATA_KEYS,
} from './registration.js';
export { compareStrings } from './compare-strings.js';
export {
  CAPI_CLUSTERS_RESOURCE,
  CAPI_GROUP,
  CLUSTER_SOURCE_KIND,
  clusterSecretName,
  clusterSourceKey,
  describeSource,
  recordedSourceKey,
  sourceNamespaceOf,
  sourceRef,
  type SourceRef,
} from './sources.js';
export {
  proofSource,
  writeProof,
  type ProofLapse,
  type ProvenAction,
  type WriteProof,
} from './write-proof.js';

// Rendering and snapshots
export {
  renderPlanText,
  summaryLine,
  LEGEND,
  type DryRunNote,
  type RenderTextOptions,
} from './render-text.js';
export {
  planToJson,
  summarisePlan,
  PLAN_FORMAT_VERSION,
  type PlanDocument,
  type PlanSummary,
} from './render-json.js';
export { snapshotToJson, snapshotFromJson, SNAPSHOT_FORMAT_VERSION } from './snapshot-io.js';
export {
  statusRows,
  statusRowSource,
  credentialOf,
  FAILING_STATES,
  STATUS_FORMAT_VERSION,
  STATUS_STATES,
  type StatusRow,
  type StatusState,
} from './status-rows.js';
export {
  renderStatusText,
  statusToJson,
  statusFailing,
  type RenderStatusOptions,
  type StatusDocument,
} from './render-status.js';

// Exhaustiveness
export { assertNever } from './assert-never.js';
