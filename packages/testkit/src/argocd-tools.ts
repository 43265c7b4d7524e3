// Where the ArgoCD binary, its CRDs and kubectl come from (tools/build.sh, which builds on the
// first use and answers from its cache afterwards), and the small process helpers the ArgoCD
// harness shares.

import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ControlPlane } from './control-plane.js';

/** tools/build.sh of this repository (same depth from src/ and dist/). */
export const BUILD_SCRIPT = fileURLToPath(new URL('../../../tools/build.sh', import.meta.url));

function run(
  file: string,
  args: readonly string[],
  options: { input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      { maxBuffer: 64 * 1024 * 1024, env: options.env ?? process.env },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        if (error !== null && code === -1) reject(new Error(`${file}: ${error.message}`));
        else resolve({ code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Runs a command; rejects with its stderr on a non-zero exit. */
export async function runChecked(
  file: string,
  args: readonly string[],
  options: { input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  const result = await run(file, args, options);
  if (result.code !== 0)
    throw new Error(`${file} ${args[0] ?? ''} exited ${String(result.code)}:\n${result.stderr}`);
  return result.stdout;
}

export { run as runCommand };

export function lastLine(text: string): string {
  const lines = text.trimEnd().split('\n');
  return (lines[lines.length - 1] ?? '').trim();
}

let argocdBinary: Promise<string> | undefined;

/** Path of the ArgoCD binary (tools/argocd); the first call on a machine builds it (minutes). */
export function argocdBinaryPath(): Promise<string> {
  argocdBinary ??= runChecked(BUILD_SCRIPT, ['argocd']).then(lastLine);
  return argocdBinary;
}

/** ArgoCD's CRDs, copied beside the binary by tools/build.sh. */
export async function argocdCrdDir(): Promise<string> {
  return join(await argocdBinaryPath(), '..', 'crds');
}

let toolsBin: Promise<string> | undefined;

/** The control-plane tools cache (kube-apiserver, kubectl, ...), built on first use. */
export function toolsBinDir(): Promise<string> {
  toolsBin ??= runChecked(BUILD_SCRIPT, []).then(lastLine);
  return toolsBin;
}

/** kubectl from the control-plane tools cache. */
export async function kubectlPath(): Promise<string> {
  return join(await toolsBinDir(), 'kubectl');
}

/** Runs kubectl against the plane as its admin. */
export async function kubectl(
  plane: Pick<ControlPlane, 'kubeconfigPath'>,
  args: readonly string[],
  input?: string,
): Promise<string> {
  return runChecked(
    await kubectlPath(),
    ['--kubeconfig', plane.kubeconfigPath, ...args],
    input === undefined ? {} : { input },
  );
}

/** A loopback port free at the time of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}
