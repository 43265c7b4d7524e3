// Who we are to the API server, per request. client-node applies the user: CA and client
// certificate (data, or files read again for every request, so a rotated certificate file is
// used on the next connection), token, basic auth, `as:` and its auth providers (oidc, azure,
// gcp). Added here, for what client-node 1.4 does not do as kubectl does:
// - `tokenFile` (client-node reads no such field) and the in-cluster token: re-read at most
//   once a minute and at once after a 401, trimmed, and an empty file never makes an empty
//   bearer (client-go: the last good token is kept; at start-up it is an error);
// - exec plugins (exec-credential.ts);
// - `as-groups`, `as-uid`, `as-user-extra` (client-node only sends Impersonate-User).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { CredentialError } from './credential-error.js';
import { createExecPlugin } from './exec-credential.js';
import type { ExecClusterInfo, ExecCredential, ExecPlugin } from './exec-credential.js';
import type { UserExtras } from './kubeconfig-files.js';

export interface Credential {
  /** Authorization and Impersonate-* headers. Never logged. */
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  /** PEM; absent: the system's roots. */
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  /** Which TLS identity (CA, certificate, key) this is: each has its own keep-alive agent. */
  readonly identity: string;
  /** The exec credential this came from, so a 401 drops exactly that one. */
  readonly exec?: ExecCredential;
}

export interface Credentials {
  current(): Promise<Credential>;
  /** The API server answered 401 to a request made with `used`. */
  rejected(used: Credential): void;
}

/** client-go re-reads a token file at most this often (its cachingFileTokenSource period). */
export const TOKEN_FILE_MAX_AGE_MS = 60_000;

export interface CredentialOptions {
  readonly cluster?: ExecClusterInfo;
  /** Epoch milliseconds; injected by tests. */
  readonly now?: () => number;
  readonly execTimeoutMs?: number;
}

/**
 * client-node 1.4's KubeConfig applies the current user to request options in `applyOptions`,
 * which its typings call private. The public `applyToHTTPSOptions` does the same and then
 * builds a new agent for every call (no keep-alive, and it throws for an http:// server
 * without insecure-skip-tls-verify, which kubectl reaches); the version is pinned exactly and
 * the conformance table runs every credential form through this call.
 */
interface AppliesOptions {
  applyOptions(opts: RequestOptions): Promise<void>;
}

/** `kc` holds exactly one context, the one in use; `userName` only names the user in messages. */
export function credentialsFor(
  kc: KubeConfig,
  extras: UserExtras,
  userName: string,
  options: CredentialOptions = {},
): Credentials {
  const client = kc as unknown as AppliesOptions;
  const user = kc.getCurrentUser();
  const now = options.now ?? Date.now;
  const tokenFile =
    extras.tokenFile !== undefined
      ? tokenFileSource(extras.tokenFile, user?.token, now)
      : undefined;
  const plugin: ExecPlugin | undefined =
    extras.exec !== undefined
      ? createExecPlugin(extras.exec, userName, {
          ...(options.cluster !== undefined ? { cluster: options.cluster } : {}),
          ...(options.now !== undefined ? { now: options.now } : {}),
          ...(options.execTimeoutMs !== undefined ? { timeoutMs: options.execTimeoutMs } : {}),
        })
      : undefined;
  const impersonation = impersonationHeaders(extras);
  return {
    async current() {
      const opts: RequestOptions & { headers: Record<string, string | string[]> } = {
        headers: {},
      };
      await client.applyOptions(opts);
      const headers: Record<string, string | readonly string[]> = { ...opts.headers };
      let cert = pemOf(opts.cert);
      let key = pemOf(opts.key);
      // client-node's applyToHTTPSOptions turns username/password into basic auth; applyOptions leaves that to its caller.
      if (user?.username) {
        headers['Authorization'] =
          `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}`;
      }
      if (tokenFile !== undefined) headers['Authorization'] = `Bearer ${tokenFile.token()}`;
      let exec: ExecCredential | undefined;
      if (plugin !== undefined) {
        exec = await plugin.get();
        if (exec.clientCertificateData !== undefined && exec.clientKeyData !== undefined) {
          cert = Buffer.from(exec.clientCertificateData);
          key = Buffer.from(exec.clientKeyData);
        }
        if (exec.token !== undefined) headers['Authorization'] = `Bearer ${exec.token}`;
      }
      Object.assign(headers, impersonation);
      const authorization = headers['Authorization'];
      if (typeof authorization === 'string' && /^Bearer\s*$/.test(authorization))
        throw new CredentialError(`user ${userName} in the kubeconfig has an empty token`);
      const ca = pemOf(opts.ca);
      return {
        headers,
        ...(ca !== undefined ? { ca } : {}),
        ...(cert !== undefined ? { cert } : {}),
        ...(key !== undefined ? { key } : {}),
        identity: fingerprint(ca, cert, key),
        ...(exec !== undefined ? { exec } : {}),
      };
    },
    rejected(used) {
      if (used.exec !== undefined) plugin?.rejected(used.exec);
      tokenFile?.rejected();
    },
  };
}

/** client-go's headers for as-groups, as-uid and as-user-extra (`as` comes from client-node). */
function impersonationHeaders(extras: UserExtras): Record<string, string | readonly string[]> {
  const headers: Record<string, string | readonly string[]> = {};
  if (extras.impersonateGroups !== undefined)
    headers['Impersonate-Group'] = extras.impersonateGroups;
  if (extras.impersonateUid !== undefined) headers['Impersonate-Uid'] = extras.impersonateUid;
  for (const [key, values] of Object.entries(extras.impersonateExtra ?? {}))
    headers[`Impersonate-Extra-${encodeURIComponent(key)}`] = values;
  return headers;
}

interface TokenSource {
  token(): string;
  rejected(): void;
}

/**
 * The file's token, re-read when the last read is a minute old, or after a 401; while the file
 * cannot be read or is empty, the last token read (or the inline one) is used, as client-go
 * does. At load time, a file that gives no token is an error naming it.
 */
export function tokenFileSource(
  path: string,
  inline: string | undefined,
  now: () => number,
): TokenSource {
  const read = (): string => {
    const text = readFileSync(path, 'utf8').trim();
    if (text === '') throw Object.assign(new Error('empty'), { code: 'empty' });
    return text;
  };
  let token: string;
  try {
    token = read();
  } catch (err) {
    if (inline === undefined || inline === '')
      throw new CredentialError(`cannot read token file ${path} (${codeOf(err)})`);
    token = inline;
  }
  let readAt = now();
  return {
    token() {
      if (now() - readAt >= TOKEN_FILE_MAX_AGE_MS) {
        readAt = now();
        try {
          token = read();
        } catch {
          // Kept: kubelet replaces the file atomically, so a failed read is a moment, not news.
        }
      }
      return token;
    },
    // A rejected token may have just been rotated: look at the file again on the next request.
    rejected() {
      readAt = Number.NEGATIVE_INFINITY;
    },
  };
}

function pemOf(value: unknown): Buffer | undefined {
  if (Buffer.isBuffer(value)) return value.length > 0 ? value : undefined;
  if (typeof value === 'string' && value !== '') return Buffer.from(value);
  return undefined;
}

function fingerprint(...pems: (Buffer | undefined)[]): string {
  const hash = createHash('sha256');
  for (const pem of pems) hash.update(pem ?? '').update('\0');
  return hash.digest('hex');
}

export function codeOf(err: unknown): string {
  return err instanceof Error && 'code' in err && typeof err.code === 'string'
    ? err.code
    : 'unreadable';
}
