// Whether the last plan still holds: a pass that found nothing to do is handed out again while
// the world, the configuration and the translator it was made from are the same and none of
// its decisions has run out. This is the planner's one cache, and it sits outside the steps:
// every other pass is planned in full, so what is repeated is by construction what a fresh
// plan() would make.
//
// Kubernetes gives an object a new resourceVersion whenever anything in it changes, so two
// objects of one uid and resourceVersion hold the same content; a world with an object
// without one (hand-made input) is never recognised again. The snapshot's other fields
// (lookups, unread namespaces, near misses) are small and compared as data, so a field added
// to Snapshot is compared without anyone remembering to.
//
// A pass that is planned in full (one watch event at 10,000 sources) still rebuilds every
// registration, the dearest per-source step of a pass; so the passes this seam runs call a
// memo of it (PerObject), keyed by what the registration is built from: the source and the
// existing registration by uid and resourceVersion, the translation of the kubeconfig by
// identity (the daemon's translator hands out one object per Secret uid and resourceVersion),
// and the rest as values. It returns what a fresh build would, so a plan is the same with
// or without it (a property: "memoised = fresh").

import { buildRegistration, type RegistrationInput } from '../translate/registration.js';
import type { RegistrationResult } from '../translate/registration.js';
import type { Translator } from '../translate/providers.js';
import type { Translation } from '../common/translation-types.js';
import type { Config, ObservedSecret, Plan, Snapshot } from '../common/types.js';
import type { Decided, PlanRepeat } from '../plan/index.js';
import type { PerObject } from '../plan/pass-state.js';

/** A snapshot's objects as uid, resourceVersion pairs, list by list, and the rest as JSON. */
interface World {
  readonly lists: readonly (readonly string[])[];
  readonly rest: string;
}

/** A plan without actions and what it was made from. */
interface Settled {
  /** The configuration as JSON: an equal one built anew is the same configuration. */
  readonly config: string;
  readonly translate: Translator;
  readonly world: World;
  readonly plan: Plan;
  /** The pass's `now`; a clock that went back replans. */
  readonly from: number;
  readonly until: number;
}

/**
 * Create with {@link createSettledRepeat} and pass the same one to every plan() of one
 * process (PlanOptions.repeat). It holds the last plan without actions and nothing else.
 */
export class SettledRepeat implements PlanRepeat {
  private settled: Settled | undefined = undefined;
  private readonly builds = new RememberedBuilds();
  private readonly perObject: PerObject = { buildRegistration: this.builds.build };

  /** Registrations handed to a pass from an earlier one instead of built again. */
  get reused(): number {
    return this.builds.reused;
  }

  /**
   * @internal The last plan if it still holds at `now`, else `decide()`'s, remembered when it
   * has no actions. Plans with actions are never repeated: they are stamped with their time,
   * and their writes change the world.
   */
  planOrRepeat(
    snapshot: Snapshot,
    config: Config,
    now: number,
    translate: Translator,
    decide: (perObject: PerObject) => Decided,
  ): Plan {
    const last = this.settled;
    const configKey = JSON.stringify(config);
    if (
      last !== undefined &&
      last.config === configKey &&
      last.translate === translate &&
      Number.isInteger(now) &&
      now >= last.from &&
      now < last.until &&
      sameWorld(last.world, snapshot)
    )
      return last.plan;
    this.builds.nextPass();
    const { plan, stableUntil } = decide(this.perObject);
    const world = plan.actions.length === 0 ? worldOf(snapshot) : undefined;
    this.settled =
      world === undefined
        ? undefined
        : { config: configKey, translate, world, plan, from: now, until: stableUntil };
    return plan;
  }
}

export function createSettledRepeat(): SettledRepeat {
  return new SettledRepeat();
}

/**
 * buildRegistration with its last result kept per source: a hit needs the same translation
 * object and the same key. What no pass has asked for in two passes is dropped, so a deleted
 * source is forgotten. (A WeakMap by translation made plans with a translator that hands out
 * new objects every time 3x slower: V8 collects short-lived weak keys at a price.)
 */
class RememberedBuilds {
  reused = 0;
  private current = new Map<string, Slot>();
  private previous = new Map<string, Slot>();

  /** A pass planned in full begins: what the one before last asked for and not since goes. */
  nextPass(): void {
    this.previous = this.current;
    this.current = new Map();
  }

