// ArgoCD's DNS, for the tests. Registrations name the child plane by a host name, as a
// provisioner would name its Service (the registrar refuses loopback servers: from ArgoCD's
// pod they are ArgoCD itself). Nothing resolves such a name on this machine, so the
// application controller is given this HTTPS proxy (HTTPS_PROXY), which tunnels every
// CONNECT to the same port on 127.0.0.1. TLS stays end to end between ArgoCD and the child
// plane, verified against the registration's CA and serverName. Go's proxy selection never
// proxies loopback addresses, so the host plane (127.0.0.1) is reached directly.

import { createServer } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface LoopbackProxy {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  stop(): Promise<void>;
}

export function startLoopbackProxy(): Promise<LoopbackProxy> {
  const server = createServer((_req, res) => {
    res.writeHead(405).end('CONNECT only\n');
  });
  // Tunnels leave the HTTP server's bookkeeping: stop() ends them itself.
  const tunnels = new Set<{ destroy(): void }>();
  server.on('connect', (req, client, head) => {
    const port = Number(new URL(`http://${req.url ?? ''}`).port || '443');
    const upstream = connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    tunnels.add(upstream).add(client);
    const close = (): void => {
      upstream.destroy();
      client.destroy();
      tunnels.delete(upstream);
      tunnels.delete(client);
    };
    upstream.on('close', close);
    client.on('close', close);
    upstream.on('error', () => {
      if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      close();
    });
    client.on('error', close);
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${String(port)}`,
        stop: () =>
          new Promise((done) => {
            for (const socket of tunnels) socket.destroy();
            server.closeAllConnections();
            server.close(() => {
              done();
            });
          }),
      });
    });
  });
}
