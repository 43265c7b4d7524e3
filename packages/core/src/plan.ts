// plan(snapshot, config, now): every decision of a pass, as data (DESIGN §6). Pure: no I/O,
// no clock, no randomness. Shape of a pass:
//
//   1. read each managed namespace: its cluster name and, when it can claim one, its kubeconfig;
//   2. read each owned registration: whose it is, and whether that source is provably gone;
//   3. turn namespaces into claims on `cluster-<name>` and settle them, incumbents first and
//      then oldest first, against names and (normalised) servers already held;
//   4. emit creates/updates for won claims, demotions for renamed registrations and deletions
//      only on positive proof; one outcome per namespace; sort everything once.

import { decodeBase64Text } from './base64.js';
import { formatDuration } from './duration.js';
import {
  ARGOCD_CLUSTER_SECRET_TYPE,
  ARGOCD_SECRET_TYPE_LABEL,
  labelKeys,
  type LabelKeys,
} from './label-keys.js';
import { PlanMemo, type BuildMemo, type NamespaceMemo, type SecretMemo } from './plan-memo.js';
import {
  selectKubeconfig,
  translateSecretKey,
  type KubeconfigSelection,
  type Translator,
} from './providers.js';
import {
  buildRegistration,
  demotedSecret,
  formatTimestamp,
  isDnsSubdomain,
  parseTimestamp,
  REGISTRATION_DATA_KEYS,
  registrationName,
  restoredSecret,
  stampCredentials,
  type RegistrationResult,
} from './registration.js';
import { normaliseServer } from './server-address.js';
import { fingerprint } from './sha256.js';
import { readCertificateFacts } from './x509.js';
import type {
  Action,
  ArgoClusterConfig,
  CandidateRef,
  CertificateFacts,
  Config,
  DeleteReason,
  DesiredSecret,
  FieldChange,
  Labels,
  NamespaceOutcome,
  ObservedRef,
  ObservedSecret,
  Plan,
  Refusal,
  Snapshot,
  SourceNamespace,
  Translation,
  UpdateReason,
  Warning,
} from './types.js';

export interface PlanOptions {
  /** Kubeconfig translator; inject a caching one so a steady-state pass re-parses nothing. */
  readonly translate?: Translator;
  /**
   * What earlier passes worked out, keyed by uid + resourceVersion (see plan-memo.ts): a
   * daemon passes one memo to every pass so a steady-state pass rebuilds nothing. The plan is
   * the same, byte for byte, with or without it.
   */
  readonly memo?: PlanMemo;
}

export { createPlanMemo, PlanMemo } from './plan-memo.js';

/** The kubeconfig a namespace uses (or why none), without the Secret objects themselves. */
export interface Selection {
  readonly chosen?: { readonly candidate: CandidateRef; readonly translation: Translation };
  readonly rejected: KubeconfigSelection['rejected'];
}

export type OutcomeReason = NonNullable<NamespaceOutcome['reason']>;

/** What a namespace's labels say about its claim; remembered per namespace version. */
export interface NamespaceFacts {
  readonly namespaceVersion: string | undefined;
  readonly namespaceObject: SourceNamespace | undefined;
  readonly cluster: string | undefined;
  readonly secretName: string | undefined;
  readonly nameProblem: OutcomeReason | undefined;
  readonly warning: Warning | undefined;
}

const NO_REGISTRATIONS: readonly Registration[] = [];
const NO_SNAPSHOT: Snapshot = {
  namespaces: [],
  candidateSecrets: [],
  clusterSecrets: [],
  sourceLookups: {},
};

/** A managed namespace, as far as this pass is concerned. */
export interface Subject {
  readonly namespace: SourceNamespace;
  /** The `<prefix>cluster` label, when present. */
  readonly cluster: string | undefined;
  /** `cluster-<cluster>`, when the namespace can claim a name. */
  readonly secretName: string | undefined;
  /** Set when the namespace cannot claim a name at all (label missing, empty or invalid). */
  readonly nameProblem: OutcomeReason | undefined;
  readonly terminating: boolean;
  selection: Selection | undefined;
  /** This namespace's memo entry. */
  readonly memo: NamespaceMemo;
  /** Active owned registrations recorded for this namespace (name + uid). */
  registrations: readonly Registration[];
  claim: Claim | undefined;
  /** Set when the namespace's claim was refused before settling. */
  refusal: Refusal | undefined;
  /** Why it holds or won its cluster name, once it does. */
  why: string | undefined;
  /** Candidate Secrets seen this pass that matched the remembered ones, in order. */
  matched: number;
  /** False once a candidate Secret differs from the remembered ones. */
  candidatesSame: boolean;
}

type SourceStatus =
  | { readonly kind: 'managed'; readonly subject: Subject }
  | { readonly kind: 'gone'; readonly reason: DeleteReason }
  | { readonly kind: 'present'; readonly terminating: boolean }
  | { readonly kind: 'unknown'; readonly why: string };

/** A Secret we own in the target namespace. */
export interface Registration {
  readonly secret: ObservedSecret;
  readonly cluster: string;
  readonly sourceName: string | undefined;
  readonly active: boolean;
  readonly pruneDisabled: boolean;
  readonly source: SourceStatus;
  /**
   * incumbent: its source namespace claims exactly this name.
   * releasable: its source moved on (renamed, gone) or it is demoted: a claimant may take it.
   * pinned: kept as it is (source unknown, label removed, terminating, or prune veto).
   */
  readonly role: 'incumbent' | 'releasable' | 'pinned';
  /** Normalised `data.server`, when readable. */
  readonly server: string | undefined;
  /** Written by a won claim: nothing else may happen to it this pass. */
  targeted: boolean;
}

interface Claim {
  readonly subject: Subject;
  readonly cluster: string;
  readonly target: Registration | undefined;
  readonly incumbent: boolean;
  readonly desired: DesiredSecret;
  /** Normalised server of `desired`. */
  readonly server: string;
  /** Absent for a restore without a usable kubeconfig (metadata only). */
  readonly translation: Translation | undefined;
  readonly clusterConfig: ArgoClusterConfig | undefined;
  /** Where the desired registration (and its comparison) is remembered across passes. */
  readonly memo: BuildMemo | undefined;
  won: boolean;
  refusal: Refusal | undefined;
}

interface Holder {
  readonly secret: string;
  readonly server: string;
  readonly foreign: boolean;
  /** Namespace uid that may reuse this server: the holder is its own registration. */
  readonly ownerUid: string | undefined;
  readonly ownerName: string | undefined;
  /** True while the holder is a claim settled this pass rather than an existing Secret. */
  readonly claimed: boolean;
}

const ACTION_ORDER: Readonly<Record<Action['kind'], number>> = {
  create: 0,
  update: 1,
  demote: 2,
  delete: 3,
};

export function plan(
  snapshot: Snapshot,
  config: Config,
  now: number,
  options: PlanOptions = {},
): Plan {
  const translate = options.translate ?? translateSecretKey;
  // Without a memo the pass gets a fresh one: one code path, and what a warm memo returns is
  // by construction what a cold one computes.
  const memo = options.memo ?? new PlanMemo();
  memo.begin(JSON.stringify(config), translate);
  const result = new Planner(snapshot, config, now, translate, memo).run();
  memo.sweep();
  return result;
}

