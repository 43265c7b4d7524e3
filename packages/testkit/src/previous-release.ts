// A previous release of the registrar, built from git, for upgrade tests: the tree of a commit
// (`git archive`, so it works from any clone that holds the commit, tagged or not), its own
// locked dependencies, its own build. Cached outside the repository by commit id, like the
// control plane binaries; a lock directory keeps two runs from building it at once.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

export interface PreviousRelease {
  readonly commit: string;
  /** Its `packages/cli/dist/main.js`: run with `node`. */
  readonly main: string;
}

function cacheRoot(): string {
  const base = process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache');
  return join(base, 'argocd-cluster-registrar', 'releases');
}

async function withLock<T>(dir: string, work: () => T): Promise<T> {
  const lock = `${dir}.lock`;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Someone else builds it; a lock older than 15 minutes is left over from a crash.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 15 * 60_000) rmSync(lock, { recursive: true });
      } catch {
        // Gone meanwhile.
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Builds (once per machine) the registrar at `commit` and returns how to run it. */
export async function previousRelease(commit: string): Promise<PreviousRelease> {
  const full = execFileSync('git', ['-C', REPO, 'rev-parse', '--verify', `${commit}^{commit}`], {
    encoding: 'utf8',
  }).trim();
  const dir = join(cacheRoot(), full);
  const main = join(dir, 'packages/cli/dist/main.js');
  const done = join(dir, '.built');
  if (existsSync(done)) return { commit: full, main };
  mkdirSync(cacheRoot(), { recursive: true });
  await withLock(dir, () => {
    if (existsSync(done)) return;
    const building = `${dir}.building`;
    rmSync(building, { recursive: true, force: true });
    mkdirSync(building, { recursive: true });
    const archive = execFileSync('git', ['-C', REPO, 'archive', '--format=tar', full], {
      maxBuffer: 512 * 2 ** 20,
    });
    execFileSync('tar', ['-x', '-C', building], { input: archive });
    const run = (args: readonly string[]): void => {
      execFileSync('pnpm', args, { cwd: building, stdio: ['ignore', 'ignore', 'inherit'] });
    };
    // Its own lockfile; the packages come from the local store when it has them.
    run([
      'install',
      '--frozen-lockfile',
      '--prefer-offline',
      '--ignore-scripts',
      '--reporter=silent',
    ]);
    run(['-r', '--workspace-concurrency=1', 'run', 'build']);
    writeFileSync(join(building, '.built'), `${full}\n`);
    rmSync(dir, { recursive: true, force: true });
    // pnpm's links inside node_modules are relative: the tree works from its new place.
    renameSync(building, dir);
  });
  return { commit: full, main };
}
