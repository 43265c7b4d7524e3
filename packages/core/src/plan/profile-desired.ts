// What a ClusterProfile says for a registered source (planProfiles decides whether it gets
// one): its labels, spec and status, read off the registration and the source, never a
// credential; consumers reach the child through the kubeconfig-secretreader plugin.

import type {
  Action,
  Config,
  DesiredProfile,
  Labels,
  NamespaceOutcome,
  ObservedProfile,
  ObservedSecret,
  Plan,
  ProfileAccessProvider,
  ProfileCondition,
  ProfileSettings,
  ProfileSnapshot,
  ProfileStatus,
  Snapshot,
} from '../common/types.js';
import { compareStrings } from '../common/compare-strings.js';
import { hasPrefix, type LabelKeys } from '../config/label-keys.js';
import { formatTimestamp } from '../translate/registration.js';
import { readConfig, tlsOf } from '../translate/cluster-config-json.js';
import { readData } from './secret-fields.js';

/** The inventory's standard labels (sigs.k8s.io/cluster-inventory-api, apis/v1alpha1). */
export const CLUSTER_MANAGER_LABEL = 'x-k8s.io/cluster-manager';
export const INVENTORY_MEMBER_ID_LABEL = 'multicluster.x-k8s.io/inventory-member-id';
/** The access provider consumers name in their provider file. */
export const SECRETREADER_PROVIDER = 'kubeconfig-secretreader';
/** The reserved cluster extension whose value reaches the exec plugin as its config. */
const EXEC_EXTENSION = 'client.authentication.k8s.io/exec';
const CONTROL_PLANE_HEALTHY = 'ControlPlaneHealthy';

/** What the plugin can read from a kubeconfig: inline credentials only (its README). */
// A registration by reference (reference mode) exists only for a kubeconfig the plugin reads.
const PLUGIN_READABLE = new Set(['client-certificate', 'bearer-token', 'secret-reference']);

export interface ProfileInput {
  readonly snapshot: Snapshot;
  readonly plan: Plan;
  readonly profiles: ProfileSnapshot;
  readonly settings: ProfileSettings;
  readonly config: Config;
  /** Epoch ms: the `lastTransitionTime` of a condition that changes now. */
  readonly now: number;
  /**
   * Plan only the deletions (whose proof is this plan's): the caller publishes on a later
   * pass, once the registrations this plan writes are read back.
   */
  readonly deletionsOnly?: boolean;
  /**
   * At most this many creates, updates and status writes (deletions are not counted): the
   * rest wait for a later pass (`ProfilePlan.deferred`), so a daemon publishing 10,000
   * profiles holds a batch of them at a time, not all.
   */
  readonly maxWrites?: number;
}

export type Written = Extract<Action, { kind: 'create' | 'update' }>['secret'];

export function desiredProfile(
  input: ProfileInput,
  keys: LabelKeys,
  outcome: NamespaceOutcome,
  cluster: string,
  registration: ObservedSecret | Written,
  existing: ObservedProfile | undefined,
): DesiredProfile {
  const { settings } = input;
  const labels: Record<string, string> = {};
  for (const key in registration.labels) {
    const value = registration.labels[key];
    if (value === undefined || !hasPrefix(keys, key)) continue;
    // People's vetoes and a demotion's marks are the registration's, not the cluster's.
    if (key === keys.prune || key === keys.orphanedSecretType || key === keys.supersededBy)
      continue;
    labels[key] = value;
  }
  labels[CLUSTER_MANAGER_LABEL] = settings.manager;
  const member = memberId(registration.labels, keys);
  if (member !== undefined) labels[INVENTORY_MEMBER_ID_LABEL] = member;

  const version = input.snapshot.children?.[outcome.namespace]?.version;
  const status: ProfileStatus = {
    conditions: conditions(input, outcome, existing),
    ...(version === undefined ? {} : { version: { kubernetes: version } }),
    // In name order.
    properties: [
      { name: `${keys.prefix}provider`, value: registration.labels[keys.provider] ?? 'unknown' },
      { name: `${keys.prefix}source`, value: outcome.namespace },
    ],
    ...accessProvidersOf(registration, outcome),
  };
  return {
    namespace: settings.namespace,
    name: cluster,
    labels,
    spec: { displayName: cluster, clusterManager: { name: settings.manager } },
    status,
  };
}