class Planner {
  private readonly keys: LabelKeys;
  private readonly warnings: Warning[] = [];
  private readonly actions: Action[] = [];
  private readonly subjects: Subject[] = [];
  private readonly pass: number;
  private readonly registrations: Registration[] = [];
  /** See {@link retire}. */
  private readonly exemplars: object[] = [];
  /** ArgoCD cluster name → the foreign Secret that already uses it. */
  private readonly foreignNames = new Map<string, ObservedSecret>();
  /** Normalised server → holders, by Secret name. */
  private readonly holders = new Map<string, Holder[]>();
  private readonly holderBySecret = new Map<string, Holder>();
  /** Cluster name → the namespace that holds or won it this pass. */
  private readonly nameWinners = new Map<string, Subject>();
  private readonly deferred = new Map<
    Subject,
    { readonly message: string; readonly notAfter: string | undefined }
  >();
  private readonly written = new Set<Subject>();

  constructor(
    private snapshot: Snapshot,
    private readonly config: Config,
    private readonly now: number,
    private readonly translate: Translator,
    private readonly memo: PlanMemo,
  ) {
    this.keys = labelKeys(config.labelPrefix);
    this.pass = memo.pass;
  }

  run(): Plan {
    this.readNamespaces();
    this.readClusterSecrets();
    this.selectKubeconfigs();
    const claims = this.buildClaims();
    this.settle(claims);
    this.emitClaimActions(claims);
    this.emitRegistrationActions();
    const result = {
      actions: this.actions.sort(compareActions),
      outcomes: this.subjects.map((subject) => this.outcome(subject)),
      warnings: this.warnings.sort(compareWarnings),
    };
    this.retire(claims);
    return result;
  }

  /**
   * V8 forgets the hidden classes no live object uses any more at a full GC, and throws away
   * the optimised code built on them, so a pass after an idle spell would start cold (2–3×
   * slower at 10,000 namespaces). The memo keeps this planner until the next pass begins,
   * holding one object of each kind it built and nothing else of the pass.
   */
  private retire(claims: readonly Claim[]): void {
    this.subjects.length = Math.min(this.subjects.length, 1);
    this.registrations.length = Math.min(this.registrations.length, 1);
    for (const holder of this.holderBySecret.values()) {
      this.exemplars.push(holder);
      break;
    }
    if (claims[0] !== undefined) this.exemplars.push(claims[0]);
    this.holders.clear();
    this.holderBySecret.clear();
    this.foreignNames.clear();
    this.nameWinners.clear();
    this.deferred.clear();
    this.written.clear();
    this.snapshot = NO_SNAPSHOT;
    this.memo.retired = this;
  }

  // -------------------------------------------------------------------------------------
  // 1. Namespaces

