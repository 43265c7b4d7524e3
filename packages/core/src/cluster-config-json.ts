// Reading the `config` JSON of an ArgoCD cluster Secret, shared by the planner's comparison
// (is anything to be written?) and the preview's field diff (what would change?).

import { decodeBase64Text } from './base64.js';

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
