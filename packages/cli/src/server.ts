// Probe and metrics endpoints. One server per distinct address: when --health-addr and
// --metrics-addr are equal, a single server answers all three paths.

import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseListenAddress } from './values.js';
import type { Logger } from './logging.js';

export interface ProbeResult {
  readonly ok: boolean;
  readonly reason: string;
}

export interface Endpoints {
  healthz(): ProbeResult;
  readyz(): ProbeResult;
  metrics(): string;
}

export interface RunningServers {
  /** Bound addresses by role (only for enabled roles). */
  readonly health?: AddressInfo;
  readonly metrics?: AddressInfo;
  close(): Promise<void>;
}

export type ServerRole = 'health' | 'metrics';
type Role = ServerRole;

/** An address could not be bound; names the roles, so the caller can name their flags. */
export class ListenError extends Error {
  override readonly name = 'ListenError';
  constructor(
    readonly roles: readonly ServerRole[],
    readonly address: string,
    readonly code: string,
  ) {
    super(
      `cannot listen on ${address} (${code === 'EADDRINUSE' ? 'address already in use, EADDRINUSE' : code})`,
    );
  }
}

export async function startServers(options: {
  readonly healthAddr: string;
  readonly metricsAddr: string;
  readonly endpoints: Endpoints;
  readonly logger: Logger;
}): Promise<RunningServers> {
  const byAddress = new Map<string, Role[]>();
  if (options.healthAddr !== '') byAddress.set(options.healthAddr, ['health']);
  if (options.metricsAddr !== '')
    byAddress.set(options.metricsAddr, [...(byAddress.get(options.metricsAddr) ?? []), 'metrics']);

  const servers: Server[] = [];
  const bound: Partial<Record<Role, AddressInfo>> = {};
  try {
    for (const [address, roles] of byAddress) {
      const listen = parseListenAddress(address);
      if (listen === undefined)
        throw new Error(`invalid listen address ${JSON.stringify(address)}`);
      const server = createServer((req, res) => {
        handle(req, res, roles, options.endpoints);
      });
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', (err: NodeJS.ErrnoException) => {
          reject(new ListenError(roles, address, err.code ?? err.message));
        });
        server.listen(listen.port, listen.host, () => {
          server.removeAllListeners('error');
          resolve();
        });
      });
      const info = server.address() as AddressInfo;
      for (const role of roles) bound[role] = info;
      options.logger.info('listening', {
        address: `${info.family === 'IPv6' ? `[${info.address}]` : info.address}:${info.port}`,
        serves: roles
          .flatMap((r) => (r === 'health' ? ['/healthz', '/readyz'] : ['/metrics']))
          .join(','),
      });
    }
  } catch (err) {
    await Promise.all(servers.map(closeServer));
    throw err;
  }
  return {
    ...(bound.health !== undefined ? { health: bound.health } : {}),
    ...(bound.metrics !== undefined ? { metrics: bound.metrics } : {}),
    close: async () => {
      await Promise.all(servers.map(closeServer));
    },
  };
}

function handle(
  req: IncomingMessage,
  res: ServerResponse,
  roles: readonly Role[],
  endpoints: Endpoints,
): void {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  try {
    if (
      roles.includes('health') &&
      (path === '/healthz' || path === '/livez' || path === '/readyz')
    ) {
      const result = path === '/readyz' ? endpoints.readyz() : endpoints.healthz();
      res.writeHead(result.ok ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`${result.ok ? 'ok' : 'not ok'}: ${result.reason}\n`);
      return;
    }
    if (roles.includes('metrics') && path === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(endpoints.metrics());
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
  } catch {
    res.writeHead(500).end();
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => {
      resolve();
    });
    // Probes keep connections alive; do not let them hold shutdown up.
    server.closeAllConnections();
  });
}
