// architecture.md's module maps of the adapter and the core stay true: each names every
// production file of its package's src/ (tests, test support and fixtures are not
// production), and every file it names exists. A file added, moved or renamed without its
// line fails here.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const PACKAGES = [
  {
    name: 'adapter',
    src: join(REPO, 'packages', 'k8s-adapter', 'src'),
    intro: '`packages/k8s-adapter/src` (all Kubernetes API traffic)',
  },
  {
    name: 'core',
    src: join(REPO, 'packages', 'core', 'src'),
    intro: '`packages/core/src` (the pure core)',
  },
] as const;

const NOT_PRODUCTION = new Set(['test-support', 'test-fixtures']);

/** A package's production sources, relative to its `src/`. */
function productionFiles(src: string, dir = src): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!NOT_PRODUCTION.has(entry.name)) files.push(...productionFiles(src, path));
    } else if (entry.name.endsWith('.ts') && !/\.(test|bench|d)\.ts$/.test(entry.name)) {
      files.push(relative(src, path));
    }
  }
  return files.sort();
}

/** The files named in the first cell of the table after `intro`, up to the next heading. */
function mappedFiles(markdown: string, intro: string): string[] {
  const start = markdown.indexOf(intro);
  if (start === -1) return [];
  const end = markdown.indexOf('\n#', start);
  const section = markdown.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^\| `([^`]+\.ts)` \|/gm)].map((match) => match[1] ?? '').sort();
}

describe("architecture.md's module maps", () => {
  const markdown = readFileSync(join(REPO, 'docs', 'architecture.md'), 'utf8');

  for (const { name, src, intro } of PACKAGES) {
    it(`names every production file of the ${name}, and only files that exist`, () => {
      expect(mappedFiles(markdown, intro)).toEqual(productionFiles(src));
    });
  }

  it('reads the table rows of the section, and nothing after it', () => {
    const intro = PACKAGES[0].intro;
    const doc = [
      `${intro}, by folder.`,
      '',
      '| File | What it decides |',
      '| --- | --- |',
      '| `index.ts` | the entry |',
      '| `watch/list-watch.ts` | when a watch lists |',
      'Prose naming `gather/gather.ts` is not a row.',
      '',
      '## Next',
      '| `write/apply.ts` | another section |',
    ].join('\n');
    expect(mappedFiles(doc, intro)).toEqual(['index.ts', 'watch/list-watch.ts']);
  });
});
