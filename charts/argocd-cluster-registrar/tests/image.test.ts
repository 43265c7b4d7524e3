// The container image, checked without a Docker engine: a lint of the Dockerfile (hadolint is
// not available here) and a replay of its build stage that proves the production bundle starts
// with only production dependencies installed, on this machine's Node and on Node 24.

import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { coreApi, testHostPlane, uniqueName } from '@argocd-cluster-registrar/testkit';
import { repoRoot, run } from './chart-support.js';

interface Instruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
}

/** Dockerfile instructions: comments dropped, `\` continuations joined. */
function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending = '';
  let start = 0;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trimEnd();
    if (pending === '' && /^\s*(#|$)/.test(line)) return;
    if (pending !== '' && /^\s*#/.test(line)) return;
    if (pending === '') start = index + 1;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const full = (pending + line).trim();
    pending = '';
    const match = /^(\S+)\s*(.*)$/s.exec(full);
    if (match?.[1] !== undefined)
      instructions.push({
        keyword: match[1].toUpperCase(),
        args: (match[2] ?? '').trim(),
        line: start,
      });
  });
  return instructions;
}

interface Stage {
  readonly image: string;
  readonly name: string | undefined;
  readonly instructions: readonly Instruction[];
}

/** Stages with ARG defaults (declared before the first FROM) substituted into their image. */
function stagesOf(instructions: readonly Instruction[]): Stage[] {
  const args = new Map<string, string>();
  const stages: { image: string; name: string | undefined; instructions: Instruction[] }[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'ARG' && stages.length === 0) {
      const [name, value] = instruction.args.split('=', 2);
      if (name !== undefined) args.set(name, value ?? '');
    } else if (instruction.keyword === 'FROM') {
      const [image = '', as, name] = instruction.args.split(/\s+/);
      const resolved = image.replace(/\$\{?(\w+)\}?/g, (_, arg: string) => args.get(arg) ?? '');
      stages.push({
        image: resolved,
        name: as?.toUpperCase() === 'AS' ? name : undefined,
        instructions: [],
      });
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return stages;
}

/** .dockerignore as Docker reads it: patterns from the context root, `**`, `!` re-includes. */
function dockerignore(text: string): (path: string) => boolean {
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const negated = line.startsWith('!');
      const pattern = posix.normalize((negated ? line.slice(1) : line).replace(/^\/+/, ''));
      let source = '';
      for (let i = 0; i < pattern.length; i += 1) {
        const c = pattern[i] as string;
        if (pattern.startsWith('**/', i)) {
          source += '(?:.*/)?';
          i += 2;
        } else if (pattern.startsWith('**', i)) {
          source += '.*';
          i += 1;
        } else if (c === '*') source += '[^/]*';
        else if (c === '?') source += '[^/]';
        else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
      }
      return { negated, regex: new RegExp(`^${source}$`) };
    });
  return (path: string): boolean => {
    // A path is excluded when it, or a directory above it, matches (the last rule wins).
    const parts = path.split('/');
    let excluded = false;
    for (const rule of rules) {
      for (let depth = 1; depth <= parts.length; depth += 1) {
        if (rule.regex.test(parts.slice(0, depth).join('/'))) {
          excluded = !rule.negated;
          break;
        }
      }
    }
    return excluded;
  };
}

const dockerfileText = await readFile(join(repoRoot, 'Dockerfile'), 'utf8');
const ignoreText = await readFile(join(repoRoot, '.dockerignore'), 'utf8');
const instructions = parseDockerfile(dockerfileText);
const stages = stagesOf(instructions);
const isIgnored = dockerignore(ignoreText);
const runtime = stages.at(-1);
const build = stages.find((s) => s.name === 'build');
/** The image's Node release, e.g. `24.21.0`. */
const imageNode = /^node:(\d+\.\d+\.\d+)-/.exec(runtime?.image ?? '')?.[1] ?? 'unknown';
const entrypoint = JSON.parse(
  (runtime?.instructions ?? []).find((i) => i.keyword === 'ENTRYPOINT')?.args ?? '[]',
) as string[];
/** The daemon's one file (packages/cli/bundle.mjs writes it). */
const BUNDLE = 'argocd-cluster-registrar.mjs';
/** Node flags of the ENTRYPOINT, between `node` and the script. */
const entrypointFlags = entrypoint.slice(1, -1);

