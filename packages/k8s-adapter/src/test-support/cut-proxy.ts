// A TCP pass-through in front of the real API server (TLS goes through untouched), so a test
// can cut every open connection mid-stream, as a load balancer or a network blip would.
import { createServer, connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import type { KubeAccess } from '../connection/kube-access.js';

export interface CutProxy {
  /** A KubeAccess like `access`, but through the proxy. */
  readonly access: KubeAccess;
  /** Connections accepted so far. */
  connections(): number;
  /** Destroys every open connection (both sides). */
  cut(): void;
  /** While held, every new connection is dropped at once (the server is unreachable). */
  hold(held: boolean): void;
  close(): Promise<void>;
}

export async function startCutProxy(access: KubeAccess): Promise<CutProxy> {
  const upstream = new URL(access.cluster.server);
  const open = new Set<Socket>();
  let accepted = 0;
  let holding = false;
  const server = createServer((client) => {
    accepted += 1;
    if (holding) {
      client.destroy();
      return;
    }
    const backend = connect(Number(upstream.port), upstream.hostname);
    open.add(client);
    open.add(backend);
    client.pipe(backend).pipe(client);
    const drop = (): void => {
      client.destroy();
      backend.destroy();
      open.delete(client);
      open.delete(backend);
    };
    client.on('error', drop);
    backend.on('error', drop);
    client.on('close', drop);
    backend.on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  // The serving certificate names 127.0.0.1, whatever the port: TLS verifies as before.
  const cluster = { ...access.cluster, server: `https://127.0.0.1:${port}` };
  return {
    access: { cluster, source: `${access.source} via a cut proxy` },
    connections: () => accepted,
    cut() {
      for (const socket of open) socket.destroy();
      open.clear();
    },
    hold(held) {
      holding = held;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}
