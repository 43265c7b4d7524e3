// A fault-injecting HTTPS proxy in front of a real kube-apiserver. Every answer it gives is
// either the real server's (forwarded, possibly late, cut short or never delivered) or a
// transient failure a real server or load balancer also gives (500, 503, 429 with
// Retry-After, 409 on a write). It never invents a 404 or a success: a client that trusts
// only those can never be misled into a deletion by it.
//
// TLS: the proxy serves the plane's own serving certificate (its SANs cover 127.0.0.1), so
// a kubeconfig that trusts the plane's CA trusts the proxy. Upstream it authenticates with
// the admin client certificate of the plane's kubeconfig (a client certificate cannot be
// forwarded), unless the request carries an Authorization header: that is passed through
// alone, so token identities keep theirs.

import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer, request as httpsRequest, Agent } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import type { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { ControlPlane } from './control-plane.js';
import {
  FAULT_KINDS,
  WRITES,
  applicable,
  isWatch,
  seededRandom,
  sendStatus,
} from './fault-choice.js';
import type { FaultKind } from './fault-choice.js';

export interface FaultSettings {
  /** Probability that a request meets a fault, 0..1. */
  readonly rate: number;
  /** Kinds to choose from (uniformly, among those that apply to the request). */
  readonly kinds: readonly FaultKind[];
  /** Added delay for `latency`, ms. */
  readonly latencyMs: readonly [number, number];
  /** A hung request is released (its socket destroyed) after this long; default never. */
  readonly hangMs?: number;
  /** Watches meeting `cut-watch` are cut after a delay in this range, ms. */
  readonly watchCutMs: readonly [number, number];
  /** Only requests whose `METHOD /path?query` matches meet faults; default all. */
  readonly only?: RegExp;
}

export interface ProxyLogEntry {
  readonly at: number;
  readonly method: string;
  readonly path: string;
  /** The request's Content-Type and Accept, as the client sent them (no credentials kept). */
  readonly contentType?: string;
  readonly accept?: string;
  /** The request's User-Agent: which client sent it (ArgoCD's controller, a probe). */
  readonly userAgent?: string;
  /** Status sent to the client; undefined when none was (reset, hang, cut). */
  readonly status?: number;
  readonly fault?: FaultKind;
  /** True when the request reached the real server. */
  readonly forwarded: boolean;
}

export interface ForwardedWrite {
  readonly method: string;
  readonly path: string;
  readonly body: Buffer;
  /** When the proxy had the whole request (before any injected latency): when it was sent. */
  readonly receivedAt: number;
}

export interface FaultProxyOptions {
  readonly seed?: number;
  readonly faults?: Partial<FaultSettings>;
  /**
   * Runs before a write (POST, PUT, PATCH, DELETE) is forwarded, and holds it until it
   * resolves: a test can compare the write with the world at that moment.
   */
  readonly beforeWrite?: (write: ForwardedWrite) => Promise<void>;
  /**
   * Replaces the first watch event whose line mentions `needle`, once: `undecodable` puts a
   * line that does not decode in its place; `endless` starts a line of 9 MiB that never ends,
   * and that watch then stays open and silent, as a server gone wrong could hold it.
   */
  readonly corruptWatchLine?: { readonly needle: string; readonly mode: 'undecodable' | 'endless' };
}

export interface FaultProxy {
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** A kubeconfig text for the proxy: the plane's CA and admin identity, the proxy's address. */
  readonly kubeConfig: string;
  readonly log: readonly ProxyLogEntry[];
  /** Count per fault kind. */
  readonly counts: Readonly<Record<FaultKind, number>>;
  /** Watch lines replaced by `corruptWatchLine` (0 or 1). */
  corruptedLines(): number;
  setFaults(faults: Partial<FaultSettings>): void;
  /** Faults apply to every request again. */
  clearOnly(): void;
  /** Every request hangs (is accepted and never answered) until switched off. */
  hangAll(on: boolean): void;
  /**
   * Closes every client connection, open watches and requests in flight included, as an API
   * server that restarts (or a load balancer in front of it) does.
   */
  dropConnections(): void;
  close(): Promise<void>;
}

const DEFAULTS: FaultSettings = {
  rate: 0,
  kinds: FAULT_KINDS,
  latencyMs: [1000, 8000],
  watchCutMs: [500, 5000],
};

/**
 * Forwards a watch line by line, replacing the first line that mentions `needle` (once, across
 * the proxy's watches: `corrupted` is called when it is).
 */
function forwardCorrupting(
  answer: IncomingMessage,
  res: ServerResponse,
  { needle, mode }: NonNullable<FaultProxyOptions['corruptWatchLine']>,
  corrupted: () => void,
): void {
  let pending = '';
  let done = false;
  let stalled = false;
  answer.on('data', (chunk: Buffer) => {
    if (stalled) return;
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (done || !line.includes(needle)) {
        res.write(`${line}\n`);
        continue;
      }
      done = true;
      corrupted();
      if (mode === 'undecodable') {
        res.write('{"type":"ADDED","object":{"metadata":\n');
        continue;
      }
      const piece = `{"type":"ADDED","object":{"metadata":{"name":"${'x'.repeat(2 ** 16)}`;
      for (let sent = 0; sent < 9 * 2 ** 20; sent += piece.length) res.write(piece);
      stalled = true;
      return;
    }
  });
  answer.on('end', () => res.end(pending));
}

