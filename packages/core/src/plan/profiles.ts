// planProfiles: the ClusterProfiles of a pass, decided after the registrations and from them.
// A source has a profile exactly when the plan registers it (`registered` or `unchanged`),
// named for its cluster and saying what its registration says, never a credential
// (profile-desired.ts). As for registrations:
// - a profile of a wanted name that is not ours (isOurs) is left alone and the name reported
//   contested;
// - a write only when labels, spec or status differ; a condition keeps its
//   `lastTransitionTime` while its status holds;
// - deletion only on the plan's own proof: it deletes or demotes the cluster's registration,
//   or (none left) the source the profile records is not found or was re-created. A failed or
//   incomplete read of profiles deletes nothing. Consumers delete their own objects.

import type {
  Action,
  Config,
  DesiredProfile,
  ObservedProfile,
  ObservedProfileStatus,
  ObservedSecret,
  ProfileAction,
  ProfileCondition,
  ProfileDeleteReason,
  ProfileNotice,
  ProfilePlan,
  ProfileSettings,
  ProfileStatus,
  Snapshot,
} from '../common/types.js';
import { compareStrings } from '../common/compare-strings.js';
import {
  ARGOCD_SECRET_TYPE_LABEL,
  hasPrefix,
  labelKeys,
  type LabelKeys,
} from '../config/label-keys.js';
import { isClusterKey, recordedSourceKey } from '../config/sources.js';
import { isDnsSubdomain, registrationName } from '../translate/registration.js';
import {
  CLUSTER_MANAGER_LABEL,
  desiredProfile,
  memberId,
  type ProfileInput,
  type Written,
} from './profile-desired.js';
import { observedRef } from './secret-fields.js';

export type { ProfileInput } from './profile-desired.js';
export {
  CLUSTER_MANAGER_LABEL,
  INVENTORY_MEMBER_ID_LABEL,
  SECRETREADER_PROVIDER,
} from './profile-desired.js';

export function planProfiles(input: ProfileInput): ProfilePlan {
  const { settings, profiles } = input;
  const keys = labelKeys(input.config.labelPrefix);
  const observed = new Map(profiles.profiles.map((p) => [p.name, p]));
  const actions: ProfileAction[] = [];
  const notices: ProfileNotice[] = [];
  const wanted = new Set<string>();
  const registrations = registrationsByName(input);
  const digest = profiles.digest ?? ((text: string) => text);
  const maxWrites = input.maxWrites ?? Number.POSITIVE_INFINITY;
  let deferred = 0;
  let published = 0;

  for (const outcome of input.plan.outcomes) {
    const cluster = outcome.cluster;
    if (cluster === undefined) continue;
    if (outcome.state !== 'registered' && outcome.state !== 'unchanged') continue;
    const registration = registrations.get(registrationName(cluster));
    // A source whose label claims a name its registration does not carry (a terminating
    // namespace keeps its old one) publishes nothing: that name is another source's.
    if (registration === undefined) continue;
    if (recordedSourceKey(registration.labels, keys) !== outcome.namespace) continue;
    wanted.add(cluster);
    if (!isDnsSubdomain(cluster)) {
      notices.push({
        cluster,
        source: outcome.namespace,
        code: 'profile-name-invalid',
        message: `no ClusterProfile for cluster ${cluster}: its name is not a valid object name (a DNS-1123 subdomain)`,
      });
      continue;
    }
    const existing = observed.get(cluster);
    const ours = existing !== undefined && isOurs(existing, settings, input.config, keys);
    if (ours) published += 1;
    if (input.deletionsOnly === true) continue;
    if (existing !== undefined && !ours) {
      notices.push({
        cluster,
        source: outcome.namespace,
        code: 'profile-name-foreign',
        message: `ClusterProfile ${settings.namespace}/${cluster} belongs to ${managerOf(existing)}, not to ${settings.manager}: it is left as it is and cluster ${cluster} is not published; rename the cluster or remove that profile`,
      });
      continue;
    }
    // Only writes are in `actions` yet. Past the limit, a profile still to be created is only
    // counted: its desired form is what the limit keeps from being held.
    const full = actions.length >= maxWrites;
    if (full && existing === undefined) {
      deferred += 1;
      continue;
    }
    const desired = desiredProfile(input, keys, outcome, cluster, registration, existing);
    const action = writeFor(cluster, outcome.namespace, desired, existing, keys, digest);
    if (action === undefined) continue;
    if (full) deferred += 1;
    else actions.push(action);
  }

  const deletions = deletionProofs(input.plan.actions);
  for (const profile of profiles.profiles) {
    if (wanted.has(profile.name) || !isOurs(profile, settings, input.config, keys)) continue;
    const reason =
      deletions.get(profile.name) ?? sourceGone(input.snapshot, profile, keys, registrations);
    if (reason === undefined) continue;
    if (profiles.unread !== undefined) {
      notices.push({
        cluster: profile.name,
        code: 'profiles-unread',
        message: `ClusterProfile ${profile.namespace}/${profile.name} is kept for now: the profiles could not be read completely (${profiles.unread})`,
      });
      continue;
    }
    actions.push({ kind: 'delete', cluster: profile.name, target: observedRef(profile), reason });
  }

  actions.sort((a, b) => compareStrings(a.cluster, b.cluster) || compareStrings(a.kind, b.kind));
  notices.sort((a, b) => compareStrings(a.cluster, b.cluster) || compareStrings(a.code, b.code));
  return {
    namespace: settings.namespace,
    apiVersion: profiles.apiVersion,
    actions,
    published,
    deferred,
    notices,
  };
}

