// The one HTTP client every API request goes through: TLS and credentials from the access's
// KubeCluster, connections kept alive, every exchange bounded in time, a write's fence
// checked right before its bytes leave, and a non-2xx answer turned into an HttpStatusError
// that classifyApiError reads (status, Status body, Retry-After).
//
// Credentials, CA and proxy come from client-node (kube-credentials.ts, kube-config.ts).
// Connections: one keep-alive agent per TLS identity (CA, client certificate and key).
// A new connection per request would pay a TCP and TLS handshake each time (measured: a
// 1,000-namespace pass of one request per namespace took ~16 s on 2 cores, mostly handshakes
// on both ends). A client certificate from an exec plugin rotates, so old identities' agents go.
import { request as httpRequest } from 'node:http';
import type { Agent, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createSecureContext } from 'node:tls';
import type { KubeAccess } from './kube-access.js';
import type { KubeCluster } from './kube-config.js';
import type { Credential } from './kube-credentials.js';
import { REQUEST_TIMEOUT_MS } from './request-guard.js';
import type { RequestGuard } from './request-guard.js';

export const ACCEPT_JSON = 'application/json';
export const MERGE_PATCH = 'application/merge-patch+json';
/** Objects and lists as metadata only (`as=PartialObjectMetadata`), asked for by Accept alone. */
export const ACCEPT_METADATA =
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json';
export const ACCEPT_METADATA_LIST =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json';

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

/** An HTTP answer other than 2xx, shaped so classifyApiError reads its status and Status body. */
export class HttpStatusError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: string,
    /** From Retry-After (seconds form), on 429 and 503. */
    readonly retryAfterSeconds?: number,
  ) {
    super(`HTTP ${statusCode}`);
    this.name = 'HttpStatusError';
  }
}

export interface KubeSend {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Query;
  readonly accept?: string;
  /** Serialised as JSON. */
  readonly body?: unknown;
  /** Default application/json. */
  readonly contentType?: string;
  /** Aborts the request and its body stream. */
  readonly signal?: AbortSignal;
  /** Bound on the wait for the response headers. */
  readonly headersTimeoutMs: number;
  /** Runs right before sending, after credentials are at hand; throwing stops the request. */
  readonly beforeSend?: () => void;
}

/** Resolves with a 2xx response whose body is not yet read; rejects on anything else. */
export async function send(access: KubeAccess, req: KubeSend): Promise<IncomingMessage> {
  const cluster = access.cluster;
  const url = new URL(cluster.server + req.path);
  for (const [name, value] of Object.entries(req.query ?? {}))
    if (value !== undefined) url.searchParams.set(name, String(value));
  const credential = await cluster.credentials.current();
  const body = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
  const headers: OutgoingHttpHeaders = {
    Accept: req.accept ?? ACCEPT_JSON,
    'User-Agent': 'argocd-cluster-registrar',
    ...credential.headers,
    ...(body !== undefined
      ? { 'Content-Type': req.contentType ?? ACCEPT_JSON, 'Content-Length': body.length }
      : {}),
  };
  req.signal?.throwIfAborted();
  // The last word before the bytes leave (the write fence).
  req.beforeSend?.();
  const https = url.protocol === 'https:';
  const agent = agentFor(cluster, credential);
  return new Promise<IncomingMessage>((resolve, reject) => {
    const options = {
      method: req.method,
      headers,
      agent,
      ...(req.signal ? { signal: req.signal } : {}),
    };
    const outgoing = https ? httpsRequest(url, options) : httpRequest(url, options);
    const timer = setTimeout(() => {
      outgoing.destroy(
        Object.assign(new Error('response headers timed out'), { code: 'ETIMEDOUT' }),
      );
    }, req.headersTimeoutMs);
    outgoing.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    outgoing.on('response', (res) => {
      clearTimeout(timer);
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        resolve(res);
        return;
      }
      if (status === 401) cluster.credentials.rejected(credential);
      const retryAfter = Number(res.headers['retry-after']);
      // The error body is bounded too: a watch's signal never fires on its own, and a 503
      // whose body never ends would otherwise hold that informer until the next resync.
      const bodyTimer = setTimeout(() => {
        res.destroy(Object.assign(new Error('error body timed out'), { code: 'ETIMEDOUT' }));
      }, req.headersTimeoutMs);
      readBody(res, 64 * 1024)
        .finally(() => {
          clearTimeout(bodyTimer);
        })
        .then(
          (text) => {
            reject(
              new HttpStatusError(
                status,
                text,
                Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
              ),
            );
          },
          (err: unknown) => {
            reject(err instanceof Error ? err : new Error(String(err)));
          },
        );
    });
    outgoing.end(body);
  });
}

/**
 * One JSON request, headers to last byte bounded by the guard's time-out (default the
 * access's, else REQUEST_TIMEOUT_MS): without a bound, a half-open connection or a body that
 * stops short waits forever.
 */
export async function kubeRequest<T>(
  access: KubeAccess,
  req: KubeRequest,
  guard: RequestGuard = {},
): Promise<T> {
  const { res, signal } = await answered(access, req, guard);
  const text = await readBody(res, Infinity, signal);
  return (text === '' ? {} : JSON.parse(text)) as T;
}

