// The soak's diagnostic figures, for telling retained objects from memory the process keeps
// without holding anything in it. Every sample splits resident memory as the kernel counts
// it (/proc/<pid>/status: anonymous vs file-backed pages, and /proc/<pid>/smaps: the brk
// heap glibc's main malloc arena grows, other anonymous mappings, file mappings). With
// SOAK_DIAG=1 the daemon also runs with --expose-gc and its probe forces a full collection
// before each sample, so "heap used" is what is still reachable, beside V8's committed heap,
// its old space, and external / ArrayBuffer memory. SOAK_RESYNC_PERIOD (e.g. 1m) passes a
// shorter --resync-period, so that several re-lists of the world happen in a few minutes.
// The forced collections change the daemon's own heap rhythm: diagnostic figures never go
// into BENCHMARKS.md as the soak's figures.
import { readFileSync } from 'node:fs';

export const DIAG = process.env['SOAK_DIAG'] === '1';
export const RESYNC_PERIOD = process.env['SOAK_RESYNC_PERIOD'];

const MIB = 2 ** 20;
const mib = (bytes: number): number => Number((bytes / MIB).toFixed(1));

/** Node flags the diagnostic run adds (before --import of the probe). */
export const diagFlags: readonly string[] = DIAG ? ['--expose-gc'] : [];

// Preloaded into the daemon: one JSON line per sample period. In a diagnostic run it first
// forces a full collection (global gc(), from --expose-gc) and adds V8's heap spaces.
export const PROBE = [
  "import { appendFileSync } from 'node:fs';",
  "import { monitorEventLoopDelay } from 'node:perf_hooks';",
  "import { getHeapSpaceStatistics } from 'node:v8';",
  'const file = process.env.SOAK_PROBE_FILE;',
  'const every = Number(process.env.SOAK_PROBE_MS);',
  "const diag = process.env.SOAK_DIAG === '1' && typeof globalThis.gc === 'function';",
  'const delay = monitorEventLoopDelay({ resolution: 10 });',
  'delay.enable();',
  'if (file) setInterval(() => {',
  '  const before = process.memoryUsage();',
  '  const line = { at: Date.now(), heapUsed: before.heapUsed, heapTotal: before.heapTotal,',
  '    external: before.external, arrayBuffers: before.arrayBuffers,',
  '    delayP50Ms: delay.percentile(50) / 1e6, delayP99Ms: delay.percentile(99) / 1e6,',
  '    delayMaxMs: delay.max / 1e6 };',
  '  if (diag) {',
  '    globalThis.gc();',
  '    const after = process.memoryUsage();',
  '    line.afterGc = { heapUsed: after.heapUsed, heapTotal: after.heapTotal,',
  '      external: after.external, arrayBuffers: after.arrayBuffers, rss: after.rss };',
  '    line.spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) =>',
  '      [s.space_name, { size: s.space_size, used: s.space_used_size, physical: s.physical_space_size }]));',
  '  }',
  '  appendFileSync(file, JSON.stringify(line) + "\\n");',
  '  delay.reset();',
  '}, every).unref();',
].join('\n');

/** Resident memory as the kernel splits it, in MiB. */
export interface ResidentSplit {
  readonly anonMiB: number;
  readonly fileMiB: number;
  /** The brk heap: glibc's main malloc arena. */
  readonly brkMiB: number;
  /** Anonymous mappings other than the brk heap and the stack: V8's pages, other arenas, mmap'd chunks. */
  readonly otherAnonMiB: number;
}

export function residentSplit(pid: number): ResidentSplit {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  let brk = 0;
  let otherAnon = 0;
  let name = '';
  let inode = '0';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head !== null) {
      inode = head[1] ?? '0';
      name = head[2] ?? '';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss === null) continue;
    const bytes = Number(rss[1]) * 1024;
    if (name === '[heap]') brk += bytes;
    else if (inode === '0' && (name === '' || name.startsWith('[anon'))) otherAnon += bytes;
  }
  return {
    anonMiB: mib(kib('RssAnon')),
    fileMiB: mib(kib('RssFile')),
    brkMiB: mib(brk),
    otherAnonMiB: mib(otherAnon),
  };
}

/** The diagnostic part of a probe line, in MiB. */
export function diagFigures(probe: Record<string, unknown> | undefined): Record<string, number> {
  if (probe === undefined) return {};
  const out: Record<string, number> = {};
  const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  for (const key of ['heapTotal', 'external', 'arrayBuffers']) {
    const v = num(probe[key]);
    if (v !== undefined) out[`${key}MiB`] = mib(v);
  }
  const after = probe['afterGc'] as Record<string, number> | undefined;
  if (after !== undefined) {
    out['heapUsedAfterGcMiB'] = mib(after['heapUsed'] ?? 0);
    out['heapTotalAfterGcMiB'] = mib(after['heapTotal'] ?? 0);
    out['externalAfterGcMiB'] = mib(after['external'] ?? 0);
  }
  const spaces = probe['spaces'] as
    Record<string, { size: number; used: number; physical: number }> | undefined;
  const old = spaces?.['old_space'];
  if (old !== undefined) {
    out['oldSpaceUsedMiB'] = mib(old.used);
    out['oldSpaceSizeMiB'] = mib(old.size);
  }
  const large = spaces?.['large_object_space'];
  if (large !== undefined) out['largeObjectSpaceMiB'] = mib(large.size);
  return out;
}