/** Ours: the standard label, the spec and our managed-by label all name us. */
export function isOurs(
  profile: ObservedProfile,
  settings: ProfileSettings,
  config: Config,
  keys: LabelKeys = labelKeys(config.labelPrefix),
): boolean {
  return (
    profile.labels[CLUSTER_MANAGER_LABEL] === settings.manager &&
    profile.spec.clusterManager?.name === settings.manager &&
    profile.labels[keys.managedBy] === config.managedBy
  );
}

function managerOf(profile: ObservedProfile): string {
  const name = profile.spec.clusterManager?.name ?? profile.labels[CLUSTER_MANAGER_LABEL];
  return name === undefined ? 'no cluster manager' : `cluster manager ${JSON.stringify(name)}`;
}

/** The registration each cluster has this pass: the plan's write, else the one observed. */
function registrationsByName(input: ProfileInput): Map<string, ObservedSecret | Written> {
  const written = input.plan.actions.flatMap((action) =>
    action.kind === 'create' || action.kind === 'update' ? [action.secret] : [],
  );
  const secrets: (ObservedSecret | Written)[] = [...input.snapshot.clusterSecrets, ...written];
  return new Map(secrets.map((secret) => [secret.name, secret]));
}

/** A create, a metadata/spec update, a status write, or nothing when all is as wanted. */
function writeFor(
  cluster: string,
  source: string,
  desired: DesiredProfile,
  existing: ObservedProfile | undefined,
  keys: LabelKeys,
  digest: (text: string) => string,
): ProfileAction | undefined {
  if (existing === undefined) return { kind: 'create', cluster, source, profile: desired };
  const changed: string[] = [];
  const removeLabels = Object.keys(existing.labels)
    .filter(
      (key) => hasPrefix(keys, key) && key !== keys.prune && desired.labels[key] === undefined,
    )
    .sort(compareStrings);
  const labelsDiffer =
    removeLabels.length > 0 ||
    Object.entries(desired.labels).some(([key, value]) => existing.labels[key] !== value);
  if (labelsDiffer) changed.push('metadata.labels');
  if (existing.spec.displayName !== desired.spec.displayName) changed.push('spec.displayName');
  const statusDiffers = !sameStatus(existing.status, desired.status, digest);
  if (changed.length === 0) {
    return statusDiffers
      ? { kind: 'status', cluster, source, target: observedRef(existing), profile: desired }
      : undefined;
  }
  if (statusDiffers) changed.push('status');
  return {
    kind: 'update',
    cluster,
    source,
    target: observedRef(existing),
    profile: desired,
    removeLabels,
    changed,
  };
}

