// ArgoCD's rules for a cluster Secret, written independently of the translator so
// the properties check the planner's output against the rules, not against itself.

import { decodeBase64, decodeBase64Text, encodeBase64 } from '../common/base64.js';
import { classifyServer } from '../common/server-address.js';
import { execFormProblems } from '../test-fixtures/argo-config-check.js';

const isPaddedBase64 = (value: string): boolean => {
  const bytes = decodeBase64(value);
  return bytes !== undefined && encodeBase64(bytes) === value && value.length % 4 === 0;
};

/** Everything ArgoCD would reject in a registration's `data`; empty means accepted. */
export function registrationProblems(data: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (!isPaddedBase64(value)) problems.push(`data.${key} is not padded standard base64`);
  }
  const name = decodeBase64Text(data['name'] ?? '');
  if (name === undefined || name === '') problems.push('data.name is missing');
  const server = decodeBase64Text(data['server'] ?? '');
  if (server === undefined || classifyServer(server).kind !== 'ok')
    problems.push(`data.server ${String(server)} is not a usable address`);
  const text = decodeBase64Text(data['config'] ?? '');
  let config: Record<string, unknown>;
  try {
    config = JSON.parse(text ?? '') as Record<string, unknown>;
  } catch {
    return [...problems, 'data.config is not JSON'];
  }
  const tls = (config['tlsClientConfig'] ?? {}) as Record<string, unknown>;
  if (typeof tls['insecure'] !== 'boolean')
    problems.push('tlsClientConfig.insecure is not a boolean');
  if (tls['insecure'] === true && tls['caData'] !== undefined)
    problems.push('insecure together with caData');
  for (const key of ['caData', 'certData', 'keyData']) {
    const value = tls[key];
    if (
      value !== undefined &&
      (typeof value !== 'string' || value === '' || !isPaddedBase64(value))
    )
      problems.push(`${key} is not padded standard base64`);
  }
  problems.push(...execFormProblems(config));
  const forms = [
    tls['certData'] !== undefined && tls['keyData'] !== undefined,
    config['bearerToken'] !== undefined,
    config['username'] !== undefined && config['password'] !== undefined,
    config['awsAuthConfig'] !== undefined || config['execProviderConfig'] !== undefined,
  ].filter(Boolean).length;
  if (forms !== 1) problems.push(`${forms} credential forms`);
  if ((tls['certData'] === undefined) !== (tls['keyData'] === undefined))
    problems.push('half a client certificate');
  return problems;
}
