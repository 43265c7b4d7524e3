// Exec credential plugins (client.authentication.k8s.io v1 and v1beta1), as client-go runs
// them. Ours rather than client-node 1.4's ExecAuth, which runs the plugin again for every
// request when the credential has no expirationTimestamp, waits for a hung plugin forever,
// sets no KUBERNETES_EXEC_INFO, checks no apiVersion, never drops a credential on 401 and
// reports a failure as the plugin's bare stderr. Here: the plugin prints an ExecCredential on stdout; its token or client certificate is
// used until its expirationTimestamp (forever without one), and a 401 drops it, so the next
// request runs the plugin again. The plugin's stderr is passed through (it is how plugins
// say what is wrong); its stdout holds the credential and is never printed. A daemon has no
// terminal: the plugin's stdin is closed, and a plugin that insists on one is refused.
import { spawn } from 'node:child_process';
// The versions core accepts in a source's kubeconfig: one list, so a plugin the host may run
// is never one a source may not name, nor the other way round.
import { EXEC_API_VERSIONS } from '@argocd-cluster-registrar/core';
import { CredentialError } from './credential-error.js';
import type { ExecConfig } from './kubeconfig-files.js';

/** A plugin that has not answered by then is killed: a hung plugin must not hang requests. */
export const EXEC_TIMEOUT_MS = 30_000;
const MAX_OUTPUT_BYTES = 1024 * 1024;

export interface ExecCredential {
  readonly token?: string;
  readonly clientCertificateData?: string;
  readonly clientKeyData?: string;
  /** Epoch milliseconds; undefined: valid until rejected. */
  readonly expiresAt?: number;
}

/** What KUBERNETES_EXEC_INFO carries with provideClusterInfo. */
export interface ExecClusterInfo {
  readonly server: string;
  readonly 'certificate-authority-data'?: string;
  readonly 'insecure-skip-tls-verify'?: boolean;
  readonly 'tls-server-name'?: string;
  readonly config?: unknown;
}

export interface ExecPlugin {
  /** The cached credential while it is valid, else a fresh run (shared by concurrent callers). */
  get(): Promise<ExecCredential>;
  /** The API server rejected `used` (401): the next get() runs the plugin again. */
  rejected(used: ExecCredential): void;
}

export interface ExecPluginOptions {
  readonly cluster?: ExecClusterInfo;
  readonly timeoutMs?: number;
  /** Epoch milliseconds; injected by tests. */
  readonly now?: () => number;
}

/** Checks the configuration once, at load time, so a bad one fails at start-up. */
function validateExecConfig(exec: ExecConfig, user: string): void {
  if (exec.command === undefined || exec.command === '')
    throw new Error(`user ${user} in the kubeconfig has an exec plugin without a command`);
  if (exec.apiVersion === undefined || !EXEC_API_VERSIONS.has(exec.apiVersion)) {
    throw new Error(
      `exec plugin ${exec.command} (user ${user}) asks for apiVersion ${exec.apiVersion ?? '(none)'}; ` +
        `supported: ${[...EXEC_API_VERSIONS].join(', ')}`,
    );
  }
  if (exec.interactiveMode === 'Always') {
    throw new Error(
      `exec plugin ${exec.command} (user ${user}) needs a terminal (interactiveMode: Always), which a daemon does not have; ` +
        'use a plugin mode that runs without one',
    );
  }
}

/** Validates `exec` (throwing at load time) and returns the plugin, run on first use. */
export function createExecPlugin(
  exec: ExecConfig,
  user: string,
  options: ExecPluginOptions = {},
): ExecPlugin {
  validateExecConfig(exec, user);
  const now = options.now ?? Date.now;
  let cached: ExecCredential | undefined;
  let running: Promise<ExecCredential> | undefined;
  const valid = (credential: ExecCredential): boolean =>
    credential.expiresAt === undefined || now() < credential.expiresAt;
  return {
    get() {
      if (cached !== undefined && valid(cached)) return Promise.resolve(cached);
      running ??= runPlugin(exec, user, options).then(
        (credential) => {
          running = undefined;
          cached = credential;
          return credential;
        },
        (err: unknown) => {
          running = undefined;
          throw err;
        },
      );
      return running;
    },
    rejected(used) {
      if (cached === used) cached = undefined;
    },
  };
}

function runPlugin(
  exec: ExecConfig,
  user: string,
  options: ExecPluginOptions,
): Promise<ExecCredential> {
  const command = exec.command ?? '';
  const apiVersion = exec.apiVersion ?? '';
  const timeoutMs = options.timeoutMs ?? EXEC_TIMEOUT_MS;
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const entry of exec.env ?? []) if (entry.name) env[entry.name] = entry.value ?? '';
  env['KUBERNETES_EXEC_INFO'] = JSON.stringify({
    apiVersion,
    kind: 'ExecCredential',
    spec: {
      interactive: false,
      ...(exec.provideClusterInfo === true && options.cluster ? { cluster: options.cluster } : {}),
    },
  });
  return new Promise<ExecCredential>((resolve, reject) => {
    const fail = (why: string): void => {
      reject(new CredentialError(`exec plugin ${command} (user ${user}) ${why}`));
    };
    const child = spawn(command, [...(exec.args ?? [])], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_OUTPUT_BYTES) chunks.push(chunk);
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const hint = err.code === 'ENOENT' && exec.installHint ? `; ${exec.installHint.trim()}` : '';
      fail(`could not be started (${err.code ?? err.name})${hint}`);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) {
        fail(`did not answer within ${timeoutMs / 1000} s and was killed`);
      } else if (code !== 0) {
        fail(code === null ? `was killed (${signal ?? 'signal'})` : `exited with status ${code}`);
      } else if (size > MAX_OUTPUT_BYTES) {
        fail('printed more than 1 MiB');
      } else {
        try {
          resolve(readCredential(Buffer.concat(chunks).toString('utf8'), apiVersion));
        } catch (err) {
          fail(err instanceof Error ? err.message : 'printed an unreadable ExecCredential');
        }
      }
    });
  });
}

/** Parses the plugin's stdout; messages never quote it (it holds the credential). */
export function readCredential(stdout: string, apiVersion: string): ExecCredential {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new Error('printed something that is not JSON (an ExecCredential was expected)');
  }
  const doc = isRecord(parsed) ? parsed : {};
  if (doc['kind'] !== 'ExecCredential')
    throw new Error('printed something that is not an ExecCredential');
  if (doc['apiVersion'] !== apiVersion) {
    throw new Error(
      `answered with apiVersion ${String(doc['apiVersion'])}, but the kubeconfig asks for ${apiVersion}`,
    );
  }
  const status = isRecord(doc['status']) ? doc['status'] : {};
  const text = (key: string): string | undefined => {
    const value = status[key];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const token = text('token');
  const clientCertificateData = text('clientCertificateData');
  const clientKeyData = text('clientKeyData');
  if ((clientCertificateData === undefined) !== (clientKeyData === undefined))
    throw new Error(
      'returned a client certificate without its key, or a key without its certificate',
    );
  if (token === undefined && clientCertificateData === undefined)
    throw new Error('returned neither a token nor a client certificate and key');
  const expiration = text('expirationTimestamp');
  const expiresAt = expiration === undefined ? undefined : Date.parse(expiration);
  if (expiresAt !== undefined && Number.isNaN(expiresAt))
    throw new Error('returned an expirationTimestamp that is not an RFC 3339 time');
  return {
    ...(token !== undefined ? { token } : {}),
    ...(clientCertificateData !== undefined && clientKeyData !== undefined
      ? { clientCertificateData, clientKeyData }
      : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
