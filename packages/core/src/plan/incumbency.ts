// Who gets a contested cluster name. A namespace that already holds the registration keeps
// it; newcomers are settled oldest first (name as the tie-break), and a claim only wins when
// its server is free. An older claimant that cannot register (no kubeconfig, server taken)
// never blocks a younger healthy one, and a claim refused for a server that a later claim
// gave up is retried.

import { parseTimestamp, registrationName } from '../translate/registration.js';
import { assertNever } from '../common/assert-never.js';
import type { Refusal } from '../common/types.js';
import type { Claim, Registration, Subject, Winner } from './model.js';
import type { PassState } from './pass-state.js';
import { collisionMessage, collisionSourceMessage } from './server-ledger.js';
import { describeSource, sourceEnding, sourceNoun } from '../config/sources.js';

/** Why an incumbent keeps its name, as the losers are told. */
export const HOLDS_REGISTRATION = 'holds the registration';

/** Each source's claim that won, and why each refused source was refused (before or when settled). */
export interface Settlement {
  readonly won: ReadonlyMap<Subject, Claim>;
  readonly refused: ReadonlyMap<Subject, Refusal>;
}

export function settle(
  state: PassState,
  claims: readonly Claim[],
  refusedBefore: ReadonlyMap<Subject, Refusal>,
): Settlement {
  // Claims arrive in namespace-name order and sort() is stable: incumbents keep that order,
  // newcomers sort by age with name as the tie-break for free.
  const incumbents = claims.filter((claim) => claim.incumbent);
  const newcomers = claims
    .filter((claim) => !claim.incumbent)
    .map((claim) => ({
      claim,
      created: parseTimestamp(claim.subject.source.creationTimestamp) ?? Number.MAX_SAFE_INTEGER,
    }))
    .sort((a, b) => a.created - b.created)
    .map(({ claim }) => claim);
  const verdicts = new Map<Claim, Refusal | undefined>();
  let pending = incumbents.concat(newcomers);
  let progress = true;
  while (progress) {
    progress = false;
    const refused: Claim[] = [];
    for (const claim of pending) {
      const refusal = trySettle(state, claim);
      verdicts.set(claim, refusal);
      if (refusal === undefined) progress = true;
      else if (refusal.code === 'server-collision') refused.push(claim);
    }
    pending = refused;
  }
  const won = new Map<Subject, Claim>();
  const refused = new Map(refusedBefore);
  for (const claim of claims) {
    const refusal = verdicts.get(claim);
    if (refusal === undefined) won.set(claim.subject, claim);
    else refused.set(claim.subject, refusal);
  }
  return { won, refused };
}

/** Settles one claim: `undefined` when it wins (and holds its name and server), else why not. */
function trySettle(state: PassState, claim: Claim): Refusal | undefined {
  const subject = claim.subject;
  const winner = otherWinner(state, subject, claim.cluster);
  if (winner !== undefined) return nameClaimedRefusal(state, claim.cluster, winner, subject);
  const servers = state.servers;
  const targetName = subject.secretName ?? registrationName(claim.cluster);
  const blocker = servers.blocker(claim.server, targetName, subject.source.uid);
  if (blocker !== undefined) {
    return {
      code: 'server-collision',
      blocker: { namespace: state.config.targetNamespace, name: blocker.secret },
      message: collisionMessage(state.config, state.keys, claim, blocker),
      sourceMessage: collisionSourceMessage(claim),
    };
  }
  const why = claim.incumbent ? HOLDS_REGISTRATION : 'is older or sorts first';
  win(state, subject, claim.cluster, why);
  const held = servers.heldBy(targetName);
  if (held?.server !== claim.server || held.ownerUid !== subject.source.uid)
    servers.hold({
      secret: targetName,
      server: claim.server,
      foreign: false,
      ownerUid: subject.source.uid,
      ownerName: subject.source.name,
      claimed: true,
    });
  // The namespace's old registrations are demoted (or taken over): their servers are free.
  for (const { secret, role } of subject.registrations) {
    if (secret.name === targetName || role !== 'releasable') continue;
    if (servers.heldBy(secret.name)?.ownerUid === subject.source.uid) servers.release(secret.name);
  }
  return undefined;
}

