// The HTTP client: the request it sends and the answers it reads, from the real plane (through
// the fault proxy, which records each request line and its headers, or injects a fault); and
// its transport (keep-alive, TLS identity, bodies that stall or are cut, the fence, exec
// re-runs) against local HTTPS servers that speak no Kubernetes (they echo `{}` or misbehave
// as each case needs, at made-up paths), with the test plane's serving certificate, which
// names 127.0.0.1 and localhost.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { dirname, join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mintToken, startFaultProxy, testHostPlane } from '@argocd-cluster-registrar/testkit';
import type { ControlPlane } from '@argocd-cluster-registrar/testkit';
import { classifyApiError } from './api-failure.js';
import { retryDelayMs } from './backoff.js';
import type { ApiFailure } from './api-failure.js';
import { patchSecret } from './kube-api.js';
import type { KubeAccess } from './kube-access.js';
import { kubeClusterFromText } from './kube-config.js';
import { HttpStatusError, kubeRequest, kubeWrite } from './kube-http.js';
import {
  ACCEPT_METADATA,
  ACCEPT_METADATA_LIST,
  rawGet,
  rawGetJson,
  readBody,
} from '../watch/raw-request.js';

let plane: ControlPlane;
let tls: { cert: Buffer; key: Buffer };
beforeAll(async () => {
  plane = await testHostPlane();
  const pki = join(dirname(plane.kubeconfigPath), 'pki');
  tls = {
    cert: readFileSync(join(pki, 'serving.crt')),
    key: readFileSync(join(pki, 'serving.key')),
  };
});

