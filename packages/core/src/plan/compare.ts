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

const CREDENTIAL_FIELDS = ['username', 'password', 'bearerToken', 'certData', 'keyData'] as const;

/** Whether `existing` already says what `desired` does, and if not, what kind of change it is. */
export function compareRegistration(existing: ObservedSecret, desired: DesiredSecret): Comparison {
  const serverChanged = existing.data['server'] !== desired.data['server'];
  const restEqual = sameOutsideConfig(existing, desired);
  const registered = existing.data['config'];
  if (registered === desired.data['config']) return sameConfig(desired, restEqual, serverChanged);
  const before = readConfig(registered);
  const after = readConfig(desired.data['config']);
  if (before === undefined || after === undefined) {
    // Unreadable on either side: nothing to tell a credential change from another.
    return {
      equal: false,
      desired,
      credentialsChanged: true,
      credentialsOnly: false,
      registeredCertificate: undefined,
      reason: serverChanged ? 'server-changed' : 'credentials-changed',
    };
  }
  if (canonicalJson(before) === canonicalJson(after)) {
    // Same meaning, other bytes (an older writer's key order): keep the bytes, write nothing for them.
    const kept = { ...desired, data: { ...desired.data, config: registered ?? '' } };
    return sameConfig(kept, restEqual, serverChanged);
  }
  return configChange(before, after, desired, restEqual, serverChanged);
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

/** The config means the same: equal when the rest is, otherwise a server or metadata change. */
function sameConfig(
  desired: DesiredSecret,
  restEqual: boolean,
  serverChanged: boolean,
): Comparison {
  return {
    equal: restEqual,
    desired,
    credentialsChanged: false,
    credentialsOnly: false,
    registeredCertificate: undefined,
    reason: serverChanged ? 'server-changed' : 'metadata-changed',
  };
}

/**
 * The config means something else: which part changed, and whether only the credentials did
 * (same server, connection settings, metadata and client-certificate issuer), the one change
 * credential-churn.ts may defer.
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
  const credentialsChanged = CREDENTIAL_FIELDS.some(
    (field) =>
      credentialValue(before, beforeTls, field) !== credentialValue(after, afterTls, field),
  );
  const reason = serverChanged
    ? 'server-changed'
    : beforeTls['caData'] !== afterTls['caData']
      ? 'ca-changed'
      : credentialsChanged
        ? 'credentials-changed'
        : 'metadata-changed';
  if (
    !credentialsChanged ||
    serverChanged ||
    !restEqual ||
    !sameConnection(before, after, beforeTls, afterTls)
  )
    return {
      equal: false,
      desired,
      credentialsChanged,
      credentialsOnly: false,
      registeredCertificate: undefined,
      reason,
    };
  const registeredCertificate = certificateOf(beforeTls['certData']);
  return {
    equal: false,
    desired,
    credentialsChanged,
    credentialsOnly: registeredCertificate?.issuer === certificateOf(afterTls['certData'])?.issuer,
    registeredCertificate,
    reason,
  };
}

/** CA, TLS settings and proxy the same, and no field either side does not know. */
function sameConnection(
  before: JsonObject,
  after: JsonObject,
  beforeTls: JsonObject,
  afterTls: JsonObject,
): boolean {
  return (
    beforeTls['caData'] === afterTls['caData'] &&
    beforeTls['insecure'] === afterTls['insecure'] &&
    beforeTls['serverName'] === afterTls['serverName'] &&
    before['proxyUrl'] === after['proxyUrl'] &&
    sameKeys(before, after, [
      'username',
      'password',
      'bearerToken',
      'tlsClientConfig',
      'proxyUrl',
    ]) &&
    sameKeys(beforeTls, afterTls, ['insecure', 'serverName', 'caData', 'certData', 'keyData'])
  );
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

/**
 * The client certificate in an existing registration's `config`, when it holds one: what a
 * stale registration keeps using until its kubeconfig is fixed (its expiry is worth watching).
 */
export function registeredCertificateOf(existing: ObservedSecret): CertificateFacts | undefined {
  const config = readConfig(existing.data['config']);
  return config === undefined ? undefined : certificateOf(tlsOf(config)['certData']);
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
