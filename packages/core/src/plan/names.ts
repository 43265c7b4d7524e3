// Which cluster name a namespace asks for, and whether it may ask for it at all: the label
// must be present, non-empty and give a valid Secret name, the name must not be one ArgoCD
// reserves (`in-cluster`), and it must not already be an ArgoCD cluster name of a Secret we do
// not manage (ArgoCD cannot tell two apart).

import { compareStrings } from '../common/compare-strings.js';
import { ARGOCD_IN_CLUSTER_NAME } from '../config/label-keys.js';
import { isDnsSubdomain, registrationName } from '../translate/registration.js';
import { LABEL_VALUE_FORM } from '../config/forms.js';
import { formProblem } from '../config/form-checks.js';
import {
  claimedClusterName,
  clusterLabelIgnored,
  clusterSourceKey,
  describeSource,
  sourceNoun,
  type SourceKey,
} from '../config/sources.js';
import type { ObservedSecret, Refusal, SourceCluster, Warning } from '../common/types.js';
import type { OutcomeReason, Source, Subject, SubjectBasis, TargetSecret } from './model.js';
import { candidatesBySource, chooseKubeconfig } from './kubeconfig-choice.js';
import { otherHostNote } from './host-identity.js';
import { targetClusterName } from '../config/targets.js';
import type { PassState } from './pass-state.js';
import { readData } from './secret-fields.js';

/**
 * One subject per managed source, by source key (a second object of one key is ignored):
 * the managed namespaces and the managed Clusters (see sources.ts). A managed namespace that
 * also holds managed Clusters is refused, and so are those Clusters: which one is meant is
 * not ours to guess.
 */
export function readNamespaces(state: PassState): void {
  const clusters = state.snapshot.clusters ?? [];
  const sources: Source[] = [...state.snapshot.namespaces, ...clusters.map(clusterSource)];
  sources.sort((a, b) => compareStrings(a.name, b.name) || compareStrings(a.uid, b.uid));
  const conflicts = conflictingNamespaces(state, clusters);
  // Why each namespace's Secrets could not be listed: the first reason given for it.
  const unread = new Map<string, string>();
  for (const { name, reason } of state.snapshot.unreadNamespaces ?? [])
    if (!unread.has(name)) unread.set(name, reason);
  const read = new Map<string, SubjectBasis>();
  for (const namespace of sources) {
    if (read.has(namespace.name)) continue; // one object per name; the API guarantees it
    const warnings: Warning[] = [];
    const cluster = clusterNameOf(state, namespace, warnings);
    const conflict = conflictProblem(state, namespace, conflicts);
    const nameProblem = conflict ?? nameProblemOf(state, namespace, cluster, warnings);
    // One warning a source: the first thing its labels get wrong.
    const warning = warnings[0];
    if (warning !== undefined && conflict === undefined) state.warnings.push(warning);
    read.set(namespace.name, {
      source: namespace,
      cluster,
      secretName:
        cluster === undefined || nameProblem !== undefined ? undefined : registrationName(cluster),
      nameProblem,
      terminating: namespace.deletionTimestamp !== undefined,
      // A Cluster reads its kubeconfig from its namespace's Secrets.
      unread: unread.get(namespace.capi?.namespace ?? namespace.name),
    });
  }
  const candidates = candidatesBySource(state, read);
  for (const basis of read.values()) {
    const subject: Subject = {
      ...basis,
      selection: chooseKubeconfig(state, basis, candidates.get(basis.source.name) ?? []),
      registrations: [],
    };
    state.sources.set(subject.source.name, subject);
    state.subjects.push(subject);
  }
}

/** A Cluster as a source keyed `<namespace>/<name>`. */
function clusterSource(cluster: SourceCluster): Source {
  return {
    name: clusterSourceKey(cluster.namespace, cluster.name),
    uid: cluster.uid,
    ...(cluster.resourceVersion === undefined ? {} : { resourceVersion: cluster.resourceVersion }),
    labels: cluster.labels,
    annotations: cluster.annotations,
    creationTimestamp: cluster.creationTimestamp,
    ...(cluster.deletionTimestamp === undefined
      ? {}
      : { deletionTimestamp: cluster.deletionTimestamp }),
    capi: { namespace: cluster.namespace, name: cluster.name },
  };
}

