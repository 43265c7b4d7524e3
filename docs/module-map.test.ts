// architecture.md's module map of the adapter stays true: it names every production file of
// packages/k8s-adapter/src (tests and test support are not production), and every file it
// names exists. A file added, moved or renamed without its line fails here.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const ADAPTER = join(REPO, 'packages', 'k8s-adapter', 'src');
const INTRO = '`packages/k8s-adapter/src` (all Kubernetes API traffic)';

/** The adapter's production sources, relative to its `src/`. */
function productionFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'test-support') files.push(...productionFiles(path));
    } else if (entry.name.endsWith('.ts') && !/\.(test|bench|d)\.ts$/.test(entry.name)) {
      files.push(relative(ADAPTER, path));
    }
  }
  return files.sort();
}

/** The files named in the first cell of the adapter's table, up to the next heading. */
function mappedFiles(markdown: string): string[] {
  const start = markdown.indexOf(INTRO);
  if (start === -1) return [];
  const end = markdown.indexOf('\n#', start);
  const section = markdown.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^\| `([^`]+\.ts)` \|/gm)].map((match) => match[1] ?? '').sort();
}

describe("architecture.md's module map of the adapter", () => {
  const map = mappedFiles(readFileSync(join(REPO, 'docs', 'architecture.md'), 'utf8'));

  it('names every production file of the adapter, and only files that exist', () => {
    expect(map).toEqual(productionFiles(ADAPTER));
  });

  it('reads the table rows of the section, and nothing after it', () => {
    const doc = [
      `${INTRO}, by folder.`,
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
    expect(mappedFiles(doc)).toEqual(['index.ts', 'watch/list-watch.ts']);
  });
});