describe('Dockerfile lint', () => {
  test('is multi-stage: a named build stage and a runtime stage', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(build).toBeDefined();
    expect(runtime?.name).toBe('runtime');
  });

  test('pins every base image to an exact release or digest (never latest)', () => {
    for (const stage of stages) {
      if (stages.some((s) => s.name === stage.image)) continue; // FROM <earlier stage>
      expect(stage.image, `FROM ${stage.image}`).toMatch(
        /^[\w./-]+(:\d+\.\d+\.\d+[\w.-]*)?(@sha256:[a-f0-9]{64})?$/,
      );
      expect(stage.image).toMatch(/:\d+\.\d+\.\d+|@sha256:/);
      expect(stage.image).not.toMatch(/:latest\b/);
    }
  });

  test('runs Node 24 LTS, the same image for build and run (native modules match)', () => {
    expect(runtime?.image).toMatch(/^node:24\.\d+\.\d+-/);
    expect(build?.image).toBe(runtime?.image);
  });

  test('never ADDs (no remote URLs or archives unpacked implicitly)', () => {
    expect(instructions.filter((i) => i.keyword === 'ADD')).toEqual([]);
  });

  test('runs as a numeric non-root user set in the runtime stage', () => {
    const users = (runtime?.instructions ?? []).filter((i) => i.keyword === 'USER');
    expect(users.length).toBeGreaterThan(0);
    const last = users.at(-1)?.args ?? '';
    expect(last).toMatch(/^\d+(:\d+)?$/);
    expect(last.split(':').every((id) => Number(id) !== 0)).toBe(true);
    // Matches the chart's securityContext.
    expect(last).toBe('65532:65532');
  });

  test('starts the CLI through an exec-form ENTRYPOINT', () => {
    const entrypoints = (runtime?.instructions ?? []).filter((i) => i.keyword === 'ENTRYPOINT');
    expect(entrypoints).toHaveLength(1);
    expect(entrypoint[0]).toBe('node');
    expect(entrypoint.at(-1)).toBe(`/app/${BUNDLE}`);
  });

  test("caps the heap at a share of the container's memory limit, leaving room for the rest", () => {
    // Without it V8 sizes its heap from nearly the whole cgroup limit and defers collection
    // until the kernel kills the pod.
    const cap = entrypointFlags
      .map((flag) => /^--max-old-space-size-percentage=(\d+)$/.exec(flag)?.[1])
      .find((value) => value !== undefined);
    expect(Number(cap)).toBeGreaterThanOrEqual(50);
    expect(Number(cap)).toBeLessThanOrEqual(80);
  });

  test('runs without a JIT compiler (--jitless): less memory, steadier, nothing executable', () => {
    // Worth 20 MiB of the 96 MiB budget at 1,000 clusters (docs/bench/memory.md).
    expect(entrypointFlags).toContain('--jitless');
  });

  test('lets V8 give freed heap back once the cold start is over (--optimize-for-size)', () => {
    // Without it V8's memory reducer never finds the daemon idle and the heap keeps what the
    // cold start grew: about 12 MiB of the 96 MiB budget at 1,000 clusters (docs/bench/memory.md).
    expect(entrypointFlags).toContain('--optimize-for-size');
  });

  test('keeps the young generation collected while V8 marks the old one (--no-separate-gc-phases)', () => {
    // Without it the young generation grows unbounded during a marking cycle: a spike to
    // 100-123 MiB in about half the cold starts at 1,000 clusters (BENCHMARKS.md).
    expect(entrypointFlags).toContain('--no-separate-gc-phases');
  });

  test('the runtime stage copies only the bundle from the build stage', () => {
    const copies = (runtime?.instructions ?? []).filter((i) => i.keyword === 'COPY');
    expect(copies.map((i) => i.args)).toEqual(['--from=build /app /app']);
  });

  test('no credentials in ENV or ARG', () => {
    const suspicious = instructions.filter(
      (i) =>
        (i.keyword === 'ENV' || i.keyword === 'ARG') &&
        /(TOKEN|PASSWORD|SECRET|KEY)\b/i.test(i.args),
    );
    expect(suspicious).toEqual([]);
  });

  test('.dockerignore keeps dependencies, build output and git out of the context', () => {
    // Sources whose names look like credentials must still reach the build.
    expect(isIgnored('packages/core/src/translate/kubeconfig.ts')).toBe(false);
    for (const path of [
      'node_modules/x',
      'packages/core/node_modules/yaml',
      'packages/cli/dist/main.js',
      '.git/HEAD',
      'packages/core/tsconfig.tsbuildinfo',
    ]) {
      expect(isIgnored(path), path).toBe(true);
    }
  });

  test('every build-stage COPY source exists and is inside the context', async () => {
    for (const instruction of build?.instructions.filter((i) => i.keyword === 'COPY') ?? []) {
      const sources = instruction.args
        .split(/\s+/)
        .filter((a) => !a.startsWith('--'))
        .slice(0, -1);
      for (const source of sources) {
        expect(isIgnored(source), `${source} is excluded by .dockerignore`).toBe(false);
        await expect(
          stat(join(repoRoot, source)),
          `${source} (Dockerfile line ${instruction.line})`,
        ).resolves.toBeDefined();
      }
    }
  });

  test("the build stage's pnpm (corepack, from packageManager) is the one the replay below uses", async () => {
    const manifest = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as {
      packageManager: string;
    };
    const result = await run('pnpm', ['--version']);
    expect(`pnpm@${result.stdout.trim()}`).toBe(manifest.packageManager.split('+')[0]);
  });
});

