// `@argocd-cluster-registrar/core/present`: a plan, a status and a snapshot as people and tools
// read them, for tools that render what the registrar planned without planning themselves.
// Named exports only; the main entry exports the same.
export type * from '../common/types.js';

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
  type RowProfile,
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
export { withProfiles } from './profile-status.js';
export { describeChanges, type ChangeDescriber } from './render-diff.js';
export { fingerprint } from './sha256.js';
