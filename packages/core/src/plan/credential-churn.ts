// Credential churn (k3k re-mints its client certificate on every reconcile): a
// credential-only change waits out the interval since the last credential write and, with a
// refresh window, waits until the registered certificate nears its expiry. An expired (or
// expiring) registered certificate is always replaced at once.

import { formatDuration } from '../config/duration.js';
import { formatTimestamp, parseTimestamp } from '../translate/registration.js';
import type { CertificateFacts, ObservedSecret } from '../common/types.js';
import type { Deferral } from './model.js';
import { changesAt, type PassState } from './pass-state.js';

/** Why a credential-only update of `existing` waits, or `undefined` when it is written now. */
export function deferral(
  state: PassState,
  existing: ObservedSecret,
  registered: CertificateFacts | undefined,
): Deferral | undefined {
  const { config, now } = state;
  const window = config.credentialRefreshWindowMs;
  const notAfter = parseTimestamp(registered?.notAfter);
  if (notAfter !== undefined) {
    changesAt(state, notAfter);
    if (window > 0) changesAt(state, notAfter - window);
    if (notAfter <= now || (window > 0 && notAfter - now <= window)) return undefined;
  }
  const lastWrite = parseTimestamp(existing.annotations[state.keys.credentialsUpdatedAt]);
  if (lastWrite !== undefined) changesAt(state, lastWrite + config.intervalMs);
  if (lastWrite !== undefined && now - lastWrite < config.intervalMs) {
    return {
      message: `the kubeconfig carries new credentials; they are written at most once per interval (${formatDuration(config.intervalMs)}) and were last written at ${formatTimestamp(lastWrite)}`,
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
