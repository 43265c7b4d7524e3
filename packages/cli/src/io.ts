// What a command may touch of the process: argv, the environment and the two streams.
// Injected, so the commands run in tests exactly as from a terminal.

import { readFileSync } from 'node:fs';

export interface Io {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly stdoutIsTty: boolean;
  readonly stderrIsTty: boolean;
}

/** Set by the bundle (bundle.mjs), which has no package.json beside it. */
declare const __REGISTRAR_VERSION__: string | undefined;

export function version(): string {
  if (typeof __REGISTRAR_VERSION__ === 'string') return __REGISTRAR_VERSION__;
  try {
    // src/io.ts and dist/io.js both sit one level below the package root.
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

export function colorFor(io: Io, isTty: boolean): boolean {
  return isTty && io.env['NO_COLOR'] === undefined;
}
