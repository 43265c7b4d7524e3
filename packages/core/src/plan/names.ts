// Which cluster name a namespace asks for, and whether it may ask for it at all: the label
// must be present, non-empty and give a valid Secret name, and the name must not already be
// an ArgoCD cluster name of a Secret we do not manage (ArgoCD cannot tell two apart).

import { compareStrings } from '../compare-strings.js';
import { isDnsSubdomain, registrationName } from '../registration.js';
import type { ObservedSecret, Refusal, SourceNamespace, Warning } from '../types.js';
import {
  NO_REGISTRATIONS,
  type NamespaceFacts,
  type NamespaceMemo,
  type OutcomeReason,
  type SecretMemo,
  type Subject,
} from './model.js';
import type { PassState } from './pass-state.js';
import { readData } from './secret-fields.js';

/** One subject per managed namespace, by name; a second namespace of one name is ignored. */
export function readNamespaces(state: PassState): void {
  const sorted = [...state.snapshot.namespaces].sort(
    (a, b) => compareStrings(a.name, b.name) || compareStrings(a.uid, b.uid),
  );
  for (let i = 0; i < sorted.length; i++) {
    const namespace = sorted[i] as SourceNamespace;
    const memo = state.memo.namespaceEntry(namespace);
    if (memo === undefined) continue; // one object per name; the API guarantees it
    const facts = namespaceFacts(state, namespace, memo);
    if (facts.warning !== undefined) state.warnings.push(facts.warning);
    const subject: Subject = {
      namespace,
      cluster: facts.cluster,
      secretName: facts.secretName,
      nameProblem: facts.nameProblem,
      terminating: namespace.deletionTimestamp !== undefined,
      unread: undefined,
      selection: undefined,
      memo,
      registrations: NO_REGISTRATIONS,
      claim: undefined,
      refusal: undefined,
      why: undefined,
      matched: 0,
      candidatesSame: true,
    };
    memo.subject = subject;
    state.subjects.push(subject);
  }
}

/** The namespace's cluster name and whether it can claim it, remembered per version. */
function namespaceFacts(
  state: PassState,
  namespace: SourceNamespace,
  memo: NamespaceMemo,
): NamespaceFacts {
  const cached = memo.facts;
  if (
    cached !== undefined &&
    (cached.namespaceObject === namespace ||
      (cached.namespaceVersion !== undefined &&
        cached.namespaceVersion === namespace.resourceVersion))
  )
    return cached;
  const cluster = namespace.labels[state.keys.cluster];
  const warnings: Warning[] = [];
  const nameProblem = nameProblemOf(state, namespace, cluster, warnings);
  const facts: NamespaceFacts = {
    namespaceVersion: namespace.resourceVersion,
    namespaceObject: namespace.resourceVersion === undefined ? namespace : undefined,
    cluster,
    secretName:
      cluster === undefined || nameProblem !== undefined ? undefined : registrationName(cluster),
    nameProblem,
    warning: warnings[0],
  };
  memo.facts = facts;
  return facts;
}

function nameProblemOf(
  state: PassState,
  namespace: SourceNamespace,
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
      message: `label ${key} on namespace ${namespace.name} is empty; set it to the cluster name ArgoCD should show`,
    };
  }
  if (!isDnsSubdomain(registrationName(cluster))) {
    return {
      code: 'name-invalid',
      message: `cluster name ${JSON.stringify(cluster)} gives the Secret name ${JSON.stringify(registrationName(cluster))}, which is not a valid Kubernetes name (lower-case letters, digits, '-' and '.', alphanumeric at both ends, at most 253 characters); change the ${key} label`,
    };
  }
  return undefined;
}

/** Remembers the ArgoCD cluster name (`data.name`) of an active Secret we do not manage. */
export function recordForeignName(
  state: PassState,
  secret: ObservedSecret,
  facts: SecretMemo,
): void {
  if (facts.dataName === null) facts.dataName = readData(secret, 'name');
  const name = facts.dataName;
  if (name !== undefined && !state.foreignNames.has(name)) state.foreignNames.set(name, secret);
}

/**
 * A claim on `cluster` (Secret `name`) that a Secret we do not manage stands in the way of:
 * it has our Secret's name, or it already uses the cluster name in ArgoCD.
 */
export function foreignRefusal(
  state: PassState,
  cluster: string,
  name: string,
  held: SecretMemo | undefined,
): Refusal | undefined {
  const { config, keys } = state;
  const existing = held?.secret;
  if (existing !== undefined && held?.registration === undefined) {
    return {
      code: 'target-foreign',
      message: `Secret ${config.targetNamespace}/${name} exists and is not managed by this registrar (it lacks ${keys.managedBy}=${config.managedBy}); delete it so the registrar can write its own, or change the ${keys.cluster} label${leftoverHint(existing)}`,
    };
  }
  const foreign = state.foreignNames.get(cluster);
  if (foreign !== undefined) {
    return {
      code: 'name-foreign',
      message: `ArgoCD cluster name ${JSON.stringify(cluster)} is already used by Secret ${foreign.namespace}/${foreign.name}, which this registrar does not manage, and ArgoCD cannot tell two clusters of one name apart; change the ${keys.cluster} label or delete that Secret${leftoverHint(foreign)}`,
    };
  }
  return undefined;
}

function leftoverHint(secret: ObservedSecret): string {
  return secret.name.startsWith('vcluster-')
    ? ` (${secret.name} looks like a vcluster-argocd-exporter 0.1.x leftover, which can simply be deleted)`
    : '';
}
