// The one place where client-node requests get their time-out, their write fence and their
// content type. client-node 1.4 sends through node-fetch with the RequestContext's
// AbortSignal, and runs middleware after authentication, right before sending: so a
// middleware that sets a signal bounds the whole exchange (headers and body), and a check in
// it is the last word before the bytes leave.
//
// Without a signal, a half-open connection or a response whose body stops short of its
// Content-Length (node-fetch does not notice the socket closing) waits forever.

import { Observable } from '@kubernetes/client-node';
import type {
  ConfigurationOptions,
  RequestContext,
  ResponseContext,
} from '@kubernetes/client-node';

/**
 * Default bound on one request, headers to last byte. A 500-item list page takes well under
 * a second; 20 s leaves room for a slow, loaded API server while a hung request still ends
 * well within one pass interval.
 */
export const REQUEST_TIMEOUT_MS = 20_000;

export interface RequestGuard {
  /** Bound on this request; default {@link REQUEST_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** Runs right before sending; throwing stops the request (the write fence). */
  readonly beforeSend?: () => void;
  readonly contentType?: string;
}

interface PromiseMiddleware {
  pre(context: RequestContext): Promise<RequestContext>;
  post(context: ResponseContext): Promise<ResponseContext>;
}

export function guardMiddleware(guard: RequestGuard): PromiseMiddleware {
  const timeoutMs = guard.timeoutMs ?? REQUEST_TIMEOUT_MS;
  return {
    pre(context) {
      guard.beforeSend?.();
      if (guard.contentType !== undefined)
        context.setHeaderParam('Content-Type', guard.contentType);
      context.setSignal(AbortSignal.timeout(Math.max(1, Math.ceil(timeoutMs))));
      return Promise.resolve(context);
    },
    post: (response) => Promise.resolve(response),
  };
}

/**
 * Per-call options. Appended after the client's default middleware, so its signal replaces
 * the default one. Call-time middleware reaches the generated API unwrapped, so it takes
 * the observable form (client-node's own Observable stub).
 */
export function guarded(guard: RequestGuard): ConfigurationOptions {
  const middleware = guardMiddleware(guard);
  return {
    middleware: [
      {
        pre: (context: RequestContext) => new Observable(middleware.pre(context)),
        post: (response: ResponseContext) => new Observable(middleware.post(response)),
      },
    ],
    middlewareMergeStrategy: 'append',
  };
}
