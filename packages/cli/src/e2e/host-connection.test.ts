// The host connection as kubectl makes it, end to end: the CLI as a process, its host
// kubeconfig narrowed by `as:`, or routed through a CONNECT proxy by proxy-url or HTTPS_PROXY,
// or through a SOCKS5 proxy by proxy-url, against the real host plane.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { connect, createServer as createNetServer } from 'node:net';
import type { Server as NetServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { uniqueName } from '@argocd-cluster-registrar/testkit';
import {
  createSourceNamespace,
  createWorld,
  kubeconfigYaml,
  putK3kKubeconfig,
  registration,
  runCli,
} from '../test-support/e2e.js';
import type { World } from '../test-support/e2e.js';

interface ConnectProxy {
  readonly url: string;
  /** The CONNECT targets it was asked for, in order. */
  readonly connects: string[];
  close(): Promise<void>;
}

/** Listens on a free loopback port; `close` also ends the connections still open. */
async function listenOnLoopback(
  server: NetServer,
  sockets: Set<Socket>,
): Promise<{ port: number; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** An HTTP CONNECT proxy that resolves every host name to 127.0.0.1, as a real one resolves names the client cannot. */
async function startConnectProxy(): Promise<ConnectProxy> {
  const connects: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => {
    res.statusCode = 405;
    res.end();
  });
  server.on('connect', (req, client: Socket) => {
    const target = req.url ?? '';
    connects.push(target);
    const port = Number(target.slice(target.lastIndexOf(':') + 1));
    const upstream = connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  const { port, close } = await listenOnLoopback(server, sockets);
  return { url: `http://127.0.0.1:${String(port)}`, connects, close };
}

interface SocksProxy {
  readonly url: string;
  /** The targets it was asked to connect to, as host:port, in order. */
  readonly connects: string[];
  close(): Promise<void>;
}

/**
 * A SOCKS5 proxy (RFC 1928, no authentication) that resolves every host name to 127.0.0.1, as
 * a real one resolves names the client cannot.
 */
async function startSocksProxy(): Promise<SocksProxy> {
  const connects: string[] = [];
  const sockets = new Set<Socket>();
  const server = createNetServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let buffered = Buffer.alloc(0);
    let stage: 'greeting' | 'request' | 'piping' = 'greeting';
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      if (stage === 'greeting') {
        const methods = buffered[1];
        if (methods === undefined || buffered.length < 2 + methods) return;
        buffered = buffered.subarray(2 + methods);
        client.write(Buffer.from([5, 0]));
        stage = 'request';
      }
      if (stage !== 'request' || buffered.length < 5) return;
      const type = buffered[3];
      let host: string;
      let at: number;
      if (type === 1) {
        if (buffered.length < 10) return;
        host = [...buffered.subarray(4, 8)].join('.');
        at = 8;
      } else if (type === 3) {
        const length = buffered[4] ?? 0;
        if (buffered.length < 5 + length + 2) return;
        host = buffered.subarray(5, 5 + length).toString('latin1');
        at = 5 + length;
      } else {
        client.end(Buffer.from([5, 8, 0, 1, 0, 0, 0, 0, 0, 0]));
        return;
      }
      const port = buffered.readUInt16BE(at);
      const rest = buffered.subarray(at + 2);
      stage = 'piping';
      client.off('data', onData);
      connects.push(`${host}:${port}`);
      const upstream = connect(port, '127.0.0.1', () => {
        client.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
        if (rest.length > 0) upstream.write(rest);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    };
    client.on('data', onData);
  });
  const { port, close } = await listenOnLoopback(server, sockets);
  return { url: `socks5://127.0.0.1:${String(port)}`, connects, close };
}

type Doc = Record<string, unknown> & {
  clusters: { cluster: Record<string, unknown> }[];
  users: { user: Record<string, unknown> }[];
};

/** The host plane's admin kubeconfig with its cluster and user entries changed, written to a file. */
function hostKubeconfig(
  world: World,
  change: (cluster: Record<string, unknown>, user: Record<string, unknown>) => void,
): string {
  const doc = parse(world.host.kubeConfig) as Doc;
  const [cluster, user] = [doc.clusters[0]?.cluster, doc.users[0]?.user];
  if (cluster === undefined || user === undefined) throw new Error('unexpected admin kubeconfig');
  change(cluster, user);
  const path = join(mkdtempSync(join(tmpdir(), 'acr-host-')), 'kubeconfig');
  writeFileSync(path, stringify(doc));
  return path;
}

/** The world's flags with another host kubeconfig. */
const argsWith = (world: World, kubeconfig: string): string[] =>
  world.baseArgs.map((arg, i) => (world.baseArgs[i - 1] === '--kubeconfig' ? kubeconfig : arg));

/** A name only the proxy can resolve, and the name the serving certificate is for. */
const throughProxy = (world: World, cluster: Record<string, unknown>): void => {
  cluster['server'] = `https://host.acr.test:${new URL(world.host.server).port}`;
  cluster['tls-server-name'] = 'localhost';
};

let world: World;
let proxy: ConnectProxy;
let socks: SocksProxy;
beforeAll(async () => {
  world = await createWorld();
  proxy = await startConnectProxy();
  socks = await startSocksProxy();
});
afterAll(async () => {
  await proxy.close();
  await socks.close();
});

async function labelledNamespace(): Promise<string> {
  const cluster = uniqueName('c');
  const ns = await createSourceNamespace(world, { cluster });
  // Each its own server: two registrations of one server would be refused as a collision.
  const server = `https://${cluster}.acr.test:${new URL(world.child.server).port}`;
  await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfigYaml(world.child, { server }));
  return cluster;
}

describe('host connection', () => {
  it('impersonates `as:`: an identity without rights writes nothing, and the run says it is forbidden', async () => {
    const cluster = await labelledNamespace();
    const path = hostKubeconfig(world, (_c, user) => {
      user['as'] = 'nobody-at-all';
    });
    const run = await runCli([...argsWith(world, path), '--once']);
    expect(run.code).not.toBe(0);
    expect(`${run.stderr}${run.stdout}`).toMatch(/forbidden/i);
    expect(`${run.stderr}${run.stdout}`).toContain('nobody-at-all');
    expect(await registration(world, cluster)).toBeUndefined();
    // The same kubeconfig without `as:` registers the cluster: the refusal was the identity's.
    const admin = await runCli([...world.baseArgs, '--once']);
    expect(admin.code).toBe(0);
    expect(await registration(world, cluster)).toBeDefined();
  });

  it('goes through the CONNECT proxy of proxy-url', async () => {
    const cluster = await labelledNamespace();
    const path = hostKubeconfig(world, (c) => {
      throughProxy(world, c);
      c['proxy-url'] = proxy.url;
    });
    const before = proxy.connects.length;
    const run = await runCli([...argsWith(world, path), '--once']);
    expect(run.code, run.stderr).toBe(0);
    expect(proxy.connects.slice(before)).toContain(
      `host.acr.test:${new URL(world.host.server).port}`,
    );
    expect(await registration(world, cluster), `${run.stdout}\n${run.stderr}`).toBeDefined();
  });

  it('goes through the SOCKS5 proxy of proxy-url, which resolves the server name as kubectl lets it', async () => {
    const cluster = await labelledNamespace();
    const path = hostKubeconfig(world, (c) => {
      throughProxy(world, c);
      c['proxy-url'] = socks.url;
    });
    const before = socks.connects.length;
    const run = await runCli([...argsWith(world, path), '--once']);
    expect(run.code, run.stderr).toBe(0);
    expect(socks.connects.slice(before)).toContain(
      `host.acr.test:${new URL(world.host.server).port}`,
    );
    expect(await registration(world, cluster), `${run.stdout}\n${run.stderr}`).toBeDefined();
  });

  it('goes through the CONNECT proxy of HTTPS_PROXY, and not for a host NO_PROXY names', async () => {
    const cluster = await labelledNamespace();
    const path = hostKubeconfig(world, (c) => {
      throughProxy(world, c);
    });
    const target = `host.acr.test:${new URL(world.host.server).port}`;
    const before = proxy.connects.length;
    const run = await runCli([...argsWith(world, path), '--once'], { HTTPS_PROXY: proxy.url });
    expect(run.code, run.stderr).toBe(0);
    expect(proxy.connects.slice(before)).toContain(target);
    expect(await registration(world, cluster), `${run.stdout}\n${run.stderr}`).toBeDefined();

    const bypassed = proxy.connects.length;
    const direct = await runCli([...argsWith(world, path), '--once'], {
      HTTPS_PROXY: proxy.url,
      NO_PROXY: '.acr.test',
    });
    // Without the proxy, host.acr.test does not resolve: the run says so, and the proxy saw nothing.
    expect(direct.code).not.toBe(0);
    expect(direct.stderr).toContain('does not resolve');
    expect(proxy.connects.length).toBe(bypassed);
  });

  it('reports a failing exec plugin by its command and exit status', async () => {
    const path = hostKubeconfig(world, (_c, user) => {
      // No client certificate: the plugin is the only credential (undefined is not written).
      user['client-certificate-data'] = undefined;
      user['client-key-data'] = undefined;
      user['exec'] = {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: 'sh',
        args: ['-c', 'echo s3cr3t-token; exit 7'],
      };
    });
    const run = await runCli([...argsWith(world, path), '--once']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /cannot authenticate to the API server .*exec plugin sh \(user [^)]+\) exited with status 7/,
    );
    expect(run.stderr).not.toContain('unexpected error');
    expect(`${run.stderr}${run.stdout}`).not.toContain('s3cr3t');
  });
});
