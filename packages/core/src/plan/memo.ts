// What plan() may remember between passes (a steady-state pass re-parses and rebuilds
// nothing). Everything here is the result of a pure function of inputs that are immutable
// for a given identity, Kubernetes' uid + resourceVersion, so a plan made with a warm memo is
// byte-identical to one made without it. The caller owns the memo (one per daemon, passed to
// every plan()); core itself keeps no state between calls. The entry types live in model.ts.

import type { Translator } from '../translate/providers.js';
import type { ObservedSecret, Plan, Snapshot, SourceNamespace } from '../shared/types.js';
import type { NamespaceMemo, SecretMemo, Subject } from './model.js';
import { readServer } from './secret-fields.js';
import { identify, sameWorld, type WorldIdentity } from './world-identity.js';

/** A plan without actions and the world, configuration and time span it holds for. */
interface SettledPass {
  readonly configKey: string;
  readonly translate: Translator;
  readonly world: WorldIdentity;
  readonly plan: Plan;
  /** The pass's `now`; a clock that went back replans. */
  readonly from: number;
  /** The first instant at which one of its decisions changes (PassState.stableUntil). */
  readonly until: number;
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
  /** @internal The last pass, when it found nothing to do. */
  settled: SettledPass | undefined = undefined;

  /**
   * @internal The last pass's plan when it found nothing to do and nothing it was made from
   * has changed: the same world, configuration and translator, and no decision of it has
   * run out since. Plans with actions are never repeated: they are stamped with their time,
   * and their writes change the world.
   */
  repeat(
    snapshot: Snapshot,
    configKey: string,
    translate: Translator,
    now: number,
  ): Plan | undefined {
    const settled = this.settled;
    if (
      settled === undefined ||
      settled.configKey !== configKey ||
      settled.translate !== translate ||
      !Number.isInteger(now) ||
      now < settled.from ||
      now >= settled.until ||
      !sameWorld(settled.world, snapshot)
    )
      return undefined;
    return settled.plan;
  }

  /** @internal Remembers a pass's plan for repeat(), or forgets the last when it has actions. */
  remember(snapshot: Snapshot, plan: Plan, now: number, until: number): void {
    this.settled =
      plan.actions.length === 0 && this.configKey !== undefined && this.translate !== undefined
        ? {
            configKey: this.configKey,
            translate: this.translate,
            world: identify(snapshot),
            plan,
            from: now,
            until,
          }
        : undefined;
  }

  /** @internal Starts a pass; returns its number. */
  begin(configKey: string, translate: Translator): number {
    if (configKey !== this.configKey || translate !== this.translate) {
      this.namespaces.clear();
      this.secrets.clear();
      this.configKey = configKey;
      this.translate = translate;
    }
    this.pass += 1;
    this.seenNamespaces = 0;
    this.seenSecrets = 0;
    return this.pass;
  }

  /** @internal The namespace's entry, marked seen; `undefined` for a second namespace of one name. */
  namespaceEntry(namespace: SourceNamespace): NamespaceMemo | undefined {
    const pass = this.pass;
    let entry = this.namespaces.get(namespace.name);
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
        held: undefined,
        converted: undefined,
      };
      this.namespaces.set(namespace.name, entry);
    }
    entry.seen = pass;
    this.seenNamespaces += 1;
    return entry;
  }

  /** @internal The source (namespace or Cluster) of this key, if there is one this pass. */
  subjectNamed(name: string): Subject | undefined {
    const entry = this.namespaces.get(name);
    return entry?.seen === this.pass ? entry.subject : undefined;
  }

  /**
   * @internal Facts of a target-namespace Secret, remembered per uid + resourceVersion and
   * marked seen; `undefined` for a second Secret of one name.
   */
  secretEntry(secret: ObservedSecret): SecretMemo | undefined {
    const pass = this.pass;
    let entry = this.secrets.get(secret.name);
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
        source: undefined,
      };
      this.secrets.set(secret.name, entry);
    }
    entry.seen = pass;
    entry.secret = secret;
    entry.registration = undefined;
    this.seenSecrets += 1;
    return entry;
  }

  /** @internal The target-namespace Secret of this name this pass, and its registration if owned. */
  secretNamed(name: string): SecretMemo | undefined {
    const entry = this.secrets.get(name);
    return entry?.seen === this.pass ? entry : undefined;
  }

  /**
   * @internal secretNamed(name) for the namespace of `entry`, which asks for that name on
   * every pass: the entry found last time is checked before the map is searched. An entry
   * seen this pass is the one the map holds for its name (secretEntry replaces, never
   * revives), so a hit is the same answer.
   */
  secretNamedFor(entry: NamespaceMemo, name: string): SecretMemo | undefined {
    const cached = entry.held;
    if (cached?.seen === this.pass && cached.secret?.name === name) return cached;
    const found = this.secretNamed(name);
    entry.held = found;
    return found;
  }

  /**
   * @internal subjectNamed(name) for the source namespace `name` that the labels of the
   * Secret of `facts` record; those labels cannot change within its resourceVersion, so the
   * entry found last time is checked before the map is searched (a namespace entry seen this
   * pass is the one the map holds for its name).
   */
  sourceSubject(facts: SecretMemo, name: string): Subject | undefined {
    const cached = facts.source;
    if (cached?.seen === this.pass) return cached.subject;
    const entry = this.namespaces.get(name);
    if (entry?.seen !== this.pass) return undefined;
    facts.source = entry;
    return entry.subject;
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
    // Nothing of this pass outlives it except through the facts, and no entry keeps one the
    // pass did not see.
    for (const entry of this.namespaces.values()) {
      entry.subject = undefined;
      if (entry.held !== undefined && entry.held.seen !== this.pass) entry.held = undefined;
    }
    for (const entry of this.secrets.values()) {
      entry.secret = undefined;
      entry.registration = undefined;
      if (entry.source !== undefined && entry.source.seen !== this.pass) entry.source = undefined;
    }
  }
}

export function createPlanMemo(): PlanMemo {
  return new PlanMemo();
}
