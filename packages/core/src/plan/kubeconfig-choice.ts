// Which kubeconfig Secret each namespace registers from. The choice itself (provider
// precedence, falling through past unusable candidates) is selectKubeconfig in providers.ts;
// this step feeds it each namespace's candidates and reports the translation's warnings and
// the candidates skipped for the chosen one.

import { describeNearMisses, type SecretKeys } from '../translate/near-misses.js';
import { claimedByAny, describeLookup } from '../config/provider-marks.js';
import { selectKubeconfig, type KubeconfigSelection } from '../translate/providers.js';
import { isDnsSubdomain } from '../translate/registration.js';
import {
  clusterOfSecretName,
  clusterSecretName,
  clusterSourceKey,
  describeSource,
  quoted,
} from '../config/sources.js';
import type { ObservedSecret, Refusal } from '../common/types.js';
import type { NearMiss, Subject, SubjectBasis } from './model.js';
import { warn, type PassState } from './pass-state.js';

/**
 * The kubeconfig a source registers from, or why none; `undefined` when it makes no choice
 * (terminating, no name it may claim, or its Secrets unread: unknown, not absent, so no
 * choice, and no stale or waiting, rests on them).
 */
export function chooseKubeconfig(
  state: PassState,
  subject: SubjectBasis,
  candidates: readonly ObservedSecret[],
): KubeconfigSelection | undefined {
  if (subject.terminating || subject.nameProblem !== undefined || subject.unread !== undefined)
    return undefined;
  const name = subject.source.name;
  const capi = subject.source.capi;
  // With a `<prefix>server` override the kubeconfig's own address is neither used nor checked.
  const serverOverridden = subject.source.annotations[state.keys.server] !== undefined;
  const pinned = subject.source.annotations[state.keys.kubeconfigSecret];
  // Refused by name before anything is read (pinnedSecretRefusal, in claims).
  if (pinned !== undefined && !isDnsSubdomain(pinned)) return undefined;
  const selection = selectKubeconfig(
    capi?.namespace ?? name,
    candidates,
    state.config.providers,
    state.translate,
    {
      ...(serverOverridden ? { serverOverridden } : {}),
      ...(capi === undefined ? {} : { clusterName: capi.name }),
      ...(pinned === undefined
        ? {}
        : { pinned: { secret: pinned, pinnedBy: state.keys.kubeconfigSecret } }),
    },
  );
  const chosen = selection.chosen;
  if (chosen === undefined) return selection;
  for (const warning of chosen.translation.warnings) state.warnings.push(warning);
  for (const { candidate, refusal } of selection.rejected) {
    warn(
      state,
      'candidate-rejected',
      `${candidate.secret}[${candidate.key}] was skipped for ${chosen.candidate.secret}[${chosen.candidate.key}] (${chosen.candidate.chosenBy ?? 'the first usable candidate'}): ${refusal.message}`,
      name,
      capi === undefined ? candidate.secret : undefined,
    );
  }
  return selection;
}

/**
 * Each source's candidate Secrets, in snapshot order: for the managed namespace a Secret is
 * in, and for each managed Cluster of that namespace that a provider pattern names it for
 * (`alpha-kubeconfig` → Cluster `alpha` under `*-kubeconfig`), once each.
 */
export function candidatesBySource(
  state: PassState,
  sources: ReadonlyMap<string, SubjectBasis>,
): Map<string, ObservedSecret[]> {
  // Namespace → the names of its managed Clusters.
  const clustersByNamespace = new Map<string, Set<string>>();
  for (const { source } of sources.values()) {
    const capi = source.capi;
    if (capi === undefined) continue;
    const names = clustersByNamespace.get(capi.namespace);
    if (names === undefined) clustersByNamespace.set(capi.namespace, new Set([capi.name]));
    else names.add(capi.name);
  }
  const candidates = new Map<string, ObservedSecret[]>();
  const add = (secret: ObservedSecret, key: string): void => {
    const list = candidates.get(key);
    if (list === undefined) candidates.set(key, [secret]);
    else list.push(secret);
  };
  for (const secret of state.snapshot.candidateSecrets) {
    if (sources.has(secret.namespace)) add(secret, secret.namespace);
    const clusters = clustersByNamespace.get(secret.namespace);
    if (clusters === undefined) continue;
    // Two providers may name one Cluster (`*-kubeconfig` twice, say): it is added once.
    const named = new Set<string>();
    for (const provider of state.config.providers) {
      const name = clusterOfSecretName(provider.secretNamePattern, secret.name);
      if (name === undefined || named.has(name)) continue;
      named.add(name);
      if (clusters.has(name)) add(secret, clusterSourceKey(secret.namespace, name));
    }
  }
  return candidates;
}

// Near misses, for the message of a namespace without a usable kubeconfig: the candidate-named
// Secrets that lack the key (in the snapshot's candidates) and the near misses the gatherer
// recorded. Indexed once per pass, and only when some namespace needs it.

function nearMissesByNamespace(state: PassState): ReadonlyMap<string, readonly NearMiss[]> {
  if (state.nearMisses !== undefined) return state.nearMisses;
  const index = new Map<string, NearMiss[]>();
  const { candidateSecrets, nearMisses = [] } = state.snapshot;
  for (const secret of [...candidateSecrets, ...nearMisses]) {
    const list = index.get(secret.namespace);
    if (list === undefined) index.set(secret.namespace, [secret]);
    else list.push(secret);
  }
  state.nearMisses = index;
  return index;
}

