// GET requests the generated client cannot make: client-node 1.4 neither sets an Accept
// header on a list nor on its Watch, and metadata-only lists and watches
// (`as=PartialObjectMetadata`) are asked for by Accept header alone. Authentication, TLS and
// the shared keep-alive agent come from the KubeConfig exactly as for the generated client.
import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { RequestOptions } from 'node:https';
import type { KubeAccess } from './kube-access.js';
import { keepConnections } from './kube-clients.js';

export const ACCEPT_METADATA_LIST =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json';
export const ACCEPT_METADATA =
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json';
export const ACCEPT_JSON = 'application/json';

/** An HTTP answer other than 2xx, shaped so classifyApiError reads its status and Status body. */
export class HttpStatusError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: string,
  ) {
    super(`HTTP ${statusCode}`);
    this.name = 'HttpStatusError';
  }
}

export interface RawGet {
  readonly path: string;
  readonly query: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly accept: string;
  /** Aborts the request (and its body stream). */
  readonly signal: AbortSignal;
  /** Bound on the wait for the response headers; the body is the caller's to bound. */
  readonly headersTimeoutMs: number;
}

/** Resolves with a 2xx response whose body is not yet read; rejects on anything else. */
export async function rawGet(access: KubeAccess, get: RawGet): Promise<IncomingMessage> {
  const kubeConfig = access.kubeConfig;
  keepConnections(kubeConfig);
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('No currently active cluster');
  const url = new URL(cluster.server.replace(/\/+$/, '') + get.path);
  for (const [name, value] of Object.entries(get.query))
    if (value !== undefined) url.searchParams.set(name, String(value));
  const options: RequestOptions = { headers: {} };
  await kubeConfig.applyToHTTPSOptions(options);
  const headers = { ...(options.headers as Record<string, string>), Accept: get.accept };
  const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = send(url, { ...options, headers, method: 'GET', signal: get.signal });
    const timer = setTimeout(() => {
      req.destroy(Object.assign(new Error('response headers timed out'), { code: 'ETIMEDOUT' }));
    }, get.headersTimeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on('response', (res) => {
      clearTimeout(timer);
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        resolve(res);
        return;
      }
      readBody(res, 64 * 1024).then(
        (body) => {
          reject(new HttpStatusError(status, body));
        },
        (err: unknown) => {
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
    req.end();
  });
}

/** Reads a whole (bounded) body as text. */
export function readBody(res: IncomingMessage, limitBytes = Infinity): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) chunks.push(chunk);
    });
    res.on('end', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    res.on('error', reject);
    res.on('aborted', () => {
      reject(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    });
  });
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
  return JSON.parse(await readBody(res)) as unknown;
}
