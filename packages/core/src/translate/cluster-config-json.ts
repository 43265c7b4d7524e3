// The `config` JSON of an ArgoCD cluster Secret: written in one fixed form, read by the
// planner's comparison and the preview's field diff.

import { sortedRecord } from '../common/compare-strings.js';
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
 * What {@link clusterConfigJson} stringifies: JSON values only, so it is what parsing that text
 * gives back (the preview's diff of a create reads it instead of decoding it again).
 */
export function clusterConfigObject(config: ArgoClusterConfig): JsonObject {
  const tls = config.tlsClientConfig;
  const exec = config.execProviderConfig;
  return {
    ...defined(config, ['username', 'password', 'bearerToken']),
    tlsClientConfig: defined(tls, ['insecure', 'serverName', 'caData', 'certData', 'keyData']),
    ...(config.awsAuthConfig === undefined
      ? {}
      : { awsAuthConfig: defined(config.awsAuthConfig, ['clusterName', 'roleARN']) }),
    ...(exec === undefined
      ? {}
      : {
          execProviderConfig: {
            command: exec.command,
            args: [...exec.args],
            // ArgoCD reads env as a map; sorted names keep equal configs equal bytes.
            ...(exec.env === undefined ? {} : { env: sortedRecord(exec.env) }),
            apiVersion: exec.apiVersion,
            ...(exec.provideClusterInfo === true ? { provideClusterInfo: true } : {}),
            ...(exec.config === undefined
              ? {}
              : { config: defined(exec.config, ['name', 'namespace', 'key', 'context']) }),
          },
        }),
    ...defined(config, ['proxyUrl']),
  };
}

/** The `keys` of `from` that are set, in that order. */
function defined<T extends object>(from: T, keys: readonly (keyof T & string)[]): JsonObject {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out;
}