/** Managed namespaces that also hold managed Clusters → the names of those Clusters. */
function conflictingNamespaces(
  state: PassState,
  clusters: readonly SourceCluster[],
): Map<string, string[]> {
  const conflicts = new Map<string, string[]>();
  if (clusters.length === 0) return conflicts;
  const managed = new Set(state.snapshot.namespaces.map((namespace) => namespace.name));
  for (const cluster of clusters) {
    if (!managed.has(cluster.namespace)) continue;
    const names = conflicts.get(cluster.namespace);
    if (names === undefined) conflicts.set(cluster.namespace, [cluster.name]);
    else names.push(cluster.name);
  }
  return conflicts;
}

function conflictProblem(
  state: PassState,
  source: Source,
  conflicts: ReadonlyMap<string, readonly string[]>,
): OutcomeReason | undefined {
  const namespace = source.capi?.namespace ?? source.name;
  const clusters = conflicts.get(namespace);
  if (clusters === undefined) return undefined;
  const selector = `${state.keys.managedBy}=${state.config.managedBy}`;
  const list = [...clusters].sort(compareStrings).join(', ');
  const both = `namespace ${namespace} carries ${selector} and also holds Clusters that carry it (${list}), so it is not clear whether the namespace or its Clusters are the clusters to register; remove the label from the namespace to register its Clusters, or from the Clusters to register the namespace`;
  return {
    code: 'source-conflict',
    message: source.capi === undefined ? both : `Cluster ${source.name} is not registered: ${both}`,
  };
}

/**
 * A namespace's cluster name is its `<prefix>cluster` label. A Cluster without one registers
 * under its own name (or `<namespace>.<name>`): CAPI already gives every Cluster a name,
 * unlike a namespace. A label the configuration ignores is said, never silently dropped.
 */
function clusterNameOf(state: PassState, source: Source, warnings: Warning[]): string | undefined {
  const { config, keys } = state;
  const capi = source.capi;
  const ref: SourceKey =
    capi === undefined ? { kind: 'Namespace', name: source.name } : { kind: 'Cluster', ...capi };
  const cluster = targetClusterName(
    config,
    claimedClusterName(ref, source.labels, keys.cluster, config),
  );
  const label = source.labels[keys.cluster];
  if (label !== undefined && label !== cluster && clusterLabelIgnored(ref, config)) {
    warnings.push({
      code: 'cluster-label-ignored',
      namespace: source.name,
      message: `${describeSource(source.name)} carries ${keys.cluster}=${label}, which is ignored: with \`--capi-cluster-names namespace-name\` a Cluster registers as <namespace>.<name> (${cluster ?? ''}) unless \`--capi-cluster-name-label\` (chart value \`capiClusterNameLabel: true\`) lets the label choose its name`,
    });
  }
  return cluster;
}

const invalid = (message: string): OutcomeReason => ({ code: 'name-invalid', message });

