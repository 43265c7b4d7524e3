// Whether an existing registration already says what the desired one does (then nothing is
// written), and if not, what kind of change it is: server, CA, credentials or metadata. A
// `config` of equal meaning in other bytes (an older writer's key order) counts as equal. A
// change of credentials only is what credential-churn.ts may defer.

import { decodeBase64Text } from '../common/base64.js';
import {
  canonicalJson,
  readConfig,
  tlsOf,
  type JsonObject,
} from '../translate/cluster-config-json.js';
import type { CertificateFacts, DesiredSecret, Labels, ObservedSecret } from '../common/types.js';
import { readCertificateFacts } from '../translate/x509.js';
import type { Comparison } from './model.js';

/** Credential fields of the config, and of its `tlsClientConfig`. */
const CONFIG_CREDENTIALS = ['username', 'password', 'bearerToken'] as const;
const TLS_CREDENTIALS = ['certData', 'keyData'] as const;

export function compareRegistration(existing: ObservedSecret, desired: DesiredSecret): Comparison {
  const serverChanged = existing.data['server'] !== desired.data['server'];
  const restEqual = sameOutsideConfig(existing, desired);
  // The config means the same: equal when the rest is, otherwise a server or metadata change.
  const otherwise = serverChanged ? 'server-changed' : 'metadata-changed';
  const registered = existing.data['config'];
  if (registered === desired.data['config'])
    return comparison(desired, restEqual, false, otherwise);
  const before = readConfig(registered);
  const after = readConfig(desired.data['config']);
  // Unreadable on either side: nothing to tell a credential change from another.
  if (before === undefined || after === undefined) {
    const reason = serverChanged ? 'server-changed' : 'credentials-changed';
    return comparison(desired, false, true, reason);
  }
  // Same meaning, other bytes (an older writer's key order): keep the bytes, write nothing for them.
  if (canonicalJson(before) === canonicalJson(after)) {
    const kept = { ...desired, data: { ...desired.data, config: registered ?? '' } };
    return comparison(kept, restEqual, false, otherwise);
  }
  return configChange(before, after, desired, restEqual, serverChanged);
}

/** A comparison that is not `credentialsOnly`. */
function comparison(
  desired: DesiredSecret,
  equal: boolean,
  credentialsChanged: boolean,
  reason: Comparison['reason'],
): Comparison {
  return {
    equal,
    desired,
    credentialsChanged,
    credentialsOnly: false,
    registeredCertificate: undefined,
    reason,
  };
}

/** Labels, annotations and every data key but `config` are the same. */
function sameOutsideConfig(existing: ObservedSecret, desired: DesiredSecret): boolean {
  if (!sameRecord(existing.labels, desired.labels)) return false;
  if (!sameRecord(existing.annotations, desired.annotations)) return false;
  for (const key of Object.keys(desired.data)) {
    if (key !== 'config' && existing.data[key] !== desired.data[key]) return false;
  }
  for (const key of Object.keys(existing.data)) {
    if (!Object.hasOwn(desired.data, key)) return false;
  }
  return true;
}

/**
 * The config means something else: which part changed, and whether only the credentials did
 * (same server, connection settings, metadata and client-certificate issuer).
 */
function configChange(
  before: JsonObject,
  after: JsonObject,
  desired: DesiredSecret,
  restEqual: boolean,
  serverChanged: boolean,
): Comparison {
  const beforeTls = tlsOf(before);
  const afterTls = tlsOf(after);
  const credentialsChanged =
    CONFIG_CREDENTIALS.some((field) => before[field] !== after[field]) ||
    TLS_CREDENTIALS.some((field) => beforeTls[field] !== afterTls[field]);
  const reason = serverChanged
    ? 'server-changed'
    : beforeTls['caData'] !== afterTls['caData']
      ? 'ca-changed'
      : credentialsChanged
        ? 'credentials-changed'
        : 'metadata-changed';
  const changed = comparison(desired, false, credentialsChanged, reason);
  if (!credentialsChanged || serverChanged || !restEqual || !sameConnection(before, after))
    return changed;
  const registeredCertificate = certificateOf(beforeTls['certData']);
  return {
    ...changed,
    credentialsOnly: registeredCertificate?.issuer === certificateOf(afterTls['certData'])?.issuer,
    registeredCertificate,
  };
}

/** CA, TLS settings and proxy the same, and no field either side does not know. */
function sameConnection(before: JsonObject, after: JsonObject): boolean {
  const beforeTls = tlsOf(before);
  const afterTls = tlsOf(after);
  return (
    beforeTls['caData'] === afterTls['caData'] &&
    beforeTls['insecure'] === afterTls['insecure'] &&
    beforeTls['serverName'] === afterTls['serverName'] &&
    before['proxyUrl'] === after['proxyUrl'] &&
    sameKeys(before, after, [...CONFIG_CREDENTIALS, 'tlsClientConfig', 'proxyUrl']) &&
    sameKeys(beforeTls, afterTls, ['insecure', 'serverName', 'caData', ...TLS_CREDENTIALS])
  );
}

/** True when both objects have the same keys outside `known` with equal values. */
function sameKeys(a: JsonObject, b: JsonObject, known: readonly string[]): boolean {
  const extra = (object: JsonObject): string =>
    canonicalJson(
      Object.fromEntries(Object.entries(object).filter(([key]) => !known.includes(key))),
    );
  return extra(a) === extra(b);
}

/**
 * The client certificate in an existing registration's `config`, when it holds one: what a
 * stale registration keeps using until its kubeconfig is fixed (its expiry is worth watching).
 */
export function registeredCertificateOf(
  existing: ObservedSecret | undefined,
): CertificateFacts | undefined {
  const config = readConfig(existing?.data['config']);
  return config === undefined ? undefined : certificateOf(tlsOf(config)['certData']);
}

function certificateOf(certData: unknown): CertificateFacts | undefined {
  if (typeof certData !== 'string') return undefined;
  const pem = decodeBase64Text(certData);
  return pem === undefined ? undefined : readCertificateFacts(pem);
}

/** The same keys with the same values. */
export function sameRecord(a: Labels, b: Labels): boolean {
  // Counted rather than listed: a pass compares the labels and annotations of every registration.
  let count = 0;
  for (const key in a) {
    if (a[key] !== b[key] || !Object.hasOwn(b, key)) return false;
    count++;
  }
  for (const key in b) if (Object.hasOwn(b, key)) count--;
  return count === 0;
}
