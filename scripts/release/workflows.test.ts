// The GitHub Actions workflows, checked here since no runner is: actionlint (which runs
// shellcheck on every `run:` script) on each file as written, and again with each pinned action
// read as its release tag, so that actionlint also checks the inputs passed to the actions it
// knows. Then what a release relies on and actionlint cannot know: full-SHA pins, the
// permissions of each job, the version check before anything is published, and the names and
// tool versions that must be the ones the README and the tests use.

import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CHART_REFERENCE } from './check.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const WORKFLOWS = '.github/workflows';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(file: string, args: readonly string[], input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      { cwd: repo, timeout: 30 * 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr });
      },
    );
    child.stdin?.end(input ?? '');
  });
}

interface Step {
  readonly name?: string;
  readonly id?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, unknown>;
}
interface Job {
  readonly needs?: string | readonly string[];
  readonly permissions?: Record<string, string>;
  readonly uses?: string;
  readonly steps?: readonly Step[];
}
interface Workflow {
  readonly on: Record<string, unknown>;
  readonly permissions?: Record<string, string>;
  readonly env?: Record<string, string>;
  readonly jobs: Record<string, Job>;
}

const names = (await readdir(join(repo, WORKFLOWS))).filter((f) => /\.ya?ml$/.test(f)).sort();
const texts = new Map<string, string>();
for (const name of names) texts.set(name, await readFile(join(repo, WORKFLOWS, name), 'utf8'));
const workflow = (name: string): Workflow => parse(texts.get(name) ?? '') as Workflow;
const ci = workflow('ci.yml');
const release = workflow('release.yml');
const steps = (w: Workflow): Step[] => Object.values(w.jobs).flatMap((job) => job.steps ?? []);

/** `owner/repo[/path]@<40 hex> # vX.Y.Z`: a third-party action pinned to a commit. */
const PIN = /^\s*(?:-\s+)?uses:\s+([\w.-]+\/[\w./-]+)@([0-9a-f]{40}) # (v\d+\.\d+\.\d+)$/;

let actionlint = '';

beforeAll(async () => {
  // Built into the tools cache like the other Go tools (seconds when cached).
  const built = await run(join(repo, 'tools/build.sh'), ['actionlint']);
  expect(built.code, built.stderr.slice(-2000)).toBe(0);
  actionlint = built.stdout.trim().split('\n').at(-1) ?? '';
}, 30 * 60_000);

