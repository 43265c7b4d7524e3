// The workspace's import graph, checked: no module imports itself through others (a cycle
// makes "read this file first" impossible and initialisation order fragile), packages
// depend in one direction only, cli -> k8s-adapter -> core, and so do the adapter's and
// core's folders (each folder's README.md says what it may import). Type-only imports count too: a
// cycle of types is still a cycle a reader has to hold in their head. Lives in core's unit
// project because it needs no servers; it reads every package's sources.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SCOPE = '@argocd-cluster-registrar/';

/** Workspace packages each package may import (tests and test support included). */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  core: [],
  'k8s-adapter': ['core', 'testkit'],
  cli: ['core', 'k8s-adapter', 'testkit'],
  // A leaf: the tests of every package may use it, so it may use none of them.
  testkit: [],
};

/** A package's source root and the folders each of its folders may import. */
interface FolderTable {
  readonly name: string;
  readonly src: string;
  /** Besides its own files (and, for the adapter, the root's shared files). */
  readonly folders: Readonly<Record<string, readonly string[]>>;
}

/** The root of a package's `src/`: its shared files (the adapter's) or only its entry (core's). */
const ROOT = '';

/**
 * The adapter's folders. Its root holds shared files (`kube-objects.ts`, ...) every folder may
 * use; they import no folder (except `index.ts`, the entry, which exports them all).
 */
const ADAPTER: FolderTable = {
  name: 'adapter',
  src: 'packages/k8s-adapter/src/',
  folders: {
    [ROOT]: [],
    connection: [],
    watch: ['connection'],
    gather: ['watch', 'connection'],
    write: ['connection'],
    lease: ['connection'],
    'test-support': ['connection'],
  },
};

/**
 * Core's folders, one way: common <- config <- translate <- plan <- present and repeat. Its root holds
 * only the entry, so no folder may import the root.
 */
const CORE: FolderTable = {
  name: 'core',
  src: 'packages/core/src/',
  folders: {
    [ROOT]: [],
    common: [],
    config: ['common'],
    translate: ['config', 'common'],
    plan: ['translate', 'config', 'common'],
    repeat: ['plan', 'translate', 'config', 'common'],
    present: ['plan', 'translate', 'config', 'common'],
    'test-fixtures': ['common'],
    'test-support': ['plan', 'translate', 'config', 'common', 'test-fixtures'],
  },
};

/** The folder of a repository-relative path in `table`'s package (`ROOT` for its root files). */
function folderOf(table: FolderTable, file: string): string | undefined {
  if (!file.startsWith(table.src)) return undefined;
  const rest = file.slice(table.src.length);
  const slash = rest.indexOf('/');
  return slash === -1 ? ROOT : rest.slice(0, slash);
}

const describeFolder = (folder: string): string => (folder === ROOT ? 'the root' : `${folder}/`);

/**
 * Every import between a package's folders against the direction of its table. A test may
 * import any folder: it exercises the parts together, as the CLI does.
 */
function wrongFolderImports(graph: Graph, table: FolderTable): string[] {
  const wrong: string[] = [];
  for (const [file, targets] of graph) {
    const from = folderOf(table, file);
    if (from === undefined || file === `${table.src}index.ts` || file.endsWith('.test.ts'))
      continue;
    const allowed = table.folders[from];
    if (allowed === undefined) {
      wrong.push(`${file}: folder ${from}/ is not in the ${table.name}'s folder table`);
      continue;
    }
    for (const target of targets) {
      const to = folderOf(table, target);
      if (to === undefined || to === from || allowed.includes(to)) continue;
      // The adapter's root files are shared by every folder; core's root is only its entry.
      if (to === ROOT && table === ADAPTER) continue;
      wrong.push(
        `${file} imports ${target}: ${describeFolder(from)} may not import ${describeFolder(to)}`,
      );
    }
  }
  return wrong;
}

/** The folders a README's `May import:` line names (as `` `connection/` ``). */
function readmeAllows(readme: string): string[] | undefined {
  const line = /^May import:.*(?:\n(?!\n).*)*/m.exec(readme)?.[0];
  if (line === undefined) return undefined;
  return [...line.matchAll(/`([a-z-]+)\/`/g)].map((match) => match[1] ?? '').sort();
}

