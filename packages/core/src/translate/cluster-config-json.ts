// The `config` JSON of an ArgoCD cluster Secret: written in one fixed form, and read by the
// planner's comparison (is anything to be written?) and the preview's field diff (what would
// change?).

import { compareStrings } from '../common/compare-strings.js';
import { decodeBase64Text } from '../common/base64.js';
import type { ArgoClusterConfig } from '../common/translation-types.js';

export type JsonObject = Readonly<Record<string, unknown>>;

/** The decoded, parsed `data.config`; `undefined` when absent, not base64 or not a JSON object. */
export function readConfig(encoded: string | undefined): JsonObject | undefined {
  const text = encoded === undefined ? undefined : decodeBase64Text(encoded);
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function tlsOf(config: JsonObject): JsonObject {
  const tls = config['tlsClientConfig'];
  return isObject(tls) ? tls : {};
}

/** JSON with object keys sorted: equal meaning, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  // JSON.stringify(undefined) is undefined at run time, whatever its type says.
  return value === undefined ? 'null' : JSON.stringify(value);
}

/** `data.config` text: known fields only, in one fixed order, so equal configs are equal bytes. */
export function clusterConfigJson(config: ArgoClusterConfig): string {
  return JSON.stringify(clusterConfigObject(config));
}

/**
 * What {@link clusterConfigJson} writes, as the object it stringifies: JSON values only and no
 * `undefined`, so it is what parsing that text gives back (the preview's diff of a create
 * reads it instead of decoding the config it has just encoded).
 */
export function clusterConfigObject(config: ArgoClusterConfig): JsonObject {
  const tls = config.tlsClientConfig;
  const tlsClientConfig: Record<string, string | boolean> = { insecure: tls.insecure };
  if (tls.serverName !== undefined) tlsClientConfig['serverName'] = tls.serverName;
  if (tls.caData !== undefined) tlsClientConfig['caData'] = tls.caData;
  if (tls.certData !== undefined) tlsClientConfig['certData'] = tls.certData;
  if (tls.keyData !== undefined) tlsClientConfig['keyData'] = tls.keyData;
  const out: Record<string, unknown> = {};
  if (config.username !== undefined) out['username'] = config.username;
  if (config.password !== undefined) out['password'] = config.password;
  if (config.bearerToken !== undefined) out['bearerToken'] = config.bearerToken;
  out['tlsClientConfig'] = tlsClientConfig;
  if (config.awsAuthConfig !== undefined) {
    const aws = config.awsAuthConfig;
    out['awsAuthConfig'] = {
      clusterName: aws.clusterName,
      ...(aws.roleARN === undefined ? {} : { roleARN: aws.roleARN }),
    };
  }
  if (config.execProviderConfig !== undefined) {
    const exec = config.execProviderConfig;
    // ArgoCD reads env as a map; sorted names keep equal configs equal bytes.
    const env =
      exec.env === undefined
        ? undefined
        : Object.fromEntries(Object.entries(exec.env).sort(([a], [b]) => compareStrings(a, b)));
    out['execProviderConfig'] = {
      command: exec.command,
      args: [...exec.args],
      ...(env === undefined ? {} : { env }),
      apiVersion: exec.apiVersion,
      ...(exec.provideClusterInfo === true ? { provideClusterInfo: true } : {}),
      ...(exec.config === undefined
        ? {}
        : {
            config: {
              name: exec.config.name,
              namespace: exec.config.namespace,
              key: exec.config.key,
              ...(exec.config.context === undefined ? {} : { context: exec.config.context }),
            },
          }),
    };
  }
  if (config.proxyUrl !== undefined) out['proxyUrl'] = config.proxyUrl;
  return out;
}