describe('actionlint', () => {
  it('is v1.7.12, and shellcheck is there for it to check every run: script', async () => {
    const version = await run(actionlint, ['-version']);
    expect(version.stdout.split('\n')[0]).toBe('v1.7.12');
    // Without shellcheck actionlint silently skips the scripts: scripts/setup installs it.
    const shellcheck = await run('shellcheck', ['--version']);
    expect(shellcheck.code, 'shellcheck is not installed (scripts/setup installs it)').toBe(0);
  });

  it('catches a broken workflow (so a pass means something)', async () => {
    const broken = [
      'on: push',
      'permissions: {}',
      'jobs:',
      '  a:',
      '    runs-on: ubuntu-24.04',
      '    steps:',
      '      - run: echo $UNQUOTED ${{ github.event.pull_request.title }}',
      '      - uses: actions/checkout@v6',
      '        with: {no-such-input: true}',
      '',
    ].join('\n');
    const result = await run(
      actionlint,
      ['-no-color', '-oneline', '-stdin-filename', `${WORKFLOWS}/broken.yml`, '-'],
      broken,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('SC2086');
    expect(result.stdout).toContain('potentially untrusted');
    expect(result.stdout).toContain('input "no-such-input" is not defined');
  });

  it.each(names)('passes on %s as written', async (name) => {
    const result = await run(actionlint, ['-no-color', '-oneline', `${WORKFLOWS}/${name}`]);
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it.each(names)(
    'passes on %s with each pin read as its major tag (checks action inputs)',
    async (name) => {
      const text = texts.get(name) ?? '';
      const retagged = text
        .split('\n')
        .map((line) => {
          const pin = PIN.exec(line);
          const major = pin?.[3]?.split('.')[0];
          return pin === null || major === undefined
            ? line
            : line.replace(`@${pin[2] ?? ''} # ${pin[3] ?? ''}`, `@${major}`);
        })
        .join('\n');
      expect(retagged).not.toMatch(/@[0-9a-f]{40}/);
      const result = await run(
        actionlint,
        ['-no-color', '-oneline', '-stdin-filename', `${WORKFLOWS}/${name}`, '-'],
        retagged,
      );
      expect(result.stdout + result.stderr).toBe('');
      expect(result.code).toBe(0);
    },
  );
});

describe('the workflows', () => {
  it.each(names)('%s pins every third-party action to a full commit with its version', (name) => {
    const uses = (texts.get(name) ?? '').split('\n').filter((l) => /^\s*(-\s+)?uses:/.test(l));
    expect(uses.length).toBeGreaterThan(0);
    for (const line of uses) {
      if (/uses:\s+\.\//.test(line)) continue; // this repository's own reusable workflow
      expect(line, `${name}: ${line.trim()}`).toMatch(PIN);
    }
  });

  it('one action, one commit: the same action is pinned to the same commit everywhere', () => {
    const pins = new Map<string, Set<string>>();
    for (const text of texts.values())
      for (const line of text.split('\n')) {
        const pin = PIN.exec(line);
        if (pin?.[1] !== undefined)
          pins.set(pin[1], (pins.get(pin[1]) ?? new Set()).add(`${pin[2] ?? ''} ${pin[3] ?? ''}`));
      }
    for (const [action, commits] of pins) expect([...commits], action).toHaveLength(1);
  });

  it('CI runs .ci/run on pull requests, on main, and when the release calls it', () => {
    expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push', 'workflow_call']);
    expect(ci.permissions).toEqual({ contents: 'read' });
    expect(steps(ci).at(-1)?.run).toBe('bash .ci/run');
  });

  it("CI's Go and Node are the ones the project requires", async () => {
    const goMod = await readFile(join(repo, 'tools/kube-apiserver/go.mod'), 'utf8');
    const goDirective = /^go (\d+\.\d+)/m.exec(goMod)?.[1];
    const setupGo = steps(ci).find((s) => s.uses?.startsWith('actions/setup-go@'));
    expect(setupGo?.with?.['go-version']).toBe(goDirective);
    const manifest = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    const nodeMajor = /^>=(\d+)/.exec(manifest.engines.node)?.[1];
    const setupNode = steps(ci).find((s) => s.uses?.startsWith('actions/setup-node@'));
    expect(setupNode?.with?.['node-version']).toBe(nodeMajor);
  });

  it('CI caches the tools cache (keyed by every wrapper module) and Go caches only to build them', () => {
    const caches = steps(ci).filter((s) => s.uses?.startsWith('actions/cache@'));
    const tools = caches.find((s) => s.with?.['path'] === '~/.cache/argocd-cluster-registrar');
    expect(tools?.with?.['key']).toContain("hashFiles('tools/**')");
    const go = caches.find((s) => String(s.with?.['path']).includes('~/go/pkg/mod'));
    expect(String(go?.with?.['path'])).toContain('~/.cache/go-build');
    expect((go as { if?: string } | undefined)?.if).toBe(
      `steps.${tools?.id ?? ''}.outputs.cache-hit != 'true'`,
    );
  });

  it('the release grants no permission by default and each job only what it uses', () => {
    expect(release.permissions).toEqual({});
    const granted = Object.fromEntries(
      Object.entries(release.jobs).map(([name, job]) => [name, job.permissions]),
    );
    expect(granted).toEqual({
      check: { contents: 'read' },
      test: { contents: 'read' },
      image: { contents: 'read', packages: 'write', 'id-token': 'write' },
      chart: { contents: 'read', packages: 'write', 'id-token': 'write' },
      npm: { contents: 'read', 'id-token': 'write' },
      'github-release': { contents: 'write' },
    });
  });

  it('nothing is published unless the version check and the whole test suite passed', () => {
    const needs = (job: string): Set<string> => {
      const direct = release.jobs[job]?.needs ?? [];
      const list = typeof direct === 'string' ? [direct] : direct;
      return new Set(list.flatMap((n) => [n, ...needs(n)]));
    };
    expect(release.jobs['check']?.needs).toBeUndefined();
    expect(release.jobs['test']?.uses).toBe('./.github/workflows/ci.yml');
    for (const job of ['image', 'chart', 'npm', 'github-release'])
      expect([...needs(job)], job).toEqual(expect.arrayContaining(['check', 'test']));
    // The chart is published after the image it points at.
    expect([...needs('chart')]).toContain('image');
    const check = release.jobs['check']?.steps?.map((s) => s.run ?? '').join('\n') ?? '';
    expect(check).toContain('scripts/release-check "$GITHUB_REF_NAME"');
    expect(Object.keys(release.on)).toEqual(['push']);
    expect(release.on['push']).toEqual({ tags: ['v*'] });
  });

  it('publishes where the README tells users to install from', async () => {
    const readme = await readFile(join(repo, 'README.md'), 'utf8');
    expect(readme).toContain(`\`${release.env?.['IMAGE'] ?? ''}\``);
    expect(readme).toContain(`repository: ${release.env?.['CHART_REGISTRY'] ?? ''}\n`);
    expect(`${release.env?.['CHART_REGISTRY'] ?? ''}/argocd-cluster-registrar`).toBe(
      CHART_REFERENCE,
    );
    expect(`oci://${release.env?.['CHART'] ?? ''}`).toBe(CHART_REFERENCE);
  });

  it('packages the chart with the helm the chart tests use', async () => {
    const goMod = await readFile(join(repo, 'tools/helm/go.mod'), 'utf8');
    const helm = /helm\.sh\/helm\/v3 (v\d+\.\d+\.\d+)/.exec(goMod)?.[1];
    const setupHelm = steps(release).find((s) => s.uses?.startsWith('azure/setup-helm@'));
    expect(setupHelm?.with?.['version']).toBe(helm);
  });

  it('signs by digest (a tag can move), and attests an SBOM for each platform built', () => {
    const build = steps(release).find((s) => s.uses?.startsWith('docker/build-push-action@'));
    expect(build?.with?.['platforms']).toBe('linux/amd64,linux/arm64');
    expect(build?.with?.['sbom']).toBe(true);
    const scripts = steps(release)
      .map((s) => s.run ?? '')
      .join('\n');
    for (const line of scripts.split('\n').filter((l) => /cosign (sign|attest)/.test(l)))
      expect(line, line.trim()).toMatch(/@\$(DIGEST|platform_digest)"$/);
    expect(scripts).toContain('for arch in amd64 arm64; do');
    expect(scripts).toContain('npm publish --provenance --access public');
  });
});
