// Every error that crosses the API boundary is mapped here, once, to a small union with a
// retry policy. Nothing an error carries is copied verbatim (a response body or a library's
// message may quote configuration or data): messages are rebuilt from the Status reason, the
// object names it mentions, or a socket error code.
import { CredentialError } from './credential-error.js';

export type ApiFailureKind =
  | 'not-found'
  | 'conflict'
  | 'already-exists'
  | 'forbidden'
  | 'unauthorized'
  | 'invalid'
  | 'transient'
  | 'unknown';

/** Why a request never got an HTTP answer; absent when the API server answered. */
export type ConnectionProblem = 'refused' | 'reset' | 'timeout' | 'dns' | 'tls' | 'other';

export interface ApiFailure {
  readonly kind: ApiFailureKind;
  readonly status?: number;
  readonly connection?: ConnectionProblem;
  /** Safe to log: never credentials, request bodies or response bodies beyond a Status message. */
  readonly message: string;
  readonly retryable: boolean;
  /** From a 429 or 503's Retry-After (seconds): how long the server asked us to wait. */
  readonly retryAfterSeconds?: number;
  /** A 400 or 422's Status causes: which field was refused and why, never the value. */
  readonly causes?: readonly StatusCause[];
}

/** One of a Status's `details.causes`, as the API server names it (`metadata.uid`, …). */
export interface StatusCause {
  readonly field?: string;
  readonly reason?: string;
}

/** The subset of a `meta/v1` Status we read. */
interface StatusBody {
  readonly reason?: string;
  readonly message?: string;
  readonly code?: number;
  readonly details?: { readonly causes?: readonly unknown[] };
}

const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL']);
const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'EPROTO',
]);

const MAX_MESSAGE = 300;