export async function startFaultProxy(
  plane: Pick<ControlPlane, 'kubeconfigPath' | 'kubeConfig' | 'server' | 'caPem'>,
  options: FaultProxyOptions = {},
): Promise<FaultProxy> {
  const pki = join(dirname(plane.kubeconfigPath), 'pki');
  const admin = new KubeConfig();
  admin.loadFromString(plane.kubeConfig);
  const user = admin.getCurrentUser();
  const upstream = new URL(plane.server);
  const agent = new Agent({
    keepAlive: true,
    ca: plane.caPem,
    ...(user?.certData ? { cert: Buffer.from(user.certData, 'base64') } : {}),
    ...(user?.keyData ? { key: Buffer.from(user.keyData, 'base64') } : {}),
  });
  // The API server tries a client certificate before a bearer token: a request carrying one
  // goes upstream without the admin's certificate, or it would run as the admin.
  const tokenAgent = new Agent({ keepAlive: true, ca: plane.caPem });
  const random = seededRandom(options.seed ?? 1);
  let settings: FaultSettings = { ...DEFAULTS, ...(options.faults ?? {}) };
  let hangingAll = false;
  const log: ProxyLogEntry[] = [];
  const counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  let corruptedLines = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const between = ([low, high]: readonly [number, number]): number =>
    low + Math.floor(random() * (high - low + 1));
  const later = (ms: number, action: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      action();
    }, ms);
    timers.add(timer);
  };

  const choose = (method: string, url: URL): FaultKind | undefined => {
    if (hangingAll) return 'hang';
    if (settings.rate <= 0) return undefined;
    if (
      settings.only !== undefined &&
      !settings.only.test(`${method} ${url.pathname}${url.search}`)
    )
      return undefined;
    if (random() >= settings.rate) return undefined;
    const kinds = settings.kinds.filter((k) => applicable(k, method, url));
    if (kinds.length === 0) return undefined;
    return kinds[Math.floor(random() * kinds.length)];
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', upstream);
    const path = `${url.pathname}${url.search}`;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const receivedAt = Date.now();
    const fault = choose(method, url);
    if (fault !== undefined) counts[fault] += 1;
    const record = (status: number | undefined, forwarded: boolean): void => {
      log.push({
        at: Date.now(),
        method,
        path,
        ...(req.headers['content-type'] !== undefined
          ? { contentType: req.headers['content-type'] }
          : {}),
        ...(req.headers.accept !== undefined ? { accept: req.headers.accept } : {}),
        ...(req.headers['user-agent'] !== undefined
          ? { userAgent: req.headers['user-agent'] }
          : {}),
        ...(status !== undefined ? { status } : {}),
        ...(fault !== undefined ? { fault } : {}),
        forwarded,
      });
    };

    switch (fault) {
      case 'status-500':
      case 'status-503':
      case 'status-429':
      case 'conflict-409': {
        const code = Number(/\d+/.exec(fault)?.[0]);
        sendStatus(res, code);
        record(code, false);
        return;
      }
      case 'hang':
        record(undefined, false);
        if (settings.hangMs !== undefined) later(settings.hangMs, () => req.socket.destroy());
        return;
      case 'reset':
        // Half the resets hit before the server sees the request, half after it answered.
        if (random() < 0.5) {
          record(undefined, false);
          req.socket.destroy();
          return;
        }
        break;
      case 'latency':
        await new Promise<void>((resolve) => {
          later(between(settings.latencyMs), resolve);
        });
        break;
      default:
        break;
    }

    if (WRITES.has(method) && options.beforeWrite !== undefined) {
      await options.beforeWrite({ method, path, body, receivedAt });
    }
    const headers = { ...req.headers, host: upstream.host };
    const forward = httpsRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method,
        path,
        headers,
        agent: req.headers.authorization === undefined ? agent : tokenAgent,
      },
      (answer) => {
        // Destroyed with its client (a cut watch, say): nothing to report.
        answer.on('error', () => undefined);
        // The server went away mid-answer (it restarted): its client's connection breaks too,
        // as it would without a proxy, instead of staying open and silent.
        answer.on('close', () => {
          if (!answer.complete) req.socket.destroy();
        });
        const status = answer.statusCode ?? 502;
        if (fault === 'reset') {
          answer.resume();
          record(undefined, true);
          req.socket.destroy();
          return;
        }
        if (fault === 'truncate') {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const full = Buffer.concat(parts);
            const outHeaders = { ...answer.headers, 'content-length': String(full.length) };
            delete outHeaders['transfer-encoding'];
            res.writeHead(status, outHeaders);
            // Content-Length promises the whole body; half of it arrives, then the socket closes.
            res.write(full.subarray(0, Math.floor(full.length / 2)), () => req.socket.destroy());
            record(status, true);
          });
          return;
        }
        res.writeHead(status, answer.headers);
        // On as they came: Node holds written headers back until the first body byte, and a
        // quiet watch's first line (a bookmark) comes a minute after its headers.
        res.flushHeaders();
        const corrupt = options.corruptWatchLine;
        if (corrupt !== undefined && corruptedLines === 0 && isWatch(url))
          forwardCorrupting(answer, res, corrupt, () => {
            corruptedLines += 1;
          });
        else answer.pipe(res);
        record(status, true);
        if (fault === 'cut-watch') later(between(settings.watchCutMs), () => req.socket.destroy());
      },
    );
    forward.on('error', () => {
      if (!res.headersSent) sendStatus(res, 503);
      else req.socket.destroy();
    });
    // A client that goes away takes its upstream request (a watch, say) with it.
    res.on('close', () => forward.destroy());
    forward.end(body);
  };

  const server: Server = createHttpsServer(
    {
      cert: readFileSync(join(pki, 'serving.crt')),
      key: readFileSync(join(pki, 'serving.key')),
      ca: plane.caPem,
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      handle(req, res).catch(() => req.socket.destroy());
    },
  );
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const proxyServer = `https://127.0.0.1:${port}`;
  const kubeConfig = plane.kubeConfig.replace(plane.server, proxyServer);

  return {
    server: proxyServer,
    kubeConfig,
    log,
    counts,
    corruptedLines: () => corruptedLines,
    setFaults(faults) {
      settings = { ...settings, ...faults };
    },
    clearOnly() {
      settings = { ...DEFAULTS, ...settings, only: /(?:)/ };
    },
    hangAll(on) {
      hangingAll = on;
    },
    dropConnections() {
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
      agent.destroy();
      tokenAgent.destroy();
    },
  };
}