/** Records that `subject` holds or won `cluster`, and why (quoted to the losers). */
export function win(state: PassState, subject: Subject, cluster: string, why: string): void {
  state.nameWinners.set(cluster, { subject, why });
}

/** The namespace that holds or won `cluster` this pass (and why), when it is not `subject`. */
export function otherWinner(
  state: PassState,
  subject: Subject,
  cluster: string,
): Winner | undefined {
  const winner = state.nameWinners.get(cluster);
  return winner !== undefined && winner.subject.source.name !== subject.source.name
    ? winner
    : undefined;
}

/** `name-claimed`: another namespace holds or won the name. */
export function nameClaimedRefusal(
  state: PassState,
  cluster: string,
  winner: Winner,
  claimant: Subject,
): Refusal {
  const held = winner.why === HOLDS_REGISTRATION;
  return {
    code: 'name-claimed',
    message: `cluster name ${JSON.stringify(cluster)} is also claimed by ${describeSource(winner.subject.source.name)}, which ${winner.why}; change the ${state.keys.cluster} label of one of them`,
    sourceMessage: `cluster name ${JSON.stringify(cluster)} is ${held ? 'already registered for another source' : 'also claimed by another source, which registers it'}; ${askOperator(state, claimant)}`,
  };
}

/** The way out a refused claimant's own Events offer, without naming the other source. */
function askOperator(state: PassState, claimant: Subject): string {
  return `change the ${state.keys.cluster} label of this ${sourceNoun(claimant.source.name)} to another name, or ask the registrar’s operator (argocd-cluster-registrar status names the holder)`;
}

/**
 * `name-claimed`: the name's registration is pinned to another namespace (see ownership.ts),
 * told to `claimant`.
 */
export function pinnedRefusal(state: PassState, target: Registration, claimant: Subject): Refusal {
  const { config, keys } = state;
  const name = target.secret.name;
  const recorded = target.sourceName;
  const owner = recorded === undefined ? 'an unknown namespace' : describeSource(recorded);
  // What the owner is, for "kept while that namespace exists"; an unrecorded one: a namespace.
  const noun = recorded === undefined ? 'namespace' : sourceNoun(recorded);
  const source = target.source;
  // The holder still claims this very name: its registration is live and stays, so the only
  // fix is on the claimant's side (never suggest deleting it, even with a prune veto).
  const sourceMessage = `cluster name ${JSON.stringify(target.cluster)} is already registered for another source${source.kind === 'gone' ? ', which is gone: it is removed, and this one registered, shortly' : `; ${askOperator(state, claimant)}`}`;
  const refusal = (message: string): Refusal => ({ code: 'name-claimed', message, sourceMessage });
  if (source.kind === 'managed' && !source.subject.terminating && target.role === 'incumbent')
    return refusal(
      `${name} is the registration of ${owner}, which still claims cluster name ${JSON.stringify(target.cluster)}; to register ${describeSource(claimant.source.name)}, change its ${keys.cluster} label to another name`,
    );
  const fix = `change the ${keys.cluster} label, or delete ${config.targetNamespace}/${name} if that registration is no longer wanted`;
  if (target.pruneDisabled) {
    return refusal(
      `${name} is the registration of ${owner} and carries ${keys.prune}=disabled, so it is never replaced or removed; remove that label, or ${fix}`,
    );
  }
  switch (source.kind) {
    case 'managed':
      return refusal(
        source.subject.terminating
          ? `${name} is the registration of ${owner}, which ${sourceEnding(source.subject.source.name)}; it is kept until the ${noun} is gone`
          : `${name} is the registration of ${owner}, which no longer claims a valid cluster name; it is kept while that ${noun} exists (${fix})`,
      );
    case 'present':
      return refusal(
        `${name} is the registration of ${owner}, which still exists but is no longer managed; it is kept while that ${noun} exists (${fix})`,
      );
    case 'unknown':
      return refusal(
        `${name} is the registration of ${owner}, which could not be checked (${source.why}); it is kept until that ${noun} is proven gone`,
      );
    case 'gone':
      return refusal(`${name} is the registration of ${owner}, which is gone; it will be removed`);
    default:
      return assertNever(source, 'source kind');
  }
}
