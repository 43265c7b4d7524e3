// The fault proxy against the real host plane: each fault kind, switched on alone at rate 1,
// is observed by a plain HTTPS client the way a Kubernetes client would meet it, and with
// faults off every answer is the real server's.

import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationV1Api, KubeConfig } from '@kubernetes/client-node';
import { coreApi, statusOf, tokenKubeConfig } from './client.js';
import { mintToken } from './control-plane.js';
import { seededRandom } from './fault-choice.js';
import { startFaultProxy } from './fault-proxy.js';
import type { FaultProxy } from './fault-proxy.js';
import { testHostPlane } from './shared.js';
import type { ControlPlane } from './control-plane.js';

interface Answer {
  readonly status?: number;
  readonly headers?: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** The socket failed (reset, truncated body) or the client gave up waiting (timedOut). */
  readonly error?: string;
  readonly timedOut?: boolean;
}

let plane: ControlPlane;
let proxy: FaultProxy;
let identity: { ca: string; cert: Buffer; key: Buffer };

beforeAll(async () => {
  plane = await testHostPlane();
  proxy = await startFaultProxy(plane, { seed: 7 });
  const kc = new KubeConfig();
  kc.loadFromString(proxy.kubeConfig);
  const user = kc.getCurrentUser();
  identity = {
    ca: plane.caPem,
    cert: Buffer.from(user?.certData ?? '', 'base64'),
    key: Buffer.from(user?.keyData ?? '', 'base64'),
  };
});

afterAll(async () => {
  await proxy.close();
});

/** One request through the proxy; resolves with whatever the client observed. */
function call(method: string, path: string, body?: unknown, waitMs = 15_000): Promise<Answer> {
  return new Promise((resolve) => {
    const url = new URL(path, proxy.server);
    const req = request(
      url,
      {
        method,
        ...identity,
        agent: false,
        headers: {
          'user-agent': 'fault-proxy-test',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        timeout: waitMs,
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(parts).toString('utf8'),
          });
        });
        res.on('error', (err) => {
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(parts).toString('utf8'),
            error: err.message,
          });
        });
        res.on('aborted', () => {
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(parts).toString('utf8'),
            error: 'aborted',
          });
        });
      },
    );
    req.on('timeout', () => {
      req.destroy();
      resolve({ body: '', timedOut: true });
    });
    req.on('error', (err) => {
      resolve({ body: '', error: err.message });
    });
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const only = (kind: Parameters<FaultProxy['setFaults']>[0]['kinds']) => {
  proxy.setFaults({ rate: 1, kinds: kind ?? [], latencyMs: [1000, 1200], watchCutMs: [300, 600] });
};

