// Why the image runs Node with --no-separate-gc-phases. On the image's Node release V8 runs no
// young-generation collection (scavenge) while an incremental marking cycle of the old
// generation is under way, and lets the young generation grow instead; what is allocated in
// the cycle stays until it ends. The daemon's cold start allocates in bursts, so whether its
// peak resident memory spiked depended on whether a marking cycle fell on one.
//
// This runs a small workload on the image's Node with the ENTRYPOINT's flags, with and without
// --no-separate-gc-phases, and prints the largest young generation and the peak RSS of each
// run. The workload allocates objects of which most survive a while (as decoding a page of a
// list does), enough to start marking cycles.
//
//   node --import tsx packages/cli/bench/gc-phases.bench.ts [runs]

import { execFileSync } from 'node:child_process';
import { repo } from './harness.js';
import { imageRuntime } from '../src/test-support/image-runtime.js';

const RUNS = Number(process.argv[2] ?? 3);

const WORKLOAD = `
import v8 from 'node:v8';
import { readFileSync } from 'node:fs';
const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
let largest = 0;
const kept = [];
for (let round = 0; round < 60; round += 1) {
  for (let i = 0; i < 20000; i += 1) {
    kept.push({ a: 'x' + i, b: [i, i + 1], c: { d: i } });
    if (i % 500 === 0) largest = Math.max(largest, young());
  }
  if (kept.length > 100000) kept.length = 0;
}
const hwm = Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
console.log(JSON.stringify({ young: largest / 2 ** 20, hwm: hwm / 1024 }));
`;

function main(): void {
  const runtime = imageRuntime(repo);
  // Run outside the memory cgroup, where a heap cap taken from the machine's memory would
  // mean nothing; the workload stays far below any cap.
  const shipped = runtime.flags.filter((flag) => !flag.startsWith('--max-old-space-size'));
  const without = shipped.filter((flag) => flag !== '--no-separate-gc-phases');
  const variants: [string, readonly string[]][] = [
    [`without --no-separate-gc-phases (${without.join(' ')})`, without],
    [`the image's flags (${shipped.join(' ')})`, shipped],
  ];
  console.log(`Node ${runtime.version} (the image's); ${String(RUNS)} runs each`);
  console.log('| flags | largest young generation | peak RSS (VmHWM) |');
  console.log('|---|---:|---:|');
  for (const [label, flags] of variants) {
    const runs = Array.from({ length: RUNS }, () => {
      const out = execFileSync(runtime.node, [...flags, '--input-type=module', '-e', WORKLOAD], {
        encoding: 'utf8',
      });
      return JSON.parse(out) as { young: number; hwm: number };
    });
    const list = (pick: (r: { young: number; hwm: number }) => number): string =>
      runs.map((r) => pick(r).toFixed(1)).join(', ');
    console.log(`| ${label} | ${list((r) => r.young)} MiB | ${list((r) => r.hwm)} MiB |`);
  }
  runtime.release();
}

main();
