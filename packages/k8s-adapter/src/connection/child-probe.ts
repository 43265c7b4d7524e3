// Reachability probes of a child, on the registration's server the way ArgoCD will connect:
//
// - `probeChild`: `GET /version` with the registration's own credentials and TLS settings. A
//   child that answers at all is awake (a 401 or 403 says its credentials are wrong, which a
//   pause would not fix); no answer, a 5xx or a time-out is a failure.
// - `knockOnChild`: a TCP connection to the server's address, closed at once. It says whether
//   anything accepts connections there, for about a twentieth of the CPU of a `/version` call
//   (a TLS handshake, interpreted under the image's `--jitless`), and is what the daemon sends
//   between `/version` calls (child-probes.ts says when each is used).
//
// Only the registration's bytes are used, never printed: an error message names the server and
// what went wrong. What the child sends back is bounded (MAX_BODY_BYTES, the probe's
// time-out), never followed (a redirect is an answer, not a place to go) and shown only as a
// plain version string.
//
// Not probed (`skipped`): exec and AWS registrations (ArgoCD mints their tokens; we would
// have to run a plugin) and registrations through a proxy (ArgoCD's path differs from ours).

import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { ObservedSecret } from '@argocd-cluster-registrar/core';

export type ProbeAnswer =
  | { readonly kind: 'answered'; readonly version: string | undefined }
  | { readonly kind: 'failed'; readonly error: string }
  | { readonly kind: 'skipped'; readonly why: string };

/** Bytes of a `/version` answer read at most (a real one is ~300): beyond, the connection is dropped. */
const MAX_BODY_BYTES = 16 * 1024;

/**
 * A version as Kubernetes and its distributions write it (`v1.31.2`, `v1.33.0+k3s1`,
 * `v1.30.4-eks-a737599`). Anything else the child says is not shown: the child is whoever
 * holds the registered address, and its version goes to status, Events and logs.
 */
const VERSION = /^v?[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$/;

/** Where a registration says its child is, or why it is not probed. */
function addressOf(
  registration: ObservedSecret,
):
  | { readonly url: URL; readonly config: Record<string, unknown> }
  | Extract<ProbeAnswer, { kind: 'skipped' }> {
  const server = text(registration.data['server']);
  const config = json(registration.data['config']);
  if (server === undefined || config === undefined) {
    return { kind: 'skipped', why: 'the registration holds no readable server or config' };
  }
  if (config['execProviderConfig'] !== undefined || config['awsAuthConfig'] !== undefined) {
    return { kind: 'skipped', why: 'ArgoCD mints this registration’s credentials itself' };
  }
  if (config['proxyUrl'] !== undefined) {
    return { kind: 'skipped', why: 'the registration connects through a proxy' };
  }
  try {
    // Relative: a server with a path (a child behind a proxy such as Rancher's) serves its
    // API under that path, as its clients, ArgoCD included, address it.
    return { url: new URL('version', server.endsWith('/') ? server : `${server}/`), config };
  } catch {
    return { kind: 'skipped', why: 'the registration’s server is not a URL' };
  }
}

type Knock =
  | { readonly host: string; readonly port: number; readonly label: string }
  | Extract<ProbeAnswer, { kind: 'skipped' }>;

/**
 * Where to knock, by registration object: a registration changes only when its Secret does,
 * and a knock, sent each interval, then decodes nothing (its config is kilobytes of base64).
 */
const knocks = new WeakMap<ObservedSecret, Knock>();

function knockFor(registration: ObservedSecret): Knock {
  const known = knocks.get(registration);
  if (known !== undefined) return known;
  const address = addressOf(registration);
  let knock: Knock;
  if ('kind' in address) knock = address;
  else {
    const { url } = address;
    knock = {
      // An IPv6 literal is bracketed in a URL and bare for a socket.
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : url.port),
      label: url.host,
    };
  }
  knocks.set(registration, knock);
  return knock;
}

/** Whether anything accepts a TCP connection at the registration's server within `timeoutMs`. */
export async function knockOnChild(
  registration: ObservedSecret,
  timeoutMs: number,
): Promise<ProbeAnswer> {
  const knock = knockFor(registration);
  if ('kind' in knock) return knock;
  const { host, port, label } = knock;
  return new Promise<ProbeAnswer>((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    socket.once('connect', () => {
      socket.destroy();
      resolve({ kind: 'answered', version: undefined });
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve({ kind: 'failed', error: `connect ${label}: no answer within ${timeoutMs} ms` });
    });
    socket.once('error', (error) => {
      resolve({ kind: 'failed', error: `connect ${label}: ${error.message}` });
    });
  });
}

/**
 * `GET /version`, given up after `waitMs`. A failure to answer names `timeoutMs`, the probe's
 * own time-out, of which a knock before this call may have used some: the message stays the
 * same from one probe to the next, and a changed message is a changed state for the planner.
 */
