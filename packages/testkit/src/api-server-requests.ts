// The API server's own count of the requests it served (`apiserver_request_total` on its
// /metrics), for benchmarks that must not trust the client's word for what it sent.
import { request } from 'node:https';
import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

export interface RequestCounts {
  /** Requests for resources (non-resource paths such as /metrics excluded). */
  readonly total: number;
  /** Writes, except the API server's own Lease renewals. */
  readonly writes: number;
  /** By `<verb> <resource>`, e.g. `LIST secrets`, `WATCH namespaces`. */
  readonly byResource: ReadonlyMap<string, number>;
}

const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY']);

export async function apiServerRequests(kubeConfig: KubeConfig): Promise<RequestCounts> {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (server === undefined) throw new Error('no current cluster');
  const options: RequestOptions = {};
  await kubeConfig.applyToHTTPSOptions(options);
  const text = await new Promise<string>((resolve, reject) => {
    const req = request(new URL('/metrics', server), { ...options, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve(Buffer.concat(chunks).toString('utf8'));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
  let total = 0;
  let writes = 0;
  const byResource = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const labels: Record<string, string | undefined> = {};
    for (const match of line.matchAll(/(\w+)="([^"]*)"/g)) labels[match[1] ?? ''] = match[2];
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    const resource = labels['resource'] ?? '';
    if (resource === '') continue;
    total += value;
    // The API server renews its own identity Lease every few seconds: not ours.
    if (WRITE_VERBS.has(labels['verb'] ?? '') && resource !== 'leases') writes += value;
    const key = `${labels['verb'] ?? '?'} ${resource}`;
    byResource.set(key, (byResource.get(key) ?? 0) + value);
  }
  return { total, writes, byResource };
}

export function requestsBetween(before: RequestCounts, after: RequestCounts): RequestCounts {
  const byResource = new Map<string, number>();
  for (const [key, value] of after.byResource) {
    const diff = value - (before.byResource.get(key) ?? 0);
    if (diff !== 0) byResource.set(key, diff);
  }
  return { total: after.total - before.total, writes: after.writes - before.writes, byResource };
}

/** `GET secrets 3, LIST namespaces 1`, sorted. */
export function requestBreakdown(counts: RequestCounts): string {
  return [...counts.byResource]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key} ${value}`)
    .join(', ');
}

/** Requests of `counts` that are neither watches nor the API server's own Lease renewals. */
export function nonWatchRequests(counts: RequestCounts): number {
  let n = 0;
  for (const [key, value] of counts.byResource)
    if (!key.startsWith('WATCH ') && !key.endsWith(' leases')) n += value;
  return n;
}
