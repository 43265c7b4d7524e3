// `status`: what is registered, what is not, and why, as rows derived from one plan and the
// snapshot it was made from. Nothing here decides anything: a namespace's state and reason
// are its plan outcome, a registration's fate is the action the plan holds for it, so the
// status can never disagree with what the daemon does with the same world.

import { decodeBase64Text } from '../common/base64.js';
import { isObject, readConfig, tlsOf } from '../translate/cluster-config-json.js';
import { compareStrings } from '../common/compare-strings.js';
import {
  ARGOCD_CLUSTER_SECRET_TYPE,
  ARGOCD_SECRET_TYPE_LABEL,
  labelKeys,
  type LabelKeys,
} from '../config/label-keys.js';
import { registrationName } from '../translate/registration.js';
import { ownerOf } from '../plan/host-identity.js';
import { actionTarget } from '../plan/action-target.js';
import { normaliseServer } from '../common/server-address.js';
import { urlDisplay } from './sensitive-display.js';
import type {
  ChildProbe,
  Config,
  CredentialKind,
  ObservedSecret,
  OutcomeState,
  PauseReason,
  Plan,
  Snapshot,
  Timestamp,
} from '../common/types.js';
import {
  clusterSourceKey,
  describeSource,
  recordedSourceKey,
  sourceNoun,
  parseSourceKey,
} from '../config/sources.js';

/** Bumped when a field changes meaning or goes away (adding one is compatible). */
export const STATUS_FORMAT_VERSION = '1';

/**
 * A managed namespace's outcome state, or what holds a registration that no managed
 * namespace is served by: `demoted` (renamed away), `source-gone` (its namespace is proven
 * gone), `pinned` (kept as it is: prune veto, source unknown or no longer managed), or
 * `foreign`: a cluster Secret we do not own that blocks a namespace's name or server.
 */
export type StatusState = OutcomeState | 'demoted' | 'source-gone' | 'pinned' | 'foreign';

// A Record, so a new state fails to compile until it is listed here.
const STATE_SET: Readonly<Record<StatusState, true>> = {
  registered: true,
  unchanged: true,
  waiting: true,
  refused: true,
  stale: true,
  skipped: true,
  drained: true,
  demoted: true,
  'source-gone': true,
  pinned: true,
  foreign: true,
};

/** Every status state, sorted: what `--state` accepts and the JSON summary counts. */
export const STATUS_STATES: readonly StatusState[] = (Object.keys(STATE_SET) as StatusState[]).sort(
  compareStrings,
);

export interface StatusRow {
  /** `namespace`: a managed source's row (a namespace, or a Cluster with `sourceCluster`). */
  readonly kind: 'namespace' | 'registration' | 'foreign';
  /** The source namespace, or the Cluster's (for a registration: the one it records). */
  readonly namespace?: string;
  /** The Cluster API Cluster that is the source (Cluster sources only). */
  readonly sourceCluster?: string;
  readonly cluster?: string;
  readonly state: StatusState;
  readonly reason?: { readonly code: string; readonly message: string };
  /** The registration Secret in the target namespace, when one exists. */
  readonly secret?: string;
  readonly server?: string;
  readonly credential?: CredentialKind;
  /** Client certificate expiry; never set for exec forms. */
  readonly credentialNotAfter?: Timestamp;
  /** `<prefix>credentials-updated-at`, else the Secret's creation. */
  readonly lastWrite?: Timestamp;
  /** What the next pass writes for this row: `update (credentials-changed)`. */
  readonly next?: string;
  /** Why ArgoCD is told to skip this cluster (skip-reconcile), while it is. */
  readonly paused?: PauseReason;
  /** What the probes of its child found (`--probe-children`): version and reachability. */
  readonly probe?: ChildProbe;
  /** Its ClusterProfile (`--cluster-profiles`), when it has or should have one. */
  readonly profile?: RowProfile;
}

/** A row's ClusterProfile (`--cluster-profiles`; present/profile-status.ts). */
export interface RowProfile {
  readonly state: 'published' | 'pending' | 'not-published';
  /** `<inventory namespace>/<name>`. */
  readonly name: string;
  /** What the next pass writes (`pending`): create, update, status or delete. */
  readonly next?: string;
  /** Why it is not published (`not-published`). */
  readonly why?: string;
}

/** States that make `status` exit non-zero: a managed namespace ArgoCD does not serve right. */
export const FAILING_STATES: ReadonlySet<StatusState> = new Set(['refused', 'stale']);

