// Benchmark of what a cold start does once per source: decode the kubeconfig Secret's data,
// translate the kubeconfig, and encode the registration's config, 1,000 times, in process CPU
// time (median of 5 rounds after a warm-up round), on the benchmarks' kubeconfig
// (kubeconfig-fixture.ts).
//
// The daemon runs on the image's Node with --jitless, where this is several times slower than
// with the JIT; run it that way to see the daemon's figure:
//   npx -y node@24 --jitless --import tsx packages/core/bench/translate.bench.ts
// or `pnpm bench translate` on the local Node.

import { decodeBase64Text, encodeBase64Text } from '../src/common/base64.js';
import { PROVIDER_PRESETS } from '../src/config/provider-presets.js';
import { translateKubeconfig } from '../src/translate/kubeconfig.js';
import { b64, kubeconfig } from './kubeconfig-fixture.js';

const KUBECONFIG = kubeconfig('https://k3k-c1.example.com:6443');
const SECRET_DATA = b64(KUBECONFIG);
const CONTEXT = {
  namespace: 'team-a',
  secret: 'k3k-c1-kubeconfig',
  provider: PROVIDER_PRESETS.k3k,
} as const;
const COUNT = 1000;

function round(): number {
  const start = process.cpuUsage();
  for (let i = 0; i < COUNT; i++) {
    const text = decodeBase64Text(SECRET_DATA);
    if (text === undefined) throw new Error('the kubeconfig does not decode');
    const result = translateKubeconfig(text, CONTEXT);
    if (!result.ok) throw new Error(`the kubeconfig is refused: ${result.refusal.message}`);
    encodeBase64Text(JSON.stringify(result.translation.config));
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

round();
const rounds = Array.from({ length: 5 }, round).sort((a, b) => a - b);
const flags = process.execArgv.filter((flag) => !flag.startsWith('--import') && flag !== 'tsx');
console.log(
  `decode + translate + encode, ${String(COUNT)} kubeconfigs: ${rounds[2]?.toFixed(0) ?? '?'} ms CPU (median of 5; min ${rounds[0]?.toFixed(0) ?? '?'}, max ${rounds[4]?.toFixed(0) ?? '?'}), Node ${process.version}${flags.length > 0 ? ` ${flags.join(' ')}` : ''}`,
);
