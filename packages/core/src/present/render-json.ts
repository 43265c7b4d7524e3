// The machine-readable plan: a versioned JSON document with the same content as the text
// preview and no secret material. Registration data is shown decoded (it is for reading, not
// for applying); certificates are replaced by their fingerprints, so a rotation is visible,
// and every other credential by a fixed stand-in with no hash of it (sensitive-display.ts).

import { sortedRecord } from '../common/compare-strings.js';
import { isObject, readConfig, type JsonObject } from '../translate/cluster-config-json.js';
import type {
  Action,
  ActionKind,
  DesiredSecret,
  FieldChange,
  FollowUp,
  NamespaceOutcome,
  OutcomeState,
  Plan,
  Warning,
} from '../common/types.js';
import { decodeBase64Text } from '../common/base64.js';
import {
  CONCEALED,
  execArgsDisplay,
  PUBLIC_EXEC_ENV,
  sensitiveDisplay,
  urlDisplay,
} from './sensitive-display.js';
import { assertNever } from '../common/assert-never.js';
import { describeChanges, type ChangeDescriber } from './render-diff.js';

/**
 * Bumped when a field changes meaning or disappears; a new field that readers may ignore (the
 * CLI's `results`, with a dry run's `verdict`) keeps it. 2: a `--once` document is its first
 * round's plan, each later round's plan in `laterRounds` (docs/behaviour.md). 3: with
 * `--targets-file` the document holds one such run per target in `targets` (the top level has
 * no plan of its own); with `--target-namespace` alone it is as in 2.
 */
export const PLAN_FORMAT_VERSION = '3';

/** Counts by action kind, by outcome state and of warnings. */
export type PlanSummary = Readonly<Record<ActionKind | OutcomeState | 'warnings', number>> & {
  /** Verdicts and writes withheld for incomplete input (`input-incomplete`), also counted above. */
  readonly withheld: number;
};

/** A JSON value with no undefined: what a redacted registration `data` value may be. */
export type RedactedValue =
  string | number | boolean | null | RedactedValue[] | { readonly [key: string]: RedactedValue };

/** A registration Secret as shown: data decoded, credential material fingerprinted or concealed. */
export type RedactedSecret = Omit<DesiredSecret, 'data'> & {
  readonly data: Readonly<Record<string, RedactedValue>>;
};

/** An action as shown: its Secret redacted, its before only through `changes`. */
type Shown<A> = A extends { readonly secret: DesiredSecret }
  ? Omit<A, 'before' | 'secret'> & {
      readonly secret: RedactedSecret;
      readonly changes: readonly FieldChange[];
    }
  : A;
export type PlanDocumentAction = Shown<Action>;

export interface PlanDocument {
  readonly formatVersion: typeof PLAN_FORMAT_VERSION;
  readonly actions: readonly PlanDocumentAction[];
  readonly outcomes: readonly NamespaceOutcome[];
  readonly warnings: readonly Warning[];
  readonly summary: PlanSummary;
  /** Present when a further round is needed (Plan.followUps). */
  readonly followUps?: readonly FollowUp[];
}

/**
 * The plan as a JSON-ready document, each write's `changes` computed from its before and after
 * (render-diff.ts). Safe to print: the before is shown only through those changes.
 */
export function planToJson(plan: Plan): PlanDocument {
  return planToJsonWith(plan, describeChanges);
}

/** {@link planToJson} with each action's changes given: the document's layout alone. */
export function planToJsonWith(plan: Plan, describe: ChangeDescriber): PlanDocument {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    actions: plan.actions.map((action) => documentAction(action, describe(action))),
    outcomes: plan.outcomes,
    warnings: plan.warnings,
    summary: summarisePlan(plan),
    ...(plan.followUps === undefined ? {} : { followUps: plan.followUps }),
  };
}

export function summarisePlan(plan: Plan): PlanSummary {
  const counts: Record<ActionKind | OutcomeState, number> = {
    create: 0,
    update: 0,
    demote: 0,
    delete: 0,
    registered: 0,
    unchanged: 0,
    waiting: 0,
    refused: 0,
    stale: 0,
    skipped: 0,
    drained: 0,
  };
  let withheld = 0;
  for (const action of plan.actions) counts[action.kind] += 1;
  for (const outcome of plan.outcomes) {
    counts[outcome.state] += 1;
    if (outcome.reason?.code === 'input-incomplete') withheld += 1;
  }
  for (const warning of plan.warnings) if (warning.code === 'input-incomplete') withheld += 1;
  return { ...counts, warnings: plan.warnings.length, withheld };
}

/** A FieldChange whose sensitive values are guaranteed fingerprinted (certificates) or concealed. */
export function redactChange(change: FieldChange): FieldChange {
  if (!change.sensitive) return change;
  const show = (value: string): string => sensitiveDisplay(change.field, value);
  return {
    field: change.field,
    ...(change.before === undefined ? {} : { before: show(change.before) }),
    ...(change.after === undefined ? {} : { after: show(change.after) }),
    sensitive: true,
  };
}