export async function probeChild(
  registration: ObservedSecret,
  timeoutMs: number,
  waitMs = timeoutMs,
): Promise<ProbeAnswer> {
  const address = addressOf(registration);
  if ('kind' in address) return address;
  const { url, config } = address;
  const tls = record(config['tlsClientConfig']);
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = config['bearerToken'];
  const username = config['username'];
  const password = config['password'];
  if (typeof token === 'string' && token !== '') headers['authorization'] = `Bearer ${token}`;
  else if (typeof username === 'string' && typeof password === 'string') {
    headers['authorization'] = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  }
  let secureContext: SecureContext | undefined;
  if (url.protocol === 'https:') {
    try {
      secureContext = contextFor(pem(tls['caData']), pem(tls['certData']), pem(tls['keyData']));
    } catch (error) {
      // OpenSSL names what it could not read, never the bytes.
      const why = error instanceof Error ? error.message : String(error);
      return {
        kind: 'failed',
        error: `GET ${url.origin}${url.pathname}: the registered TLS credentials cannot be loaded (${why})`,
      };
    }
  }
  const options = {
    method: 'GET',
    headers,
    // One connection per probe: a child is probed once an interval, and its credentials may
    // rotate between probes.
    agent: false as const,
    ...(secureContext !== undefined
      ? {
          secureContext,
          rejectUnauthorized: tls['insecure'] !== true,
          ...(typeof tls['serverName'] === 'string' ? { servername: tls['serverName'] } : {}),
        }
      : {}),
  };
  return new Promise<ProbeAnswer>((resolve) => {
    const failed = (why: string): void => {
      resolve({ kind: 'failed', error: `GET ${url.origin}${url.pathname}: ${why}` });
    };
    const onResponse = (response: IncomingMessage): void => {
      const status = response.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY_BYTES) {
          chunks.push(chunk);
          return;
        }
        // It answered, so it is awake; what it says is no /version.
        resolve({ kind: 'answered', version: undefined });
        response.destroy();
      });
      response.on('error', (error) => {
        failed(error.message);
      });
      response.on('end', () => {
        if (status >= 500) {
          failed(`HTTP ${status}`);
          return;
        }
        const body =
          status === 200 ? parseObject(Buffer.concat(chunks).toString('utf8')) : undefined;
        const version = body?.['gitVersion'];
        resolve({
          kind: 'answered',
          version: typeof version === 'string' && VERSION.test(version) ? version : undefined,
        });
      });
    };
    const request =
      url.protocol === 'https:'
        ? httpsRequest(url, options, onResponse)
        : httpRequest(url, options, onResponse);
    // One timer bounds the whole probe, a slow drip included: an abort signal and the socket's
    // idle time-out cost several times as much under `--jitless`, and half a fleet may hang.
    const deadline = setTimeout(() => {
      failed(`no answer within ${timeoutMs} ms`);
      request.destroy();
    }, waitMs);
    request.on('close', () => {
      clearTimeout(deadline);
    });
    request.on('error', (error) => {
      failed(error.message);
    });
    request.end();
  });
}

/**
 * TLS contexts kept, most recently used last. Building one parses the CA, certificate and key
 * and copies the root store: ~30 KiB of OpenSSL memory each, which V8 does not see, so contexts
 * built per probe and dropped pile up between collections (at 1,000 children, half hanging,
 * ~600 probes a minute: a peak 4 MiB higher). Children that share a CA and client credentials
 * share one; the bound keeps a fleet whose every child has its own from holding one per child
 * (those still build one per probe).
 */
const CONTEXTS_KEPT = 64;
const contexts = new Map<string, SecureContext>();

function contextFor(
  ca: string | undefined,
  cert: string | undefined,
  key: string | undefined,
): SecureContext {
  // Keyed by a digest, so no credential is kept beside the context that holds it.
  const id = createHash('sha256')
    .update(`${ca ?? ''}\u0000${cert ?? ''}\u0000${key ?? ''}`)
    .digest('base64');
  const kept = contexts.get(id);
  if (kept !== undefined) {
    contexts.delete(id);
    contexts.set(id, kept);
    return kept;
  }
  const context = createSecureContext({
    ...(ca === undefined ? {} : { ca }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
  });
  contexts.set(id, context);
  for (const oldest of contexts.keys()) {
    if (contexts.size <= CONTEXTS_KEPT) break;
    contexts.delete(oldest);
  }
  return context;
}

function text(base64: string | undefined): string | undefined {
  return base64 === undefined ? undefined : Buffer.from(base64, 'base64').toString('utf8');
}

function json(base64: string | undefined): Record<string, unknown> | undefined {
  const decoded = text(base64);
  return decoded === undefined ? undefined : parseObject(decoded);
}

function parseObject(source: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(source);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

/** A PEM from ArgoCD's base64 form. */
function pem(value: unknown): string | undefined {
  return typeof value === 'string' && value !== ''
    ? Buffer.from(value, 'base64').toString('utf8')
    : undefined;
}
