// One watch request, streamed line by line, with two bounds client-node's Watch does not
// have: the response headers must arrive within a request time-out (its fetch waits forever
// on a server that accepts and never answers, and `watch()` does not return its abort
// handle until headers arrive), and the stream must carry a line (an event or a bookmark)
// within a silence bound. Either way the stream ends with an error and the caller re-opens
// it from its last resourceVersion. Nothing here throws: every end is one `onDone` call.

import { request as httpRequest } from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createInterface } from 'node:readline';
import type { KubeAccess } from './kube-access.js';
import { shareConnections } from './kube-clients.js';

export interface WatchStreamHandlers {
  onEvent(type: string, object: unknown): void;
  /** Called exactly once: `undefined` for a clean end (the server's timeout). */
  onDone(err: unknown): void;
}

export interface WatchStreamBounds {
  readonly headersTimeoutMs: number;
  readonly silenceMs: number;
}

export interface WatchStream {
  abort(): void;
}

/** Named like a fetch time-out, so classifyApiError calls it transient. */
class WatchSilence extends Error {
  override readonly name = 'TimeoutError';
}

export function openWatchStream(
  access: KubeAccess,
  path: string,
  query: Readonly<Record<string, string | number | boolean | undefined>>,
  handlers: WatchStreamHandlers,
  bounds: WatchStreamBounds,
): WatchStream {
  let done = false;
  let timer: NodeJS.Timeout | undefined;
  let destroy: ((err?: Error) => void) | undefined;

  const finish = (err: unknown): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    destroy?.();
    handlers.onDone(err);
  };
  const arm = (ms: number, what: string): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      finish(new WatchSilence(what));
    }, ms);
  };

  arm(bounds.headersTimeoutMs, 'watch: no response headers in time');
  const start = async (): Promise<void> => {
    const cluster = access.kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    const url = new URL(cluster.server.replace(/\/+$/, '') + path);
    url.searchParams.set('watch', 'true');
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    shareConnections(access);
    const options: RequestOptions = { method: 'GET' };
    await access.kubeConfig.applyToHTTPSOptions(options);
    if (done) return;
    const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
    const req = send(url, options, (res: IncomingMessage) => {
      if (done) {
        res.destroy();
        return;
      }
      if (res.statusCode !== 200) {
        res.resume();
        finish(
          Object.assign(new Error(`watch answered ${String(res.statusCode)}`), {
            statusCode: res.statusCode,
          }),
        );
        return;
      }
      arm(bounds.silenceMs, 'watch: silent for too long');
      res.on('error', finish);
      res.on('aborted', () => {
        finish(Object.assign(new Error('watch stream aborted'), { code: 'ECONNRESET' }));
      });
      const lines = createInterface({ input: res });
      // readline re-emits its input's errors: unheard, one would end the process.
      lines.on('error', finish);
      lines.on('line', (line) => {
        if (done) return;
        arm(bounds.silenceMs, 'watch: silent for too long');
        let parsed: { type?: unknown; object?: unknown };
        try {
          parsed = JSON.parse(line) as { type?: unknown; object?: unknown };
        } catch {
          return;
        }
        if (typeof parsed.type === 'string') handlers.onEvent(parsed.type, parsed.object);
      });
      lines.on('close', () => {
        // 'end' of the body: a clean close only if the response completed.
        finish(
          res.complete ? undefined : Object.assign(new Error('watch cut'), { code: 'ECONNRESET' }),
        );
      });
    });
    destroy = (err) => req.destroy(err);
    req.on('error', finish);
    req.end();
  };
  start().catch(finish);

  return {
    abort() {
      done = true;
      clearTimeout(timer);
      destroy?.();
    },
  };
}