/** Decodes a registration's data; certificates fingerprinted, every other credential concealed. */
export function redactSecret(secret: DesiredSecret): RedactedSecret {
  const data: Record<string, RedactedValue> = {};
  for (const key of Object.keys(secret.data).sort()) {
    const encoded = secret.data[key];
    if (encoded === undefined) continue;
    data[key] = redactDataValue(key, encoded);
  }
  return {
    namespace: secret.namespace,
    name: secret.name,
    type: secret.type,
    labels: sortedRecord(secret.labels),
    annotations: sortedRecord(secret.annotations),
    data,
  };
}

// ---------------------------------------------------------------------------------------

/** Registration data keys that hold no secret; anything else is concealed. */
const CLEAR_DATA_KEYS: ReadonlySet<string> = new Set([
  'name',
  'server',
  'project',
  'namespaces',
  'clusterResources',
]);

/** ClusterConfig fields shown in clear: they configure the connection, they do not grant it. */
const CLEAR_CONFIG_FIELDS: ReadonlySet<string> = new Set(['insecure', 'serverName', 'proxyUrl']);

function documentAction(action: Action, fieldChanges: readonly FieldChange[]): PlanDocumentAction {
  if (action.kind === 'delete') {
    const { kind, cluster, reason, target } = action;
    return { kind, cluster, reason, target };
  }
  const shown = { secret: redactSecret(action.secret), changes: fieldChanges.map(redactChange) };
  // Update and demote alike, kept apart so the compiler pairs each kind with its reason.
  switch (action.kind) {
    case 'create': {
      const { kind, cluster, reason } = action;
      return { kind, cluster, reason, ...shown };
    }
    case 'update': {
      const { kind, cluster, reason, target } = action;
      return { kind, cluster, reason, target, ...shown };
    }
    case 'demote': {
      const { kind, cluster, reason, target } = action;
      return { kind, cluster, reason, target, ...shown };
    }
    default:
      return assertNever(action, 'action kind');
  }
}

function redactDataValue(key: string, encoded: string): RedactedValue {
  if (key === 'config') {
    const config = readConfig(encoded);
    return config === undefined ? CONCEALED : redactFields(config, redactConfigValue);
  }
  const text = decodeBase64Text(encoded);
  // Undecodable data cannot be shown in clear safely.
  if (text === undefined) return CONCEALED;
  if (key === 'server') return urlDisplay(text);
  return CLEAR_DATA_KEYS.has(key) ? text : CONCEALED;
}

/** Each field of a config object (or a part of one) as `redact` shows it. */
function redactFields(
  object: JsonObject,
  redact: (field: string, value: unknown) => RedactedValue,
): Record<string, RedactedValue> {
  const out: Record<string, RedactedValue> = {};
  for (const [field, value] of Object.entries(object)) out[field] = redact(field, value);
  return out;
}

function redactConfigValue(field: string, value: unknown): RedactedValue {
  if (field === 'tlsClientConfig' && isObject(value)) return redactFields(value, redactConfigValue);
  if ((field === 'awsAuthConfig' || field === 'execProviderConfig') && isObject(value))
    return redactFields(value, redactExecValue);
  if (field === 'proxyUrl' && typeof value === 'string') return urlDisplay(value);
  if (CLEAR_CONFIG_FIELDS.has(field) && (typeof value === 'string' || typeof value === 'boolean'))
    return value;
  // caData and certData as fingerprints; username, password, bearerToken, keyData and
  // anything unknown concealed.
  return sensitiveDisplay(field, typeof value === 'string' ? value : JSON.stringify(value));
}

/** Fields of ArgoCD's exec forms that hold a name, an ARN or a version, never a credential. */
const CLEAR_EXEC_FIELDS: ReadonlySet<string> = new Set([
  'command',
  'apiVersion',
  'installHint',
  'clusterName',
  'roleARN',
  'profile',
]);

/** Reference mode's `config`: where the plugin reads the kubeconfig, names only. */
function isSecretReference(value: unknown): value is Readonly<Record<string, string>> {
  return (
    isObject(value) &&
    Object.entries(value).every(
      ([field, part]) =>
        ['name', 'namespace', 'key', 'context'].includes(field) && typeof part === 'string',
    )
  );
}

/**
 * ArgoCD's exec forms as the registrar writes them hold no credential, but a registration it
 * did not write may carry one in an argument or a variable: args and env are shown word by
 * word, in clear only where known to be public; fields ArgoCD does not define are concealed.
 */
function redactExecValue(field: string, value: unknown): RedactedValue {
  if (typeof value === 'string' && CLEAR_EXEC_FIELDS.has(field)) return value;
  if (field === 'provideClusterInfo' && typeof value === 'boolean') return value;
  if (field === 'config' && isSecretReference(value)) return { ...value };
  if (field === 'args' && Array.isArray(value) && value.every((item) => typeof item === 'string'))
    return execArgsDisplay(value);
  if (field === 'env' && isObject(value))
    return Object.fromEntries(
      Object.entries(value).map(([name, setting]) => [
        name,
        typeof setting === 'string' && PUBLIC_EXEC_ENV.has(name) ? setting : CONCEALED,
      ]),
    );
  return CONCEALED;
}
