// A long-running helper process of the ArgoCD harness (redis-server, a controller): started
// with a clean environment, its output kept (the last lines) for failure messages, stopped
// with SIGTERM and, if it lingers, SIGKILL.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

export interface Managed {
  readonly name: string;
  readonly process: ChildProcess;
  /** The last lines of its stdout and stderr. */
  tail(): string;
  /** True once it has exited. */
  exited(): boolean;
  stop(): Promise<void>;
}

const KEEP_LINES = 200;

/** The runner's environment without anything that would point a child at another cluster. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(
    ([key]) =>
      key !== 'KUBECONFIG' &&
      !key.startsWith('KUBERNETES_') &&
      !key.startsWith('ARGOCD_') &&
      !/^(https?|all|no)_proxy$/i.test(key),
  );
  return { ...Object.fromEntries(inherited), ...extra };
}

export function startManaged(
  name: string,
  file: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Managed {
  const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  const keep = (chunk: Buffer): void => {
    partial += chunk.toString('utf8');
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    if (lines.length > KEEP_LINES) lines.splice(0, lines.length - KEEP_LINES);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let done = false;
  // A test process that ends without stop() (a crash, a timeout) takes its helpers with it.
  const killOnExit = (): void => {
    if (!done) child.kill('SIGKILL');
  };
  process.on('exit', killOnExit);
  const exit = new Promise<void>((resolve) => {
    child.on('exit', () => {
      done = true;
      process.off('exit', killOnExit);
      resolve();
    });
    child.on('error', (err) => {
      lines.push(`${name}: ${err.message}`);
      done = true;
      resolve();
    });
  });
  return {
    name,
    process: child,
    tail: () => [...lines, partial].join('\n'),
    exited: () => done,
    stop: async () => {
      if (done) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(killer);
    },
  };
}

/** Polls `ready` until it is true; fails early (with the output) if the process exits. */
export async function waitReady(
  managed: Managed,
  ready: () => Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (managed.exited())
      throw new Error(`${managed.name} exited during start:\n${managed.tail()}`);
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline)
      throw new Error(`${managed.name} was not ready in time:\n${managed.tail()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
