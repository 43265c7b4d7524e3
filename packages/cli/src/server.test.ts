import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from './logging.js';
import { startServers } from './server.js';
import type { RunningServers } from './server.js';

let running: RunningServers | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

let ready = false;
const endpoints = {
  healthz: () => ({ ok: true, reason: 'loop alive' }),
  readyz: () => ({ ok: ready, reason: ready ? 'first pass completed' : 'no complete pass yet' }),
  metrics: () => 'argocd_cluster_registrar_leader 1\n',
};

async function get(
  port: number | undefined,
  path: string,
): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://127.0.0.1:${String(port)}${path}`);
  return { status: response.status, body: await response.text() };
}

describe('startServers', () => {
  it('serves probes and metrics on one server when the addresses are equal', async () => {
    running = await startServers({
      healthAddr: '127.0.0.1:0',
      metricsAddr: '127.0.0.1:0',
      endpoints,
      logger: silentLogger,
    });
    expect(running.health?.port).toBe(running.metrics?.port);
    const port = running.health?.port;
    ready = false;
    expect(await get(port, '/readyz')).toEqual({
      status: 503,
      body: 'not ok: no complete pass yet\n',
    });
    ready = true;
    expect(await get(port, '/readyz')).toEqual({ status: 200, body: 'ok: first pass completed\n' });
    expect(await get(port, '/healthz')).toEqual({ status: 200, body: 'ok: loop alive\n' });
    expect(await get(port, '/metrics')).toEqual({
      status: 200,
      body: 'argocd_cluster_registrar_leader 1\n',
    });
    expect((await get(port, '/other')).status).toBe(404);
  });

  it('keeps roles apart on different addresses, and disables one with an empty address', async () => {
    running = await startServers({
      healthAddr: '127.0.0.1:0',
      metricsAddr: '',
      endpoints,
      logger: silentLogger,
    });
    expect(running.metrics).toBeUndefined();
    expect((await get(running.health?.port, '/metrics')).status).toBe(404);
    await running.close();
    running = await startServers({
      healthAddr: '',
      metricsAddr: '127.0.0.1:0',
      endpoints,
      logger: silentLogger,
    });
    expect(running.health).toBeUndefined();
    expect((await get(running.metrics?.port, '/healthz')).status).toBe(404);
    expect((await get(running.metrics?.port, '/metrics')).status).toBe(200);
  });

  it('fails clearly when the address is taken', async () => {
    running = await startServers({
      healthAddr: '127.0.0.1:0',
      metricsAddr: '',
      endpoints,
      logger: silentLogger,
    });
    const taken = `127.0.0.1:${String(running.health?.port)}`;
    await expect(
      startServers({ healthAddr: taken, metricsAddr: '', endpoints, logger: silentLogger }),
    ).rejects.toThrow(/EADDRINUSE/);
  });
});
