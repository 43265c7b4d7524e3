// Every relative link in every tracked Markdown file resolves: the file (or directory) exists,
// and a `#fragment` names a heading of the target as GitHub slugs it. Links to the web are not
// fetched (tests do not depend on other sites); links out of the repository are errors.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../', import.meta.url));

function trackedMarkdown(): string[] {
  return execFileSync('git', ['ls-files', '-z', '--', '*.md'], { cwd: REPO, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(REPO, file)));
}

/** The text outside fenced code blocks, line by line (fenced lines blanked, numbering kept). */
function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) {
      fence = marker;
      return '';
    }
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length)
        fence = undefined;
      return '';
    }
    return line;
  });
}

/** GitHub's heading anchor: lower-case, punctuation dropped, spaces to '-', repeats numbered. */
function githubSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const text = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links keep their text
      .replace(/<[^>]+>/g, ''); // inline HTML
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

interface Link {
  readonly file: string;
  readonly line: number;
  readonly target: string;
}

function linksOf(file: string, markdown: string): Link[] {
  const links: Link[] = [];
  proseLines(markdown).forEach((raw, index) => {
    const line = raw.replace(/`[^`]*`/g, ''); // code spans are not links
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ file, line: index + 1, target: match[1] ?? '' });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line)?.[1];
    if (definition !== undefined) links.push({ file, line: index + 1, target: definition });
    for (const match of line.matchAll(/<a\s[^>]*href="([^"]+)"/g))
      links.push({ file, line: index + 1, target: match[1] ?? '' });
  });
  return links;
}

/** Why a link does not resolve, or undefined when it does. */
function brokenBecause(link: Link): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return undefined; // https:, mailto:, …
  const [pathPart = '', fragment] = link.target.split('#', 2);
  const path = decodeURIComponent(pathPart);
  const resolved =
    path === '' ? join(REPO, link.file) : normalize(join(REPO, dirname(link.file), path));
  const inRepo = relative(REPO, resolved);
  if (inRepo.startsWith('..')) return `points out of the repository (${inRepo})`;
  if (!existsSync(resolved)) return `no such file: ${inRepo}`;
  if (fragment === undefined || fragment === '') return undefined;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md'))
    return `#${fragment} on something that is not a Markdown file`;
  const slugs = githubSlugs(readFileSync(resolved, 'utf8'));
  return slugs.has(decodeURIComponent(fragment).toLowerCase())
    ? undefined
    : `no heading #${fragment} in ${inRepo}`;
}

describe('Markdown links', () => {
  it('slugs headings the way GitHub does', () => {
    const slugs = githubSlugs(
      [
        '# Migrating from 0.1.x',
        '## RBAC, and who may mark a namespace',
        '## `plan()` — budget: 10,000 ≤ 100 ms',
        '## Try it',
        '## Try it',
        '```',
        '# not a heading',
        '```',
      ].join('\n'),
    );
    expect([...slugs]).toEqual([
      'migrating-from-01x',
      'rbac-and-who-may-mark-a-namespace',
      'plan--budget-10000--100-ms',
      'try-it',
      'try-it-1',
    ]);
  });

  it('every relative link and #anchor of every tracked Markdown file resolves', () => {
    const files = trackedMarkdown();
    expect(files).toContain('README.md');
    const broken: string[] = [];
    let checked = 0;
    for (const file of files) {
      for (const link of linksOf(file, readFileSync(join(REPO, file), 'utf8'))) {
        checked += 1;
        const why = brokenBecause(link);
        if (why !== undefined) broken.push(`${link.file}:${link.line}: (${link.target}) ${why}`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });

  it('no Markdown file cites a specification that is not in the repository', () => {
    const citations = trackedMarkdown().flatMap((file) =>
      readFileSync(join(REPO, file), 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          /DESIGN §|DESIGN\.md|CONTROL-PLANE\.md/.test(line)
            ? [`${file}:${index + 1}: ${line}`]
            : [],
        ),
    );
    expect(citations).toEqual([]);
  });
});
