// Which Secrets of the target namespace are ours (our `<prefix>managed-by` and host identity:
// host-identity.ts), whose registration each one is, and what a claimant may do with it (its
// role). Secrets we do not own are only read for the cluster names and servers they already use.

import { compareStrings } from '../common/compare-strings.js';
import { ARGOCD_CLUSTER_SECRET_TYPE, ARGOCD_SECRET_TYPE_LABEL } from '../config/label-keys.js';
import { CLUSTER_SOURCE_KIND, clusterSourceKey } from '../config/sources.js';
import type { ObservedSecret } from '../common/types.js';
import type { RecordedSource, Registration } from './model.js';
import { otherHostNote, ownerOf } from './host-identity.js';
import { recordForeignName } from './names.js';
import type { PassState } from './pass-state.js';
import { awaitsSuccessor } from './rename.js';
import { readServer } from './secret-fields.js';
import { holdForeignServer, holdRegistrationServer } from './server-ledger.js';
import { sourceStatus } from './source-proof.js';

export function readClusterSecrets(state: PassState): void {
  const { config, keys } = state;
  const secrets = state.snapshot.clusterSecrets
    .filter((secret) => secret.namespace === config.targetNamespace)
    .sort((a, b) => compareStrings(a.name, b.name) || compareStrings(a.uid, b.uid));
  for (const secret of secrets) {
    if (state.targetSecrets.has(secret.name)) continue; // one object per name; the API guarantees it
    const active = secret.labels[ARGOCD_SECRET_TYPE_LABEL] === ARGOCD_CLUSTER_SECRET_TYPE;
    if (ownerOf(config, keys, secret.labels) !== 'ours') {
      state.targetSecrets.set(secret.name, { secret, registration: undefined });
      if (!active) continue;
      recordForeignName(state, secret);
      const server = readServer(secret);
      if (server !== undefined)
        holdForeignServer(state.servers, secret.name, server, otherHostNote(config, keys, secret));
      continue;
    }
    const registration = readRegistration(state, secret, active);
    state.targetSecrets.set(secret.name, { secret, registration });
    state.registrations.push(registration);
    if (registration.source.kind === 'managed' && active)
      registration.source.subject.registrations.push(registration);
  }
  // Whether a renamed namespace's new name is registered is known only once every Secret is read.
  for (const registration of state.registrations) {
    if (awaitsSuccessor(registration)) registration.role = 'moving';
    holdRegistrationServer(state.servers, registration);
  }
}

const unusable = (problem: string): RecordedSource => ({
  name: undefined,
  uid: undefined,
  problem,
});

/**
 * The source a registration records: its namespace, or (`<prefix>source-kind: Cluster`) the
 * Cluster `<source-namespace>/<source-cluster>`; the uid to tell it from a re-created one.
 */
function recordedSource(state: PassState, secret: ObservedSecret): RecordedSource {
  const keys = state.keys;
  const labels = secret.labels;
  const namespace = labels[keys.sourceNamespace];
  const kind = labels[keys.sourceKind];
  if (kind === undefined)
    return { name: namespace, uid: labels[keys.sourceNamespaceUid], problem: undefined };
  if (kind !== CLUSTER_SOURCE_KIND)
    return unusable(
      `its ${keys.sourceKind} label says ${JSON.stringify(kind)}, which is not a kind of source this registrar knows`,
    );
  const cluster = labels[keys.sourceCluster];
  if (namespace === undefined || cluster === undefined)
    return unusable(
      `it records a Cluster source without both ${keys.sourceNamespace} and ${keys.sourceCluster} labels`,
    );
  return {
    name: clusterSourceKey(namespace, cluster),
    uid: labels[keys.sourceClusterUid],
    problem: undefined,
  };
}

function readRegistration(state: PassState, secret: ObservedSecret, active: boolean): Registration {
  const keys = state.keys;
  const recorded = recordedSource(state, secret);
  const source = sourceStatus(state, secret, recorded);
  const pruneDisabled = secret.labels[keys.prune] === 'disabled';
  const cluster =
    secret.labels[keys.cluster] ??
    (secret.name.startsWith('cluster-') ? secret.name.slice('cluster-'.length) : secret.name);
  let role: Registration['role'] = 'pinned';
  if (source.kind === 'managed') {
    const subject = source.subject;
    if (subject.terminating || subject.nameProblem !== undefined || subject.cluster === undefined)
      role = 'pinned';
    else if (subject.secretName === secret.name) role = 'incumbent';
    else role = pruneDisabled ? 'pinned' : 'releasable';
  } else if (source.kind === 'gone' || !active) {
    role = pruneDisabled ? 'pinned' : 'releasable';
  }
  return {
    secret,
    cluster,
    sourceName: recorded.name,
    active,
    pruneDisabled,
    source,
    role,
    server: readServer(secret),
  };
}