/** What almost matched in a namespace without a usable kubeconfig, when anything did. */
function nearMissHint(state: PassState, subject: Subject): string | undefined {
  // A Cluster's Secrets are in its namespace, among other Clusters': those named for it count.
  const capi = subject.source.capi;
  const secrets = nearMissesByNamespace(state).get(capi?.namespace ?? subject.source.name);
  if (secrets === undefined) return undefined;
  // Key names only: a candidate Secret's values are never looked at here.
  const named: SecretKeys[] = secrets.map((secret) =>
    'keys' in secret ? secret : { name: secret.name, keys: Object.keys(secret.data) },
  );
  return describeNearMisses(named, state.config.providers, capi?.name);
}

/** Why a registered namespace has no kubeconfig left (the start of its `stale` message). */
export function noKubeconfigLeft(state: PassState, subject: Subject): string {
  const capi = subject.source.capi;
  const hint = nearMissHint(state, subject);
  if (capi !== undefined)
    return hint === undefined
      ? `no kubeconfig Secret of Cluster ${subject.source.name} is left (${clusterSecretNames(state, capi.name)})`
      : `no kubeconfig Secret of Cluster ${subject.source.name} that the configured providers read is left (${clusterSecretNames(state, capi.name)}), but ${hint}`;
  const namespace = subject.source.name;
  return hint === undefined
    ? `no kubeconfig Secret is left in namespace ${namespace}`
    : `no kubeconfig Secret that the configured providers read is left in namespace ${namespace}, but ${hint}`;
}

/** The `waiting-for-kubeconfig` message. */
export function waitingMessage(state: PassState, subject: Subject): string {
  const capi = subject.source.capi;
  if (capi !== undefined) {
    const looking = `(looking for ${clusterSecretNames(state, capi.name)} in namespace ${capi.namespace})`;
    const hint = nearMissHint(state, subject);
    return hint === undefined
      ? `no kubeconfig Secret of Cluster ${subject.source.name} yet ${looking}; it is registered as soon as one appears`
      : `no kubeconfig Secret of Cluster ${subject.source.name} that the configured providers read ${looking}, but ${hint}; it is registered as soon as one matches`;
  }
  const namespace = subject.source.name;
  const providers = lookingFor(state);
  const pinned = subject.source.annotations[state.keys.kubeconfigSecret];
  if (pinned !== undefined)
    return `no kubeconfig Secret ${pinned} in namespace ${namespace} yet (named by its ${state.keys.kubeconfigSecret} annotation; looking for ${providers}); it is registered as soon as it appears, or remove the annotation to take any candidate`;
  const hint = nearMissHint(state, subject);
  return hint === undefined
    ? `no kubeconfig Secret in namespace ${namespace} yet (looking for ${providers}); it is registered as soon as one appears`
    : `no kubeconfig Secret in namespace ${namespace} that the configured providers read (looking for ${providers}), but ${hint}; it is registered as soon as one matches`;
}

/** What the configured providers look for, for messages. */
function lookingFor(state: PassState): string {
  return state.config.providers
    .map((provider) => `${describeLookup(provider)} with ${provider.keys.join(' or ')}`)
    .join('; ');
}

/** `alpha-kubeconfig with value; ...`: the Secrets a Cluster's providers read. */
function clusterSecretNames(state: PassState, cluster: string): string {
  const names = state.config.providers.flatMap((provider) => {
    const name = clusterSecretName(provider.secretNamePattern, cluster);
    return name === undefined ? [] : [`${name} with ${provider.keys.join(' or ')}`];
  });
  return names.length === 0
    ? 'none: no configured provider has a Secret-name pattern with exactly one *'
    : names.join('; ');
}

/**
 * The annotation is refused when it names something other than a Secret of the source's
 * namespace (another namespace, a path, an invalid or overlong name): nothing is read for it;
 * or a Secret that exists (the gatherer recorded it, names and key names only) but that no
 * configured provider reads: waiting would wait for ever, and saying the Secret is not there
 * would be untrue. A Cluster's Secret is in the Cluster's namespace. The value is written by
 * whoever may annotate the source, so it is shown quoted, escaped and cut.
 */
export function pinnedSecretRefusal(state: PassState, subject: SubjectBasis): Refusal | undefined {
  const key = state.keys.kubeconfigSecret;
  const pinned = subject.source.annotations[key];
  if (pinned === undefined) return undefined;
  const namespace = subject.source.capi?.namespace ?? subject.source.name;
  const annotation = `annotation ${key}=${quoted(pinned)} on ${describeSource(subject.source.name)}`;
  if (!isDnsSubdomain(pinned)) {
    return {
      code: 'kubeconfig-secret-invalid',
      message: `${annotation} does not name a Secret of namespace ${namespace} (a Secret name: lower-case letters, digits, '-' and '.', at most 253 characters; never another namespace or a path); set it to the name of a kubeconfig Secret in ${namespace}, or remove it`,
    };
  }
  const found = (state.snapshot.nearMisses ?? []).find(
    (near) => near.namespace === namespace && near.name === pinned,
  );
  if (found === undefined) return undefined;
  // Read by a provider after all (the record is of an earlier list): the choice decides.
  const read = state.snapshot.candidateSecrets.some(
    (secret) =>
      secret.namespace === namespace &&
      secret.name === pinned &&
      claimedByAny(state.config.providers, secret),
  );
  if (read) return undefined;
  const providers = lookingFor(state);
  const hint = describeNearMisses([found], state.config.providers);
  const keys = found.keys.length === 0 ? 'no keys' : `its keys: ${found.keys.join(', ')}`;
  return {
    code: 'kubeconfig-secret-invalid',
    message: `${annotation} names Secret ${pinned}, which no configured provider reads (${keys}; looking for ${providers})${hint === undefined ? '' : `: ${hint}`}; name a kubeconfig Secret that a configured provider reads, configure the provider that reads this one, or remove the annotation`,
  };
}
