// The shipped daemon must not load @kubernetes/client-node: importing it costs ~72 MiB of
// resident memory (its ~860 generated modules), most of the daemon's memory budget. Tests,
// test support and the testkit may use it (as an admin client behind the adapter's back);
// the production sources of k8s-adapter and cli may not, not even for types, so it stays
// out of their `dependencies`. Reads files only.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const FORBIDDEN = '@kubernetes/client-node';
const PACKAGES = ['k8s-adapter', 'cli'];

/** What tsconfig.json leaves out of the build: tests and their support. */
const isTestCode = (file: string): boolean =>
  /(^|\/)(test-support|test-fixtures|e2e)\/|\.(test|bench)\.ts$/.test(file);

// `import ... from '...'`, `export ... from '...'`, `import '...'`, `import('...')`, `require('...')`.
const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s(?:[^'"`;]*?\sfrom\s)?['"]([^'"]+)['"]|\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g;

function specifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  return [...code.matchAll(SPECIFIER)].map((match) => match[1] ?? match[2] ?? '');
}

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (entry.endsWith('.ts') && !entry.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

describe('production code does without @kubernetes/client-node', () => {
  it('no non-test source of k8s-adapter or cli imports it, not even its types', () => {
    const offenders: string[] = [];
    let checked = 0;
    for (const pkg of PACKAGES) {
      for (const file of sourceFiles(join(root, 'packages', pkg, 'src'))) {
        const name = relative(root, file);
        if (isTestCode(name)) continue;
        checked += 1;
        const found = specifiers(readFileSync(file, 'utf8')).filter(
          (s) => s === FORBIDDEN || s.startsWith(`${FORBIDDEN}/`),
        );
        if (found.length > 0) offenders.push(name);
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(offenders).toEqual([]);
  });

  it('the specifier scan sees every import form', () => {
    const forms = [
      `import { KubeConfig } from '${FORBIDDEN}';`,
      `import type { V1Secret } from "${FORBIDDEN}";`,
      `export { CoreV1Api } from '${FORBIDDEN}';`,
      `const m = await import('${FORBIDDEN}');`,
      `import '${FORBIDDEN}/dist/gen/index.js';`,
    ];
    for (const form of forms) expect(specifiers(form)[0]?.startsWith(FORBIDDEN)).toBe(true);
    expect(specifiers(`// import { x } from '${FORBIDDEN}';`)).toEqual([]);
  });

  it('is not among the runtime dependencies of k8s-adapter or cli', () => {
    for (const pkg of PACKAGES) {
      const manifest = JSON.parse(
        readFileSync(join(root, 'packages', pkg, 'package.json'), 'utf8'),
      ) as { dependencies?: Record<string, string> };
      expect(Object.keys(manifest.dependencies ?? {}), pkg).not.toContain(FORBIDDEN);
    }
  });
});