/** Copies a context path to dest, leaving out what .dockerignore excludes. */
async function copyContext(source: string, dest: string): Promise<void> {
  const info = await stat(join(repoRoot, source));
  if (!info.isDirectory()) {
    if (isIgnored(source)) return;
    await mkdir(dirname(dest), { recursive: true });
    await cp(join(repoRoot, source), dest);
    return;
  }
  for (const entry of await readdir(join(repoRoot, source))) {
    const child = posix.join(source, entry);
    if (!isIgnored(child)) await copyContext(child, join(dest, entry));
  }
}

describe('production bundle (the Dockerfile build stage, replayed here)', () => {
  let root = '';
  let app = '';
  const log: string[] = [];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'acr-image-'));
    // Absolute paths in the Dockerfile (/src, /app) live under `root`.
    const at = (path: string): string => join(root, path);
    let workdir = at('/');
    const env = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? root, CI: 'true' };
    for (const instruction of build?.instructions ?? []) {
      switch (instruction.keyword) {
        case 'WORKDIR':
          workdir = at(instruction.args);
          await mkdir(workdir, { recursive: true });
          break;
        case 'COPY': {
          const parts = instruction.args.split(/\s+/).filter((a) => !a.startsWith('--'));
          const target = parts.at(-1) ?? '.';
          const dest = target.startsWith('/') ? at(target) : join(workdir, target);
          for (const source of parts.slice(0, -1)) {
            const into =
              target.endsWith('/') || parts.length > 2 ? join(dest, posix.basename(source)) : dest;
            await copyContext(source, into);
          }
          break;
        }
        case 'RUN': {
          // corepack would install pnpm globally; this machine already has the pinned pnpm.
          if (/^corepack enable$/.test(instruction.args)) continue;
          const command = instruction.args.replace(
            /(^|\s)(\/(?:src|app)\b)/g,
            (_, space: string, path: string) => `${space}${at(path)}`,
          );
          const result = await run('sh', ['-c', command], {
            cwd: workdir,
            env,
            timeoutMs: 600_000,
          });
          log.push(`$ ${command}\n${result.stdout.slice(-2000)}${result.stderr.slice(-2000)}`);
          if (result.code !== 0)
            throw new Error(`Dockerfile line ${instruction.line} failed:\n${log.at(-1) ?? ''}`);
          break;
        }
        default:
          break;
      }
    }
    app = at('/app');
  }, 900_000);

  afterAll(async () => {
    if (root !== '') await rm(root, { recursive: true, force: true });
  });

  test('holds the bundle, its source map, the licences and the SBOM of what it holds: nothing else', async () => {
    const spdx = BUNDLE.replace(/\.mjs$/, '.spdx.json');
    expect((await readdir(app)).sort()).toEqual(
      [BUNDLE, `${BUNDLE}.map`, spdx, 'THIRD-PARTY-LICENSES.txt'].sort(),
    );
    const licences = await readFile(join(app, 'THIRD-PARTY-LICENSES.txt'), 'utf8');
    expect(licences).toContain('@kubernetes/client-node@');
    // Each package whose licence is shipped is in the SPDX document, by its npm purl: what the
    // image's SBOM lists, since the scanner finds no node_modules.
    const document = JSON.parse(await readFile(join(app, spdx), 'utf8')) as {
      packages: { externalRefs?: { referenceLocator: string }[] }[];
    };
    const purls = document.packages.flatMap((pkg) =>
      (pkg.externalRefs ?? []).map((ref) => ref.referenceLocator),
    );
    // Sections are separated by a line of dashes; each opens with `name@version (licence)`.
    const shipped = licences.split(`\n${'-'.repeat(72)}\n\n`).map((section) => {
      const [, name = '', version = ''] = /^(@?[^@\s]+)@(\S+) \(/.exec(section) ?? [];
      return `pkg:npm/${name.replace(/^@/, '%40')}@${version}`;
    });
    expect(shipped.length).toBeGreaterThan(0);
    expect(purls.sort()).toEqual(shipped.sort());
  });

  test("starts on this machine's Node: --version", async () => {
    // cwd outside the repository: nothing may resolve from the workspace's node_modules.
    const result = await run(process.execPath, [join(app, BUNDLE), '--version'], {
      cwd: root,
      env: { PATH: process.env['PATH'] ?? '' },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const { version } = JSON.parse(
      await readFile(join(repoRoot, 'packages/cli/package.json'), 'utf8'),
    ) as { version: string };
    expect(result.stdout).toContain(version);
  });

  test("starts on the image's Node with the ENTRYPOINT's flags: --version and --help", async () => {
    const node24 = await run('npx', ['-y', `node@${imageNode}`, '--version'], {
      cwd: root,
      timeoutMs: 300_000,
    });
    // The npm registry is reachable wherever this suite runs, so a missing runtime is a failure.
    expect(node24.stdout, node24.stderr.slice(-300)).toMatch(/^v24\./);
    for (const flag of ['--version', '--help']) {
      const argv = ['-y', `node@${imageNode}`, ...entrypointFlags, join(app, BUNDLE), flag];
      const result = await run('npx', argv, {
        cwd: root,
        timeoutMs: 300_000,
      });
      expect(result.code, `${flag}: ${result.stderr}`).toBe(0);
    }
  });

  test("on the image's Node and flags, connects to the real API server and plans a pass", async () => {
    const plane = await testHostPlane();
    // A target namespace that does not exist is a start-up error: give the pass one.
    const target = uniqueName('image-target');
    await coreApi(plane).createNamespace({ body: { metadata: { name: target } } });
    const argv = [
      '-y',
      `node@${imageNode}`,
      ...entrypointFlags,
      join(app, BUNDLE),
      '--once',
      '--dry-run',
      '--kubeconfig',
      plane.kubeconfigPath,
      '--managed-by',
      uniqueName('image'),
      '--target-namespace',
      target,
    ];
    const result = await run('npx', argv, { cwd: root, timeoutMs: 300_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/cannot (reach|talk to|authenticate)/);
  });

  test('refuses an unknown flag with exit 1, naming it', async () => {
    const result = await run(process.execPath, [join(app, BUNDLE), '--clusters=a'], {
      cwd: root,
      env: { PATH: process.env['PATH'] ?? '' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--clusters');
  });
});