  readonly build = (input: RegistrationInput): RegistrationResult => {
    const key = buildKey(input);
    // Kept only beside a registration that exists: a create's result is never asked for again
    // once the create lands (the key holds the registration's uid), and keeping 10,000 of them
    // after a cold start, beside the registrations the watch then holds, is the heap's limit.
    if (key === undefined || input.existing === undefined) return buildRegistration(input);
    const source = input.namespace.uid;
    const slot = this.current.get(source) ?? this.previous.get(source);
    if (slot !== undefined && slot.translation === input.translation && slot.key === key) {
      this.current.set(source, slot);
      this.reused += 1;
      return slot.result;
    }
    const result = sharingStrings(buildRegistration(input), input.existing);
    this.current.set(source, { translation: input.translation, key, result });
    return result;
  };
}

interface Slot {
  readonly translation: Translation;
  readonly key: string;
  readonly result: RegistrationResult;
}

/**
 * The result with each data value equal to the existing registration's replaced by that very
 * string, so what is kept here adds ~nothing to what the watch already holds (at 10,000
 * sources the built `config` values alone are ~30 MiB); equal strings, so the same result.
 */
function sharingStrings(
  result: RegistrationResult,
  existing: ObservedSecret | undefined,
): RegistrationResult {
  if (!result.ok || existing === undefined) return result;
  const data: Record<string, string> = {};
  for (const key in result.secret.data) {
    const value = result.secret.data[key] as string;
    const held = existing.data[key];
    data[key] = held === value ? held : value;
  }
  return { ...result, secret: { ...result.secret, data } };
}

/** Everything a registration is built from but the translation, or `undefined` when unversioned. */
function buildKey(input: RegistrationInput): string | undefined {
  const { namespace, existing } = input;
  if (namespace.uid === '' || namespace.resourceVersion === undefined) return undefined;
  if (namespace.resourceVersion === '') return undefined;
  if (existing !== undefined && (existing.uid === '' || existing.resourceVersion === ''))
    return undefined;
  return [
    namespace.name,
    namespace.uid,
    namespace.resourceVersion,
    input.capi === undefined ? '' : `${input.capi.namespace}/${input.capi.name}`,
    existing?.uid ?? '',
    existing?.resourceVersion ?? '',
    input.cluster,
    input.provider,
    input.pause ?? '',
    input.config.targetNamespace,
    input.config.managedBy,
    input.keys.prefix,
  ].join('\u0000');
}

interface Versioned {
  readonly uid: string;
  readonly resourceVersion?: string | undefined;
}

function listsOf(snapshot: Snapshot): readonly (readonly Versioned[])[] {
  return [
    snapshot.namespaces,
    snapshot.clusters ?? [],
    snapshot.candidateSecrets,
    snapshot.clusterSecrets,
  ];
}

const LISTS: ReadonlySet<string> = new Set([
  'namespaces',
  'clusters',
  'candidateSecrets',
  'clusterSecrets',
]);

function restOf(snapshot: Snapshot): string {
  const top = snapshot as unknown as Record<string, unknown>;
  return JSON.stringify(snapshot, (key, value: unknown) =>
    // The top level's lists are compared by uid and resourceVersion; everything else as it is.
    LISTS.has(key) && value === top[key] ? undefined : value,
  );
}

/** The world a snapshot shows, or `undefined` when an object has no uid or resourceVersion. */
export function worldOf(snapshot: Snapshot): World | undefined {
  const lists: string[][] = [];
  for (const objects of listsOf(snapshot)) {
    const pairs: string[] = new Array<string>(objects.length * 2);
    for (let i = 0; i < objects.length; i++) {
      const { uid, resourceVersion } = objects[i] as Versioned;
      if (uid === '' || resourceVersion === undefined || resourceVersion === '') return undefined;
      pairs[2 * i] = uid;
      pairs[2 * i + 1] = resourceVersion;
    }
    lists.push(pairs);
  }
  return { lists, rest: restOf(snapshot) };
}

/** True when `snapshot` holds the objects `world` was taken from, in the same order. */
export function sameWorld(world: World, snapshot: Snapshot): boolean {
  const lists = listsOf(snapshot);
  for (let l = 0; l < lists.length; l++) {
    const objects = lists[l] as readonly Versioned[];
    const pairs = world.lists[l] as readonly string[];
    if (pairs.length !== objects.length * 2) return false;
    for (let i = 0; i < objects.length; i++) {
      const object = objects[i] as Versioned;
      if (object.uid !== pairs[2 * i] || object.resourceVersion !== pairs[2 * i + 1]) return false;
    }
  }
  return restOf(snapshot) === world.rest;
}
