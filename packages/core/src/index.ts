// Public entry of @argocd-cluster-registrar/core: the pure planning library. Named exports only.
export type * from './common/types.js';

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
} from './config/config.js';
export {
  parseDuration,
  formatDuration,
  DURATION_FORM,
  type DurationResult,
} from './config/duration.js';

// Providers and kubeconfig translation
export {
  translateSecretKey,
  createSecretKeyTranslator,
  configuredTranslator,
  type SecretKeyTranslatorOptions,
  selectKubeconfig,
  type Translator,
  type TranslateOptions,
  type KubeconfigSelection,
} from './translate/providers.js';
export { PROVIDER_PRESETS, PROVIDER_PRESET_NAMES } from './config/provider-presets.js';
export { translateKubeconfig, type TranslateContext } from './translate/kubeconfig.js';
export { KUBECONFIG_LIMITS } from './translate/kubeconfig-limits.js';
export {
  claimedByAny,
  claimOf,
  describeLookup,
  type Claim,
  type SecretMeta,
} from './config/provider-marks.js';
export {
  isCandidate,
  isNearMiss,
  namedForCluster,
  NEAR_MISS_RECORD_LIMIT,
  type SecretKeys,
} from './translate/near-misses.js';
export {
  execCredentialsWarning,
  execPolicyWarning,
  providerLabel,
  EXEC_FLAG_HINT,
  EXEC_PROVIDER_HINT,
} from './translate/exec/gates.js';
export { EXEC_API_VERSIONS } from './translate/exec/exec-block.js';
export { EMPTY_EXEC_POLICY } from './config/exec-policy.js';
export { normaliseServer, classifyServer, type ServerKind } from './common/server-address.js';
export { matchGlob, validateGlob } from './config/glob.js';
export { formProblem, type FormCheck } from './config/form-checks.js';
export {
  INTERVAL_FORM,
  LABEL_PREFIX_FORM,
  LABEL_VALUE_FORM,
  MANAGED_BY_FORM,
  PROVIDER_ENTRY_FORM,
  PROVIDER_LISTED_TWICE,
  SECRET_KEY_FORM,
  SECRETREADER_PATH_FORM,
  TARGET_NAMESPACE_FORM,
  durationForm,
  EXEC_CAPABLE_PROVIDER,
  secretNamePatternForm,
} from './config/forms.js';
export {
  parseTargetsFile,
  targetConfig,
  targetSelectorWarning,
  nameTemplateProblem,
  TARGETS_FILE_FORM,
  type TargetDefinition,
  type TargetsResult,
} from './config/targets.js';
export { parseLabelSelector, selectorMatches } from './config/label-selector.js';
export { ownerOf, type Owner } from './plan/host-identity.js';
export { readCertificateFacts } from './translate/x509.js';
export { decodeBase64, encodeBase64, encodeBase64Text, decodeBase64Text } from './common/base64.js';
export { sha256Hex } from './present/sha256.js';

// Planning
export { plan, type PlanOptions, type PlanRepeat } from './plan/index.js';
export { createSettledRepeat, type SettledRepeat } from './repeat/settled-repeat.js';
export {
  planProfiles,
  profileStatusText,
  isOurs as isOurProfile,
  CLUSTER_MANAGER_LABEL,
  INVENTORY_MEMBER_ID_LABEL,
  SECRETREADER_PROVIDER,
  type ProfileInput,
} from './plan/profiles.js';
export {
  labelKeys,
  ARGOCD_SECRET_TYPE_LABEL,
  ARGOCD_CLUSTER_SECRET_TYPE,
  ARGOCD_SKIP_RECONCILE_ANNOTATION,
  type LabelKeys,
} from './config/label-keys.js';
export {
  registrationName,
  buildRegistration,
  isDnsSubdomain,
  formatTimestamp,
  REGISTRATION_DATA_KEYS,
} from './translate/registration.js';
export { compareStrings } from './common/compare-strings.js';
export {
  CAPI_CLUSTERS_RESOURCE,
  CAPI_GROUP,
  CLUSTER_SOURCE_KIND,
  clusterSecretName,
  clusterSourceKey,
  describeSource,
  formatSourceKey,
  isClusterKey,
  parseSourceKey,
  recordedSourceKey,
  sourceNamespaceOf,
  type SourceKey,
} from './config/sources.js';
export {
  proofSource,
  writeProof,
  type ProofLapse,
  type ProvenAction,
  type WriteProof,
} from './plan/write-proof.js';

// Rendering and snapshots (also the `present` sub-entry, for tools that only render)
export * from './present/index.js';

// Exhaustiveness
export { assertNever } from './common/assert-never.js';
