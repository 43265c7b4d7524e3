// The commands the README, the demo and the chart notes give users, run as written against
// the real host plane: the `argocd-cluster-registrar` command after the README's set-up step
// (`export PATH="$PWD/bin:$PATH"`, which runs the compiled dist/), and the kubectl command
// that shows a namespace's Events, with the kubectl built into the tools cache; and the chart
// README's migration command.

import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  REPO,
  createSourceNamespace,
  useWorld,
  kubeconfigYaml,
  putK3kKubeconfig,
} from '../test-support/e2e.js';
import { parseFlags } from '../flags.js';

interface Shell {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command line in bash from the clone's root, with `bin/` on PATH as the README says. */
function shell(line: string, env: Record<string, string> = {}): Promise<Shell> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) =>
        key !== 'KUBECONFIG' && key !== 'KUBERNETES_SERVICE_HOST' && !key.startsWith('ACR_'),
    ),
  );
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', `export PATH="$PWD/bin:$PATH"\n${line}`],
      { cwd: REPO, env: { ...inherited, NO_COLOR: '1', ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

let toolsBin: string;

beforeAll(async () => {
  // tools/build.sh prints the cache directory last (building only what is missing).
  const built = await shell('tools/build.sh');
  toolsBin = built.stdout.trim().split('\n').at(-1) ?? '';
  expect(existsSync(join(toolsBin, 'kubectl')), built.stderr).toBe(true);
  expect(
    existsSync(join(REPO, 'packages/cli/dist/bundle/argocd-cluster-registrar.mjs')),
    'run `pnpm -s build` (scripts/setup does) before the e2e tests',
  ).toBe(true);
});

const { world } = useWorld();

describe('the README set-up makes the command available', () => {
  it('argocd-cluster-registrar --help exits 0 from the clone root', async () => {
    const run = await shell('argocd-cluster-registrar --help');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('argocd-cluster-registrar 0.3.0-alpha.0');
  });

  it('runs `argocd-cluster-registrar --once --dry-run --debug` as written, on $KUBECONFIG', async () => {
    // The README's line, unchanged; the world's settings come from the environment so the
    // line stays exactly as documented.
    const run = await shell('argocd-cluster-registrar --once --dry-run --debug', {
      KUBECONFIG: world.host.kubeconfigPath,
      ACR_TARGET_NAMESPACE: world.target,
      ACR_MANAGED_BY: world.managedBy,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('No changes.');
  });
});

describe('the documented Events command', () => {
  it('`kubectl events -n <ns> --for namespace/<ns>` shows the Refused event an --once run records', async () => {
    const ns = await createSourceNamespace(world, { cluster: 'broken' });
    const name = ns.metadata?.name ?? '';
    await putK3kKubeconfig(world, name, 'not: [valid', 'broken');
    const kubectl = `${join(toolsBin, 'kubectl')} events -n ${name} --for namespace/${name}`;
    const env = { KUBECONFIG: world.host.kubeconfigPath };

    // A dry run writes nothing, Events included.
    const preview = await shell(
      `argocd-cluster-registrar --once --dry-run --target-namespace ${world.target} --managed-by ${world.managedBy}`,
      env,
    );
    expect(preview.code, preview.stderr).toBe(0);
    expect((await shell(kubectl, env)).stdout).not.toContain('Refused');

    // --once wrote nothing either (the namespace is refused), yet it records the refusal.
    const once = await shell(
      `argocd-cluster-registrar --once --target-namespace ${world.target} --managed-by ${world.managedBy}`,
      env,
    );
    expect(once.code, once.stderr).toBe(0);
    const events = await shell(kubectl, env);
    expect(events.code, events.stderr).toBe(0);
    expect(events.stdout).toMatch(/Warning\s+Refused\s+Namespace\//);
    expect(events.stdout).toContain(`Secret k3k-broken-kubeconfig key kubeconfig.yaml`);
  });
});

describe('what an applying --once run prints', () => {
  it('says what it did ("was created"), and a skipped namespace once', async () => {
    const ok = await createSourceNamespace(world, { cluster: 'done' });
    await putK3kKubeconfig(world, ok.metadata?.name ?? '', kubeconfigYaml(world.child), 'done');
    const skipped = await createSourceNamespace(world, { cluster: null });
    const run = await shell(
      `argocd-cluster-registrar --once --log-format text --target-namespace ${world.target} --managed-by ${world.managedBy}`,
      { KUBECONFIG: world.host.kubeconfigPath },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`+ ${world.target}/cluster-done was created (cluster "done")`);
    expect(run.stdout).not.toContain('will be created');
    // It ends as Terraform's apply does, with what was done, not with the plan's summary.
    expect(run.stdout).toMatch(
      /\nApply complete! Registrations: 1 created, 0 updated, 0 demoted, 0 deleted\.\n$/,
    );
    expect(run.stdout).not.toContain('Plan: ');
    // The missing cluster label is reported once on each channel: the preview's warning, and
    // one log line (the plan warning), not a second "namespace skipped" line.
    const name = skipped.metadata?.name ?? '';
    const logLines = run.stderr.split('\n').filter((line) => line.includes(`namespace=${name}`));
    expect(logLines).toHaveLength(1);
    expect(logLines[0]).toContain('plan warning');
    expect(run.stdout.split(`! ${name}:`)).toHaveLength(2);
  });
});

describe('the commands docs/*.md give', () => {
  const docs = readdirSync(join(REPO, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => ({ file, text: readFileSync(join(REPO, 'docs', file), 'utf8') }));
  /** Command lines in code (fenced or inline), without comments and shell continuations. */
  const commandsOf = (program: string): { file: string; line: string }[] =>
    docs.flatMap(({ file, text }) =>
      // Not a path's last segment (a chart reference ends in the same name), nor a namespace.
      [
        ...text.matchAll(new RegExp(`(?<![\\w/.-])(?<!-n )${program}((?: [^\`#\\n|&;)]*)?)`, 'g')),
      ].map((m) => ({
        file,
        line: (m[1] ?? '').replace(/\\\s*$/, '').trim(),
      })),
    );

  it('argocd-cluster-registrar: every flag they use exists and parses', () => {
    const commands = commandsOf('argocd-cluster-registrar').filter(
      // Placeholders (`...`, `<name>`) and the chart's and image's names are not invocations.
      ({ line }) => line.startsWith('-') || line.startsWith('status'),
    );
    expect(commands.length).toBeGreaterThan(0);
    for (const { file, line } of commands) {
      const argv = line.split(/\s+/).filter((word) => word !== '' && !word.includes('<'));
      const parsed = parseFlags(argv, {});
      expect(parsed.ok ? [] : parsed.errors.map((e) => e.message), `${file}: ${line}`).toEqual([]);
    }
  });

  it('scripts/control-plane: every subcommand they use exists, and none stops every plane', async () => {
    const script = readFileSync(join(REPO, 'scripts/control-plane'), 'utf8');
    const known = new Set(
      [...script.matchAll(/^#\s+scripts\/control-plane ([\w-]+)/gm)].map((m) => m[1]),
    );
    const commands = commandsOf('scripts/control-plane').filter(({ line }) => line !== '');
    expect(commands.length).toBeGreaterThan(0);
    for (const { file, line } of commands) {
      expect(known, `${file}: ${line}`).toContain(line.split(' ')[0]);
      // On a shared machine that stops everyone's planes: the docs show stopping by name.
      expect(line, `${file}: ${line}`).not.toMatch(/^down --all/);
    }
    // As written: `list` runs and exits 0.
    const listed = await shell('scripts/control-plane list');
    expect(listed.code, listed.stderr).toBe(0);
  });
});

describe("the chart README's commands", () => {
  it('the 0.1.x migration step lists the leftovers with their server in plain text', async () => {
    const readme = await readFile(join(REPO, 'charts/argocd-cluster-registrar/README.md'), 'utf8');
    const line = readme.split('\n').find((l) => l.includes('kubectl -n argocd get secrets'));
    expect(line, 'the migration step lists the leftovers').toBeDefined();
    await world.hostApi.createNamespacedSecret({
      namespace: world.target,
      body: {
        metadata: {
          name: 'vcluster-legacy',
          labels: { 'argocd.argoproj.io/secret-type': 'cluster' },
        },
        stringData: { name: 'legacy', server: 'https://legacy.example:6443', config: '{}' },
      },
    });
    // As written, but in this world's target namespace and with the tools cache's kubectl.
    const command = (line ?? '')
      .trim()
      .replace('kubectl -n argocd', `${join(toolsBin, 'kubectl')} -n ${world.target}`);
    const run = await shell(command, { KUBECONFIG: world.host.kubeconfigPath });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('vcluster-legacy\thttps://legacy.example:6443\n');
  });
});
