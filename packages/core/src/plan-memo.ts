// What plan() may remember between passes (docs/behaviour.md#budgets: a steady-state pass re-parses and
// rebuilds nothing). Everything here is the result of a pure function of inputs that are
// immutable for a given identity, Kubernetes' uid + resourceVersion, so a plan made with a
// warm memo is byte-identical to one made without it. The caller owns the memo (one per
// daemon, passed to every plan()); core itself keeps no state between calls.

import type { Comparison, NamespaceFacts, Registration, Selection, Subject } from './plan.js';
import type { Translator } from './providers.js';
import type { RegistrationResult } from './registration.js';
import type {
  NamespaceOutcome,
  ObservedSecret,
  ProviderName,
  SourceNamespace,
  Translation,
} from './types.js';

/**
 * A Secret of the target namespace, by name: facts valid for one uid + resourceVersion, and
 * (for the pass that saw it last) the Secret itself and its registration when it is ours.
 */
export interface SecretMemo {
  readonly uid: string;
  readonly resourceVersion: string;
  seen: number;
  secret: ObservedSecret | undefined;
  registration: Registration | undefined;
  /** Normalised `data.server`; `undefined` when absent or unreadable. */
  readonly server: string | undefined;
  /** Decoded `data.name`; `null` until first needed (only foreign Secrets need it). */
  dataName: string | undefined | null;
}

/** The kubeconfig choice of one namespace, valid while its candidates and override flag are. */
export interface SelectionMemo {
  /** uid and resourceVersion of each candidate Secret, in snapshot order. */
  readonly uids: readonly string[];
  readonly resourceVersions: readonly string[];
  readonly serverOverridden: boolean;
  readonly selection: Selection;
}

/** The desired registration of one namespace and its comparison with the existing one. */
export interface BuildMemo {
  /** The namespace's resourceVersion; without one, the namespace object itself is the key. */
  readonly namespaceVersion: string | undefined;
  readonly namespaceObject: SourceNamespace | undefined;
  readonly cluster: string;
  readonly provider: ProviderName;
  readonly translation: Translation;
  readonly existingUid: string | undefined;
  readonly existingVersion: string | undefined;
  /**
   * When the registration is up to date this holds the existing Secret's own `data` (equal
   * by definition), so the memo does not keep a second copy of every encoded config.
   */
  result: RegistrationResult;
  /** Normalised server of the desired registration. */
  readonly server: string | undefined;
  /** Computed on first use (incumbent claims only). */
  comparison: Comparison | undefined;
}

/** A managed namespace, by name, while its uid stays the same. */
export interface NamespaceMemo {
  readonly uid: string;
  seen: number;
  facts: NamespaceFacts | undefined;
  selection: SelectionMemo | undefined;
  build: BuildMemo | undefined;
  /** Last pass's outcome, handed out again when nothing in it changed. */
  outcome: NamespaceOutcome | undefined;
  /** The pass's subject (valid while `seen` is the current pass). */
  subject: Subject | undefined;
}

/**
 * Create with {@link createPlanMemo} and pass the same memo to every plan() of one process.
 * Opaque: its fields are the planner's business. It forgets whatever a pass did not see, and
 * everything when the configuration or the translator changes.
 */
export class PlanMemo {
  /** @internal */
  configKey: string | undefined = undefined;
  /** @internal */
  translate: Translator | undefined = undefined;
  /** @internal */
  pass = 0;
  /** @internal By namespace name. */
  readonly namespaces = new Map<string, NamespaceMemo>();
  /** @internal Target-namespace Secrets by name. */
  readonly secrets = new Map<string, SecretMemo>();
  /** @internal Entries seen this pass: when all were, there is nothing to sweep. */
  seenNamespaces = 0;
  /** @internal */
  seenSecrets = 0;
  /** @internal The last pass's planner, emptied (see Planner.retire in plan.ts). */
  retired: object | undefined = undefined;

  /** @internal Starts a pass; returns its number. */
  begin(configKey: string, translate: Translator): number {
    if (configKey !== this.configKey || translate !== this.translate) {
      this.namespaces.clear();
      this.secrets.clear();
      this.configKey = configKey;
      this.translate = translate;
    }
    this.pass += 1;
    this.retired = undefined;
    this.seenNamespaces = 0;
    this.seenSecrets = 0;
    return this.pass;
  }

  /** @internal Drops what the pass did not see (deleted namespaces and Secrets). */
  sweep(): void {
    if (this.namespaces.size > this.seenNamespaces) {
      for (const [key, entry] of this.namespaces) {
        if (entry.seen !== this.pass) this.namespaces.delete(key);
      }
    }
    if (this.secrets.size > this.seenSecrets) {
      for (const [key, entry] of this.secrets) {
        if (entry.seen !== this.pass) this.secrets.delete(key);
      }
    }
    // Nothing of this pass outlives it except through the facts.
    for (const entry of this.namespaces.values()) entry.subject = undefined;
    for (const entry of this.secrets.values()) {
      entry.secret = undefined;
      entry.registration = undefined;
    }
  }
}

export function createPlanMemo(): PlanMemo {
  return new PlanMemo();
}
