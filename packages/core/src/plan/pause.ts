// Whether a source's registration is paused in ArgoCD (skip-reconcile): its source says so
// (`<prefix>paused: "true"`, a label or an annotation, for any scheduler that sleeps
// clusters), or, with probing on, its child failed `probeFailures` probes in a row. A pause
// keeps the registration, its labels and its Applications; only ArgoCD's reconciling stops.
//
// The probe decision has hysteresis in one direction only: a child paused as unreachable
// stays paused until a probe succeeds (a restarted registrar, which has not probed yet, does
// not flap it awake), and wakes at the first success.

import type { ObservedSecret, PauseReason } from '../common/types.js';
import type { Source } from './model.js';
import { warn, type PassState } from './pass-state.js';
import { describeSource } from '../config/sources.js';

export function pauseOf(
  state: PassState,
  source: Source,
  existing: ObservedSecret | undefined,
): PauseReason | undefined {
  const keys = state.keys;
  const label = source.labels[keys.paused];
  const annotation = source.annotations[keys.paused];
  if (label === 'true' || annotation === 'true') return 'paused';
  for (const [kind, value] of [
    ['label', label],
    ['annotation', annotation],
  ] as const) {
    if (value !== undefined && value !== 'false') {
      warn(
        state,
        'paused-value-invalid',
        `${kind} ${keys.paused}=${JSON.stringify(value)} on ${describeSource(source.name)} is neither "true" nor "false"; the cluster is not paused for it (set "true" to pause it in ArgoCD, or remove it)`,
        source.name,
      );
    }
  }
  if (!state.config.probeChildren) return undefined;
  const wasUnreachable = existing?.annotations[keys.pauseReason] === 'unreachable';
  const probe = state.snapshot.children?.[source.name];
  if (probe === undefined) return wasUnreachable ? 'unreachable' : undefined;
  if (probe.failures >= state.config.probeFailures) return 'unreachable';
  return wasUnreachable && probe.failures > 0 ? 'unreachable' : undefined;
}