  private readNamespaces(): void {
    const sorted = [...this.snapshot.namespaces].sort(
      (a, b) => compareStrings(a.name, b.name) || compareStrings(a.uid, b.uid),
    );
    for (let i = 0; i < sorted.length; i++) {
      const namespace = sorted[i] as SourceNamespace;
      const memo = this.namespaceMemo(namespace);
      if (memo === undefined) continue; // one object per name; the API guarantees it
      const facts = this.namespaceFacts(namespace, memo);
      if (facts.warning !== undefined) this.warnings.push(facts.warning);
      const subject: Subject = {
        namespace,
        cluster: facts.cluster,
        secretName: facts.secretName,
        nameProblem: facts.nameProblem,
        terminating: namespace.deletionTimestamp !== undefined,
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
      this.subjects.push(subject);
    }
  }

  /** The managed namespace of this name, if there is one this pass. */
  private subjectNamed(name: string): Subject | undefined {
    const entry = this.memo.namespaces.get(name);
    return entry?.seen === this.pass ? entry.subject : undefined;
  }

  /** The namespace's cluster name and whether it can claim it, remembered per version. */
  private namespaceFacts(namespace: SourceNamespace, memo: NamespaceMemo): NamespaceFacts {
    const cached = memo.facts;
    if (
      cached !== undefined &&
      (cached.namespaceObject === namespace ||
        (cached.namespaceVersion !== undefined &&
          cached.namespaceVersion === namespace.resourceVersion))
    )
      return cached;
    const cluster = namespace.labels[this.keys.cluster];
    const warnings: Warning[] = [];
    const nameProblem = this.nameProblem(namespace, cluster, warnings);
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

  private nameProblem(
    namespace: SourceNamespace,
    cluster: string | undefined,
    warnings: Warning[],
  ): OutcomeReason | undefined {
    const key = this.keys.cluster;
    if (cluster === undefined) {
      const message = `namespace ${namespace.name} carries ${this.keys.managedBy}=${this.config.managedBy} but no ${key} label; add ${key}=<name> to register it`;
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

  private selectKubeconfigs(): void {
    // Check each namespace's candidates against the remembered ones in passing; only the
    // namespaces where something differs get their candidates collected and re-selected.
    const all = this.snapshot.candidateSecrets;
    for (let i = 0; i < all.length; i++) {
      const secret = all[i] as ObservedSecret;
      const subject = this.subjectNamed(secret.namespace);
      if (subject === undefined || !subject.candidatesSame) continue;
      const cached = subject.memo.selection;
      const at = subject.matched;
      if (
        cached !== undefined &&
        at < cached.uids.length &&
        cached.uids[at] === secret.uid &&
        cached.resourceVersions[at] === secret.resourceVersion
      )
        subject.matched = at + 1;
      else subject.candidatesSame = false;
    }
    let changed: Map<string, ObservedSecret[]> | undefined;
    const subjects = this.subjects;
    for (let i = 0; i < subjects.length; i++) {
      const subject = subjects[i] as Subject;
      if (subject.terminating || subject.nameProblem !== undefined) continue;
      const name = subject.namespace.name;
      // With a `<prefix>server` override the kubeconfig's own address is neither used nor checked.
      const serverOverridden = subject.namespace.annotations[this.keys.server] !== undefined;
      const cached = subject.memo.selection;
      if (
        cached?.serverOverridden === serverOverridden &&
        subject.candidatesSame &&
        subject.matched === cached.uids.length
      ) {
        subject.selection = cached.selection;
      } else {
        changed ??= this.candidatesByNamespace();
        subject.selection = this.select(subject, changed.get(name) ?? [], serverOverridden);
      }
      const chosen = subject.selection.chosen;
      if (chosen === undefined) continue;
      for (const warning of chosen.translation.warnings) this.warnings.push(warning);
      for (const { candidate, refusal } of subject.selection.rejected) {
        this.warn(
          'candidate-rejected',
          `${candidate.secret}[${candidate.key}] was skipped for ${chosen.candidate.secret}[${chosen.candidate.key}]: ${refusal.message}`,
          name,
          candidate.secret,
        );
      }
    }
  }

  private candidatesByNamespace(): Map<string, ObservedSecret[]> {
    const candidates = new Map<string, ObservedSecret[]>();
    for (const secret of this.snapshot.candidateSecrets) {
      const list = candidates.get(secret.namespace);
      if (list === undefined) candidates.set(secret.namespace, [secret]);
      else list.push(secret);
    }
    return candidates;
  }

  /** selectKubeconfig, remembered with the candidates' versions. */
  private select(
    subject: Subject,
    candidates: readonly ObservedSecret[],
    serverOverridden: boolean,
  ): Selection {
    const entry = subject.memo;
    const selected = selectKubeconfig(
      subject.namespace.name,
      candidates,
      this.config.providers,
      this.translate,
      serverOverridden ? { serverOverridden } : undefined,
    );
    // Without the Secret objects: a memo must not keep a pass's Secrets alive.
    const selection: Selection =
      selected.chosen === undefined
        ? { rejected: selected.rejected }
        : {
            chosen: {
              candidate: selected.chosen.candidate,
              translation: selected.chosen.translation,
            },
            rejected: selected.rejected,
          };
    entry.selection = {
      uids: candidates.map((secret) => secret.uid),
      resourceVersions: candidates.map((secret) => secret.resourceVersion),
      serverOverridden,
      selection,
    };
    return selection;
  }

  /** The namespace's memo entry; `undefined` for a second namespace of one name. */
  private namespaceMemo(namespace: SourceNamespace): NamespaceMemo | undefined {
    const pass = this.pass;
    let entry = this.memo.namespaces.get(namespace.name);
    if (entry?.seen === pass) return undefined;
    if (entry?.uid !== namespace.uid) {
      entry = {
        uid: namespace.uid,
        seen: pass,
        facts: undefined,
        selection: undefined,
        build: undefined,
        outcome: undefined,
        subject: undefined,
      };
      this.memo.namespaces.set(namespace.name, entry);
    }
    entry.seen = pass;
    this.memo.seenNamespaces += 1;
    return entry;
  }

  /**
   * Facts of a target-namespace Secret, remembered per uid + resourceVersion; `undefined`
   * for a second Secret of one name.
   */
  private secretFacts(secret: ObservedSecret): SecretMemo | undefined {
    const pass = this.pass;
    let entry = this.memo.secrets.get(secret.name);
    if (entry?.seen === pass) return undefined;
    if (
      entry === undefined ||
      entry.uid !== secret.uid ||
      entry.resourceVersion !== secret.resourceVersion
    ) {
      entry = {
        uid: secret.uid,
        resourceVersion: secret.resourceVersion,
        seen: pass,
        server: readServer(secret),
        dataName: null,
        secret,
        registration: undefined,
      };
      this.memo.secrets.set(secret.name, entry);
    }
    entry.seen = pass;
    entry.secret = secret;
    entry.registration = undefined;
    this.memo.seenSecrets += 1;
    return entry;
  }

  /** The target-namespace Secret of this name this pass, and its registration if owned. */
  private clusterSecretNamed(name: string): SecretMemo | undefined {
    const entry = this.memo.secrets.get(name);
    return entry?.seen === this.pass ? entry : undefined;
  }

  // -------------------------------------------------------------------------------------
  // 2. Registrations and the names and servers they hold

  private readClusterSecrets(): void {
    const keys = this.keys;
    const secrets = this.snapshot.clusterSecrets
      .filter((secret) => secret.namespace === this.config.targetNamespace)
      .sort((a, b) => compareStrings(a.name, b.name) || compareStrings(a.uid, b.uid));
    for (let i = 0; i < secrets.length; i++) {
      const secret = secrets[i] as ObservedSecret;
      const facts = this.secretFacts(secret);
      if (facts === undefined) continue;
      const active = secret.labels[ARGOCD_SECRET_TYPE_LABEL] === ARGOCD_CLUSTER_SECRET_TYPE;
      const server = facts.server;
      if (secret.labels[keys.managedBy] !== this.config.managedBy) {
        if (!active) continue;
        if (facts.dataName === null) facts.dataName = readData(secret, 'name');
        const name = facts.dataName;
        if (name !== undefined && !this.foreignNames.has(name)) this.foreignNames.set(name, secret);
        if (server !== undefined)
          this.hold({
            secret: secret.name,
            server,
            foreign: true,
            ownerUid: undefined,
            ownerName: undefined,
            claimed: false,
          });
        continue;
      }
      const registration = this.readRegistration(secret, active, server);
      this.registrations.push(registration);
      facts.registration = registration;
      if (registration.source.kind === 'managed' && active) {
        const subject = registration.source.subject;
        subject.registrations =
          subject.registrations === NO_REGISTRATIONS
            ? [registration]
            : [...subject.registrations, registration];
      }
      // A registration whose source is proven gone gives its server up, whether it is then
      // deleted or taken over; a demoted one holds nothing (ArgoCD no longer sees it).
      if (!active || server === undefined) continue;
      if (registration.role === 'releasable' && registration.source.kind === 'gone') continue;
      const owner =
        registration.role === 'pinned' || registration.source.kind !== 'managed'
          ? undefined
          : registration.source.subject.namespace;
      this.hold({
        secret: secret.name,
        server,
        foreign: false,
        ownerUid: owner?.uid,
        ownerName: owner?.name ?? registration.sourceName,
        claimed: false,
      });
    }
  }

  private readRegistration(
    secret: ObservedSecret,
    active: boolean,
    server: string | undefined,
  ): Registration {
    const keys = this.keys;
    const sourceName = secret.labels[keys.sourceNamespace];
    const source = this.sourceStatus(secret, sourceName, secret.labels[keys.sourceNamespaceUid]);
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
      sourceName,
      active,
      pruneDisabled,
      source,
      role,
      server,
      targeted: false,
    };
  }

  /** Whose registration this is, and whether that namespace is provably gone. */
  private sourceStatus(
    secret: ObservedSecret,
    name: string | undefined,
    uid: string | undefined,
  ): SourceStatus {
    if (name === undefined) {
      return this.unknownSource(secret, `it has no ${this.keys.sourceNamespace} label`);
    }
    const subject = this.subjectNamed(name);
    if (subject !== undefined) {
      if (uid === undefined)
        return this.unknownSource(
          secret,
          `it has no ${this.keys.sourceNamespaceUid} label to tell namespace ${name} from a re-created one`,
        );
      if (subject.namespace.uid === uid) return { kind: 'managed', subject };
      return {
        kind: 'gone',
        reason: {
          code: 'source-namespace-replaced',
          namespace: name,
          recordedUid: uid,
          observedUid: subject.namespace.uid,
        },
      };
    }
    const lookup = Object.hasOwn(this.snapshot.sourceLookups, name)
      ? this.snapshot.sourceLookups[name]
      : undefined;
    if (lookup === undefined)
      return this.unknownSource(secret, `namespace ${name} was not looked up`);
    switch (lookup.state) {
      case 'notFound':
        return { kind: 'gone', reason: { code: 'source-namespace-not-found', namespace: name } };
      case 'present':
        if (uid === undefined)
          return this.unknownSource(
            secret,
            `it has no ${this.keys.sourceNamespaceUid} label to tell namespace ${name} from a re-created one`,
          );
        if (lookup.uid !== uid) {
          return {
            kind: 'gone',
            reason: {
              code: 'source-namespace-replaced',
              namespace: name,
              recordedUid: uid,
              observedUid: lookup.uid,
            },
          };
        }
        return { kind: 'present', terminating: lookup.deletionTimestamp !== undefined };
      case 'unknown':
        return this.unknownSource(secret, `looking up namespace ${name} failed: ${lookup.reason}`);
      default:
        return unreachable(lookup);
    }
  }

  private unknownSource(secret: ObservedSecret, why: string): SourceStatus {
    this.warn(
      'source-unknown',
      `registration ${secret.name} is kept: its source namespace cannot be checked (${why})`,
      secret.labels[this.keys.sourceNamespace],
      secret.name,
    );
    return { kind: 'unknown', why };
  }

  private hold(holder: Holder): void {
    this.release(holder.secret);
    this.holderBySecret.set(holder.secret, holder);
    const byServer = this.holders.get(holder.server);
    if (byServer === undefined) this.holders.set(holder.server, [holder]);
    else byServer.push(holder);
  }

  private release(secret: string): void {
    const previous = this.holderBySecret.get(secret);
    if (previous === undefined) return;
    this.holderBySecret.delete(secret);
    const byServer = this.holders.get(previous.server);
    if (byServer === undefined) return;
    const index = byServer.indexOf(previous);
    if (index >= 0) byServer.splice(index, 1);
  }

  // -------------------------------------------------------------------------------------
  // 3. Claims

  private buildClaims(): Claim[] {
    const claims: Claim[] = [];
    const subjects = this.subjects;
    for (let i = 0; i < subjects.length; i++) {
      const subject = subjects[i] as Subject;
      const cluster = subject.cluster;
      if (subject.terminating || subject.nameProblem !== undefined || cluster === undefined)
        continue;
      const name = subject.secretName ?? registrationName(cluster);
      const held = this.clusterSecretNamed(name);
      const existing = held?.secret;
      const target = held?.registration;
      if (existing !== undefined && target === undefined) {
        subject.refusal = {
          code: 'target-foreign',
          message: `Secret ${this.config.targetNamespace}/${name} exists and is not managed by this registrar (it lacks ${this.keys.managedBy}=${this.config.managedBy}); delete it so the registrar can write its own, or change the ${this.keys.cluster} label${leftoverHint(existing)}`,
        };
        continue;
      }
      const foreign = this.foreignNames.get(cluster);
      if (foreign !== undefined) {
        subject.refusal = {
          code: 'name-foreign',
          message: `ArgoCD cluster name ${JSON.stringify(cluster)} is already used by Secret ${foreign.namespace}/${foreign.name}, which this registrar does not manage, and ArgoCD cannot tell two clusters of one name apart; change the ${this.keys.cluster} label or delete that Secret${leftoverHint(foreign)}`,
        };
        continue;
      }
      const incumbent =
        target?.role === 'incumbent' &&
        target.source.kind === 'managed' &&
        target.source.subject === subject;
      if (target !== undefined && !incumbent && target.role !== 'releasable') {
        subject.refusal = { code: 'name-claimed', message: this.pinnedMessage(target) };
        continue;
      }
      if (incumbent) this.win(subject, cluster, 'holds the registration');
      const claim = this.claimFor(subject, cluster, target, incumbent);
      if (claim !== undefined) claims.push(claim);
    }
    return claims;
  }

  private claimFor(
    subject: Subject,
    cluster: string,
    target: Registration | undefined,
    incumbent: boolean,
  ): Claim | undefined {
    const chosen = subject.selection?.chosen;
    if (chosen === undefined) {
      // Reverting the label restores a demoted registration intact even without a kubeconfig.
      if (incumbent && target !== undefined && !target.active && target.server !== undefined) {
        const desired = restoredSecret(target.secret, this.keys);
        return {
          subject,
          cluster,
          target,
          incumbent,
          desired,
          server: target.server,
          translation: undefined,
          clusterConfig: undefined,
          memo: undefined,
          won: false,
          refusal: undefined,
        };
      }
      return undefined;
    }
    const memo = this.build(subject, cluster, chosen, target?.secret);
    const built = memo.result;
    for (const warning of built.warnings) this.warnings.push(warning);
    if (!built.ok) {
      subject.refusal = built.refusal;
      return undefined;
    }
    return {
      subject,
      cluster,
      target,
      incumbent,
      desired: built.secret,
      server: memo.server ?? normaliseServer(built.server),
      translation: chosen.translation,
      clusterConfig: built.clusterConfig,
      memo,
      won: false,
      refusal: undefined,
    };
  }

  /**
   * buildRegistration, remembered while the namespace, its translation and the existing
   * registration keep their versions (the result is a pure function of those).
   */
  private build(
    subject: Subject,
    cluster: string,
    chosen: NonNullable<Selection['chosen']>,
    existing: ObservedSecret | undefined,
  ): BuildMemo {
    const namespace = subject.namespace;
    const entry = subject.memo;
    const cached = entry.build;
    if (
      cached !== undefined &&
      (cached.namespaceObject === namespace ||
        (cached.namespaceVersion !== undefined &&
          cached.namespaceVersion === namespace.resourceVersion)) &&
      cached.translation === chosen.translation &&
      cached.provider === chosen.candidate.provider &&
      cached.cluster === cluster &&
      cached.existingUid === existing?.uid &&
      cached.existingVersion === existing?.resourceVersion
    )
      return cached;
    const result: RegistrationResult = buildRegistration({
      namespace,
      cluster,
      provider: chosen.candidate.provider,
      translation: chosen.translation,
      keys: this.keys,
      config: this.config,
      ...(existing === undefined ? {} : { existing }),
    });
    const built: BuildMemo = {
      namespaceVersion: namespace.resourceVersion,
      namespaceObject: namespace.resourceVersion === undefined ? namespace : undefined,
      cluster,
      provider: chosen.candidate.provider,
      translation: chosen.translation,
      existingUid: existing?.uid,
      existingVersion: existing?.resourceVersion,
      result,
      server: result.ok ? normaliseServer(result.server) : undefined,
      comparison: undefined,
    };
    entry.build = built;
    return built;
  }

  /** compareRegistration, remembered with the desired registration it compared. */
  private compare(claim: Claim, existing: ObservedSecret): Comparison {
    const memo = claim.memo;
    if (memo === undefined) return compareRegistration(existing, claim.desired);
    let comparison = memo.comparison;
    if (comparison === undefined) {
      comparison = compareRegistration(existing, claim.desired);
      memo.comparison = comparison;
    }
    if (
      comparison.equal &&
      memo.result.ok &&
      (comparison.desired.data !== existing.data ||
        comparison.desired.labels !== existing.labels ||
        comparison.desired.annotations !== existing.annotations)
    ) {
      // Up to date: desired data, labels and annotations equal the existing ones, key for key
      // (and an equal desired Secret is never written). Point at this pass's copies rather
      // than keep our own (or an earlier pass's) alive.
      const desired = {
        ...comparison.desired,
        labels: existing.labels,
        annotations: existing.annotations,
        data: existing.data,
      };
      memo.result = { ...memo.result, secret: desired };
      comparison = { ...comparison, desired };
      memo.comparison = comparison;
    }
    return comparison;
  }

  private pinnedMessage(target: Registration): string {
    const name = target.secret.name;
    const owner =
      target.sourceName === undefined ? 'an unknown namespace' : `namespace ${target.sourceName}`;
    const fix = `change the ${this.keys.cluster} label, or delete ${this.config.targetNamespace}/${name} if that registration is no longer wanted`;
    if (target.pruneDisabled) {
      return `${name} is the registration of ${owner} and carries ${this.keys.prune}=disabled, so it is never replaced or removed; remove that label, or ${fix}`;
    }
    const source = target.source;
    switch (source.kind) {
      case 'managed':
        return source.subject.terminating
          ? `${name} is the registration of ${owner}, which is terminating; it is kept until the namespace is gone`
          : `${name} is the registration of ${owner}, which no longer claims a valid cluster name; it is kept while that namespace exists (${fix})`;
      case 'present':
        return `${name} is the registration of ${owner}, which still exists but is no longer managed; it is kept while that namespace exists (${fix})`;
      case 'unknown':
        return `${name} is the registration of ${owner}, which could not be checked (${source.why}); it is kept until that namespace is proven gone`;
      case 'gone':
        return `${name} is the registration of ${owner}, which is gone; it will be removed`;
      default:
        return unreachable(source);
    }
  }

  /**
   * Settles claims: incumbents first (they keep their names), then newcomers oldest first, so
   * an older claimant that cannot register (no kubeconfig, server taken) never blocks a
   * younger healthy one. A claim refused for a server that a later claim gave up is retried.
   */
  private settle(claims: Claim[]): void {
    // Claims arrive in namespace-name order and sort() is stable: incumbents keep that order,
    // newcomers sort by age with name as the tie-break for free.
    const incumbents = claims.filter((claim) => claim.incumbent);
    const newcomers = claims
      .filter((claim) => !claim.incumbent)
      .map((claim) => ({
        claim,
        created:
          parseTimestamp(claim.subject.namespace.creationTimestamp) ?? Number.MAX_SAFE_INTEGER,
      }))
      .sort((a, b) => a.created - b.created)
      .map(({ claim }) => claim);
    let pending = incumbents.concat(newcomers);
    let progress = true;
    while (progress) {
      progress = false;
      const refused: Claim[] = [];
      for (let i = 0; i < pending.length; i++) {
        const claim = pending[i] as Claim;
        if (this.trySettle(claim)) progress = true;
        else if (claim.refusal?.code === 'server-collision') refused.push(claim);
      }
      pending = refused;
    }
  }

  private trySettle(claim: Claim): boolean {
    const subject = claim.subject;
    const winner = this.nameWinners.get(claim.cluster);
    if (winner !== undefined && winner !== subject) {
      claim.refusal = {
        code: 'name-claimed',
        message: `cluster name ${JSON.stringify(claim.cluster)} is also claimed by namespace ${winner.namespace.name}, which ${winner.why ?? ''}; change the ${this.keys.cluster} label of one of them`,
      };
      return false;
    }
    const targetName = subject.secretName ?? registrationName(claim.cluster);
    let blocker: Holder | undefined;
    for (const holder of this.holders.get(claim.server) ?? []) {
      if (holder.secret === targetName || holder.ownerUid === subject.namespace.uid) continue;
      if (blocker === undefined || compareStrings(holder.secret, blocker.secret) < 0)
        blocker = holder;
    }
    if (blocker !== undefined) {
      claim.refusal = { code: 'server-collision', message: this.collisionMessage(claim, blocker) };
      return false;
    }
    claim.won = true;
    claim.refusal = undefined;
    this.win(
      subject,
      claim.cluster,
      claim.incumbent ? 'holds the registration' : 'is older or sorts first',
    );
    const held = this.holderBySecret.get(targetName);
    if (held?.server !== claim.server || held.ownerUid !== subject.namespace.uid)
      this.hold({
        secret: targetName,
        server: claim.server,
        foreign: false,
        ownerUid: subject.namespace.uid,
        ownerName: subject.namespace.name,
        claimed: true,
      });
    // The namespace's old registrations are demoted (or taken over): their servers are free.
    for (const registration of subject.registrations) {
      if (
        registration.secret.name !== targetName &&
        registration.role === 'releasable' &&
        this.holderBySecret.get(registration.secret.name)?.ownerUid === subject.namespace.uid
      ) {
        this.release(registration.secret.name);
      }
    }
    return true;
  }

  private win(subject: Subject, cluster: string, why: string): void {
    subject.why = why;
    if (this.nameWinners.get(cluster) !== subject) this.nameWinners.set(cluster, subject);
  }

  private collisionMessage(claim: Claim, holder: Holder): string {
    const server = claim.server;
    if (holder.foreign) {
      return `server ${server} is already registered by Secret ${this.config.targetNamespace}/${holder.secret}, which this registrar does not manage; ArgoCD would pick one of the two at random. If it is a leftover of vcluster-argocd-exporter 0.1.x (a vcluster-<name> Secret), simply delete it; otherwise remove one of the two`;
    }
    const owner =
      holder.ownerName === undefined ? 'an unknown namespace' : `namespace ${holder.ownerName}`;
    const verb = holder.claimed ? 'is being registered this pass' : 'is already registered';
    return `server ${server} ${verb} as ${holder.secret} by ${owner}; ArgoCD would pick one of the two at random. Point one of the namespaces at another server (${this.keys.server} annotation) or stop managing one of them`;
  }

  // -------------------------------------------------------------------------------------
  // 4. Actions

  private emitClaimActions(claims: readonly Claim[]): void {
    for (let i = 0; i < claims.length; i++) {
      const claim = claims[i] as Claim;
      if (!claim.won) {
        claim.subject.refusal = claim.refusal;
        continue;
      }
      claim.subject.claim = claim;
      const target = claim.target;
      if (target !== undefined) target.targeted = true;
      if (target === undefined) {
        const secret = sortedSecret(stampCredentials(claim.desired, this.keys, this.now));
        this.actions.push({
          kind: 'create',
          cluster: claim.cluster,
          secret,
          changes: diffSecret(undefined, secret),
          reason: { code: 'new-registration', namespace: claim.subject.namespace.name },
        });
        continue;
      }
      const namespace = claim.subject.namespace.name;
      if (!claim.incumbent) {
        const previous = target.sourceName ?? '(unknown)';
        const secret = sortedSecret(stampCredentials(claim.desired, this.keys, this.now));
        this.pushUpdate(claim, target, secret, {
          code: 'taken-over',
          namespace,
          previousNamespace: previous,
        });
        continue;
      }
      const comparison = this.compare(claim, target.secret);
      if (comparison.equal) continue;
      if (!target.active) {
        const secret = sortedSecret(
          comparison.credentialsChanged
            ? stampCredentials(comparison.desired, this.keys, this.now)
            : comparison.desired,
        );
        this.pushUpdate(claim, target, secret, { code: 'restored-from-demotion', namespace });
        continue;
      }
      if (comparison.credentialsOnly && claim.translation !== undefined) {
        const deferral = this.deferral(target.secret, comparison.registeredCertificate);
        if (deferral !== undefined) {
          this.deferred.set(claim.subject, deferral);
          continue;
        }
      }
      const secret = sortedSecret(
        comparison.credentialsChanged
          ? stampCredentials(comparison.desired, this.keys, this.now)
          : comparison.desired,
      );
      this.pushUpdate(claim, target, secret, { code: comparison.reason, namespace });
    }
  }

  private pushUpdate(
    claim: Claim,
    target: Registration,
    secret: DesiredSecret,
    reason: UpdateReason,
  ): void {
    this.written.add(claim.subject);
    this.actions.push({
      kind: 'update',
      cluster: claim.cluster,
      target: observedRef(target.secret),
      secret,
      changes: diffSecret(target.secret, secret),
      reason,
    });
  }

  /**
   * Credential churn (k3k re-mints its client certificate on every reconcile): a
   * credential-only change waits out the interval since the last credential write and, with a
   * refresh window, waits until the registered certificate nears its expiry.
   */
  private deferral(
    existing: ObservedSecret,
    registered: CertificateFacts | undefined,
  ): { message: string; notAfter: string | undefined } | undefined {
    const window = this.config.credentialRefreshWindowMs;
    const notAfter = parseTimestamp(registered?.notAfter);
    if (
      notAfter !== undefined &&
      (notAfter <= this.now || (window > 0 && notAfter - this.now <= window))
    )
      return undefined;
    const lastWrite = parseTimestamp(existing.annotations[this.keys.credentialsUpdatedAt]);
    if (lastWrite !== undefined && this.now - lastWrite < this.config.intervalMs) {
      return {
        message: `the kubeconfig carries new credentials; they are written at most once per interval (${formatDuration(this.config.intervalMs)}) and were last written at ${formatTimestamp(lastWrite)}`,
        notAfter: registered?.notAfter,
      };
    }
    if (window > 0 && notAfter !== undefined) {
      return {
        message: `the kubeconfig carries new credentials; the registered client certificate stays valid until ${registered?.notAfter ?? ''}, beyond the refresh window (${formatDuration(window)}), so they are written later`,
        notAfter: registered?.notAfter,
      };
    }
    return undefined;
  }

  private emitRegistrationActions(): void {
    const registrations = this.registrations;
    for (let i = 0; i < registrations.length; i++) {
      const registration = registrations[i] as Registration;
      // Written by a claim, or claimed by its own namespace (kept even when that claim failed).
      if (registration.targeted || registration.role === 'incumbent') continue;
      const source = registration.source;
      if (source.kind === 'gone') {
        if (registration.pruneDisabled)
          this.vetoed(registration, `its source namespace ${source.reason.namespace} is gone`);
        else
          this.actions.push({
            kind: 'delete',
            cluster: registration.cluster,
            target: observedRef(registration.secret),
            reason: source.reason,
          });
        continue;
      }
      if (registration.active) {
        // Only a rename moves an active registration aside, and only once the namespace's new
        // name is registered: until then the old one keeps the cluster in ArgoCD.
        const subject = source.kind === 'managed' ? source.subject : undefined;
        if (
          subject === undefined ||
          subject.terminating ||
          subject.nameProblem !== undefined ||
          subject.cluster === undefined
        )
          continue;
        const supersededBy = subject.cluster;
        if (registration.pruneDisabled) {
          this.vetoed(
            registration,
            `namespace ${subject.namespace.name} now claims ${supersededBy}`,
          );
          continue;
        }
        if (subject.claim === undefined) continue;
        const secret = sortedSecret(
          demotedSecret(registration.secret, this.keys, supersededBy, this.now),
        );
        this.actions.push({
          kind: 'demote',
          cluster: registration.cluster,
          target: observedRef(registration.secret),
          secret,
          changes: diffSecret(registration.secret, secret),
          reason: { code: 'renamed', namespace: subject.namespace.name, supersededBy },
        });
        continue;
      }
      const staleSince = registration.secret.annotations[this.keys.staleSince];
      const since = parseTimestamp(staleSince);
      if (
        staleSince === undefined ||
        since === undefined ||
        this.now - since <= this.config.demotedTtlMs
      )
        continue;
      if (registration.pruneDisabled) {
        this.vetoed(
          registration,
          `it has been demoted since ${staleSince}, longer than the demoted TTL`,
        );
        continue;
      }
      this.actions.push({
        kind: 'delete',
        cluster: registration.cluster,
        target: observedRef(registration.secret),
        reason: { code: 'demotion-expired', namespace: registration.sourceName ?? '', staleSince },
      });
    }
  }

  private vetoed(registration: Registration, why: string): void {
    const verb =
      registration.active && registration.source.kind === 'managed' ? 'demoted' : 'deleted';
    this.warn(
      'prune-disabled',
      `${registration.secret.name} is not ${verb} although ${why}: it carries ${this.keys.prune}=disabled`,
      registration.sourceName,
      registration.secret.name,
    );
  }

  // -------------------------------------------------------------------------------------
  // 5. Outcomes

  private outcome(subject: Subject): NamespaceOutcome {
    const namespace = subject.namespace.name;
    const claim = subject.claim;
    const chosen = subject.selection?.chosen;
    // The common case, built directly: a namespace whose registration is (now) up to date.
    if (claim?.translation !== undefined && chosen !== undefined && !this.deferred.has(subject)) {
      const rejected = subject.selection?.rejected ?? [];
      const state =
        this.written.has(subject) || claim.target === undefined ? 'registered' : 'unchanged';
      const notAfter = claim.translation.clientCertificate?.notAfter;
      // Last pass's outcome when it says the same (immutable data: sharing it is safe).
      const previous = subject.memo.outcome;
      if (
        previous?.namespace === namespace &&
        previous.cluster === claim.cluster &&
        previous.rejected === rejected &&
        previous.source === chosen.candidate &&
        previous.state === state &&
        previous.credentialNotAfter === notAfter &&
        previous.reason === undefined
      )
        return previous;
      const outcome: { -readonly [K in keyof NamespaceOutcome]: NamespaceOutcome[K] } = {
        namespace,
        cluster: claim.cluster,
        rejected,
        source: chosen.candidate,
        state,
      };
      if (notAfter !== undefined) outcome.credentialNotAfter = notAfter;
      subject.memo.outcome = outcome;
      return outcome;
    }
    const base = {
      namespace,
      ...(subject.cluster === undefined ? {} : { cluster: subject.cluster }),
      rejected: subject.selection?.rejected ?? [],
    };
    const source: { source?: CandidateRef } =
      chosen === undefined ? {} : { source: chosen.candidate };
    const kept = subject.registrations.map((registration) => registration.secret.name);
    if (subject.terminating) {
      const message = `namespace ${namespace} is terminating; ${kept.length === 0 ? 'nothing is registered for it' : `${kept.join(', ')} is kept until it is gone, so ArgoCD can still finalise its Applications`}`;
      return {
        ...base,
        state: kept.length === 0 ? 'skipped' : 'unchanged',
        reason: { code: 'terminating', message },
      };
    }
    if (subject.nameProblem !== undefined) {
      return {
        ...base,
        state: subject.nameProblem.code === 'cluster-label-missing' ? 'skipped' : 'refused',
        reason: withKept(subject.nameProblem, kept),
      };
    }
    if (subject.refusal !== undefined) {
      return { ...base, ...source, state: 'refused', reason: withKept(subject.refusal, kept) };
    }
    const deferral = this.deferred.get(subject);
    if (deferral !== undefined) {
      return {
        ...base,
        ...source,
        state: 'unchanged',
        reason: { code: 'credential-refresh-deferred', message: deferral.message },
        ...(deferral.notAfter === undefined ? {} : { credentialNotAfter: deferral.notAfter }),
      };
    }
    // No usable kubeconfig.
    const rejected = subject.selection?.rejected ?? [];
    const first = rejected[0];
    const registered = kept.length > 0 || claim !== undefined;
    if (registered) {
      const names = claim === undefined ? kept : [claim.desired.name];
      const why =
        first === undefined
          ? `no kubeconfig Secret is left in namespace ${namespace}`
          : `its kubeconfig is unusable: ${first.refusal.message}`;
      return {
        ...base,
        state: 'stale',
        reason: {
          code: first?.refusal.code ?? 'no-candidate',
          message: `${why}; ${names.join(', ')} keeps its last registered credentials until this is fixed`,
        },
      };
    }
    // The name is taken anyway: say so now rather than after the kubeconfig appears.
    const winner = this.nameWinners.get(subject.cluster ?? '');
    if (winner !== undefined && winner !== subject) {
      return {
        ...base,
        state: 'refused',
        reason: {
          code: 'name-claimed',
          message: `cluster name ${JSON.stringify(subject.cluster)} is also claimed by namespace ${winner.namespace.name}, which ${winner.why ?? ''}; change the ${this.keys.cluster} label of one of them`,
        },
      };
    }
    if (first !== undefined) return { ...base, state: 'refused', reason: first.refusal };
    return {
      ...base,
      state: 'waiting',
      reason: {
        code: 'waiting-for-kubeconfig',
        message: `no kubeconfig Secret in namespace ${namespace} yet (looking for ${this.config.providers.map((provider) => `${provider.secretNamePattern} with ${provider.keys.join(' or ')}`).join('; ')}); it is registered as soon as one appears`,
      },
    };
  }

  private warn(code: Warning['code'], message: string, namespace?: string, secret?: string): void {
    this.warnings.push({
      code,
      ...(namespace === undefined ? {} : { namespace }),
      ...(secret === undefined ? {} : { secret }),
      message,
    });
  }
}

function withKept<T extends { readonly code: string; readonly message: string }>(
  reason: T,
  kept: readonly string[],
): T {
  return kept.length === 0
    ? reason
    : { ...reason, message: `${reason.message} (${kept.join(', ')} stays registered meanwhile)` };
}

function leftoverHint(secret: ObservedSecret): string {
  return secret.name.startsWith('vcluster-')
    ? ` (${secret.name} looks like a vcluster-argocd-exporter 0.1.x leftover, which can simply be deleted)`
    : '';
}

// ---------------------------------------------------------------------------------------
// Comparing an existing registration with the desired one

export interface Comparison {
  readonly equal: boolean;
  /** The desired Secret, with equal-meaning `config` bytes kept as they are. */
  readonly desired: DesiredSecret;
  readonly credentialsChanged: boolean;
  /** Only credentials changed: same server, CA, TLS settings and client-certificate issuer. */
  readonly credentialsOnly: boolean;
  readonly registeredCertificate: CertificateFacts | undefined;
  readonly reason: 'credentials-changed' | 'server-changed' | 'ca-changed' | 'metadata-changed';
}

const CREDENTIAL_FIELDS = ['username', 'password', 'bearerToken', 'certData', 'keyData'] as const;

function compareRegistration(existing: ObservedSecret, desired: DesiredSecret): Comparison {
  const labelsEqual = sameRecord(existing.labels, desired.labels);
  const annotationsEqual = sameRecord(existing.annotations, desired.annotations);
  let otherDataEqual = true;
  for (const key of Object.keys(desired.data)) {
    if (key !== 'config' && existing.data[key] !== desired.data[key]) otherDataEqual = false;
  }
  for (const key of Object.keys(existing.data)) {
    if (!Object.hasOwn(desired.data, key)) otherDataEqual = false;
  }
  const configBytesEqual = existing.data['config'] === desired.data['config'];
  const base = {
    desired,
    credentialsChanged: false,
    credentialsOnly: false,
    registeredCertificate: undefined,
  };
  if (configBytesEqual) {
    const equal = labelsEqual && annotationsEqual && otherDataEqual;
    const serverChanged = existing.data['server'] !== desired.data['server'];
    return { ...base, equal, reason: serverChanged ? 'server-changed' : 'metadata-changed' };
  }
  const before = readConfig(existing.data['config']);
  const after = readConfig(desired.data['config']);
  const serverChanged = existing.data['server'] !== desired.data['server'];
  if (before === undefined || after === undefined) {
    return {
      ...base,
      equal: false,
      credentialsChanged: true,
      reason: serverChanged ? 'server-changed' : 'credentials-changed',
    };
  }
  if (canonicalJson(before) === canonicalJson(after)) {
    // Same meaning, other bytes (an older writer's key order): keep the bytes, write nothing for them.
    const kept: DesiredSecret = {
      ...desired,
      data: { ...desired.data, config: existing.data['config'] ?? '' },
    };
    return {
      ...base,
      desired: kept,
      equal: labelsEqual && annotationsEqual && otherDataEqual,
      reason: serverChanged ? 'server-changed' : 'metadata-changed',
    };
  }
  const beforeTls = tlsOf(before);
  const afterTls = tlsOf(after);
  const credentialsChanged = CREDENTIAL_FIELDS.some(
    (field) =>
      credentialValue(before, beforeTls, field) !== credentialValue(after, afterTls, field),
  );
  const caChanged = beforeTls['caData'] !== afterTls['caData'];
  const connectionChanged =
    caChanged ||
    beforeTls['insecure'] !== afterTls['insecure'] ||
    beforeTls['serverName'] !== afterTls['serverName'] ||
    before['proxyUrl'] !== after['proxyUrl'] ||
    !sameKeys(before, after, [
      'username',
      'password',
      'bearerToken',
      'tlsClientConfig',
      'proxyUrl',
    ]) ||
    !sameKeys(beforeTls, afterTls, ['insecure', 'serverName', 'caData', 'certData', 'keyData']);
  const reason = serverChanged
    ? 'server-changed'
    : caChanged
      ? 'ca-changed'
      : credentialsChanged
        ? 'credentials-changed'
        : 'metadata-changed';
  let credentialsOnly = false;
  let registeredCertificate: CertificateFacts | undefined;
  if (
    credentialsChanged &&
    !connectionChanged &&
    !serverChanged &&
    labelsEqual &&
    annotationsEqual &&
    otherDataEqual
  ) {
    registeredCertificate = certificateOf(beforeTls['certData']);
    const desiredCertificate = certificateOf(afterTls['certData']);
    credentialsOnly = registeredCertificate?.issuer === desiredCertificate?.issuer;
  }
  return {
    equal: false,
    desired,
    credentialsChanged,
    credentialsOnly,
    registeredCertificate,
    reason,
  };
}

type JsonObject = Readonly<Record<string, unknown>>;

function readConfig(encoded: string | undefined): JsonObject | undefined {
  const text = encoded === undefined ? undefined : decodeBase64Text(encoded);
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tlsOf(config: JsonObject): JsonObject {
  const tls = config['tlsClientConfig'];
  return isObject(tls) ? tls : {};
}

function credentialValue(
  config: JsonObject,
  tls: JsonObject,
  field: (typeof CREDENTIAL_FIELDS)[number],
): unknown {
  return field === 'certData' || field === 'keyData' ? tls[field] : config[field];
}

/** True when both objects have the same keys outside `known` with equal values. */
function sameKeys(a: JsonObject, b: JsonObject, known: readonly string[]): boolean {
  const extra = (object: JsonObject): string =>
    canonicalJson(
      Object.fromEntries(Object.entries(object).filter(([key]) => !known.includes(key))),
    );
  return extra(a) === extra(b);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  // JSON.stringify(undefined) is undefined at run time, whatever its type says.
  return value === undefined ? 'null' : JSON.stringify(value);
}

function certificateOf(certData: unknown): CertificateFacts | undefined {
  if (typeof certData !== 'string') return undefined;
  const pem = decodeBase64Text(certData);
  return pem === undefined ? undefined : readCertificateFacts(pem);
}

function sameRecord(a: Labels, b: Labels): boolean {
  let count = 0;
  for (const key in a) {
    if (a[key] !== b[key] || !Object.hasOwn(b, key)) return false;
    count++;
  }
  for (const key in b) {
    if (Object.hasOwn(b, key)) count--;
  }
  return count === 0;
}

// ---------------------------------------------------------------------------------------
// Field-level diff for the preview

const CONFIG_FIELDS: readonly { readonly path: readonly string[]; readonly sensitive: boolean }[] =
  [
    { path: ['username'], sensitive: false },
    { path: ['password'], sensitive: true },
    { path: ['bearerToken'], sensitive: true },
    { path: ['tlsClientConfig', 'insecure'], sensitive: false },
    { path: ['tlsClientConfig', 'serverName'], sensitive: false },
    { path: ['tlsClientConfig', 'caData'], sensitive: true },
    { path: ['tlsClientConfig', 'certData'], sensitive: true },
    { path: ['tlsClientConfig', 'keyData'], sensitive: true },
    { path: ['proxyUrl'], sensitive: false },
  ];

const KNOWN_CONFIG_KEYS: ReadonlySet<string> = new Set([
  'tlsClientConfig',
  ...CONFIG_FIELDS.map(({ path }) => path[path.length - 1] ?? ''),
]);

/** What changes between `before` (absent for a create) and `after`; credentials as fingerprints. */
export function diffSecret(
  before: ObservedSecret | undefined,
  after: DesiredSecret,
): FieldChange[] {
  const changes: FieldChange[] = [];
  const push = (
    field: string,
    from: string | undefined,
    to: string | undefined,
    sensitive: boolean,
  ): void => {
    if (from === to) return;
    const show = (value: string): string => (sensitive ? fingerprint(value) : value);
    changes.push({
      field,
      ...(from === undefined ? {} : { before: show(from) }),
      ...(to === undefined ? {} : { after: show(to) }),
      sensitive,
    });
  };
  for (const key of REGISTRATION_DATA_KEYS) {
    if (key === 'config') continue;
    const from = before?.data[key];
    const to = after.data[key];
    if (from === to) continue;
    push(`data.${key}`, decodedOrFingerprint(from), decodedOrFingerprint(to), false);
  }
  if (before?.data['config'] !== after.data['config']) {
    const from = before === undefined ? {} : readConfig(before.data['config']);
    const to = readConfig(after.data['config']);
    if (from === undefined || to === undefined) {
      push('data.config', before?.data['config'], after.data['config'], true);
    } else {
      for (const { path, sensitive } of CONFIG_FIELDS) {
        push(`config.${path.join('.')}`, configValue(from, path), configValue(to, path), sensitive);
      }
      // Fields this registrar never writes (an exec block, say) disappear; show that they do.
      for (const [scope, fromObject, toObject] of [
        ['config', from, to],
        ['config.tlsClientConfig', tlsOf(from), tlsOf(to)],
      ] as const) {
        for (const key of Object.keys(fromObject).sort(compareStrings)) {
          if (!KNOWN_CONFIG_KEYS.has(key))
            push(
              `${scope}.${key}`,
              canonicalJson(fromObject[key]),
              toObject[key] === undefined ? undefined : canonicalJson(toObject[key]),
              true,
            );
        }
      }
    }
  }
  diffRecord(changes, 'labels', before?.labels ?? {}, after.labels);
  diffRecord(changes, 'annotations', before?.annotations ?? {}, after.annotations);
  return changes;
}

function diffRecord(changes: FieldChange[], scope: string, before: Labels, after: Labels): void {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort(compareStrings);
  for (const key of keys) {
    const from = before[key];
    const to = after[key];
    if (from === to) continue;
    changes.push({
      field: `${scope}.${key}`,
      ...(from === undefined ? {} : { before: from }),
      ...(to === undefined ? {} : { after: to }),
      sensitive: false,
    });
  }
}

function decodedOrFingerprint(encoded: string | undefined): string | undefined {
  if (encoded === undefined) return undefined;
  return decodeBase64Text(encoded) ?? `(not base64: ${fingerprint(encoded)})`;
}

function configValue(config: JsonObject, path: readonly string[]): string | undefined {
  let value: unknown = config;
  for (const key of path) value = isObject(value) ? value[key] : undefined;
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : canonicalJson(value);
}

// ---------------------------------------------------------------------------------------
// Small helpers

function readData(secret: ObservedSecret, key: string): string | undefined {
  const encoded = secret.data[key];
  return encoded === undefined ? undefined : decodeBase64Text(encoded);
}

/** Normalised `data.server`, `undefined` when absent, not base64 or empty. */
function readServer(secret: ObservedSecret): string | undefined {
  const text = readData(secret, 'server');
  return text === undefined || text === '' ? undefined : normaliseServer(text);
}

function observedRef(secret: ObservedSecret): ObservedRef {
  return {
    namespace: secret.namespace,
    name: secret.name,
    uid: secret.uid,
    resourceVersion: secret.resourceVersion,
  };
}

function sortedSecret(secret: DesiredSecret): DesiredSecret {
  return {
    ...secret,
    labels: sortedRecord(secret.labels),
    annotations: sortedRecord(secret.annotations),
    data: sortedRecord(secret.data),
  };
}

function sortedRecord(record: Readonly<Record<string, string>>): Record<string, string> {
  const sorted: Record<string, string> = {};
  for (const key of Object.keys(record).sort(compareStrings)) sorted[key] = record[key] ?? '';
  return sorted;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function actionSecretName(action: Action): string {
  return action.kind === 'create' ? action.secret.name : action.target.name;
}

function compareActions(a: Action, b: Action): number {
  return (
    ACTION_ORDER[a.kind] - ACTION_ORDER[b.kind] ||
    compareStrings(a.cluster, b.cluster) ||
    compareStrings(actionSecretName(a), actionSecretName(b))
  );
}

function compareWarnings(a: Warning, b: Warning): number {
  return (
    compareStrings(a.namespace ?? '', b.namespace ?? '') ||
    compareStrings(a.code, b.code) ||
    compareStrings(a.secret ?? '', b.secret ?? '') ||
    compareStrings(a.message, b.message)
  );
}

function unreachable(value: never): never {
  throw new Error(`unhandled value ${JSON.stringify(value)}`);
}
