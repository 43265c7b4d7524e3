// scripts/release-check: on copies of the files that carry the version, a release cut as
// docs/development.md says passes, and each step left out fails, naming the file to fix.

import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { changelogSection, releaseProblems, type ReleaseProblem } from './check.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const CHART = 'charts/argocd-cluster-registrar/Chart.yaml';
const CHART_README = 'charts/argocd-cluster-registrar/README.md';
const WORKFLOWS = '.github/workflows';

const current = String(
  (parse(await readFile(join(repo, CHART), 'utf8')) as { version: unknown }).version,
);
/** The release the READMEs tell users to install: the one `main` leads to. */
const installed =
  /--version (\S+)/.exec(await readFile(join(repo, 'README.md'), 'utf8'))?.[1] ?? '(none)';
/** The last release in the CHANGELOG. */
const lastRelease =
  /^## \[([^\]]+)\]/m.exec(await readFile(join(repo, 'CHANGELOG.md'), 'utf8'))?.[1] ?? '(none)';
/** A release after the one the READMEs name, so every step of cutting it changes a file. */
const [major, minor] = installed.split('.').map(Number);
const next = `${major ?? 0}.${(minor ?? 0) + 1}.0`;
const afterNext = `${major ?? 0}.${(minor ?? 0) + 2}.0`;
const packageFiles = (await readdir(join(repo, 'packages'))).map(
  (p) => `packages/${p}/package.json`,
);
const workflowFiles = (await readdir(join(repo, WORKFLOWS))).map((f) => `${WORKFLOWS}/${f}`);
const versioned = [
  CHART,
  CHART_README,
  'CHANGELOG.md',
  'Dockerfile',
  'README.md',
  ...packageFiles,
  ...workflowFiles,
];

let root = '';

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'acr-release-check-'));
  for (const file of versioned) {
    await mkdir(dirname(join(root, file)), { recursive: true });
    await cp(join(repo, file), join(root, file));
  }
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function edit(file: string, change: (text: string) => string): Promise<void> {
  const before = await readFile(join(root, file), 'utf8');
  const after = change(before);
  // Every edit must hit: an edit that changes nothing would let a test pass for nothing.
  expect(after, `edit of ${file}`).not.toBe(before);
  await writeFile(join(root, file), after);
}

