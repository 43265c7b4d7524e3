// One truth on every surface: the same bad inputs through `--once` and through the daemon
// give the same messages, in the plan, in the daemon's log and in the namespace's Events
// (where the two aggregate into one Event, since they are the same Event).

import { afterEach, describe, expect, it } from 'vitest';
import {
  createSourceNamespace,
  createWorld,
  eventually,
  planJson,
  putSecret,
  startReadyDaemon,
} from '../test-support/e2e.js';
import type { RunningDaemon, World } from '../test-support/e2e.js';

let daemons: RunningDaemon[] = [];
afterEach(async () => {
  await Promise.all(daemons.map((d) => d.stop('SIGKILL')));
  daemons = [];
});

/** Namespaces whose Secret almost is a kubeconfig, each in its own way; by namespace name. */
async function badInputs(world: World): Promise<Map<string, string>> {
  const inputs: [string, string, Record<string, string>][] = [
    // A k3k-named Secret whose keys name no kubeconfig (one that does is refused instead).
    ['wrong-key', 'k3k-wrong-key-kubeconfig', { 'cluster.yaml': 'apiVersion: v1' }],
    // A vcluster Secret under the default k3k provider.
    ['vcluster', 'vc-vcluster', { config: 'apiVersion: v1' }],
    // A CAPA user kubeconfig (an exec plugin): capa-eks, not capi.
    ['capa', 'capa-user-kubeconfig', { value: 'apiVersion: v1' }],
  ];
  const byNamespace = new Map<string, string>();
  for (const [cluster, secret, data] of inputs) {
    const ns = await createSourceNamespace(world, { cluster });
    const name = ns.metadata?.name ?? '';
    await putSecret(world.hostApi, name, secret, data);
    byNamespace.set(name, secret);
  }
  return byNamespace;
}

function waitingDetail(daemon: RunningDaemon, namespace: string): string | undefined {
  const lines = daemon.logs.filter(
    (l) => l['msg'] === 'namespace waiting for a kubeconfig' && l['namespace'] === namespace,
  );
  const detail = lines[lines.length - 1]?.['detail'];
  return typeof detail === 'string' ? detail : undefined;
}

describe('the daemon and --once', () => {
  it('say the same about the same bad inputs: plan, log and Events', async () => {
    const world = await createWorld();
    const before = await badInputs(world);
    const { plan: once } = await planJson(world, { dryRun: true });
    const { daemon } = await startReadyDaemon(world, ['--interval=10m']);
    daemons.push(daemon);
    // And a namespace that gets its Secret while the daemon runs: the watch brings the hint.
    const late = await createSourceNamespace(world, { cluster: 'late' });
    const lateName = late.metadata?.name ?? '';
    await eventually(
      () => Promise.resolve(waitingDetail(daemon, lateName)),
      'the late namespace to be waiting',
    );
    await putSecret(world.hostApi, lateName, 'vc-late', { config: 'apiVersion: v1' });

    const expected = new Map<string, string>();
    for (const namespace of before.keys()) {
      const message = once.outcomes.find((o) => o.namespace === namespace)?.reason?.message;
      expect(message, namespace).toContain(`but Secret ${before.get(namespace) ?? ''}`);
      expected.set(namespace, message ?? '');
    }
    expect(expected.get([...before.keys()][0] ?? '')).toContain('(its keys: cluster.yaml)');
    expect(expected.get([...before.keys()][2] ?? '')).toContain('--provider capa-eks');

    for (const [namespace, message] of expected) {
      const detail = await eventually(
        () => Promise.resolve(waitingDetail(daemon, namespace)),
        `the daemon's message for ${namespace}`,
      );
      expect(detail).toBe(message);
    }
    const lateDetail = await eventually(
      () =>
        Promise.resolve(waitingDetail(daemon, lateName)?.includes('vc-late') ? true : undefined),
      'the hint for the Secret added while the daemon runs',
    );
    expect(lateDetail).toBe(true);
    const { plan: again } = await planJson(world, { dryRun: true });
    expect(waitingDetail(daemon, lateName)).toBe(
      again.outcomes.find((o) => o.namespace === lateName)?.reason?.message,
    );

    // The daemon's Waiting Event says it too; an applying --once records the same Event, so
    // the two are one Event, counted twice.
    const [first, message] = [...expected][0] ?? ['', ''];
    const waiting = async () =>
      (await world.hostApi.listNamespacedEvent({ namespace: first })).items.filter(
        (e) => e.reason === 'Waiting',
      );
    await eventually(
      async () => ((await waiting()).length > 0 ? true : undefined),
      "the daemon's Waiting Event",
    );
    await planJson(world);
    const events = await waiting();
    expect(events.map((e) => [e.message, e.count])).toEqual([[message, 2]]);
  });
});