function nameProblemOf(
  state: PassState,
  namespace: Source,
  cluster: string | undefined,
  warnings: Warning[],
): OutcomeReason | undefined {
  const key = state.keys.cluster;
  if (cluster === undefined) {
    const message = `namespace ${namespace.name} carries ${state.keys.managedBy}=${state.config.managedBy} but no ${key} label; add ${key}=<name> to register it`;
    warnings.push({ code: 'cluster-label-missing', namespace: namespace.name, message });
    return { code: 'cluster-label-missing', message };
  }
  if (cluster === '') {
    return {
      code: 'name-missing',
      message: `label ${key} on ${describeSource(namespace.name)} is empty; set it to the cluster name ArgoCD should show`,
    };
  }
  // The registration records the Cluster's name in a label, so it must be a label value.
  const capi = namespace.capi;
  if (capi !== undefined && formProblem(LABEL_VALUE_FORM, capi.name) !== undefined)
    return invalid(
      `Cluster ${namespace.name} has a name longer than 63 characters, which a registration cannot record in its ${state.keys.sourceCluster} label; it cannot be registered`,
    );
  // The registration records the name in its `<prefix>cluster` label: a label's or a short
  // Cluster name always fits, `<namespace>.<name>` may not.
  if (capi !== undefined && formProblem(LABEL_VALUE_FORM, cluster) !== undefined)
    return invalid(
      `cluster name ${JSON.stringify(cluster)} of ${describeSource(namespace.name)} is longer than 63 characters, which a registration cannot record in its ${key} label; shorten the Cluster's name${state.config.capiClusterNames === 'namespace-name' ? ' or its namespace’s' : ''}`,
    );
  const template = state.config.target?.nameTemplate;
  const secretNameValid = isDnsSubdomain(registrationName(cluster));
  if (
    template !== undefined &&
    (formProblem(LABEL_VALUE_FORM, cluster) !== undefined || !secretNameValid)
  )
    return invalid(
      `cluster name ${JSON.stringify(cluster)} of ${describeSource(namespace.name)}, made by the nameTemplate ${JSON.stringify(template)} of target ${JSON.stringify(state.config.target?.name ?? '')}, is not a valid cluster name (lower-case letters, digits, '-' and '.', alphanumeric at both ends, at most 63 characters, as a registration records it in its ${key} label); shorten the ${key} label or the template`,
    );
  if (!secretNameValid)
    return invalid(
      `cluster name ${JSON.stringify(cluster)} gives the Secret name ${JSON.stringify(registrationName(cluster))}, which is not a valid Kubernetes name (lower-case letters, digits, '-' and '.', alphanumeric at both ends, at most 253 characters); change the ${key} label`,
    );
  if (cluster === ARGOCD_IN_CLUSTER_NAME) {
    const fix =
      namespace.labels[key] === undefined
        ? `set its ${key} label to another name`
        : `change the ${key} label to another name`;
    return {
      code: 'name-reserved',
      message: `cluster name ${JSON.stringify(cluster)} of ${describeSource(namespace.name)} is reserved: ArgoCD sends every Application whose destination.name is ${cluster} to its own cluster only while no cluster Secret carries that name, so registering it would send them to this cluster instead; ${fix}`,
    };
  }
  return undefined;
}

/** Records the ArgoCD cluster name (`data.name`) of an active Secret we do not manage. */
export function recordForeignName(state: PassState, secret: ObservedSecret): void {
  const name = readData(secret, 'name');
  if (name !== undefined && !state.foreignNames.has(name)) state.foreignNames.set(name, secret);
}

/**
 * A claim on `cluster` (Secret `name`) that a Secret we do not manage stands in the way of:
 * it has our Secret's name, or it already uses the cluster name in ArgoCD.
 */
export function foreignRefusal(
  state: PassState,
  claimant: Subject,
  cluster: string,
  name: string,
  held: TargetSecret | undefined,
): Refusal | undefined {
  const { config, keys } = state;
  if (held !== undefined && held.registration === undefined) {
    const existing = held.secret;
    const host = otherHostNote(config, keys, existing);
    return {
      code: 'target-foreign',
      blocker: { namespace: config.targetNamespace, name },
      message:
        host === undefined
          ? `Secret ${config.targetNamespace}/${name} exists and is not managed by this registrar (it lacks ${keys.managedBy}=${config.managedBy}); delete it so the registrar can write its own, or change the ${keys.cluster} label${leftoverHint(existing)}`
          : `Secret ${config.targetNamespace}/${name} exists and is not this registrar's: ${host}`,
    };
  }
  const foreign = state.foreignNames.get(cluster);
  if (foreign !== undefined) {
    const host = otherHostNote(config, keys, foreign);
    return {
      code: 'name-foreign',
      blocker: { namespace: foreign.namespace, name: foreign.name },
      message:
        host === undefined
          ? `ArgoCD cluster name ${JSON.stringify(cluster)} is already used by Secret ${foreign.namespace}/${foreign.name}, which this registrar does not manage, and ArgoCD cannot tell two clusters of one name apart; change the ${keys.cluster} label or delete that Secret${leftoverHint(foreign)}`
          : `ArgoCD cluster name ${JSON.stringify(cluster)} is already used by Secret ${foreign.namespace}/${foreign.name}, and ArgoCD cannot tell two clusters of one name apart: ${host}`,
      sourceMessage: `ArgoCD cluster name ${JSON.stringify(cluster)} is already used by a cluster Secret this registrar does not manage; change the ${keys.cluster} label of this ${sourceNoun(claimant.source.name)} to another name, or ask the registrar’s operator`,
    };
  }
  return undefined;
}

function leftoverHint(secret: ObservedSecret): string {
  return secret.name.startsWith('vcluster-')
    ? ` (${secret.name} looks like a vcluster-argocd-exporter 0.1.x leftover, which can simply be deleted)`
    : '';
}