/** `text` with every `from` replaced, failing when there is none. */
function every(from: string | RegExp, to: string): (text: string) => string {
  return (text) =>
    text.replaceAll(from instanceof RegExp ? from : new RegExp(escape(from), 'g'), to);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The steps of "Cutting a release", each a separate edit so a test can leave one out. */
const steps = {
  chartVersion: (v: string) => edit(CHART, every(/^version: .*$/gm, `version: ${v}`)),
  chartAppVersion: (v: string) => edit(CHART, every(/^appVersion: .*$/gm, `appVersion: '${v}'`)),
  packages: async (v: string, skip?: string) => {
    for (const file of packageFiles.filter((f) => f !== skip))
      await edit(file, every(/"version": "[^"]*"/g, `"version": "${v}"`));
  },
  changelog: (v: string) =>
    edit('CHANGELOG.md', (text) =>
      text
        .replace(/^## Unreleased$/m, `## Unreleased\n\n## [${v}] - 2026-12-01`)
        .replace(
          /\n*$/,
          `\n[${v}]: https://github.com/argocd-cluster-registrar/argocd-cluster-registrar/releases/tag/v${v}\n`,
        ),
    ),
  dockerLabel: (v: string) =>
    edit(
      'Dockerfile',
      every(
        /org\.opencontainers\.image\.version="[^"]*"/g,
        `org.opencontainers.image.version="${v}"`,
      ),
    ),
  readmes: async (v: string, skip?: string) => {
    for (const file of [CHART_README, 'README.md'].filter((f) => f !== skip))
      await edit(file, (text) =>
        every(
          `--version ${installed}`,
          `--version ${v}`,
        )(text).replaceAll(`current release is **${installed}**`, `current release is **${v}**`),
      );
  },
  range: (low: string, high: string) =>
    edit('README.md', every(/version: ">=[^"]*"/g, `version: ">=${low} <${high}"`)),
};

/** Cuts `version` as the docs say, leaving out the named steps. */
async function cut(version: string, without: readonly string[] = []): Promise<void> {
  if (!without.includes('chartVersion')) await steps.chartVersion(version);
  if (!without.includes('chartAppVersion')) await steps.chartAppVersion(version);
  if (!without.includes('packages')) await steps.packages(version);
  if (!without.includes('changelog')) await steps.changelog(version);
  if (!without.includes('dockerLabel')) await steps.dockerLabel(version);
  if (!without.includes('readmes')) await steps.readmes(version);
}

const files = (problems: readonly ReleaseProblem[]): string[] => problems.map((p) => p.file);

describe('scripts/release-check', () => {
  it(`the tree agrees with its own version (${current}) everywhere but the CHANGELOG, which a release cuts`, async () => {
    await steps.changelog(current);
    expect(await releaseProblems(root, `v${current}`)).toEqual([]);
  });

  it(`between releases the tree (${current}) is a pre-release, of the release its READMEs install (${installed}) or a later one`, async () => {
    expect([installed, lastRelease]).not.toContain('(none)');
    // A release commit says the release; any other commit a pre-release of it or a later one.
    const [release = '', pre] = current.split(/-(.*)/);
    // A tree versioned as a release is one, ready to tag: nothing left under Unreleased.
    if (pre === undefined) expect(await releaseProblems(root, `v${current}`)).toEqual([]);
    else {
      const [a, b] = [release, installed].map((v) => v.split('.').map(Number));
      const order = (a ?? []).map((n, i) => n - (b?.[i] ?? 0)).find((d) => d !== 0) ?? 0;
      expect(order, `${current} leads to ${installed} or later`).toBeGreaterThanOrEqual(0);
    }
  });

  it('accepts a release cut as "Cutting a release" says, and the notes are what was Unreleased', async () => {
    const before = await readFile(join(root, 'CHANGELOG.md'), 'utf8');
    const unreleased = /^## Unreleased\n([\s\S]*?)\n## \[/m.exec(before)?.[1]?.trim() ?? '';
    await cut(next);
    await steps.range(next, afterNext);
    expect(await releaseProblems(root, `v${next}`)).toEqual([]);
    const changelog = await readFile(join(root, 'CHANGELOG.md'), 'utf8');
    expect(changelogSection(changelog, next)).toBe(unreleased);
    expect(changelogSection(changelog, lastRelease)).toContain('First release');
  });

  it.each([
    ['chartVersion', CHART, 'version is'],
    ['chartAppVersion', CHART, 'appVersion is'],
    ['packages', 'packages/core/package.json', 'version is'],
    ['changelog', 'CHANGELOG.md', `no "## [${next}]" heading`],
    ['dockerLabel', 'Dockerfile', 'labels the image version'],
    ['readmes', 'README.md', 'installs chart version'],
  ])('refuses a release whose %s step was left out, naming %s', async (step, file, message) => {
    await cut(next, [step]);
    await steps.range(next, afterNext);
    // Every other package and README is bumped: only the step left out is missing.
    if (step === 'packages') await steps.packages(next, file);
    if (step === 'readmes') await steps.readmes(next, file);
    const problems = await releaseProblems(root, `v${next}`);
    expect(problems.length, JSON.stringify(problems)).toBeGreaterThan(0);
    expect([...new Set(files(problems))]).toEqual([file]);
    expect(problems.map((p) => p.message).join('\n')).toContain(message);
  });

  it('refuses a tag that is not the tree’s version', async () => {
    await cut(next);
    await steps.range(next, afterNext);
    const problems = await releaseProblems(root, `v${next.replace(/0$/, '1')}`);
    expect(files(problems)).toEqual(expect.arrayContaining([CHART, 'packages/core/package.json']));
  });

  it('refuses a release that leaves entries under Unreleased (the notes would miss them)', async () => {
    await cut(next);
    await steps.range(next, afterNext);
    await edit('CHANGELOG.md', (t) =>
      t.replace('## Unreleased\n', '## Unreleased\n\n- Forgotten.\n'),
    );
    expect(await releaseProblems(root, `v${next}`)).toEqual([
      {
        file: 'CHANGELOG.md',
        message: `still lists changes under "## Unreleased": move them under "## [${next}]"`,
      },
    ]);
  });

  it('refuses a README whose dependency range does not select the release', async () => {
    await cut(next);
    expect(await releaseProblems(root, `v${next}`)).toEqual([
      {
        file: 'README.md',
        message: `dependency range "version: ">=${installed} <${next}"" does not select ${next}`,
      },
    ]);
  });

  it('accepts a pre-release, for which the READMEs keep telling users to install the release', async () => {
    await cut(`${next}-rc.1`, ['readmes']);
    expect(await releaseProblems(root, `v${next}-rc.1`)).toEqual([]);
  });

  it.each(['0.3.0', 'v0.3', 'v01.2.3', 'v1.2.3+build.5', 'release-1.2.3'])(
    'refuses the tag %s (not v<major>.<minor>.<patch>)',
    async (tag) => {
      expect(files(await releaseProblems(root, tag))).toEqual(['(tag)']);
    },
  );

  it("refuses an image not built on the Dockerfile's NODE_IMAGE (the Node release the image tests run)", async () => {
    await cut(next);
    await steps.range(next, afterNext);
    await edit('Dockerfile', (t) =>
      t.replace('FROM ${NODE_IMAGE} AS runtime', 'FROM node:22.0.0-bookworm-slim AS runtime'),
    );
    const problems = await releaseProblems(root, `v${next}`);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toContain('builds FROM node:22.0.0-bookworm-slim');
  });

  it('refuses a Node image pinned by tag alone: a re-pushed tag would change what ships', async () => {
    await cut(next);
    await steps.range(next, afterNext);
    await edit('Dockerfile', (t) =>
      t.replace(/^(ARG NODE_IMAGE=[^@\n]+)@sha256:[0-9a-f]+$/m, '$1'),
    );
    const problems = await releaseProblems(root, `v${next}`);
    expect(problems.map((problem) => problem.message)).toEqual([
      expect.stringContaining('pins its Node image by tag alone'),
    ]);
  });

  it('refuses a workflow that overrides NODE_IMAGE at build time', async () => {
    await cut(next);
    await steps.range(next, afterNext);
    await edit(`${WORKFLOWS}/release.yml`, (t) =>
      t.replace(
        '          sbom: true\n',
        '          sbom: true\n          build-args: NODE_IMAGE=node:24.0.0-bookworm-slim\n',
      ),
    );
    expect(files(await releaseProblems(root, `v${next}`))).toEqual([`${WORKFLOWS}/release.yml`]);
  });
});

describe('scripts/release-check (the command the release workflow runs)', () => {
  function run(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        join(repo, 'scripts/release-check'),
        args,
        { cwd: tmpdir() },
        (error, stdout, stderr) => {
          resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr });
        },
      );
    });
  }

  it('exits 1 naming each file that disagrees with the tag', async () => {
    const result = await run(['v99.0.0']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`release-check: ${CHART}: version is ${current}, not 99.0.0`);
    expect(result.stderr).toContain('release-check: v99.0.0 cannot be released');
  });

  it('exits 2 with its usage when called wrongly', async () => {
    const result = await run(['v1.0.0', '--notes']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('usage: scripts/release-check <tag> [--notes <file>]');
  });
});