export function statusRows(plan: Plan, snapshot: Snapshot, config: Config): StatusRow[] {
  const keys = labelKeys(config.labelPrefix);
  const inTarget = snapshot.clusterSecrets.filter((s) => s.namespace === config.targetNamespace);
  const byName = new Map(inTarget.map((secret) => [secret.name, secret]));
  const owned = (secret: ObservedSecret): boolean =>
    ownerOf(config, keys, secret.labels) === 'ours';
  const nextFor = (name: string): string | undefined => {
    const action = plan.actions.find((a) => actionTarget(a).name === name);
    return action === undefined ? undefined : `${action.kind} (${action.reason.code})`;
  };

  const rows: StatusRow[] = [];
  const served = new Set<string>();
  for (const outcome of plan.outcomes) {
    const name = outcome.cluster === undefined ? undefined : registrationName(outcome.cluster);
    const existing = name === undefined ? undefined : byName.get(name);
    const ours =
      existing !== undefined &&
      owned(existing) &&
      recordedSourceKey(existing.labels, keys) === outcome.namespace;
    if (ours && name !== undefined) served.add(name);
    const planned = name === undefined ? undefined : plannedSecret(plan, name);
    const shown = ours ? existing : undefined;
    const data = planned?.data ?? shown?.data;
    const credential = outcome.credential ?? credentialOf(data);
    const reason = outcome.reason;
    rows.push({
      kind: 'namespace',
      ...sourceFields(outcome.namespace),
      ...optional('cluster', outcome.cluster),
      state: outcome.state,
      ...optional('reason', reason && { code: reason.code, message: reason.message }),
      ...optional('secret', shown === undefined && planned === undefined ? undefined : name),
      ...optional('server', serverOf(data)),
      ...optional('credential', credential),
      ...(credential === 'exec' || credential === 'secret-reference'
        ? {}
        : optional('credentialNotAfter', outcome.credentialNotAfter)),
      ...optional('lastWrite', shown === undefined ? undefined : lastWrite(shown, keys)),
      ...optional('next', name === undefined ? undefined : nextFor(name)),
      ...optional('paused', outcome.paused),
      ...optional('probe', outcome.probe),
    });
  }

  for (const secret of inTarget) {
    if (!owned(secret)) {
      const row = foreignRow(plan, secret);
      if (row !== undefined) rows.push(row);
    } else if (!served.has(secret.name)) {
      rows.push(registrationRow(plan, snapshot, secret, keys, nextFor(secret.name)));
    }
  }
  return rows.sort(compareRows);
}

function registrationRow(
  plan: Plan,
  snapshot: Snapshot,
  secret: ObservedSecret,
  keys: LabelKeys,
  next: string | undefined,
): StatusRow {
  // Its source key; labels that record none still name the namespace they do.
  const source = recordedSourceKey(secret.labels, keys) ?? secret.labels[keys.sourceNamespace];
  const action = plan.actions.find((a) => actionTarget(a).name === secret.name);
  const warning = plan.warnings.find((w) => w.secret === secret.name);
  const active = secret.labels[ARGOCD_SECRET_TYPE_LABEL] === ARGOCD_CLUSTER_SECRET_TYPE;
  const lookup = source === undefined ? undefined : snapshot.sourceLookups[source];
  // Labels that record no source key are read as a namespace's, as they always were.
  const noun = source === undefined ? 'namespace' : sourceNoun(source);
  let state: StatusState;
  let reason: { code: string; message: string };
  if (!active || action?.kind === 'demote') {
    state = 'demoted';
    const by = secret.labels[keys.supersededBy];
    const since = secret.annotations[keys.staleSince];
    reason = {
      code: 'renamed',
      message: active
        ? `${describeSource(source ?? '?')} now claims another name; this one is demoted once that is registered`
        : `demoted${by === undefined ? '' : ` for ${by}`}${since === undefined ? '' : ` since ${since}`}; ArgoCD no longer sees it, and relabelling the ${noun} back restores it`,
    };
  } else if (action?.kind === 'delete' || lookup?.state === 'notFound') {
    state = secret.labels[keys.prune] === 'disabled' ? 'pinned' : 'source-gone';
    reason = {
      code:
        action?.kind === 'delete'
          ? action.reason.code
          : noun === 'Cluster'
            ? 'source-cluster-not-found'
            : 'source-namespace-not-found',
      message: warning?.message ?? `source ${describeSource(source ?? '?')} is gone`,
    };
  } else {
    state = 'pinned';
    reason = {
      code: warning?.code ?? 'kept',
      message:
        warning?.message ??
        `kept as it is: source ${describeSource(source ?? '?')} is not managed, so nothing proves it may go`,
    };
  }
  return {
    kind: 'registration',
    ...(source === undefined ? {} : sourceFields(source)),
    ...optional('cluster', secret.labels[keys.cluster]),
    state,
    reason,
    secret: secret.name,
    ...optional('server', serverOf(secret.data)),
    ...optional('credential', credentialOf(secret.data)),
    ...optional('lastWrite', lastWrite(secret, keys)),
    ...optional('next', next),
  };
}

