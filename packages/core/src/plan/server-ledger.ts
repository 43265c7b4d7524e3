// Which servers are taken, and by whom. ArgoCD picks one of two registrations of one server
// at random, so a claim is refused while another Secret (ours or not) holds its normalised
// server. Servers are compared normalised (server-address.ts), so `https://x:443/` and
// `https://x` collide.

import { compareStrings } from '../common/compare-strings.js';
import type { LabelKeys } from '../config/label-keys.js';
import type { Config } from '../common/types.js';
import type { Claim, Holder, Registration } from './model.js';
import { describeSource, sourceNoun } from '../config/sources.js';

export class ServerLedger {
  /**
   * Normalised server → its holder, or its holders when more than one (a collision): nearly
   * every server has one, and a pass should not build an array for each.
   */
  private readonly byServer = new Map<string, Holder | Holder[]>();
  private readonly bySecret = new Map<string, Holder>();

  hold(holder: Holder): void {
    this.release(holder.secret);
    this.bySecret.set(holder.secret, holder);
    const held = this.byServer.get(holder.server);
    if (held === undefined) this.byServer.set(holder.server, holder);
    else if (Array.isArray(held)) held.push(holder);
    else this.byServer.set(holder.server, [held, holder]);
  }

  release(secret: string): void {
    const previous = this.bySecret.get(secret);
    if (previous === undefined) return;
    this.bySecret.delete(secret);
    const held = this.byServer.get(previous.server);
    if (Array.isArray(held)) {
      const index = held.findIndex((holder) => holder.secret === secret);
      if (index >= 0) held.splice(index, 1);
    } else if (held?.secret === secret) {
      this.byServer.delete(previous.server);
    }
  }

  heldBy(secret: string): Holder | undefined {
    return this.bySecret.get(secret);
  }

  /**
   * The holder that keeps `server` from the namespace `ownerUid` writing `secret`: any other
   * Secret holding it, except the namespace's own registrations; the first by name.
   */
  blocker(server: string, secret: string, ownerUid: string): Holder | undefined {
    const held = this.byServer.get(server);
    if (held === undefined) return undefined;
    if (!Array.isArray(held))
      return held.secret === secret || held.ownerUid === ownerUid ? undefined : held;
    let blocker: Holder | undefined;
    for (const holder of held) {
      if (holder.secret === secret || holder.ownerUid === ownerUid) continue;
      if (blocker === undefined || compareStrings(holder.secret, blocker.secret) < 0)
        blocker = holder;
    }
    return blocker;
  }
}

/** A foreign ArgoCD cluster Secret holds its server: we never register a second one. */
export function holdForeignServer(
  ledger: ServerLedger,
  secret: string,
  server: string,
  otherHost?: string,
): void {
  ledger.hold({
    secret,
    server,
    foreign: true,
    ownerUid: undefined,
    ownerName: undefined,
    claimed: false,
    ...(otherHost === undefined ? {} : { otherHost }),
  });
}

/**
 * An owned registration holds its server while ArgoCD sees it. One whose source is proven
 * gone gives it up, whether it is then deleted or taken over; a demoted one holds nothing.
 */
export function holdRegistrationServer(ledger: ServerLedger, registration: Registration): void {
  const server = registration.server;
  if (!registration.active || server === undefined) return;
  if (registration.role === 'releasable' && registration.source.kind === 'gone') return;
  const owner =
    registration.role === 'pinned' || registration.source.kind !== 'managed'
      ? undefined
      : registration.source.subject.source;
  ledger.hold({
    secret: registration.secret.name,
    server,
    foreign: false,
    ownerUid: owner?.uid,
    ownerName: owner?.name ?? registration.sourceName,
    claimed: false,
  });
}

export function collisionMessage(
  config: Config,
  keys: LabelKeys,
  claim: Claim,
  holder: Holder,
): string {
  const server = claim.server;
  if (holder.otherHost !== undefined)
    return `server ${server} is already registered by Secret ${config.targetNamespace}/${holder.secret}, and ArgoCD would pick one of the two at random: ${holder.otherHost}`;
  if (holder.foreign)
    return `server ${server} is already registered by Secret ${config.targetNamespace}/${holder.secret}, which this registrar does not manage; ArgoCD would pick one of the two at random. If it is a leftover of vcluster-argocd-exporter 0.1.x (a vcluster-<name> Secret), simply delete it; otherwise remove one of the two`;
  const owner =
    holder.ownerName === undefined ? 'an unknown namespace' : describeSource(holder.ownerName);
  const verb = holder.claimed ? 'is being registered this pass' : 'is already registered';
  // Two namespaces are "namespaces"; with a Cluster on either side, "sources" covers both.
  const clusterInvolved = [claim.subject.source.name, holder.ownerName ?? ''].some(
    (key) => sourceNoun(key) === 'Cluster',
  );
  const them = clusterInvolved ? 'sources' : 'namespaces';
  // First come keeps it: a tenant who registered someone else's server first is not replaced
  // by the registrar, so the operator is told how to hand the server over.
  const handOver = `If ${owner} should not have it, remove its ${keys.managedBy} label and delete ${config.targetNamespace}/${holder.secret}: ${describeSource(claim.subject.source.name)} registers on the next pass; otherwise point one of the ${them} at another server (${keys.server} annotation)`;
  return `server ${server} ${verb} as ${holder.secret} by ${owner}; ArgoCD would pick one of the two at random, so the registration that holds a server keeps it. ${handOver}`;
}

/** The collision as the claimant's own Events say it: neither the holder nor the server. */
export function collisionSourceMessage(claim: Claim): string {
  const noun = sourceNoun(claim.subject.source.name);
  return `the server this ${noun}’s kubeconfig names is already registered with ArgoCD by another source, which keeps it (ArgoCD would pick one of two registrations of one server at random); if the server is this ${noun}’s, ask the registrar’s operator to hand it over (argocd-cluster-registrar status names the holder)`;
}