/** A full collection, for tests of what stays reachable. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  readonly peer: string | undefined;
}

type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen) => void;
const servers: { close(): void; closeAllConnections(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function serve(
  handler: Handler,
): Promise<{ url: string; seen: Seen[]; connections(): number }> {
  const seen: Seen[] = [];
  let connections = 0;
  const server = createServer(
    { ...tls, ca: plane.caPem, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        // An empty object when no certificate was presented.
        const subject = (req.socket as TLSSocket).getPeerCertificate().subject as
          { CN?: unknown } | undefined;
        const peer = subject?.CN;
        const one: Seen = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          peer: typeof peer === 'string' ? peer : undefined,
        };
        seen.push(one);
        handler(req, res, one);
      });
    },
  );
  server.on('secureConnection', () => {
    connections += 1;
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, connections: () => connections };
}

function accessTo(
  url: string,
  user: Record<string, unknown>,
  cluster: Record<string, unknown> = {},
): KubeAccess {
  const text = JSON.stringify({
    'current-context': 'c',
    clusters: [
      {
        name: 'c',
        cluster: {
          server: url,
          'certificate-authority-data': Buffer.from(plane.caPem).toString('base64'),
          ...cluster,
        },
      },
    ],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
  });
  return { cluster: kubeClusterFromText(text), source: 'test server' };
}

const json = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

async function failureOf(
  promise: Promise<unknown>,
): Promise<{ error: unknown; failure: ApiFailure }> {
  try {
    await promise;
  } catch (error) {
    return { error, failure: classifyApiError(error) };
  }
  throw new Error('the request succeeded');
}

describe('kubeRequest', () => {
  it('sends method, path, query, JSON body, content type, Accept and the token; parses the answer', async () => {
    // The real plane answers, through the fault proxy (no faults) so the request line and
    // headers can be read as they were sent.
    const admin: KubeAccess = { cluster: kubeClusterFromText(plane.kubeConfig), source: 'plane' };
    const name = `kube-http-shape-${process.pid}-${Date.now().toString(36)}`;
    const path = '/api/v1/namespaces/default/secrets';
    const data = {
      k: Buffer.from('v').toString('base64'),
      kept: Buffer.from('w').toString('base64'),
    };
    await kubeRequest(admin, {
      method: 'POST',
      path,
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name }, data },
    });
    const proxy = await startFaultProxy(plane);
    try {
      const access: KubeAccess = {
        cluster: kubeClusterFromText(proxy.kubeConfig),
        source: 'fault proxy',
      };
      // A dry run: the API server answers with the patched object and stores nothing.
      const answer = await kubeRequest<{
        metadata?: { name?: string };
        data?: Record<string, string>;
      }>(access, {
        method: 'PATCH',
        path: `${path}/${name}`,
        query: { fieldManager: 'fm', dryRun: 'All' },
        body: { data: { k: null } },
        contentType: 'application/merge-patch+json',
      });
      expect(answer.metadata?.name).toBe(name);
      expect(answer.data).toEqual({ kept: data.kept });
      await patchSecret(
        access,
        'default',
        name,
        { data: { k: null } },
        { fieldManager: 'fm', dryRun: true },
      );
      const stored = await kubeRequest<{ data?: Record<string, string> }>(admin, {
        method: 'GET',
        path: `${path}/${name}`,
      });
      expect(stored.data).toEqual(data);
      const [, patched] = proxy.log;
      expect(patched?.method).toBe('PATCH');
      expect(patched?.path).toBe(`${path}/${name}?fieldManager=fm&dryRun=All`);
      expect(patched?.contentType).toBe('application/merge-patch+json');
      expect(patched?.accept).toBe('application/json');

      await failureOf(
        patchSecret(
          access,
          'ns a',
          's',
          { data: { k: null } },
          { fieldManager: 'fm', dryRun: true },
        ),
      );
      expect(proxy.log.at(-1)?.path).toBe(
        '/api/v1/namespaces/ns%20a/secrets/s?fieldManager=fm&dryRun=All',
      );

      const page = (await rawGetJson(
        access,
        {
          path: '/api/v1/secrets',
          query: { limit: 2, continue: undefined },
          accept: ACCEPT_METADATA_LIST,
        },
        5000,
      )) as { kind?: string; items?: unknown[] };
      expect(page.kind).toBe('PartialObjectMetadataList');
      expect(page.items?.length).toBeLessThanOrEqual(2);
      expect(proxy.log.at(-1)?.path).toBe('/api/v1/secrets?limit=2');
      expect(proxy.log.at(-1)?.accept).toBe(ACCEPT_METADATA_LIST);
    } finally {
      await proxy.close();
      await kubeRequest(admin, { method: 'DELETE', path: `${path}/${name}` });
    }

    // The token: the real plane names the ServiceAccount whose token it was sent.
    const account = `token-${process.pid}-${Date.now().toString(36)}`;
    await kubeRequest(admin, {
      method: 'POST',
      path: '/api/v1/namespaces/default/serviceaccounts',
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account } },
    });
    const token = await mintToken(plane, 'default', account, 600);
    const refused = await failureOf(
      kubeRequest(accessTo(plane.server, { token }), { method: 'GET', path }),
    );
    expect(refused.failure.kind).toBe('forbidden');
    expect(refused.failure.message).toContain(`system:serviceaccount:default:${account}`);
  });

  it('keeps the connection alive between requests', async () => {
    const server = await serve((_req, res) => {
      json(res, 200, {});
    });
    const access = accessTo(server.url, {});
    for (let i = 0; i < 3; i += 1) await kubeRequest(access, { method: 'GET', path: '/x' });
    expect(server.seen.length).toBe(3);
    expect(server.connections()).toBe(1);
  });

  it('a write reads its answer to the end without decoding it, and keeps the connection', async () => {
    // An answer that is not JSON: decoding it would fail, so success shows it was not decoded.
    const server = await serve((req, res) => {
      if (req.url === '/cut') {
        res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': '100' });
        res.write('{"kind":');
        setTimeout(() => req.socket.destroy(), 50);
        return;
      }
      res.writeHead(201, { 'Content-Type': 'application/json' });
      res.end('not json '.repeat(10_000));
    });
    const access = accessTo(server.url, {});
    for (let i = 0; i < 2; i += 1)
      await expect(
        kubeWrite(access, { method: 'POST', path: '/x', body: {} }),
      ).resolves.toBeUndefined();
    expect(server.connections()).toBe(1);
    await expect(kubeRequest(access, { method: 'POST', path: '/x', body: {} })).rejects.toThrow(
      SyntaxError,
    );
    // Applied or not is unknown when the answer is cut: a failure, as for any request.
    const cut = await failureOf(kubeWrite(access, { method: 'POST', path: '/cut', body: {} }));
    expect(cut.failure).toMatchObject({ kind: 'transient', connection: 'reset' });
  });

  it("once a body is read, its response keeps none of it (Node keeps a socket's first response alive)", async () => {
    // A Secret large enough to arrive in many chunks, read back from the real API server.
    const admin: KubeAccess = { cluster: kubeClusterFromText(plane.kubeConfig), source: 'plane' };
    const name = `kube-http-body-${process.pid}-${Date.now().toString(36)}`;
    const path = '/api/v1/namespaces/default/secrets';
    const big = Buffer.alloc(256 * 1024, 'x').toString('base64');
    const body = { apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { big } };
    await kubeRequest(admin, { method: 'POST', path, body });
    try {
      const res = await rawGet(admin, {
        path: `${path}/${name}`,
        query: {},
        accept: 'application/json',
        signal: new AbortController().signal,
        headersTimeoutMs: 5000,
      });
      // Only weak references here: whatever else holds a chunk once the body is read holds
      // it from the response, which this test keeps, as the keep-alive socket does.
      const chunks: WeakRef<Buffer>[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(new WeakRef(chunk)));
      expect((await readBody(res)).length).toBeGreaterThan(big.length);
      expect(chunks.length).toBeGreaterThan(1);
      await new Promise((resolve) => setImmediate(resolve));
      collectGarbage();
      expect(chunks.filter((chunk) => chunk.deref() !== undefined)).toHaveLength(0);
      expect(res.complete).toBe(true);
    } finally {
      await kubeRequest(admin, { method: 'DELETE', path: `${path}/${name}` });
    }
  });

  it('presents the client certificate, and checks the server against tls-server-name', async () => {
    const server = await serve((_req, res) => {
      json(res, 200, {});
    });
    const admin = kubeClusterFromText(plane.kubeConfig);
    const cert = (await admin.credentials.current()).cert;
    const key = (await admin.credentials.current()).key;
    const user = {
      'client-certificate-data': cert?.toString('base64'),
      'client-key-data': key?.toString('base64'),
    };
    await kubeRequest(accessTo(server.url, user, { 'tls-server-name': 'localhost' }), {
      method: 'GET',
      path: '/x',
    });
    expect(server.seen[0]?.peer).toBeTruthy();
    const { failure } = await failureOf(
      kubeRequest(accessTo(server.url, user, { 'tls-server-name': 'elsewhere.example' }), {
        method: 'GET',
        path: '/x',
      }),
    );
    expect(failure.connection).toBe('tls');
    const insecure = accessTo(
      server.url,
      {},
      { 'certificate-authority-data': undefined, 'insecure-skip-tls-verify': true },
    );
    await kubeRequest(insecure, { method: 'GET', path: '/x' });
  });

  it("turns the real API server's Status answers into the failures api-failure.ts describes", async () => {
    // The real plane for what Kubernetes answers; the fault proxy in front of it for a 429
    // with Retry-After, which it sends as the API server's priority and fairness would.
    const admin: KubeAccess = { cluster: kubeClusterFromText(plane.kubeConfig), source: 'plane' };
    const name = `kube-http-${process.pid}-${Date.now().toString(36)}`;
    const path = '/api/v1/namespaces/default/secrets';
    const body = { apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: 'Opaque' };
    await kubeRequest(admin, { method: 'POST', path, body });
    try {
      const exists = await failureOf(kubeRequest(admin, { method: 'POST', path, body }));
      expect(exists.error).toBeInstanceOf(HttpStatusError);
      expect(exists.failure).toMatchObject({ kind: 'already-exists', status: 409 });
      expect(exists.failure.message).toContain('already exists');
      const missing = await failureOf(
        kubeRequest(admin, { method: 'GET', path: `${path}/${name}-missing` }),
      );
      expect(missing.failure).toMatchObject({ kind: 'not-found', status: 404 });

      const proxy = await startFaultProxy(plane, {
        seed: 9,
        faults: { rate: 1, kinds: ['status-429'] },
      });
      try {
        const busy = await failureOf(
          kubeRequest(
            { cluster: kubeClusterFromText(proxy.kubeConfig), source: 'proxy' },
            { method: 'GET', path: `${path}/${name}` },
          ),
        );
        expect((busy.error as HttpStatusError).retryAfterSeconds).toBe(1);
        expect(busy.failure).toMatchObject({
          kind: 'transient',
          status: 429,
          retryable: true,
          retryAfterSeconds: 1,
        });
        // A watch waits what the server asked, within its back-off cap.
        expect(retryDelayMs(200, busy.failure, 30_000)).toBe(1000);
        expect(retryDelayMs(200, { retryAfterSeconds: 3600 }, 30_000)).toBe(30_000);
        expect(retryDelayMs(5000, busy.failure, 30_000)).toBe(5000);
      } finally {
        await proxy.close();
      }
    } finally {
      await kubeRequest(admin, { method: 'DELETE', path: `${path}/${name}` });
    }
  });

  it('ends a request whose answer stalls, or whose connection is cut mid-body, as transient', async () => {
    const server = await serve((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
      res.write('{"items": [');
      if (req.url === '/cut') setTimeout(() => req.socket.destroy(), 50);
    });
    const access = accessTo(server.url, {});
    const stalled = await failureOf(
      kubeRequest(access, { method: 'GET', path: '/stall' }, { timeoutMs: 300 }),
    );
    expect(stalled.failure).toEqual({
      kind: 'transient',
      connection: 'timeout',
      message: 'request timed out or was aborted',
      retryable: true,
    });
    const bounded = await failureOf(
      kubeRequest({ ...access, requestTimeoutMs: 300 }, { method: 'GET', path: '/stall' }),
    );
    expect(bounded.failure.connection).toBe('timeout');
    const cut = await failureOf(kubeRequest(access, { method: 'GET', path: '/cut' }));
    expect(cut.failure).toMatchObject({ kind: 'transient', connection: 'reset' });
  });

  it('bounds an error answer whose body never ends, even for a watch (whose signal never fires)', async () => {
    const server = await serve((_req, res) => {
      // A load balancer's error page that never ends: the body is not the point, its end is.
      res.writeHead(503, { 'Content-Type': 'text/plain', 'Content-Length': '100' });
      res.write('upstream unavailable');
    });
    const access = accessTo(server.url, {});
    const watch = new AbortController();
    const stalled = await failureOf(
      rawGet(access, {
        path: '/stall',
        query: { watch: 'true' },
        accept: ACCEPT_METADATA,
        signal: watch.signal,
        headersTimeoutMs: 300,
      }),
    );
    expect(stalled.failure).toMatchObject({ kind: 'transient', connection: 'timeout' });
    expect(watch.signal.aborted).toBe(false);
  });

  it('a refused connection is ECONNREFUSED', async () => {
    const server = await serve(() => undefined);
    const url = server.url;
    for (const s of servers.splice(0)) s.close();
    const { failure } = await failureOf(
      kubeRequest(accessTo(url, {}), { method: 'GET', path: '/x' }),
    );
    expect(failure).toEqual({
      kind: 'transient',
      connection: 'refused',
      message: 'connection failed (ECONNREFUSED)',
      retryable: true,
    });
  });

  it('checks the fence after the credentials are at hand and before sending; a throw sends nothing', async () => {
    const server = await serve((_req, res) => {
      json(res, 201, {});
    });
    const access = accessTo(server.url, {});
    const refusal = new Error('fence shut');
    await expect(
      kubeRequest(
        access,
        { method: 'POST', path: '/w', body: {} },
        {
          beforeSend: () => {
            throw refusal;
          },
        },
      ),
    ).rejects.toBe(refusal);
    expect(server.seen).toEqual([]);
  });

  it('after a 401 from the API server, the next request runs the exec plugin again', async () => {
    // The real plane: the plugin's first token is refused, its second is a real one.
    const admin: KubeAccess = { cluster: kubeClusterFromText(plane.kubeConfig), source: 'plane' };
    const account = `exec-${process.pid}-${Date.now().toString(36)}`;
    await kubeRequest(admin, {
      method: 'POST',
      path: '/api/v1/namespaces/default/serviceaccounts',
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account } },
    });
    const token = await mintToken(plane, 'default', account, 600);
    const script = `let n=0;try{n=+require('fs').readFileSync(process.env.F,'utf8')}catch{};require('fs').writeFileSync(process.env.F,String(n+1));process.stdout.write(JSON.stringify({apiVersion:'client.authentication.k8s.io/v1',kind:'ExecCredential',status:{token:n===0?'not-a-token':process.env.T}}))`;
    const counter = join(dirname(plane.kubeconfigPath), `exec-count-${process.pid}-${Date.now()}`);
    const access = accessTo(plane.server, {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: process.execPath,
        args: ['-e', script],
        env: [
          { name: 'F', value: counter },
          { name: 'T', value: token },
        ],
      },
    });
    const rejected = await failureOf(kubeRequest(access, { method: 'GET', path: '/version' }));
    expect(rejected.failure.kind).toBe('unauthorized');
    expect(String(rejected.error)).not.toContain(token);
    await kubeRequest(access, { method: 'GET', path: '/version' });
    await kubeRequest(access, { method: 'GET', path: '/version' });
    // Run once for the refused token, once after the 401, and not again while it works.
    expect(readFileSync(counter, 'utf8')).toBe('2');
  });
});
