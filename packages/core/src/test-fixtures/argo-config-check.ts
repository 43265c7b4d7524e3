// What ArgoCD's parser demands of a cluster Secret's `config` (and `server`), as a checker
// for tests: an empty list means ArgoCD would accept it.

import type { ArgoClusterConfig } from '../types.js';
import { decodeBase64, encodeBase64 } from '../base64.js';
import { classifyServer } from '../server-address.js';

const TOP_KEYS = new Set(['username', 'password', 'bearerToken', 'tlsClientConfig', 'proxyUrl']);
const TLS_KEYS = new Set(['insecure', 'serverName', 'caData', 'certData', 'keyData']);

export function argoConfigProblems(server: string, config: ArgoClusterConfig): string[] {
  const problems: string[] = [];
  if (classifyServer(server).kind !== 'ok')
    problems.push(`server ${server} is not a usable address`);
  if (server.endsWith('/')) problems.push('server ends in /');
  const roundTripped: unknown = JSON.parse(JSON.stringify(config));
  if (JSON.stringify(roundTripped) !== JSON.stringify(config))
    problems.push('config is not plain JSON');
  for (const key of Object.keys(config))
    if (!TOP_KEYS.has(key)) problems.push(`unknown key ${key}`);
  const tls = config.tlsClientConfig as Record<string, unknown>;
  for (const key of Object.keys(tls))
    if (!TLS_KEYS.has(key)) problems.push(`unknown tlsClientConfig key ${key}`);
  if (typeof tls['insecure'] !== 'boolean')
    problems.push('tlsClientConfig.insecure is not a boolean');
  for (const key of ['caData', 'certData', 'keyData']) {
    const value = tls[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '') problems.push(`${key} is empty or not a string`);
    else {
      const bytes = decodeBase64(value);
      if (bytes === undefined || encodeBase64(bytes) !== value)
        problems.push(`${key} is not padded standard base64`);
    }
  }
  if (config.tlsClientConfig.insecure && config.tlsClientConfig.caData !== undefined)
    problems.push('insecure together with caData');
  const forms = [
    config.tlsClientConfig.certData !== undefined || config.tlsClientConfig.keyData !== undefined,
    config.bearerToken !== undefined,
    config.username !== undefined || config.password !== undefined,
  ].filter(Boolean).length;
  if (forms !== 1) problems.push(`${forms} credential forms`);
  if (
    (config.tlsClientConfig.certData === undefined) !==
    (config.tlsClientConfig.keyData === undefined)
  )
    problems.push('certData without keyData or the reverse');
  if ((config.username === undefined) !== (config.password === undefined))
    problems.push('username without password or the reverse');
  for (const key of ['username', 'password', 'bearerToken', 'proxyUrl'] as const) {
    const value = config[key];
    if (value !== undefined && (typeof value !== 'string' || value === ''))
      problems.push(`${key} is empty or not a string`);
  }
  return problems;
}
