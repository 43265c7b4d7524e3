// Which faults a request can meet, and what an injected answer says: the fault proxy's
// decisions, apart from its forwarding (fault-proxy.ts). An injected status is always a
// transient one a real server or load balancer also gives, never a 404 or a success.
import type { ServerResponse } from 'node:http';

export type FaultKind =
  | 'status-500'
  | 'status-503'
  | 'status-429'
  | 'conflict-409'
  | 'latency'
  | 'reset'
  | 'truncate'
  | 'cut-watch'
  | 'hang';

export const FAULT_KINDS: readonly FaultKind[] = [
  'status-500',
  'status-503',
  'status-429',
  'conflict-409',
  'latency',
  'reset',
  'truncate',
  'cut-watch',
  'hang',
];

/** The methods that write. */
export const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** mulberry32: small, fast, and the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function isWatch(url: URL): boolean {
  return url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';
}

/** A list: a GET of a collection (the path's last segment is a plural resource). */
function isList(method: string, url: URL): boolean {
  if (method !== 'GET' || isWatch(url)) return false;
  const parts = url.pathname.split('/').filter(Boolean);
  // /api/v1/namespaces, /api/v1/namespaces/x/secrets, /apis/g/v/namespaces/x/leases
  const core = parts[0] === 'api' ? parts.slice(2) : parts.slice(3);
  return core.length % 2 === 1;
}

export function applicable(kind: FaultKind, method: string, url: URL): boolean {
  switch (kind) {
    case 'conflict-409':
      return WRITES.has(method);
    case 'truncate':
      return isList(method, url);
    case 'cut-watch':
      return isWatch(url);
    case 'latency':
    case 'reset':
    case 'hang':
    case 'status-500':
    case 'status-503':
    case 'status-429':
      return true;
  }
}

const STATUS_BODY: Record<number, { reason: string; message: string }> = {
  500: { reason: 'InternalError', message: 'injected: internal error' },
  503: { reason: 'ServiceUnavailable', message: 'injected: service unavailable' },
  429: { reason: 'TooManyRequests', message: 'injected: too many requests' },
  409: {
    reason: 'Conflict',
    message: 'injected: the object has been modified; please apply your changes again',
  },
};

export function sendStatus(res: ServerResponse, code: number): void {
  const status = STATUS_BODY[code] ?? { reason: 'InternalError', message: 'injected' };
  const body = JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code,
    ...status,
  });
  res.writeHead(code, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...(code === 429 ? { 'retry-after': '1' } : {}),
  });
  res.end(body);
}
