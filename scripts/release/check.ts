// Whether the tree is ready to be released as a tag: everything that carries the version names
// the tag's version, the CHANGELOG has the release's section (and nothing left under
// Unreleased), and the image is built on the Node release the image tests run. The release
// workflow runs this first (`scripts/release-check <tag>`) and publishes nothing when it fails.

import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';

export const REPOSITORY = 'https://github.com/argocd-cluster-registrar/argocd-cluster-registrar';
export const CHART_REFERENCE =
  'oci://ghcr.io/argocd-cluster-registrar/charts/argocd-cluster-registrar';

export interface ReleaseProblem {
  /** Repository-relative path of the file to fix. */
  readonly file: string;
  readonly message: string;
}

/** `v1.2.3` or `v1.2.3-rc.1` (no build metadata: OCI tags cannot carry `+`). */
const TAG =
  /^v((?:0|[1-9]\d*)\.(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?)$/;

export function versionOfTag(tag: string): string | undefined {
  return TAG.exec(tag)?.[1];
}

interface Section {
  readonly title: string;
  readonly body: string;
}

/** The CHANGELOG's `## ` sections, in order, each with its text up to the next `## `. */
function changelogSections(changelog: string): Section[] {
  const sections: { title: string; lines: string[] }[] = [];
  for (const line of changelog.split('\n')) {
    if (line.startsWith('## ')) sections.push({ title: line.slice(3).trim(), lines: [] });
    else sections.at(-1)?.lines.push(line);
  }
  return sections.map((s) => ({
    title: s.title,
    // Link reference definitions (`[0.2.0]: https://…`) close the file; they are not notes.
    body: s.lines
      .filter((l) => !/^\[[^\]]+\]:\s/.test(l))
      .join('\n')
      .trim(),
  }));
}

/** A release's heading: `## [1.2.3]`, optionally ` - 2026-12-01`. */
function isReleaseHeading(title: string, version: string): boolean {
  const match = /^\[([^\]]+)\](?:\s+-\s+\d{4}-\d{2}-\d{2})?$/.exec(title);
  return match?.[1] === version;
}

/** The release notes of `version`: its CHANGELOG section without the heading. */
export function changelogSection(changelog: string, version: string): string | undefined {
  return changelogSections(changelog).find((s) => isReleaseHeading(s.title, version))?.body;
}

function changelogProblems(changelog: string, version: string): string[] {
  const problems: string[] = [];
  const sections = changelogSections(changelog);
  const release = sections.find((s) => isReleaseHeading(s.title, version));
  if (release === undefined) problems.push(`has no "## [${version}]" heading`);
  else if (release.body === '') problems.push(`"## [${version}]" has no entries`);
  const unreleased = sections.find((s) => /^\[?unreleased\]?$/i.test(s.title));
  if (unreleased !== undefined && /^\s*[-*] /m.test(unreleased.body))
    problems.push(
      `still lists changes under "## ${unreleased.title}": move them under "## [${version}]"`,
    );
  const link = `[${version}]: ${REPOSITORY}/releases/tag/v${version}`;
  if (!changelog.split('\n').includes(link)) problems.push(`lacks the link line "${link}"`);
  return problems;
}

/** `[major, minor, patch]` of a plain `x.y.z`. */
function numbers(version: string): [number, number, number] | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  return match === null ? undefined : [Number(match[1]), Number(match[2]), Number(match[3])];
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i += 1) if (a[i] !== b[i]) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/** Problems with the install instructions of a README: the versions a user copies. */
function installProblems(readme: string, version: string): string[] {
  const problems: string[] = [];
  const shown = [...readme.matchAll(new RegExp(`${CHART_REFERENCE} --version (\\S+)`, 'g'))].map(
    (m) => m[1],
  );
  if (shown.length === 0) problems.push(`shows no "${CHART_REFERENCE} --version" command`);
  for (const v of new Set(shown))
    if (v !== version) problems.push(`installs chart version ${v ?? ''}, not ${version}`);
  const release = numbers(version);
  if (release === undefined) return problems;
  for (const match of readme.matchAll(/version: "?>=(\d+\.\d+\.\d+) <(\d+\.\d+\.\d+)"?/g)) {
    const [low, high] = [numbers(match[1] ?? ''), numbers(match[2] ?? '')];
    if (low === undefined || high === undefined) continue;
    if (compare(low, release) > 0 || compare(release, high) >= 0)
      problems.push(`dependency range "${match[0]}" does not select ${version}`);
  }
  for (const match of readme.matchAll(/current release is \*\*(\S+?)\*\*/g))
    if (match[1] !== version) problems.push(`calls ${match[1] ?? ''} the current release`);
  return problems;
}

/**
 * Problems with the Dockerfile: its version label, and its Node release (one `ARG NODE_IMAGE`,
 * pinned by digest, that every base stage uses, so the image tests, which start the bundle on
 * that release, test what ships).
 */
