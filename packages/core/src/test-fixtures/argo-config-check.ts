// What ArgoCD's parser demands of a cluster Secret's `config` (and `server`), as a checker
// for tests: an empty list means ArgoCD would accept it.
//
// The exec forms follow ArgoCD v3.6.1 and its client-go (v0.37.0), read in the Go module
// cache the test plane builds from:
// - pkg/apis/application/v1alpha1/types.go: ClusterConfig JSON keys; AWSAuthConfig
//   {clusterName, roleARN, profile}; ExecProviderConfig {command, args, env (a map),
//   apiVersion, installHint, provideClusterInfo, config}. Cluster.rawRestConfig uses
//   awsAuthConfig when set (execProviderConfig is then ignored), else execProviderConfig;
//   either way username, password and bearerToken are dropped, and certData/keyData still
//   reach the transport.
// - client-go plugin/pkg/client/auth/exec/exec.go: apiVersion must be
//   client.authentication.k8s.io/v1beta1 or v1 (newAuthenticator), and the plugin is
//   skipped silently when the transport has a token, basic auth or a client certificate
//   (UpdateTransportConfig), so an exec form must be the only credential.

import type { ArgoClusterConfig } from '../common/types.js';
import { decodeBase64, encodeBase64 } from '../common/base64.js';
import { classifyServer } from '../common/server-address.js';

const TOP_KEYS = new Set([
  'username',
  'password',
  'bearerToken',
  'tlsClientConfig',
  'awsAuthConfig',
  'execProviderConfig',
  'proxyUrl',
]);
const AWS_KEYS = new Set(['clusterName', 'roleARN', 'profile']);
const EXEC_KEYS = new Set([
  'command',
  'args',
  'env',
  'apiVersion',
  'installHint',
  'provideClusterInfo',
  'config',
]);
const EXEC_API_VERSIONS = new Set([
  'client.authentication.k8s.io/v1beta1',
  'client.authentication.k8s.io/v1',
]);

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** ArgoCD's rules for `awsAuthConfig` and `execProviderConfig` in a parsed `config` object. */
export function execFormProblems(config: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  const aws = config['awsAuthConfig'];
  const exec = config['execProviderConfig'];
  if (aws !== undefined && exec !== undefined)
    problems.push('awsAuthConfig together with execProviderConfig (ArgoCD ignores the latter)');
  if (aws !== undefined) {
    if (!isObject(aws)) problems.push('awsAuthConfig is not an object');
    else {
      for (const key of Object.keys(aws))
        if (!AWS_KEYS.has(key)) problems.push(`unknown awsAuthConfig key ${key}`);
      // argocd-k8s-auth aws signs for the x-k8s-aws-id header; an empty name cannot work.
      if (typeof aws['clusterName'] !== 'string' || aws['clusterName'] === '')
        problems.push('awsAuthConfig.clusterName is empty or not a string');
      for (const key of ['roleARN', 'profile'])
        if (aws[key] !== undefined && (typeof aws[key] !== 'string' || aws[key] === ''))
          problems.push(`awsAuthConfig.${key} is empty or not a string`);
    }
  }
  if (exec !== undefined) {
    if (!isObject(exec)) problems.push('execProviderConfig is not an object');
    else {
      for (const key of Object.keys(exec))
        if (!EXEC_KEYS.has(key)) problems.push(`unknown execProviderConfig key ${key}`);
      if (typeof exec['command'] !== 'string' || exec['command'] === '')
        problems.push('execProviderConfig.command is empty or not a string');
      if (!EXEC_API_VERSIONS.has(exec['apiVersion'] as string))
        problems.push(
          `execProviderConfig.apiVersion ${String(exec['apiVersion'])} is not one client-go accepts`,
        );
      const args = exec['args'];
      if (
        args !== undefined &&
        !(Array.isArray(args) && args.every((arg) => typeof arg === 'string'))
      )
        problems.push('execProviderConfig.args is not a list of strings');
      const env = exec['env'];
      if (
        env !== undefined &&
        !(isObject(env) && Object.values(env).every((value) => typeof value === 'string'))
      )
        problems.push('execProviderConfig.env is not a map of strings');
      if (exec['installHint'] !== undefined && typeof exec['installHint'] !== 'string')
        problems.push('execProviderConfig.installHint is not a string');
      if (
        exec['provideClusterInfo'] !== undefined &&
        typeof exec['provideClusterInfo'] !== 'boolean'
      )
        problems.push('execProviderConfig.provideClusterInfo is not a boolean');
    }
  }
  return problems;
}
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
  problems.push(...execFormProblems(config as unknown as Record<string, unknown>));
  const forms = [
    config.tlsClientConfig.certData !== undefined || config.tlsClientConfig.keyData !== undefined,
    config.bearerToken !== undefined,
    config.username !== undefined || config.password !== undefined,
    config.awsAuthConfig !== undefined || config.execProviderConfig !== undefined,
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
