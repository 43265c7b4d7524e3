// Who we are to the API server, per request: a bearer token (inline, from a file that is
// re-read, or from an exec plugin), basic auth, and/or a client certificate. Resolved per
// request because bound service-account tokens rotate (kubelet rewrites the file) and exec
// credentials expire; everything else is read once, at load time.
import { readFileSync } from 'node:fs';
import { createExecPlugin, validateExecConfig } from './exec-credential.js';
import type { ExecClusterInfo, ExecCredential, ExecPlugin } from './exec-credential.js';
import type { UserEntry } from './kubeconfig-file.js';

export interface Credential {
  /** The Authorization header value, if any. Never logged. */
  readonly authorization?: string;
  /** Client certificate and key, PEM. */
  readonly cert?: Buffer;
  readonly key?: Buffer;
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

/** `userName` only names the user in messages. Throws on unreadable files, naming them. */
export function credentialsFor(
  user: UserEntry,
  userName: string,
  options: CredentialOptions = {},
): Credentials {
  if (user['auth-provider'] !== undefined) {
    const provider = user['auth-provider'].name ?? 'unnamed';
    throw new Error(
      `user ${userName} in the kubeconfig uses the ${provider} auth-provider, which is not supported; ` +
        'use an exec credential plugin instead (e.g. gke-gcloud-auth-plugin for GKE, kubelogin for Azure or OIDC)',
    );
  }
  const cert = pem(
    user['client-certificate-data'],
    user['client-certificate'],
    'client certificate',
  );
  const key = pem(user['client-key-data'], user['client-key'], 'client key');
  if ((cert === undefined) !== (key === undefined)) {
    throw new Error(
      `user ${userName} in the kubeconfig has a client ${cert === undefined ? 'key' : 'certificate'} without its ${cert === undefined ? 'certificate' : 'key'}`,
    );
  }
  const tls = { ...(cert !== undefined ? { cert } : {}), ...(key !== undefined ? { key } : {}) };
  const fixed = (authorization?: string): Credentials => {
    const credential: Credential = {
      ...tls,
      ...(authorization !== undefined ? { authorization } : {}),
    };
    return { current: () => Promise.resolve(credential), rejected: () => undefined };
  };

  if (user.exec !== undefined) {
    validateExecConfig(user.exec, userName);
    return execCredentials(
      createExecPlugin(user.exec, {
        ...(options.cluster !== undefined ? { cluster: options.cluster } : {}),
        ...(options.now !== undefined ? { now: options.now } : {}),
        ...(options.execTimeoutMs !== undefined ? { timeoutMs: options.execTimeoutMs } : {}),
      }),
      tls,
    );
  }
  if (user.tokenFile !== undefined && user.tokenFile !== '')
    return tokenFileCredentials(user.tokenFile, user.token, tls, options.now ?? Date.now);
  if (user.token !== undefined && user.token !== '') return fixed(`Bearer ${user.token}`);
  if (user.username !== undefined && user.username !== '') {
    const basic = Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64');
    return fixed(`Basic ${basic}`);
  }
  return fixed();
}

/**
 * The file's token, re-read when the last read is older than a minute; while the file cannot
 * be read, the last token read (or the inline one) is used, as client-go does.
 */
export function tokenFileCredentials(
  path: string,
  inline: string | undefined,
  tls: { readonly cert?: Buffer; readonly key?: Buffer },
  now: () => number,
): Credentials {
  const read = (): string => readFileSync(path, 'utf8').trim();
  let token: string;
  try {
    token = read();
  } catch (err) {
    if (inline === undefined || inline === '')
      throw new Error(`cannot read token file ${path} (${codeOf(err)})`, { cause: undefined });
    token = inline;
  }
  let readAt = now();
  let credential: Credential = { ...tls, authorization: `Bearer ${token}` };
  const refresh = (): void => {
    readAt = now();
    try {
      const fresh = read();
      if (fresh !== token) {
        token = fresh;
        credential = { ...tls, authorization: `Bearer ${token}` };
      }
    } catch {
      // Kept: kubelet replaces the file atomically, so a failed read is a moment, not news.
    }
  };
  return {
    current() {
      if (now() - readAt >= TOKEN_FILE_MAX_AGE_MS) refresh();
      return Promise.resolve(credential);
    },
    // A rejected token may have just been rotated: look at the file again on the next request.
    rejected: () => {
      readAt = Number.NEGATIVE_INFINITY;
    },
  };
}

function execCredentials(
  plugin: ExecPlugin,
  tls: { readonly cert?: Buffer; readonly key?: Buffer },
): Credentials {
  const made = new WeakMap<ExecCredential, Credential>();
  return {
    async current() {
      const exec = await plugin.get();
      let credential = made.get(exec);
      if (credential === undefined) {
        const cert = exec.clientCertificateData;
        const key = exec.clientKeyData;
        credential = {
          exec,
          ...(cert !== undefined && key !== undefined
            ? { cert: Buffer.from(cert), key: Buffer.from(key) }
            : tls),
          ...(exec.token !== undefined ? { authorization: `Bearer ${exec.token}` } : {}),
        };
        made.set(exec, credential);
      }
      return credential;
    },
    rejected(used) {
      if (used.exec !== undefined) plugin.rejected(used.exec);
    },
  };
}

/** Inline base64 data wins over a file, as in kubectl. */
export function pem(
  data: string | undefined,
  file: string | undefined,
  what: string,
): Buffer | undefined {
  if (data !== undefined && data !== '') return Buffer.from(data, 'base64');
  if (file === undefined || file === '') return undefined;
  try {
    return readFileSync(file);
  } catch (err) {
    throw new Error(`cannot read ${what} file ${file} (${codeOf(err)})`, { cause: undefined });
  }
}

export function codeOf(err: unknown): string {
  return err instanceof Error && 'code' in err && typeof err.code === 'string'
    ? err.code
    : 'unreadable';
}