/** Test code (tests and their support files) may also use the test-only testkit. */
const isTestCode = (file: string): boolean => /(^|\/)test-support\/|\.test\.ts$/.test(file);

type Graph = ReadonlyMap<string, readonly string[]>;

// `import ... from '...'`, `export ... from '...'`, `import '...'` and `import('...')`.
const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s(?:[^'"`;]*?\sfrom\s)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function importSpecifiers(source: string): string[] {
  // Comments may quote imports (as this file does); strip them first.
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

/** `./x.js` from `a/b.ts` → `a/x.ts` (or `a/x/index.ts`), as TypeScript's NodeNext resolves it. */
function resolveRelative(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [
    base.replace(/\.js$/, '.ts'),
    base,
    `${base}.ts`,
    join(base, 'index.ts'),
  ]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return base;
}

const packageOf = (path: string): string | undefined =>
  /^packages\/([^/]+)\//.exec(relative(root, path))?.[1];

interface Workspace {
  /** Relative imports between source files, by repository-relative path. */
  readonly graph: Graph;
  /** `importer -> package` for every import of (or into) another workspace package. */
  readonly packageImports: readonly { readonly file: string; readonly target: string }[];
}

function readWorkspace(): Workspace {
  const graph = new Map<string, string[]>();
  const packageImports: { file: string; target: string }[] = [];
  for (const pkg of readdirSync(join(root, 'packages'))) {
    const src = join(root, 'packages', pkg, 'src');
    if (!existsSync(src)) continue;
    for (const file of sourceFiles(src)) {
      const name = relative(root, file);
      const edges: string[] = [];
      for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
        if (specifier.startsWith(SCOPE)) {
          packageImports.push({
            file: name,
            target: specifier.slice(SCOPE.length).split('/')[0] ?? '',
          });
        } else if (specifier.startsWith('.')) {
          const target = resolveRelative(file, specifier);
          const targetPackage = packageOf(target);
          if (targetPackage !== pkg)
            packageImports.push({ file: name, target: targetPackage ?? target });
          edges.push(relative(root, target));
        }
      }
      graph.set(name, edges);
    }
  }
  return { graph, packageImports };
}

/** Every import cycle, each as the path that closes it (`a -> b -> a`); none when acyclic. */
function findCycles(graph: Graph): string[][] {
  // Tarjan's strongly connected components; each component of more than one module (or a
  // module importing itself) holds a cycle, reported as one concrete path through it.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node))
        components.push(component);
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components.map((component) => cycleThrough(graph, new Set(component)));
}

/** A shortest cycle from the component's first module (by name) back to itself. */
function cycleThrough(graph: Graph, component: ReadonlySet<string>): string[] {
  const start = [...component].sort()[0] ?? '';
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() ?? '';
    for (const next of graph.get(node) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (
          let at: string | undefined = node;
          at !== start && at !== undefined;
          at = previous.get(at)
        )
          path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

describe('import graph', () => {
  const workspace = readWorkspace();

  it('reads the sources it checks', () => {
    expect(workspace.graph.size).toBeGreaterThan(50);
    expect(workspace.graph.get('packages/core/src/plan/index.ts')).toContain(
      'packages/core/src/plan/names.ts',
    );
  });

  it('has no import cycle', () => {
    const cycles = findCycles(workspace.graph).map((cycle) => cycle.join(' -> '));
    expect(cycles, `import cycles:\n${cycles.join('\n')}`).toEqual([]);
  });

  it('keeps the package direction cli -> k8s-adapter -> core', () => {
    const wrong = workspace.packageImports
      .filter(({ file, target }) => {
        const pkg = packageOf(join(root, file)) ?? '';
        if (target === 'testkit' && isTestCode(file)) return false;
        return target !== pkg && !(ALLOWED[pkg] ?? []).includes(target);
      })
      .map(({ file, target }) => `${file} imports ${target}`);
    expect(wrong).toEqual([]);
  });

  for (const table of [ADAPTER, CORE]) {
    it(`keeps the ${table.name}'s folders in one direction`, () => {
      expect(wrongFolderImports(workspace.graph, table)).toEqual([]);
    });

    it(`says in each ${table.name} folder's README what the folder may import`, () => {
      const folders = readdirSync(join(root, table.src), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort();
      expect(folders).toEqual(
        Object.keys(table.folders)
          .filter((f) => f !== ROOT)
          .sort(),
      );
      for (const folder of folders) {
        const readme = join(root, table.src, folder, 'README.md');
        expect(existsSync(readme), `${readme} is missing`).toBe(true);
        expect(readmeAllows(readFileSync(readme, 'utf8')), `${folder}/README.md`).toEqual(
          [...(table.folders[folder] ?? [])].sort(),
        );
      }
    });
  }

  it('finds an import between folders against their direction', () => {
    const a = ADAPTER.src;
    const graph: Graph = new Map([
      [`${a}index.ts`, [`${a}write/x.ts`]],
      [`${a}kube-objects.ts`, []],
      [`${a}connection/x.ts`, [`${a}kube-objects.ts`, `${a}connection/y.ts`]],
      [`${a}connection/y.ts`, [`${a}watch/x.ts`]],
      [`${a}watch/x.ts`, [`${a}connection/x.ts`]],
      [`${a}watch/x.test.ts`, [`${a}write/x.ts`]],
      [`${a}write/x.ts`, [`${a}gather/x.ts`]],
      [`${a}new/x.ts`, []],
      ['packages/cli/src/x.ts', [`${a}write/x.ts`]],
    ]);
    expect(wrongFolderImports(graph, ADAPTER)).toEqual([
      `${a}connection/y.ts imports ${a}watch/x.ts: connection/ may not import watch/`,
      `${a}write/x.ts imports ${a}gather/x.ts: write/ may not import gather/`,
      `${a}new/x.ts: folder new/ is not in the adapter's folder table`,
    ]);
    const c = CORE.src;
    const core: Graph = new Map([
      [`${c}index.ts`, [`${c}present/x.ts`]],
      [`${c}common/x.ts`, []],
      [`${c}config/x.ts`, [`${c}common/x.ts`, `${c}translate/x.ts`]],
      [`${c}translate/x.ts`, [`${c}config/x.ts`, `${c}common/x.ts`]],
      [`${c}plan/x.ts`, [`${c}translate/x.ts`, `${c}present/x.ts`]],
      [`${c}present/x.ts`, [`${c}plan/x.ts`, `${c}index.ts`]],
      [`${c}present/x.test.ts`, [`${c}index.ts`]],
    ]);
    expect(wrongFolderImports(core, CORE)).toEqual([
      `${c}config/x.ts imports ${c}translate/x.ts: config/ may not import translate/`,
      `${c}plan/x.ts imports ${c}present/x.ts: plan/ may not import present/`,
      `${c}present/x.ts imports ${c}index.ts: present/ may not import the root`,
    ]);
    expect(
      readmeAllows('# x/\n\nMay import: `watch/`,\n`connection/` and the root.\n\nNot `gather/`.'),
    ).toEqual(['connection', 'watch']);
    expect(readmeAllows('# x/\n\nImports anything.')).toBeUndefined();
  });

  it('finds a cycle in a small graph, naming its modules in order', () => {
    const graph: Graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(findCycles(graph)).toEqual([
      ['a.ts', 'b.ts', 'c.ts', 'a.ts'],
      ['e.ts', 'e.ts'],
    ]);
    expect(findCycles(new Map([...graph, ['c.ts', ['d.ts']], ['e.ts', []]]))).toEqual([]);
  });

  it('reads every form of import and ignores commented ones', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "import './e.js';",
      'import {',
      '  f,',
      "} from './f.js';",
      "const g = await import('./g.js');",
      "// import { h } from './h.js';",
      "/* import { i } from './i.js'; */",
      "const text = 'not an import from ./j.js';",
    ].join('\n');
    expect(importSpecifiers(source)).toEqual([
      './a.js',
      './b.js',
      './c.js',
      './d.js',
      './e.js',
      './f.js',
      './g.js',
    ]);
  });
});
