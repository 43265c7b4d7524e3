// Whether a source's registration is paused in ArgoCD (skip-reconcile): its source says so
// (`<prefix>paused: "true"`, a label or an annotation, for any scheduler that sleeps
// clusters), its provisioner says the child sleeps (with that provisioner's signal on), or,
// with probing on, its child failed `probeFailures` probes in a row. A pause keeps the
// registration, its labels and its Applications; only ArgoCD's reconciling stops.
//
// The probe decision has hysteresis in one direction only: a child paused as unreachable
// stays paused until a probe succeeds (a restarted registrar, which has not probed yet, does
// not flap it awake), and wakes at the first success. A provisioner's pause likewise stands
// while its objects could not be read, and ends when they are read without the mark.

import type {
  Action,
  Config,
  DesiredSecret,
  ObservedSecret,
  PauseReason,
  ProvisionerObject,
  SleepSignal,
} from '../common/types.js';
import { VCLUSTER_NAME_LABEL } from '../config/provider-presets.js';
import { pauseAnnotations } from '../translate/registration.js';
import { sameRecord } from './compare.js';
import type { Claim, Registration, Source, Subject } from './model.js';
import { warn, type PassState } from './pass-state.js';
import { updateOf } from './secret-fields.js';
import { clusterOfSecretName, describeSource, quoted } from '../config/sources.js';

export function pauseOf(
  state: PassState,
  source: Source,
  existing: ObservedSecret | undefined,
  /** The kubeconfig Secret the registration is made from. */
  kubeconfig: ObservedSecret | undefined,
): PauseReason | undefined {
  const keys = state.keys;
  const label = source.labels[keys.paused];
  const annotation = source.annotations[keys.paused];
  if (label === 'true' || annotation === 'true') return 'paused';
  for (const kind of ['label', 'annotation'] as const) {
    const value = kind === 'label' ? label : annotation;
    if (value !== undefined && value !== 'false') {
      warn(
        state,
        'paused-value-invalid',
        `${kind} ${keys.paused}=${quoted(value)} on ${describeSource(source.name)} is neither "true" nor "false"; the cluster is not paused for it (set "true" to pause it in ArgoCD, or remove it)`,
        source.name,
      );
    }
  }
  const pausedAs = existing?.annotations[keys.pauseReason];
  const sleeping = provisionerSleep(state, kubeconfig, pausedAs);
  if (sleeping !== undefined) return sleeping;
  if (!state.config.probeChildren) return undefined;
  const wasUnreachable = pausedAs === 'unreachable';
  const probe = state.snapshot.children?.[source.name];
  if (probe === undefined) return wasUnreachable ? 'unreachable' : undefined;
  if (probe.failures >= state.config.probeFailures) return 'unreachable';
  return wasUnreachable && probe.failures > 0 ? 'unreachable' : undefined;
}

/**
 * A registration kept as it is while its source has no usable kubeconfig (stale, or its claim
 * refused) still follows its pause: ArgoCD keeps using its last credentials, so a source
 * marked paused, or a child those credentials no longer reach, is paused all the same, and
 * woken when that ends. Only the pause annotations change; `undefined` when they already say so.
 */
export function keptRegistrationPause(
  state: PassState,
  registration: Registration,
  won: ReadonlyMap<Subject, Claim>,
): Action | undefined {
  const source = registration.source;
  if (source.kind !== 'managed' || !registration.active) return undefined;
  const subject = source.subject;
  // Unread Secrets or a terminating source: its registration is left exactly as it is.
  if (won.has(subject) || subject.unread !== undefined || subject.terminating) return undefined;
  const existing = registration.secret;
  const pause = pauseOf(state, subject.source, existing, undefined);
  if (pause !== undefined) state.keptPaused.set(subject, pause);
  const annotations: Record<string, string> = { ...existing.annotations };
  // pauseAnnotations sets the reason with the pause; a registration rebuilt whole never
  // carries the old one, this copy does until it goes.
  if (pause === undefined) Reflect.deleteProperty(annotations, state.keys.pauseReason);
  pauseAnnotations(annotations, existing, state.keys, pause);
  if (sameRecord(annotations, existing.annotations)) return undefined;
  const { namespace, name, labels, data } = existing;
  const secret: DesiredSecret = { namespace, name, type: 'Opaque', labels, annotations, data };
  const reason = { code: 'metadata-changed', namespace: subject.source.name } as const;
  return updateOf(registration.cluster, existing, secret, reason);
}

