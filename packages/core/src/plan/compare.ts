// Whether an existing registration already says what the desired one does (then nothing is
// written), and if not, what kind of change it is: server, CA, credentials or metadata. A
// `config` of equal meaning in other bytes (an older writer's key order) counts as equal. A
// change of credentials only is what credential-churn.ts may defer.

import { decodeBase64Text } from '../shared/base64.js';
import {
  canonicalJson,
  readConfig,
  tlsOf,
  type JsonObject,
} from '../translate/cluster-config-json.js';
import type { CertificateFacts, DesiredSecret, Labels, ObservedSecret } from '../shared/types.js';
import { readCertificateFacts } from '../translate/x509.js';
import type { Claim, Comparison } from './model.js';

/** compareRegistration, remembered with the desired registration it compared. */
export function compareClaim(claim: Claim, existing: ObservedSecret): Comparison {
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
    const desired = comparison.desired;
    if (desired === memo.repointed) {
      // Already our own copy (an earlier re-listed pass made it): repoint it in place rather
      // than allocate three objects per namespace on every re-list. Nothing outside the memo
      // and this pass's claim holds it (actions carry sorted copies), and it keeps equal
      // contents.
      memo.repointed.labels = existing.labels;
      memo.repointed.annotations = existing.annotations;
      memo.repointed.data = existing.data;
    } else {
      const repointed = {
        ...desired,
        labels: existing.labels,
        annotations: existing.annotations,
        data: existing.data,
      };
      memo.repointed = repointed;
      memo.result = { ...memo.result, secret: repointed };
      comparison = { ...comparison, desired: repointed };
      memo.comparison = comparison;
    }
  }
  return comparison;
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
