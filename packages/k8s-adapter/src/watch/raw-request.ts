// GETs for list-watch.ts: metadata-only lists and watches (`as=PartialObjectMetadata`) are
// asked for by Accept header alone, and a watch's body is a stream the caller reads (and
// bounds) itself. Same connections, TLS and credentials as every other request (kube-http.ts).
import type { IncomingMessage } from 'node:http';
import type { KubeAccess } from '../connection/kube-access.js';
import { readBody, send } from '../connection/kube-http.js';
import type { Query } from '../connection/kube-http.js';

export {
  ACCEPT_JSON,
  ACCEPT_METADATA,
  ACCEPT_METADATA_LIST,
  HttpStatusError,
  readBody,
} from '../connection/kube-http.js';

export interface RawGet {
  readonly path: string;
  readonly query: Query;
  readonly accept: string;
  /** Aborts the request (and its body stream). */
  readonly signal: AbortSignal;
  /** Bound on the wait for the response headers; the body is the caller's to bound. */
  readonly headersTimeoutMs: number;
}

/** Resolves with a 2xx response whose body is not yet read; rejects on anything else. */
export function rawGet(access: KubeAccess, get: RawGet): Promise<IncomingMessage> {
  return send(access, { method: 'GET', ...get });
}

/** GET + JSON, the whole request bounded by `timeoutMs`. */
export async function rawGetJson(
  access: KubeAccess,
  get: Omit<RawGet, 'signal' | 'headersTimeoutMs'> & { readonly signal?: AbortSignal },
  timeoutMs: number,
): Promise<unknown> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = get.signal ? AbortSignal.any([get.signal, timeout]) : timeout;
  const res = await rawGet(access, { ...get, signal, headersTimeoutMs: timeoutMs });
  return JSON.parse(await readBody(res, Infinity, signal)) as unknown;
}