/** How each provisioner marks a sleeping child, and which of its objects runs a kubeconfig's child. */
interface SleepMark {
  readonly on: (config: Config) => boolean;
  readonly reason: PauseReason;
  /** The name by which the objects running the kubeconfig's child know it. */
  readonly childOf: (kubeconfig: ObservedSecret) => string | undefined;
  readonly runs: (object: ProvisionerObject, child: string) => boolean;
  readonly asleep: (object: ProvisionerObject) => boolean;
}

// Kamaji scales a TenantControlPlane's Deployment to zero and reports its version status
// `Sleeping` (api/v1alpha1 KubernetesVersionStatus); its kubeconfig Secrets name the
// TenantControlPlane in a label (`<tcp>-admin-kubeconfig`, and KubeconfigGenerator's).
// `vcluster pause` (alias `sleep`) annotates the vcluster's StatefulSet or Deployment
// (`app=vcluster,release=<name>`) `loft.sh/paused: "true"` and scales it to zero; the
// platform's sleep mode labels it `loft.sh/sleep-mode: "true"`. `vcluster list` reads both.
const SLEEP_MARKS: Readonly<Record<SleepSignal, SleepMark>> = {
  kamaji: {
    on: (config) => config.kamajiSleep,
    reason: 'kamaji-sleeping',
    childOf: (kubeconfig) =>
      kubeconfig.labels['kamaji.clastix.io/name'] ??
      kubeconfig.labels['kamaji.clastix.io/managed-for'] ??
      clusterOfSecretName('*-admin-kubeconfig', kubeconfig.name),
    runs: (object, child) => object.kind === 'TenantControlPlane' && object.name === child,
    asleep: (object) => object.versionStatus === 'Sleeping',
  },
  vcluster: {
    on: (config) => config.vclusterSleep,
    reason: 'vcluster-sleeping',
    childOf: (kubeconfig) =>
      kubeconfig.labels[VCLUSTER_NAME_LABEL] ??
      (kubeconfig.name.startsWith('vc-') ? kubeconfig.name.slice(3) : undefined),
    runs: (object, child) =>
      object.kind !== 'TenantControlPlane' &&
      object.labels['app'] === 'vcluster' &&
      object.labels['release'] === child,
    asleep: (object) =>
      object.annotations['loft.sh/paused'] === 'true' ||
      object.labels['loft.sh/sleep-mode'] === 'true',
  },
};
const SLEEP_ENTRIES = Object.entries(SLEEP_MARKS) as [SleepSignal, SleepMark][];

function provisionerSleep(
  state: PassState,
  kubeconfig: ObservedSecret | undefined,
  pausedAs: string | undefined,
): PauseReason | undefined {
  for (const [signal, mark] of SLEEP_ENTRIES) {
    if (!mark.on(state.config)) continue;
    const objects = state.snapshot.provisioners?.[signal];
    // Not read this pass, or no kubeconfig Secret left to say which object runs the child
    // (a stale registration): what was decided when both were known stands.
    if (objects === undefined || kubeconfig === undefined) {
      if (pausedAs === mark.reason) return mark.reason;
      continue;
    }
    const child = mark.childOf(kubeconfig);
    if (child === undefined) continue;
    const namespace = kubeconfig.namespace;
    for (const object of objects) {
      if (object.namespace === namespace && mark.runs(object, child) && mark.asleep(object))
        return mark.reason;
    }
  }
  return undefined;
}