/** A foreign cluster Secret, when a refused namespace's reason has it as its blocker. */
function foreignRow(plan: Plan, secret: ObservedSecret): StatusRow | undefined {
  const blocked = plan.outcomes.filter((outcome) => {
    const blocker =
      outcome.state === 'refused' && outcome.reason !== undefined && 'blocker' in outcome.reason
        ? outcome.reason.blocker
        : undefined;
    return blocker?.namespace === secret.namespace && blocker.name === secret.name;
  });
  if (blocked.length === 0) return undefined;
  // Namespaces by bare name, as always; a Cluster among them names each source's kind.
  const keys = blocked.map((outcome) => outcome.namespace);
  const what = keys.some((key) => sourceNoun(key) === 'Cluster')
    ? keys.map(describeSource).join(', ')
    : `namespace${blocked.length === 1 ? '' : 's'} ${keys.join(', ')}`;
  return {
    kind: 'foreign',
    ...optional('cluster', decodeBase64Text(secret.data['name'] ?? '')),
    state: 'foreign',
    reason: {
      code: 'blocks',
      message: `not managed by this registrar; blocks ${what} (its name or server is taken)`,
    },
    secret: secret.name,
    ...optional('server', serverOf(secret.data)),
  };
}

type SecretData = ObservedSecret['data'];

function plannedSecret(plan: Plan, name: string): { data: SecretData } | undefined {
  for (const action of plan.actions) {
    if (
      (action.kind === 'create' || action.kind === 'update') &&
      actionTarget(action).name === name
    )
      return action.secret;
  }
  return undefined;
}

function serverOf(data: SecretData | undefined): string | undefined {
  const text = data === undefined ? undefined : decodeBase64Text(data['server'] ?? '');
  // A Secret the registrar did not write may carry a credential in the URL's user-info.
  return text === undefined || text === '' ? undefined : urlDisplay(normaliseServer(text));
}

/** The credential form a registration's `config` carries. */
export function credentialOf(data: SecretData | undefined): CredentialKind | undefined {
  const config = readConfig(data?.['config']);
  if (config === undefined) return undefined;
  const exec = config['execProviderConfig'];
  if (isObject(exec) && isObject(exec['config']) && exec['provideClusterInfo'] === true)
    return 'secret-reference';
  if (isObject(config['awsAuthConfig']) || isObject(exec)) return 'exec';
  if (typeof tlsOf(config)['certData'] === 'string') return 'client-certificate';
  if (typeof config['bearerToken'] === 'string') return 'bearer-token';
  if (typeof config['username'] === 'string') return 'basic-auth';
  return undefined;
}

function lastWrite(secret: ObservedSecret, keys: LabelKeys): Timestamp | undefined {
  return secret.annotations[keys.credentialsUpdatedAt] ?? secret.creationTimestamp;
}

/** A row's `namespace` (and `sourceCluster`) from a source key. */
function sourceFields(key: string): { namespace: string; sourceCluster?: string } {
  const ref = parseSourceKey(key);
  return ref.kind === 'Cluster'
    ? { namespace: ref.namespace, sourceCluster: ref.name }
    : { namespace: ref.name };
}

/** The source key a row is about (`<namespace>` or `<namespace>/<cluster>`), if any. */
export function statusRowSource(row: StatusRow): string | undefined {
  if (row.namespace === undefined) return undefined;
  return row.sourceCluster === undefined
    ? row.namespace
    : clusterSourceKey(row.namespace, row.sourceCluster);
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

const KIND_ORDER = { namespace: 0, registration: 1, foreign: 2 } as const;

function compareRows(a: StatusRow, b: StatusRow): number {
  return (
    KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
    compareStrings(a.namespace ?? '', b.namespace ?? '') ||
    compareStrings(a.sourceCluster ?? '', b.sourceCluster ?? '') ||
    compareStrings(a.secret ?? '', b.secret ?? '')
  );
}