/**
 * A write whose answer nobody reads: its status says whether it was applied, and its body
 * (the whole object as stored, a Secret's data included) is read to the end and dropped
 * undecoded. Decoding the answers of a cold start's 1,000 creates made ~10 MB of garbage at
 * the moment the daemon's heap is largest, which set its peak resident memory.
 */
export async function kubeWrite(
  access: KubeAccess,
  req: KubeRequest,
  guard: RequestGuard = {},
): Promise<void> {
  const { res, signal } = await answered(access, req, guard);
  await readBody(res, 0, signal);
}

type KubeRequest = Omit<KubeSend, 'headersTimeoutMs' | 'signal' | 'beforeSend'>;

/** The request sent and its 2xx answer's headers in, within the guard's time-out. */
async function answered(
  access: KubeAccess,
  req: KubeRequest,
  guard: RequestGuard,
): Promise<{ res: IncomingMessage; signal: AbortSignal }> {
  const timeoutMs = Math.max(
    1,
    Math.ceil(guard.timeoutMs ?? access.requestTimeoutMs ?? REQUEST_TIMEOUT_MS),
  );
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = guard.signal ? AbortSignal.any([guard.signal, timeout]) : timeout;
  const res = await send(access, {
    ...req,
    signal,
    headersTimeoutMs: timeoutMs,
    ...(guard.beforeSend ? { beforeSend: guard.beforeSend } : {}),
  });
  return { res, signal };
}

/**
 * Reads a whole (bounded) body as text; a connection closed before the end is ECONNRESET,
 * unless `signal` ended it (its time-out fired): then it is that AbortError.
 */
export function readBody(
  res: IncomingMessage,
  limitBytes = Infinity,
  signal?: AbortSignal,
): Promise<string> {
  return new Promise((resolve, reject) => {
    // The listeners outlive the read: Node keeps a keep-alive socket's first request (and
    // so this response and its listeners) reachable for as long as the socket lives. They
    // hold the chunks and the promise (whose result is the body) only until it settles, or
    // every idle connection would keep the last list it carried, twice over (chunks and
    // text): megabytes a list at 10,000 clusters.
    let pending: { chunks: Buffer[]; size: number } | undefined = { chunks: [], size: 0 };
    let settle: { resolve: (text: string) => void; reject: (err: Error) => void } | undefined = {
      resolve,
      reject,
    };
    const done = (): typeof settle => {
      const s = settle;
      settle = undefined;
      pending = undefined;
      return s;
    };
    const fail = (err: Error): void => {
      done()?.reject(signal?.aborted === true ? aborted(signal) : err);
    };
    res.on('data', (chunk: Buffer) => {
      if (pending === undefined) return;
      pending.size += chunk.length;
      if (pending.size <= limitBytes) pending.chunks.push(chunk);
    });
    res.on('end', () => {
      const chunks = pending?.chunks ?? [];
      done()?.resolve(Buffer.concat(chunks).toString('utf8'));
    });
    res.on('error', fail);
    res.on('aborted', () => {
      fail(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    });
    res.on('close', () => {
      if (!res.complete)
        fail(Object.assign(new Error('connection closed'), { code: 'ECONNRESET' }));
    });
  });
}

function aborted(signal: AbortSignal): Error {
  const err = new Error('request timed out or was aborted', { cause: signal.reason });
  err.name = 'AbortError';
  return err;
}

/** TLS identities per cluster; more than a few means credentials rotate, so old ones go. */
const MAX_AGENTS = 4;
const agents = new WeakMap<KubeCluster, Map<string, Agent>>();
/** Idle keep-alive connections kept per agent (see agentFor). */
const FREE_SOCKETS = 4;

function agentFor(cluster: KubeCluster, credential: Credential): Agent {
  let byIdentity = agents.get(cluster);
  if (byIdentity === undefined) {
    byIdentity = new Map();
    agents.set(cluster, byIdentity);
  }
  let agent = byIdentity.get(credential.identity);
  if (agent === undefined) {
    // Idle sockets each hold a TLS session (tens of KiB off the JS heap, and the first
    // request they carried): a burst of reads (16 in flight) reuses its sockets while it
    // lasts, and afterwards a few stay for the next change; Node's default keeps 256.
    // maxSockets stays unbounded: callers bound their own concurrency, and a watch holds its
    // socket for minutes.
    // One secure context per identity, shared by its connections: given PEMs instead, Node
    // builds an OpenSSL context for every connection, parsing the CA, certificate and key
    // again for each handshake.
    const secureContext = createSecureContext({
      ...(credential.ca !== undefined ? { ca: credential.ca } : {}),
      ...(credential.cert !== undefined ? { cert: credential.cert } : {}),
      ...(credential.key !== undefined ? { key: credential.key } : {}),
    });
    agent = cluster.newAgent({
      keepAlive: true,
      maxFreeSockets: FREE_SOCKETS,
      secureContext,
      rejectUnauthorized: !cluster.insecureSkipTlsVerify,
      ...(cluster.tlsServerName !== undefined ? { servername: cluster.tlsServerName } : {}),
    });
    byIdentity.set(credential.identity, agent);
    if (byIdentity.size > MAX_AGENTS) {
      const [oldestKey, oldest] = byIdentity.entries().next().value as [string, Agent];
      byIdentity.delete(oldestKey);
      oldest.destroy();
    }
  }
  return agent;
}