function connectionProblemOf(code: string): ConnectionProblem {
  if (code === 'ECONNREFUSED') return 'refused';
  if (DNS_CODES.has(code)) return 'dns';
  if (TLS_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_'))
    return 'tls';
  if (/TIMEDOUT|TIMEOUT/.test(code)) return 'timeout';
  if (
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    code === 'ECONNABORTED' ||
    code === 'UND_ERR_SOCKET'
  )
    return 'reset';
  return 'other';
}

export function classifyApiError(err: unknown): ApiFailure {
  const status = httpStatusOf(err);
  if (status !== undefined) {
    const failure = fromStatus(status, statusBodyOf(err));
    const retryAfter = isRecord(err) ? err['retryAfterSeconds'] : undefined;
    return typeof retryAfter === 'number' && (status === 429 || status === 503)
      ? { ...failure, retryAfterSeconds: retryAfter }
      : failure;
  }
  const code = socketCodeOf(err);
  if (code !== undefined) {
    const connection = connectionProblemOf(code);
    return TRANSIENT_CODES.has(code)
      ? { kind: 'transient', connection, message: `connection failed (${code})`, retryable: true }
      : { kind: 'unknown', connection, message: `request failed (${code})`, retryable: false };
  }
  if (isRecord(err) && (err['name'] === 'AbortError' || err['name'] === 'TimeoutError')) {
    return {
      kind: 'transient',
      connection: 'timeout',
      message: 'request timed out or was aborted',
      retryable: true,
    };
  }
  // Our own message (credential-error.ts): it names the plugin or file, never what they printed.
  if (err instanceof CredentialError)
    return { kind: 'unauthorized', message: clip(err.message), retryable: true };
  // Anything else is a bug or an unexpected library error: keep only its class name, since
  // arbitrary messages may quote configuration. No HTTP answer came back either way.
  const name = err instanceof Error ? err.name : typeof err;
  return {
    kind: 'unknown',
    connection: 'other',
    message: `unexpected error (${name})`,
    retryable: false,
  };
}

/** A pass that never talked to the API server, said once instead of as a list of reads. */
export interface ConnectionDiagnosis {
  /** unreachable: no HTTP answer; rejected: every answer was 401; no-credential: none to send. */
  readonly kind: 'unreachable' | 'no-conversation' | 'rejected' | 'no-credential';
  /** What went wrong and what to check, without the server or kubeconfig (the caller has them). */
  readonly detail: string;
}

/**
 * When every failure of a pass is the same failure to talk to the API server at all
 * (refused, DNS, TLS, time-out, or 401), says so once; undefined when some read got through
 * or failed for its own reasons.
 */
export function diagnoseConnection(
  failures: readonly ApiFailure[],
): ConnectionDiagnosis | undefined {
  const first = failures[0];
  if (first === undefined) return undefined;
  if (failures.every((f) => f.kind === 'unauthorized' && f.status === undefined)) {
    return { kind: 'no-credential', detail: first.message };
  }
  if (failures.every((f) => f.kind === 'unauthorized')) {
    return { kind: 'rejected', detail: '401 Unauthorized' };
  }
  const problems = new Set(failures.map((f) => f.connection));
  if (problems.has(undefined) || first.connection === undefined) return undefined;
  const explained = `${first.message}${CONNECTION_HINTS[first.connection]}`;
  return failures.every((f) => f.kind === 'transient')
    ? { kind: 'unreachable', detail: explained }
    : failures.every((f) => f.kind === 'unknown')
      ? { kind: 'no-conversation', detail: explained }
      : undefined;
}

const CONNECTION_HINTS: Readonly<Record<ConnectionProblem, string>> = {
  refused: ': nothing accepts connections at that address (is the API server up, the port right?)',
  reset: '',
  timeout: '',
  dns: ": the server's host name does not resolve",
  tls: ": TLS verification failed (does the kubeconfig's certificate-authority-data match the server's certificate and name?)",
  other: '',
};

/** Maps a Status-shaped object (a watch ERROR event) the same way as a thrown error. */
export function classifyStatusObject(status: unknown): ApiFailure {
  const body = isRecord(status) ? (status as StatusBody) : undefined;
  const code = typeof body?.code === 'number' ? body.code : 500;
  return fromStatus(code, body);
}

function fromStatus(status: number, body: StatusBody | undefined): ApiFailure {
  const reason = body?.reason;
  const said = describeStatus(status, body);
  if (status === 404) return { kind: 'not-found', status, message: said, retryable: false };
  if (status === 409) {
    return reason === 'AlreadyExists'
      ? { kind: 'already-exists', status, message: said, retryable: false }
      : { kind: 'conflict', status, message: said, retryable: true };
  }
  if (status === 401) return { kind: 'unauthorized', status, message: said, retryable: false };
  if (status === 403) return { kind: 'forbidden', status, message: said, retryable: false };
  if (status === 422 || status === 400) {
    const causes = causesOf(body);
    return causes.length > 0
      ? { kind: 'invalid', status, message: said, retryable: false, causes }
      : { kind: 'invalid', status, message: said, retryable: false };
  }
  if (status === 408 || status === 410 || status === 429 || status >= 500) {
    return { kind: 'transient', status, message: said, retryable: true };
  }
  return { kind: 'unknown', status, message: said, retryable: false };
}

function describeStatus(status: number, body: StatusBody | undefined): string {
  const reason = body?.reason ?? defaultReason(status);
  // Validation messages quote rejected values, which may be secret data: name fields only.
  if (status === 422 || status === 400) {
    const fields = causesOf(body)
      .map((cause) => [cause.field, cause.reason].filter(Boolean).join(' '))
      .filter((text) => text.length > 0);
    return clip(`${status} ${reason}${fields.length > 0 ? `: ${fields.join('; ')}` : ''}`);
  }
  // A 401's Status says "Unauthorized" twice (reason and message): once is enough.
  const said = typeof body?.message === 'string' ? body.message : '';
  const message = said.length > 0 && said.toLowerCase() !== reason.toLowerCase() ? `: ${said}` : '';
  return clip(`${status} ${reason}${message}`);
}

/** The causes' field and reason only: a cause's message may quote the rejected value. */
function causesOf(body: StatusBody | undefined): StatusCause[] {
  const causes = body?.details?.causes;
  if (!Array.isArray(causes)) return [];
  return causes.filter(isRecord).map((cause) => {
    const { field, reason } = cause;
    return {
      ...(typeof field === 'string' ? { field } : {}),
      ...(typeof reason === 'string' ? { reason } : {}),
    };
  });
}

function defaultReason(status: number): string {
  switch (status) {
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 409:
      return 'Conflict';
    case 410:
      return 'Gone';
    case 429:
      return 'TooManyRequests';
    default:
      return status >= 500 ? 'ServerError' : 'Error';
  }
}

function clip(text: string): string {
  return text.length <= MAX_MESSAGE ? text : `${text.slice(0, MAX_MESSAGE - 1)}…`;
}

function httpStatusOf(err: unknown): number | undefined {
  if (!isRecord(err)) return undefined;
  // HttpStatusError (kube-http.ts) carries `statusCode`; client-node's ApiException, which
  // tests still meet, `code` (a number). A socket error's `code` is a string, so the type
  // tells them apart.
  for (const key of ['code', 'statusCode']) {
    const value = err[key];
    if (typeof value === 'number' && value >= 100 && value < 600) return value;
  }
  return undefined;
}

function statusBodyOf(err: unknown): StatusBody | undefined {
  if (!isRecord(err)) return undefined;
  const body = err['body'];
  if (typeof body === 'string') {
    try {
      const parsed: unknown = JSON.parse(body);
      return isRecord(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  return isRecord(body) ? body : undefined;
}

function socketCodeOf(err: unknown): string | undefined {
  // Node's errors carry `code`; wrapped ones (fetch, AbortError) nest it in `cause`.
  let current: unknown = err;
  for (let depth = 0; depth < 4 && isRecord(current); depth += 1) {
    for (const key of ['code', 'errno']) {
      const value = current[key];
      // An aborted request (its time-out signal fired) is told by its name, below.
      if (typeof value === 'string' && value !== 'ABORT_ERR' && /^[A-Z][A-Z_]+$/.test(value))
        return value;
    }
    current = current['cause'];
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
