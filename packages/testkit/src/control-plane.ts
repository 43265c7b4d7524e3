import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';

/** scripts/control-plane of this repository (same depth from src/ and dist/). */
export const CONTROL_PLANE_SCRIPT = fileURLToPath(
  new URL('../../../scripts/control-plane', import.meta.url),
);

/** A running etcd + kube-apiserver started by scripts/control-plane. */
export interface ControlPlane {
  readonly name: string;
  /** Admin kubeconfig (system:masters client certificate, embedded data). */
  readonly kubeconfigPath: string;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** Text of the admin kubeconfig. */
  readonly kubeConfig: string;
  /** PEM of the CA that signed the serving certificate. */
  readonly caPem: string;
  /** Stops etcd and kube-apiserver and removes the plane's state. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Stop the plane when this process exits, even if stop() is never called. */
  readonly ownerPid?: number;
  /** Forward the script's progress (and any cold build's) to this process's stderr. */
  readonly progress?: boolean;
  /**
   * Sign the serving and admin certificates with this CA and trust it for client
   * certificates, instead of a CA of the plane's own (a provisioner's cluster CA, say).
   */
  readonly ca?: { readonly certPem: string; readonly keyPem: string };
  /** A host name the serving certificate is also valid for. */
  readonly host?: string;
  /** The API server's port (default: a free one). */
  readonly port?: number;
}

interface RunResult {
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs scripts/control-plane; rejects with its stderr (never stdout: it may hold a token). */
export function runControlPlaneScript(
  args: readonly string[],
  options: { readonly progress?: boolean } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(CONTROL_PLANE_SCRIPT, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      err.push(chunk);
      if (options.progress === true) process.stderr.write(chunk);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (code === 0) {
        resolve({ stdout, stderr });
        return;
      }
      const how = signal === null ? `exit ${String(code)}` : `signal ${signal}`;
      reject(new Error(`control-plane ${args[0] ?? ''} failed (${how}):\n${stderr.trimEnd()}`));
    });
  });
}

function lastLine(text: string): string {
  const lines = text.trimEnd().split('\n');
  return (lines[lines.length - 1] ?? '').trim();
}

/**
 * Builds a handle for a plane that is already running, from its kubeconfig.
 * `stop` defaults to `down --name <name>`.
 */
export async function attachControlPlane(
  name: string,
  kubeconfigPath: string,
  stop?: () => Promise<void>,
): Promise<ControlPlane> {
  const kubeConfig = await readFile(kubeconfigPath, 'utf8');
  const kc = new KubeConfig();
  kc.loadFromString(kubeConfig);
  const cluster = kc.getCurrentCluster();
  if (cluster === null || cluster.caData === undefined) {
    throw new Error(`${kubeconfigPath} has no current cluster with certificate-authority-data`);
  }
  return {
    name,
    kubeconfigPath,
    server: cluster.server,
    kubeConfig,
    caPem: Buffer.from(cluster.caData, 'base64').toString('utf8'),
    stop:
      stop ??
      (async () => {
        await runControlPlaneScript(['down', '--name', name]);
      }),
  };
}

/**
 * Starts (or reuses, when already running and healthy) the named plane. The first call on a
 * machine builds the binaries (minutes); later calls take a few seconds.
 */
export async function startControlPlane(
  name: string,
  options: StartOptions = {},
): Promise<ControlPlane> {
  const args = ['up', '--name', name];
  if (options.ownerPid !== undefined) args.push('--owner-pid', String(options.ownerPid));
  if (options.host !== undefined) args.push('--host', options.host);
  if (options.port !== undefined) args.push('--port', String(options.port));
  // The CA's key goes to the script in a private file, never on a command line.
  const caDir = options.ca === undefined ? undefined : await mkdtemp(join(tmpdir(), 'acr-ca-'));
  let stdout: string;
  try {
    if (caDir !== undefined && options.ca !== undefined) {
      await writeFile(join(caDir, 'ca.crt'), options.ca.certPem, { mode: 0o600 });
      await writeFile(join(caDir, 'ca.key'), options.ca.keyPem, { mode: 0o600 });
      args.push('--ca-cert', join(caDir, 'ca.crt'), '--ca-key', join(caDir, 'ca.key'));
    }
    ({ stdout } = await runControlPlaneScript(
      args,
      options.progress === undefined ? {} : { progress: options.progress },
    ));
  } finally {
    if (caDir !== undefined) await rm(caDir, { recursive: true, force: true });
  }
  const kubeconfigPath = lastLine(stdout);
  if (kubeconfigPath === '')
    throw new Error(`control-plane up --name ${name} printed no kubeconfig path`);
  return attachControlPlane(name, kubeconfigPath);
}

type PlaneRef = Pick<ControlPlane, 'name'>;

/** A TokenRequest token for the ServiceAccount (subject to RBAC). At least 600 seconds. */
export async function mintToken(
  plane: PlaneRef,
  namespace: string,
  serviceAccount: string,
  seconds = 3600,
): Promise<string> {
  const { stdout } = await runControlPlaneScript([
    'token',
    plane.name,
    namespace,
    serviceAccount,
    '--duration',
    String(seconds),
  ]);
  return stdout.trim();
}

/**
 * Deletes a namespace for good (no controller-manager runs, so nobody else empties
 * spec.finalizers): delete if not yet Terminating, finalize, delete again, and wait until it
 * is gone. Gone already is fine. Objects inside it stay in etcd; use unique namespace names.
 */
export async function finalizeNamespace(plane: PlaneRef, namespace: string): Promise<void> {
  await runControlPlaneScript(['finalize', plane.name, namespace]);
}

/**
 * Stops the plane's kube-apiserver (SIGTERM, as a rolling restart does: every open watch and
 * request is cut) and starts it again on the same etcd and port; resolves once it is ready.
 */
export async function restartApiServer(plane: PlaneRef): Promise<void> {
  await runControlPlaneScript(['restart-apiserver', plane.name]);
}

/**
 * Compacts the plane's etcd to its current revision (physically), so a watch or list from
 * an older resourceVersion meets 410 Gone. Returns the revision compacted at.
 */
export async function compactEtcd(plane: PlaneRef): Promise<number> {
  const { stdout } = await runControlPlaneScript(['compact-etcd', plane.name]);
  return Number(stdout.trim());
}