describe('fault proxy', () => {
  it('forwards faithfully with faults off', async () => {
    proxy.setFaults({ rate: 0 });
    const answer = await call('GET', '/api/v1/namespaces/default');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Namespace' });
    // A real 404 is the server's, forwarded.
    const missing = await call('GET', '/api/v1/namespaces/no-such-namespace-here');
    expect(missing.status).toBe(404);
    expect(proxy.log.at(-1)).toMatchObject({ status: 404, forwarded: true });
    expect(proxy.log.at(-1)?.fault).toBeUndefined();
    // Who sent it, so a test can tell one client's requests from another's.
    expect(proxy.log.at(-1)?.userAgent).toBe('fault-proxy-test');
  });

  it("passes a watch's response headers on as the server sends them, before any event", async () => {
    proxy.setFaults({ rate: 0 });
    // A watch that will see no event: from the current version, on a selector nothing has.
    const list = JSON.parse((await call('GET', '/api/v1/namespaces?limit=1')).body) as {
      metadata: { resourceVersion: string };
    };
    const headers = await new Promise<number | string>((resolve) => {
      const url = new URL(
        `/api/v1/namespaces?watch=true&labelSelector=nothing-has-this&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=30`,
        proxy.server,
      );
      const req = request(url, { ...identity, agent: false }, (res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      // The server sends them at once; a bookmark would not come for a minute.
      req.setTimeout(5000, () => {
        resolve('no headers');
        req.destroy();
      });
      req.on('error', () => undefined);
      req.end();
    });
    expect(headers).toBe(200);
  });

  it.each([
    ['status-500', 500],
    ['status-503', 503],
    ['status-429', 429],
  ] as const)('answers %s with a Status body', async (kind, code) => {
    only([kind]);
    const answer = await call('GET', '/api/v1/namespaces');
    expect(answer.status).toBe(code);
    expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Status', code });
    if (code === 429) expect(answer.headers?.['retry-after']).toBe('1');
    expect(proxy.counts[kind]).toBeGreaterThan(0);
  });

  it('answers 409 on writes only, and never forwards them', async () => {
    only(['conflict-409']);
    const write = await call('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'never-created' },
    });
    expect(write.status).toBe(409);
    // A read is not a write: with only 409 enabled, it passes untouched.
    const read = await call('GET', '/api/v1/namespaces/default/configmaps/never-created');
    expect(read.status).toBe(404);
    expect(proxy.log.at(-1)?.fault).toBeUndefined();
  });

  it('adds latency and then forwards', async () => {
    only(['latency']);
    const answer = await call('GET', '/api/v1/namespaces/default');
    expect(answer.status).toBe(200);
    expect(proxy.log.at(-1)).toMatchObject({ fault: 'latency', status: 200, forwarded: true });
  });

  it('resets connections', async () => {
    only(['reset']);
    const answers = await Promise.all([1, 2, 3, 4].map(() => call('GET', '/api/v1/namespaces')));
    for (const answer of answers) {
      expect(answer.status).toBeUndefined();
      expect(answer.error).toBeDefined();
    }
  });

  it('truncates list bodies below their Content-Length', async () => {
    only(['truncate']);
    const answer = await call('GET', '/api/v1/namespaces');
    expect(answer.status).toBe(200);
    expect(answer.error).toBeDefined();
    expect(() => JSON.parse(answer.body) as unknown).toThrow();
    // A single object is not a list: untouched.
    expect((await call('GET', '/api/v1/namespaces/default')).status).toBe(200);
  });

  it('cuts watch streams', async () => {
    only(['cut-watch']);
    const answer = await call('GET', '/api/v1/namespaces?watch=true&timeoutSeconds=30');
    expect(answer.status).toBe(200);
    expect(answer.error).toBeDefined();
    expect(answer.body).toContain('ADDED');
  });

  it('accepts and never answers', async () => {
    only(['hang']);
    const answer = await call('GET', '/api/v1/namespaces', undefined, 1500);
    expect(answer.timedOut).toBe(true);
    proxy.setFaults({ rate: 0 });
    proxy.hangAll(true);
    expect((await call('GET', '/api/v1/namespaces/default', undefined, 1000)).timedOut).toBe(true);
    proxy.hangAll(false);
    expect((await call('GET', '/api/v1/namespaces/default')).status).toBe(200);
  });

  it('drops every connection, open watches included', async () => {
    proxy.setFaults({ rate: 0 });
    const watching = call(
      'GET',
      '/api/v1/namespaces?watch=true&timeoutSeconds=30',
      undefined,
      20_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    proxy.dropConnections();
    const answer = await watching;
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('ADDED');
    expect(answer.error).toBeDefined();
  });

  it('never invents a 404 or a success', async () => {
    // Every fault at a high rate; every 404 or 2xx the client sees must have been forwarded.
    proxy.setFaults({
      rate: 0.8,
      kinds: ['status-500', 'status-503', 'status-429', 'conflict-409', 'reset', 'truncate'],
    });
    const before = proxy.log.length;
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call('GET', i % 2 === 0 ? '/api/v1/namespaces' : '/api/v1/namespaces/absent-ns'),
      ),
    );
    const entries = proxy.log.slice(before);
    expect(entries.length).toBe(30);
    for (const entry of entries) {
      if (entry.status === 404 || (entry.status !== undefined && entry.status < 300))
        expect(entry.forwarded).toBe(true);
    }
    proxy.setFaults({ rate: 0 });
  });

  it("keeps a token's identity: a request with a bearer token reaches the server as that token's account", async () => {
    const account = `proxy-token-${String(process.pid)}`;
    await coreApi(plane)
      .createNamespacedServiceAccount({
        namespace: 'default',
        body: { metadata: { name: account } },
      })
      .catch((error: unknown) => {
        if (statusOf(error) !== 409) throw error;
      });
    const token = await mintToken(plane, 'default', account, 600);
    const review = await tokenKubeConfig({ ...plane, server: proxy.server }, token)
      .makeApiClient(AuthenticationV1Api)
      .createSelfSubjectReview({
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
    expect(review.status?.userInfo?.username).toBe(`system:serviceaccount:default:${account}`);
  });

  it('is deterministic for a seed', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    expect(Array.from({ length: 5 }, a)).toEqual(Array.from({ length: 5 }, b));
  });
});
