#!/usr/bin/env node
// Runs every benchmark script (`packages/*/bench/*.bench.ts`) in its own process, one after
// another, so figures are not disturbed by each other. Each script prints its own figures.
// `pnpm bench -- <filter>` runs only scripts whose path contains <filter>.
import { spawnSync } from 'node:child_process';
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

// pnpm forwards a literal `--` when called as `pnpm bench -- <filter>`.
const filter = process.argv.slice(2).find((arg) => arg !== '--') ?? '';
const scripts = readdirSync('packages')
  .map((pkg) => join('packages', pkg, 'bench'))
  .filter((dir) => existsSync(dir))
  .flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.bench.ts'))
      .map((f) => join(dir, f)),
  )
  .filter((path) => path.includes(filter))
  .sort();

// When all of them run, the chaos run is cut to its kill case and 8 of its 20 minutes, the
// soak to 5 of its 60, the probe bench's steady window to 2 of its 5 (`pnpm bench chaos`,
// `pnpm bench soak` or `pnpm bench probe` alone runs the whole length and every case;
// CHAOS_CASES, CHAOS_MINUTES, SOAK_MINUTES and REGISTRAR_BENCH_PROBE_MINUTES still win).
const env = { ...process.env };
// The chaos and soak harnesses import the workspace packages by name: from their sources.
env['TSX_TSCONFIG_PATH'] ??= 'packages/cli/tsconfig.source.json';
if (filter === '') {
  env['CHAOS_MINUTES'] ??= '8';
  env['CHAOS_CASES'] ??= 'kills';
  env['SOAK_MINUTES'] ??= '5';
  env['SOAK_SAMPLE_SECONDS'] ??= '20';
  env['REGISTRAR_BENCH_PROBE_MINUTES'] ??= '2';
}

let failed = 0;
for (const script of scripts) {
  console.log(`\n=== ${script}`);
  const result = spawnSync('node', ['--expose-gc', '--import', 'tsx', script], {
    stdio: 'inherit',
    env,
  });
  if (result.status !== 0) failed += 1;
}
if (scripts.length === 0) console.log('no benchmark matched');
process.exit(failed === 0 ? 0 : 1);
