// Shared helpers for the chart tests: the helm binary from the tools cache, rendering with a
// values object, and the rendered manifests as parsed objects.

import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const chartDir = fileURLToPath(new URL('../', import.meta.url));

// `yaml` is a dependency of core, not of the workspace root, so a bare import does not
// resolve from charts/; load core's copy (the same version the product uses).
interface YamlModule {
  parseAllDocuments(text: string): readonly { toJS(): unknown; errors: readonly unknown[] }[];
  parse(text: string): unknown;
  stringify(value: unknown): string;
}
const requireFromCore = createRequire(join(repoRoot, 'packages/core/package.json'));
export const YAML = requireFromCore('yaml') as YamlModule;

export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly [field: string]: unknown;
}

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function run(
  file: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      {
        env: options.env ?? process.env,
        cwd: options.cwd ?? repoRoot,
        maxBuffer: 64 * 1024 * 1024,
        timeout: options.timeoutMs ?? 120_000,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

let toolsBin: Promise<string> | undefined;

/**
 * The directory holding helm, kubectl, kube-apiserver and etcd: $REGISTRAR_TOOLS_BIN, or what
 * tools/build.sh prints as its last line (it builds only what is missing from its cache).
 */
export function toolsBinDir(): Promise<string> {
  toolsBin ??= (async () => {
    const fromEnv = process.env['REGISTRAR_TOOLS_BIN'];
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
    const result = await run(join(repoRoot, 'tools/build.sh'), [], { timeoutMs: 60 * 60_000 });
    const last = result.stdout.trim().split('\n').at(-1);
    if (result.code !== 0 || last === undefined || last === '') {
      throw new Error(
        `tools/build.sh failed (exit ${result.code}):\n${result.stderr.slice(-2000)}`,
      );
    }
    return last;
  })();
  return toolsBin;
}

export async function helm(args: readonly string[]): Promise<RunResult> {
  const bin = await toolsBinDir();
  // A private HOME-less config: helm must not read or write the user's repositories or cache.
  const scratch = join(tmpdir(), 'acr-chart-tests-helm');
  return run(join(bin, 'helm'), args, {
    env: {
      ...process.env,
      HELM_CACHE_HOME: join(scratch, 'cache'),
      HELM_CONFIG_HOME: join(scratch, 'config'),
      HELM_DATA_HOME: join(scratch, 'data'),
    },
  });
}

export const RELEASE = 'acr';
export const RELEASE_NAMESPACE = 'registrar-system';

/** `helm template` with the values object written to a file (no --set escaping rules). */
export async function template(
  values: Record<string, unknown> = {},
  options: { release?: string; namespace?: string } = {},
): Promise<RunResult> {
  const dir = await mkdtemp(join(tmpdir(), 'acr-values-'));
  try {
    const file = join(dir, 'values.json');
    // JSON is YAML that helm (YAML 1.1) and `yaml` (1.2) read alike: a 1.2 `yes` stays a string.
    await writeFile(file, JSON.stringify(values));
    return await helm([
      'template',
      options.release ?? RELEASE,
      chartDir,
      '--namespace',
      options.namespace ?? RELEASE_NAMESPACE,
      '--values',
      file,
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function parseManifests(text: string): Manifest[] {
  return YAML.parseAllDocuments(text)
    .map((document) => {
      if (document.errors.length > 0)
        throw new Error(`rendered YAML does not parse: ${String(document.errors[0])}`);
      return document.toJS();
    })
    .filter((object): object is Manifest => object !== null && typeof object === 'object');
}

/** Renders and parses; fails the test with helm's message when the render fails. */
export async function render(
  values: Record<string, unknown> = {},
  options: { release?: string; namespace?: string } = {},
): Promise<Manifest[]> {
  const result = await template(values, options);
  if (result.code !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
  return parseManifests(result.stdout);
}

export function find(
  manifests: readonly Manifest[],
  kind: string,
  name?: string,
): Manifest | undefined {
  return manifests.find((m) => m.kind === kind && (name === undefined || m.metadata.name === name));
}

export function only(manifests: readonly Manifest[], kind: string): Manifest {
  const matches = manifests.filter((m) => m.kind === kind);
  if (matches.length !== 1) throw new Error(`expected one ${kind}, found ${matches.length}`);
  return matches[0] as Manifest;
}

// The parts of a Deployment the tests read.
export interface Container {
  readonly name: string;
  readonly image: string;
  readonly args: readonly string[];
  readonly ports?: readonly { name: string; containerPort: number }[];
  readonly livenessProbe?: { httpGet: { path: string; port: number } };
  readonly readinessProbe?: { httpGet: { path: string; port: number } };
  readonly securityContext?: Record<string, unknown>;
  readonly resources?: Record<string, unknown>;
}
export interface PodSpec {
  readonly serviceAccountName: string;
  readonly containers: readonly Container[];
  readonly securityContext?: Record<string, unknown>;
  readonly [field: string]: unknown;
}
export interface DeploymentSpec {
  readonly replicas: number;
  readonly strategy: { type: string };
  readonly selector: { matchLabels: Record<string, string> };
  readonly template: {
    metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
    spec: PodSpec;
  };
}

export function deploymentOf(manifests: readonly Manifest[]): DeploymentSpec {
  return only(manifests, 'Deployment')['spec'] as DeploymentSpec;
}

export function containerOf(manifests: readonly Manifest[]): Container {
  const containers = deploymentOf(manifests).template.spec.containers;
  if (containers.length !== 1 || containers[0] === undefined)
    throw new Error('expected one container');
  return containers[0];
}

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
}

export function rulesOf(manifest: Manifest | undefined): readonly PolicyRule[] {
  if (manifest === undefined) throw new Error('no such RBAC object');
  return manifest['rules'] as PolicyRule[];
}
