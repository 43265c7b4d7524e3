// packages/core is published for other tools to import: pack it as a release would
// (`pnpm pack`), install the tarball into a scratch project with npm (its one dependency,
// `yaml`, comes from the npm registry), and run the README's example there. The output must
// be what the README shows, so the install line, the example and the shown output cannot
// drift from the package.

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CORE = fileURLToPath(new URL('../packages/core/', import.meta.url));

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(file: string, args: readonly string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, timeout: 300_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The body of the first fenced block of `lang` after `heading` in a Markdown text. */
function fencedBlock(markdown: string, heading: string, lang: string): string {
  const from = markdown.indexOf(heading);
  if (from < 0) throw new Error(`no "${heading}" in the README`);
  const open = markdown.indexOf(`\`\`\`${lang}\n`, from);
  if (open < 0) throw new Error(`no \`\`\`${lang} block after "${heading}"`);
  const start = open + lang.length + 4;
  const close = markdown.indexOf('\n```', start - 1);
  return markdown.slice(start, close + 1);
}

let scratch: string;
let readme: string;

beforeAll(async () => {
  readme = await readFile(join(CORE, 'README.md'), 'utf8');
  scratch = await mkdtemp(join(tmpdir(), 'acr-core-consumer-'));
  const packed = await run('pnpm', ['pack', '--pack-destination', scratch], CORE);
  expect(packed.code, packed.stderr).toBe(0);
  const tarball = (await readdir(scratch)).find((f) => f.endsWith('.tgz'));
  if (tarball === undefined) throw new Error(`pnpm pack wrote no tarball:\n${packed.stdout}`);
  await writeFile(
    join(scratch, 'package.json'),
    JSON.stringify({ name: 'scratch-consumer', private: true, type: 'module' }),
  );
  const installed = await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel=error', `./${tarball}`],
    scratch,
  );
  expect(installed.code, installed.stderr).toBe(0);
}, 300_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('@argocd-cluster-registrar/core as a published package', () => {
  it('the README gives the install line', () => {
    expect(fencedBlock(readme, '## Install', 'sh')).toBe(
      'npm install @argocd-cluster-registrar/core\n',
    );
  });

  it('the tarball ships the compiled entry, its types and the licence, without tests or benchmarks', async () => {
    const manifest = JSON.parse(
      await readFile(
        join(scratch, 'node_modules/@argocd-cluster-registrar/core/package.json'),
        'utf8',
      ),
    ) as { dependencies?: Record<string, string>; repository?: { url?: string } };
    expect(Object.keys(manifest.dependencies ?? {})).toEqual(['minimatch', 'yaml']);
    // npm's provenance is checked against the repository the workflow ran in.
    expect(manifest.repository?.url).toBe(
      'git+https://github.com/argocd-cluster-registrar/argocd-cluster-registrar.git',
    );
    const installed = join(scratch, 'node_modules/@argocd-cluster-registrar/core');
    expect(await readFile(join(installed, 'LICENSE'), 'utf8')).toBe(
      await readFile(join(CORE, '../../LICENSE'), 'utf8'),
    );
    const dist = await readdir(join(scratch, 'node_modules/@argocd-cluster-registrar/core/dist'));
    expect(dist).toContain('index.js');
    expect(dist).toContain('index.d.ts');
    expect(dist.filter((f) => f.includes('.test.') || f.includes('.bench.'))).toEqual([]);
  });

  it("the README's example runs in the scratch project and prints what the README shows", async () => {
    await writeFile(join(scratch, 'example.mjs'), fencedBlock(readme, '## Example', 'js'));
    const result = await run(process.execPath, ['example.mjs'], scratch);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(fencedBlock(readme, 'It prints', 'text'));
  });
});
