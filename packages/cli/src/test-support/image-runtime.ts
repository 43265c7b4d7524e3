// The runtime the container image and the chart give the daemon, for benchmarks of "the
// shipped daemon": the Node release of the Dockerfile's NODE_IMAGE (fetched from the npm
// registry's `node` package), the node flags of its ENTRYPOINT, and the chart's default
// memory limit, enforced by a memory cgroup as a pod's is (the kernel kills the daemon if it
// goes over, and Node sizes its heap from the limit). Without a writable cgroup hierarchy
// the limit is not enforced, and the run says so.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export interface ImageRuntime {
  /** The node binary of the image's Node release. */
  readonly node: string;
  readonly version: string;
  /** Node flags from the image's ENTRYPOINT (before the script). */
  readonly flags: readonly string[];
  /** The runtime stage's ENV (`ENV KEY=value` lines). */
  readonly env: Readonly<Record<string, string>>;
  /** The chart's default `resources.limits.memory`. */
  readonly limitBytes: number;
  /** The memory cgroup the daemon runs in, when one could be made. */
  readonly cgroup: string | undefined;
  /** Command and arguments that run `node <flags> <args>` inside the cgroup. */
  command(args: readonly string[]): { file: string; args: string[] };
  /** Whether the kernel killed anything in the cgroup for going over its limit. */
  oomKilled(): boolean;
  release(): void;
  readonly describe: string;
}

export function imageRuntime(repo: string): ImageRuntime {
  const dockerfile = readFileSync(join(repo, 'Dockerfile'), 'utf8');
  const version = /^ARG NODE_IMAGE=node:(\d+\.\d+\.\d+)/m.exec(dockerfile)?.[1];
  if (version === undefined) throw new Error('Dockerfile: no ARG NODE_IMAGE=node:<version>');
  const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
  if (entrypoint === undefined) throw new Error('Dockerfile: no exec-form ENTRYPOINT');
  const argv = JSON.parse(entrypoint) as string[];
  if (argv[0] !== 'node') throw new Error(`Dockerfile ENTRYPOINT does not run node: ${entrypoint}`);
  const flags = argv.slice(1, -1);
  const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const [, key, value] of runtimeStage.matchAll(/^ENV ([A-Z_][A-Z0-9_]*)=(\S+)$/gm))
    if (key !== undefined && value !== undefined) env[key] = value;

  const values = parse(
    readFileSync(join(repo, 'charts/argocd-cluster-registrar/values.yaml'), 'utf8'),
  ) as { resources?: { limits?: { memory?: string } } };
  // REGISTRAR_BENCH_MEMORY_LIMIT=<quantity> (e.g. 128Mi): the limit an operator would set
  // instead of the chart's default; every run says which limit it ran under.
  const override = process.env['REGISTRAR_BENCH_MEMORY_LIMIT'];
  const chartLimit = values.resources?.limits?.memory ?? '';
  const limitBytes = quantityBytes(override ?? chartLimit);
  const limitSource =
    override === undefined
      ? "the chart's default resources.limits.memory"
      : `REGISTRAR_BENCH_MEMORY_LIMIT; the chart's default is ${chartLimit}`;

  const node = execFileSync('npx', ['-y', `node@${version}`, '-p', 'process.execPath'], {
    encoding: 'utf8',
    timeout: 300_000,
  }).trim();
  const cgroup = makeCgroup(limitBytes);
  const envText = Object.entries(env)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
  return {
    node,
    version,
    flags,
    env,
    limitBytes,
    cgroup: cgroup?.dir,
    command(args) {
      if (cgroup === undefined) return { file: node, args: [...flags, ...args] };
      // The shell joins the cgroup, then becomes node: same pid, so /proc reads stay right.
      return {
        file: 'sh',
        args: [
          '-c',
          'echo $$ > "$0/cgroup.procs" && exec "$@"',
          cgroup.dir,
          node,
          ...flags,
          ...args,
        ],
      };
    },
    oomKilled: () => cgroup?.oomKilled() ?? false,
    release() {
      if (cgroup === undefined) return;
      try {
        rmdirSync(cgroup.dir);
      } catch {
        // Still has a process (a daemon that outlived us): the kernel keeps it until it exits.
      }
    },
    describe: `Node ${version} (the image's), flags \`${flags.join(' ') || '(none)'}\` (its ENTRYPOINT), environment \`${envText}\` (its ENV), ${
      cgroup === undefined
        ? `memory limit NOT enforced (no writable memory cgroup here; the limit would be ${limitBytes / 2 ** 20} MiB, ${limitSource})`
        : `in a memory cgroup limited to ${limitBytes / 2 ** 20} MiB (${limitSource}), ${cgroup.kind}`
    }`,
  };
}

/** Kubernetes quantities as the chart uses them: `256Mi`, `1Gi`. */
function quantityBytes(quantity: string): number {
  const match = /^(\d+)(Ki|Mi|Gi)$/.exec(quantity);
  if (match === null) throw new Error(`values.yaml resources.limits.memory: ${quantity}`);
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 }[match[2] as 'Ki' | 'Mi' | 'Gi'];
  return Number(match[1]) * unit;
}

interface Cgroup {
  readonly dir: string;
  readonly kind: string;
  oomKilled(): boolean;
}

function makeCgroup(limitBytes: number): Cgroup | undefined {
  const name = `acr-bench-${process.pid}`;
  // cgroup v2: one hierarchy; the memory controller must be enabled for children.
  if (existsSync('/sys/fs/cgroup/cgroup.controllers')) {
    const dir = join('/sys/fs/cgroup', name);
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'memory.max'), String(limitBytes));
    } catch {
      return undefined;
    }
    try {
      writeFileSync(join(dir, 'memory.swap.max'), '0');
    } catch {
      // No swap accounting: nothing to swap to either.
    }
    return {
      dir,
      kind: 'cgroup v2',
      oomKilled: () =>
        /^oom_kill (\d+)$/m.exec(readFileSync(join(dir, 'memory.events'), 'utf8'))?.[1] !== '0',
    };
  }
  const dir = join('/sys/fs/cgroup/memory', name);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, 'memory.limit_in_bytes'), String(limitBytes));
  } catch {
    return undefined;
  }
  return {
    dir,
    kind: 'cgroup v1',
    oomKilled: () =>
      /^oom_kill (\d+)$/m.exec(readFileSync(join(dir, 'memory.oom_control'), 'utf8'))?.[1] !== '0',
  };
}