/**
 * Compared as the API server returns it: absent lists and empty ones are the same. The
 * conditions as they are, the rest by its digest (ObservedProfileStatus).
 */
function sameStatus(
  observed: ObservedProfileStatus | undefined,
  desired: ProfileStatus,
  digest: (text: string) => string,
): boolean {
  const conditions = (list: readonly ProfileCondition[] | undefined): string =>
    canonical(
      (list ?? []).map((c) => ({
        type: c.type,
        status: c.status,
        reason: c.reason,
        message: c.message,
        lastTransitionTime: c.lastTransitionTime,
      })),
    );
  return (
    conditions(observed?.conditions) === conditions(desired.conditions) &&
    (observed?.digest ?? digest(profileStatusText(undefined))) ===
      digest(profileStatusText(desired))
  );
}

/**
 * A status's version, properties and access providers as one canonical text: what an
 * observed status keeps (as its digest) and a desired one is compared by.
 */
export function profileStatusText(status: ProfileStatus | undefined): string {
  return canonical({
    version: status?.version?.kubernetes ?? '',
    properties: (status?.properties ?? []).map((p) => ({ name: p.name, value: p.value })),
    accessProviders: status?.accessProviders ?? [],
  });
}

/** JSON with object keys sorted, so key order never counts as a change. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => compareStrings(a, b)),
        )
      : inner,
  );
}

/** The plan's own proofs, by cluster: its deletions and its demotions (renames). */
function deletionProofs(actions: readonly Action[]): Map<string, ProfileDeleteReason> {
  const proofs = new Map<string, ProfileDeleteReason>();
  for (const action of actions) {
    if (action.kind === 'delete') {
      proofs.set(action.cluster, {
        code: 'registration-deleted',
        source: action.reason.namespace,
        proof: action.reason.code,
      });
    } else if (action.kind === 'demote') {
      proofs.set(action.cluster, {
        code: 'renamed',
        source: action.reason.namespace,
        supersededBy: action.reason.supersededBy,
      });
    }
  }
  return proofs;
}

/**
 * With no active registration of its name left (deleted on proof in an earlier pass, or
 * demoted), the profile's recorded source is looked at as a registration's is: gone when it
 * is not found or was re-created (another uid). Anything less keeps it.
 */
function sourceGone(
  snapshot: Snapshot,
  profile: ObservedProfile,
  keys: LabelKeys,
  registrations: ReadonlyMap<string, ObservedSecret | Written>,
): ProfileDeleteReason | undefined {
  const registration = registrations.get(registrationName(profile.name));
  const demoted =
    registration !== undefined && registration.labels[ARGOCD_SECRET_TYPE_LABEL] === undefined;
  if (registration !== undefined && !demoted) return undefined;
  const source = recordedSourceKey(profile.labels, keys);
  const uid = memberId(profile.labels, keys);
  if (source === undefined || uid === undefined) return undefined;
  const recreated = (observedUid: string): ProfileDeleteReason => ({
    code: 'source-gone',
    source,
    proof: `${source} was re-created (uid ${observedUid})`,
  });
  const managed = isClusterKey(source)
    ? snapshot.clusters?.find((c) => `${c.namespace}/${c.name}` === source)
    : snapshot.namespaces.find((n) => n.name === source);
  if (managed !== undefined) {
    if (managed.uid !== uid) return recreated(managed.uid);
    // Alive and managed: a demoted registration means it was renamed away from this name.
    return demoted
      ? { code: 'renamed', source, supersededBy: registration.labels[keys.supersededBy] ?? '' }
      : undefined;
  }
  const lookup = Object.hasOwn(snapshot.sourceLookups, source)
    ? snapshot.sourceLookups[source]
    : undefined;
  if (lookup?.state === 'notFound') return { code: 'source-gone', source, proof: 'not found' };
  if (lookup?.state === 'present' && lookup.uid !== uid) return recreated(lookup.uid);
  return undefined;
}