/** The source's uid (a namespace's, or a Cluster's): stable across renames, new when re-created. */
export function memberId(labels: Labels, keys: LabelKeys): string | undefined {
  return labels[keys.sourceClusterUid] ?? labels[keys.sourceNamespaceUid];
}

/**
 * `ControlPlaneHealthy` from the child probe: True when the last probe answered, False when
 * it failed, Unknown when children are not probed (or not yet). Others' conditions are kept.
 */
function conditions(
  input: ProfileInput,
  outcome: NamespaceOutcome,
  existing: ObservedProfile | undefined,
): ProfileCondition[] {
  const health = healthOf(input, outcome);
  const observed = existing?.status?.conditions ?? [];
  const before = observed.find((c) => c.type === CONTROL_PLANE_HEALTHY);
  const lastTransitionTime =
    before?.status === health.status ? before.lastTransitionTime : formatTimestamp(input.now);
  const others = observed.filter((c) => c.type !== CONTROL_PLANE_HEALTHY);
  return [...others, { type: CONTROL_PLANE_HEALTHY, ...health, lastTransitionTime }].sort((a, b) =>
    compareStrings(a.type, b.type),
  );
}

function healthOf(
  input: ProfileInput,
  outcome: NamespaceOutcome,
): Pick<ProfileCondition, 'status' | 'reason' | 'message'> {
  if (!input.config.probeChildren) {
    const message = 'the registrar does not probe children (--probe-children is off)';
    return { status: 'Unknown', reason: 'NotProbed', message };
  }
  const probe = input.snapshot.children?.[outcome.namespace];
  if (probe === undefined) {
    const message = 'the child has not been probed yet';
    return { status: 'Unknown', reason: 'NotProbedYet', message };
  }
  const answered = 'the child API server answered /version with the registered credentials';
  if (probe.failures === 0) return { status: 'True', reason: 'VersionAnswered', message: answered };
  const message = `the child API server did not answer /version with the registered credentials: ${probe.error ?? 'no answer'}`;
  return { status: 'False', reason: 'VersionFailed', message: message.slice(0, 1024) };
}

/**
 * The kubeconfig-secretreader entry: the registration's server and TLS settings, and where
 * the plugin reads the kubeconfig (the source's Secret, by name, namespace and key). None for
 * a credential the plugin cannot read (exec, basic auth), so no consumer is sent to fail.
 * Only the connection fields of the registration's config are read, never its credentials.
 */
function accessProvidersOf(
  registration: ObservedSecret | Written,
  outcome: NamespaceOutcome,
): Pick<ProfileStatus, 'accessProviders'> {
  const source = outcome.source;
  if (source === undefined || outcome.credential === undefined) return {};
  if (!PLUGIN_READABLE.has(outcome.credential)) return {};
  const server = readData(registration, 'server');
  const config = readConfig(registration.data['config']);
  if (server === undefined || config === undefined) return {};
  const tls = tlsOf(config);
  const text = (value: unknown): value is string => typeof value === 'string' && value !== '';
  const entry: ProfileAccessProvider = {
    name: SECRETREADER_PROVIDER,
    cluster: {
      server,
      ...(text(tls['caData']) ? { 'certificate-authority-data': tls['caData'] } : {}),
      ...(text(tls['serverName']) ? { 'tls-server-name': tls['serverName'] } : {}),
      ...(tls['insecure'] === true ? { 'insecure-skip-tls-verify': true } : {}),
      ...(text(config['proxyUrl']) ? { 'proxy-url': config['proxyUrl'] } : {}),
      extensions: [
        {
          name: EXEC_EXTENSION,
          extension: { name: source.secret, namespace: source.namespace, key: source.key },
        },
      ],
    },
  };
  return { accessProviders: [entry] };
}