function dockerfileProblems(dockerfile: string, version: string): string[] {
  const problems: string[] = [];
  const label = /org\.opencontainers\.image\.version="([^"]*)"/.exec(dockerfile)?.[1];
  if (label !== version)
    problems.push(`labels the image version "${label ?? ''}", not "${version}"`);
  const nodeImage = /^ARG NODE_IMAGE=(node:\d+\.\d+\.\d+-\S+)$/m.exec(dockerfile)?.[1];
  if (nodeImage === undefined)
    problems.push('has no "ARG NODE_IMAGE=node:<x.y.z>-<variant>" naming its Node release');
  else if (!/@sha256:[0-9a-f]{64}$/.test(nodeImage))
    problems.push(
      `pins its Node image by tag alone (${nodeImage}): add @sha256:<digest of the tag's image index>, or a re-pushed tag changes what ships`,
    );
  const stages = new Set<string>();
  for (const match of dockerfile.matchAll(/^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/gim)) {
    const [image = '', stage] = [match[1], match[2]];
    if (!stages.has(image) && image !== '${NODE_IMAGE}')
      problems.push(`builds FROM ${image} instead of \${NODE_IMAGE}, the Node release tested`);
    if (stage !== undefined) stages.add(stage);
  }
  return problems;
}

async function readText(root: string, file: string): Promise<string | undefined> {
  try {
    return await readFile(join(root, file), 'utf8');
  } catch {
    return undefined;
  }
}

/** Everything that stands between the tree at `root` and releasing it as `tag`. */
export async function releaseProblems(root: string, tag: string): Promise<ReleaseProblem[]> {
  const version = versionOfTag(tag);
  if (version === undefined)
    return [{ file: '(tag)', message: `"${tag}" is not a release tag (v<major>.<minor>.<patch>)` }];
  const problems: ReleaseProblem[] = [];
  const add = (file: string, messages: readonly string[]): void => {
    for (const message of messages) problems.push({ file, message });
  };
  const need = async (file: string): Promise<string | undefined> => {
    const text = await readText(root, file);
    if (text === undefined) add(file, ['is missing']);
    return text;
  };

  const chartFile = 'charts/argocd-cluster-registrar/Chart.yaml';
  const chartText = await need(chartFile);
  if (chartText !== undefined) {
    const chart = parse(chartText) as { version?: unknown; appVersion?: unknown };
    for (const key of ['version', 'appVersion'] as const)
      if (String(chart[key]) !== version)
        add(chartFile, [`${key} is ${String(chart[key])}, not ${version}`]);
  }

  const packages = (await readdir(join(root, 'packages'), { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => `packages/${e.name}/package.json`)
    .sort();
  for (const file of packages) {
    const text = await readText(root, file);
    if (text === undefined) continue;
    const manifest = JSON.parse(text) as { version?: unknown };
    if (manifest.version !== version)
      add(file, [`version is ${String(manifest.version)}, not ${version}`]);
  }

  const changelog = await need('CHANGELOG.md');
  if (changelog !== undefined) add('CHANGELOG.md', changelogProblems(changelog, version));

  const dockerfile = await need('Dockerfile');
  if (dockerfile !== undefined) add('Dockerfile', dockerfileProblems(dockerfile, version));

  // A pre-release is not what users are told to install: the READMEs keep the last release.
  if (!version.includes('-'))
    for (const file of ['README.md', 'charts/argocd-cluster-registrar/README.md']) {
      const readme = await need(file);
      if (readme !== undefined) add(file, installProblems(readme, version));
    }

  const workflows = '.github/workflows';
  const workflowFiles = await readdir(join(root, workflows)).catch(() => [] as string[]);
  for (const name of workflowFiles.filter((f) => /\.ya?ml$/.test(f)).sort()) {
    const text = (await readText(root, `${workflows}/${name}`)) ?? '';
    if (/\bNODE_IMAGE=/.test(text))
      add(`${workflows}/${name}`, [
        "overrides NODE_IMAGE: the image must be built on the Dockerfile's Node release, the one the image tests run",
      ]);
  }
  return problems;
}

async function main(argv: readonly string[]): Promise<number> {
  const [tag, flag, notesFile] = argv;
  if (
    tag === undefined ||
    (flag !== undefined && (flag !== '--notes' || notesFile === undefined))
  ) {
    process.stderr.write('usage: scripts/release-check <tag> [--notes <file>]\n');
    return 2;
  }
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const problems = await releaseProblems(root, tag);
  for (const p of problems) process.stderr.write(`release-check: ${p.file}: ${p.message}\n`);
  if (problems.length > 0) {
    process.stderr.write(
      `release-check: ${tag} cannot be released (${problems.length} ${problems.length === 1 ? 'problem' : 'problems'})\n`,
    );
    return 1;
  }
  const version = versionOfTag(tag) ?? '';
  if (notesFile !== undefined) {
    const changelog = await readFile(join(root, 'CHANGELOG.md'), 'utf8');
    await writeFile(notesFile, `${changelogSection(changelog, version) ?? ''}\n`);
  }
  process.stdout.write(`release-check: ${tag} is ready to release\n`);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = await main(process.argv.slice(2));
