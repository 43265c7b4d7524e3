// The product's security test: every case of the hostile-input table at once, beside healthy
// neighbours and a hand-made cluster Secret, through `--once` and through the daemon (the
// shipped bundle, run as the image runs it: its Node release and flags, in a memory cgroup at
// the chart's limit), on the real plane. For each source: refused by name, or
// registered where the input is legitimate; the neighbours' registrations are neither
// rewritten nor deleted; the foreign Secret is untouched; no credential reaches any output, log
// line, Event or registration; the daemon answers its liveness probe throughout and stays
// under the chart's memory limit.

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreV1Event, V1Secret } from '@kubernetes/client-node';
import { uniqueName } from '@argocd-cluster-registrar/testkit';
import {
  createSourceNamespace,
  createWorld,
  eventually,
  planJson,
  PREFIX,
  REPO,
  startReadyDaemon,
  targetSecrets,
} from '../test-support/e2e.js';
import type { JsonPlan, RunningDaemon, World } from '../test-support/e2e.js';
import {
  CANARY,
  FOREIGN,
  hostileCases,
  neighbourKubeconfig,
  SUITE_FLAGS,
} from '../test-support/hostile-inputs.js';
import type { HostileCase, HostileSource } from '../test-support/hostile-inputs.js';
import { imageRuntime } from '../test-support/image-runtime.js';
import type { ImageRuntime } from '../test-support/image-runtime.js';

/** The chart's memory limit (values.yaml resources.limits.memory) and probe time-out. */
const CHART_MEMORY_LIMIT = 256 * 1024 * 1024;
const CHART_PROBE_TIMEOUT_MS = 3_000;

interface PlacedSource {
  readonly testCase: HostileCase;
  readonly source: HostileSource;
  readonly namespace: string;
}

let world: World;
const placed: PlacedSource[] = [];
const neighbours: string[] = [];
/** The neighbours' registrations and the foreign Secret as they were before any hostile input. */
const before = new Map<string, V1Secret>();
let daemon: RunningDaemon | undefined;
/** The daemon as the image ships it: one bundle of these sources, built for this run. */
let bundle = '';
let runtime: ImageRuntime | undefined;

async function putRawSecret(
  namespace: string,
  name: string,
  data: Readonly<Record<string, Buffer>>,
): Promise<void> {
  await world.hostApi.createNamespacedSecret({
    namespace,
    body: {
      metadata: { name, namespace },
      type: 'Opaque',
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v.toString('base64')])),
    },
  });
}

async function placeSource(testCase: HostileCase, source: HostileSource, index: number) {
  const name = source.name ?? uniqueName(`hostile-${testCase.id}`.slice(0, 40) + String(index));
  await createSourceNamespace(world, {
    name,
    ...(source.cluster === undefined ? {} : { cluster: source.cluster }),
    ...(source.labels === undefined ? {} : { labels: source.labels }),
    ...(source.annotations === undefined ? {} : { annotations: source.annotations }),
  });
  for (const [secret, data] of Object.entries(source.secrets))
    await putRawSecret(name, secret, data);
  placed.push({ testCase, source, namespace: name });
}

/** Everything the registrar wrote or said must be free of the canary credential. */
function expectNoCredential(where: string, text: string): void {
  expect(text.includes(CANARY), `${where} contains a credential`).toBe(false);
}

beforeAll(async () => {
  // A variable specifier: bundle.mjs is plain JavaScript, run by `pnpm build` as it is.
  const bundler = (await import(new URL('../../bundle.mjs', import.meta.url).href)) as {
    bundle(outdir: string): Promise<unknown>;
    readonly BUNDLE_NAME: string;
  };
  const outdir = mkdtempSync(join(tmpdir(), 'acr-hostile-bundle-'));
  await bundler.bundle(outdir);
  bundle = join(outdir, bundler.BUNDLE_NAME);
  runtime = imageRuntime(REPO);

  world = await createWorld();
  // A cluster Secret someone made by hand: its name and server are taken.
  await world.hostApi.createNamespacedSecret({
    namespace: world.target,
    body: {
      metadata: {
        name: FOREIGN.secret,
        labels: { 'argocd.argoproj.io/secret-type': 'cluster' },
      },
      stringData: { name: FOREIGN.name, server: FOREIGN.server, config: '{}' },
    },
  });
  for (const label of ['neighbour-a', 'neighbour-b']) {
    const ns = uniqueName(label);
    await createSourceNamespace(world, { name: ns });
    await putRawSecret(ns, 'k3k-c-kubeconfig', {
      'kubeconfig.yaml': neighbourKubeconfig(world, ns),
    });
    neighbours.push(ns);
  }
  // The neighbours are registered before any hostile input exists.
  const first = await planJson(world, { extra: SUITE_FLAGS });
  for (const ns of neighbours)
    expect(first.plan.outcomes.find((o) => o.namespace === ns)?.state).toBe('registered');
  for (const [name, secret] of await targetSecrets(world)) before.set(name, secret);

  for (const testCase of hostileCases(world))
    for (const [index, source] of testCase.sources.entries())
      await placeSource(testCase, source, index);
}, 300_000);

afterAll(async () => {
  await daemon?.stop('SIGKILL');
  runtime?.release();
});

/** The neighbours and the foreign Secret exactly as they were: not rewritten, not deleted. */
async function expectUndisturbed(): Promise<void> {
  const now = await targetSecrets(world);
  for (const [name, secret] of before) {
    const current = now.get(name);
    expect(current, `${name} was deleted`).toBeDefined();
    expect(current?.metadata?.uid, `${name} was re-created`).toBe(secret.metadata?.uid);
    expect(current?.metadata?.resourceVersion, `${name} was rewritten`).toBe(
      secret.metadata?.resourceVersion,
    );
  }
  for (const [name, secret] of now) {
    const data = Object.values(secret.data ?? {})
      .map((value) => Buffer.from(value, 'base64').toString('utf8'))
      .join('\n');
    expectNoCredential(`registration ${name}`, data);
  }
}

/** Every source as its case expects: its state, and its refusal's code where pinned. */
function expectOutcomes(plan: JsonPlan): void {
  const mismatches: string[] = [];
  for (const { testCase, source, namespace } of placed) {
    const outcome = plan.outcomes.find((o) => o.namespace === namespace);
    const wrongState = outcome?.state !== source.expect.state;
    const wrongCode =
      source.expect.code !== undefined && outcome?.reason?.code !== source.expect.code;
    if (wrongState || wrongCode)
      mismatches.push(
        `${testCase.id} (${testCase.what}): expected ${JSON.stringify(source.expect)}, got ${outcome?.state ?? 'no outcome'} ${JSON.stringify(outcome?.reason ?? {})}`,
      );
  }
  expect(mismatches).toEqual([]);
}

describe('the hostile-input suite', () => {
  it('--once refuses each hostile source by name, registers the legitimate ones and disturbs nothing else', async () => {
    // A stall (a quadratic parse, a crash loop) fails the test by its time-out; a memory
    // blow-up fails it by the heap limit, the chart's pod limit.
    const { plan, run } = await planJson(world, {
      extra: SUITE_FLAGS,
      env: { NODE_OPTIONS: `--max-old-space-size=${String(CHART_MEMORY_LIMIT / 2 ** 20)}` },
    });
    expectOutcomes(plan);
    for (const ns of neighbours)
      expect(plan.outcomes.find((o) => o.namespace === ns)?.state).toBe('unchanged');
    const actions = [plan, ...(plan.laterRounds ?? [])].flatMap((round) => round.actions);
    expect(actions.filter((a) => a.kind === 'delete' || a.kind === 'demote')).toEqual([]);
    expectNoCredential('the plan', run.stdout);
    expectNoCredential('the log', run.stderr);
    await expectUndisturbed();
  }, 180_000);

  it('the daemon, run as the image runs it, says the same in Events, answers its probe throughout and stays under the memory limit', async () => {
    const image = runtime ?? imageRuntime(REPO);
    const started = await startReadyDaemon(world, SUITE_FLAGS, image.env, image.command([bundle]));
    daemon = started.daemon;
    const probeFailures: string[] = [];
    const probing = { on: true };
    const prober = (async () => {
      while (probing.on) {
        try {
          const response = await fetch(`http://127.0.0.1:${String(started.port)}/healthz`, {
            signal: AbortSignal.timeout(CHART_PROBE_TIMEOUT_MS),
          });
          if (response.status !== 200) probeFailures.push(`status ${String(response.status)}`);
        } catch (err) {
          probeFailures.push(String(err));
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();

    // The daemon's own verdicts (its log: a refusal is a warning), the same as the preview's;
    // then the Events on the refused sources. (The legitimate ones --once already registered:
    // the daemon leaves them as they are, which expectUndisturbed below does not cover, so
    // they are checked by their registrations.)
    const refusedSources = placed.filter((p) => p.source.expect.state === 'refused');
    const verdicts = await eventually(
      () => {
        const refusals = new Map(
          (daemon?.logs ?? [])
            .filter((l) => l['msg'] === 'namespace refused')
            .map((l) => [String(l['namespace']), String(l['reason'])]),
        );
        return Promise.resolve(
          refusedSources.every(({ namespace }) => refusals.has(namespace)) ? refusals : undefined,
        );
      },
      "the daemon's refusal of every hostile source",
      120_000,
    );
    const mismatches = refusedSources.flatMap(({ testCase, source, namespace }) =>
      source.expect.code === undefined || verdicts.get(namespace) === source.expect.code
        ? []
        : [
            `${testCase.id}: expected ${source.expect.code}, got ${String(verdicts.get(namespace))}`,
          ],
    );
    expect(mismatches).toEqual([]);
    const secrets = await targetSecrets(world);
    for (const { namespace } of placed.filter((p) => p.source.expect.state === 'registered'))
      expect(
        [...secrets.values()].some(
          (s) => s.metadata?.labels?.[`${PREFIX}source-namespace`] === namespace,
        ),
        `the registration of ${namespace}`,
      ).toBe(true);
    const events = new Map<string, CoreV1Event[]>();
    for (const { namespace } of refusedSources) {
      const list = await world.hostApi.listNamespacedEvent({ namespace });
      events.set(
        namespace,
        list.items.filter((e) => e.reason === 'Refused'),
      );
      expect(events.get(namespace), `a Refused Event on ${namespace}`).not.toEqual([]);
    }
    probing.on = false;
    await prober;

    for (const [namespace, list] of events)
      for (const event of list) expectNoCredential(`an Event on ${namespace}`, event.message ?? '');
    expectNoCredential('the daemon log', JSON.stringify(daemon.logs));
    expect(probeFailures).toEqual([]);
    // Where a memory cgroup could be made, the kernel enforces the chart's limit as a pod's.
    expect(image.oomKilled()).toBe(false);
    const peak = /VmHWM:\s+(\d+) kB/.exec(
      readFileSync(`/proc/${String(daemon.process.pid)}/status`, 'utf8'),
    );
    expect(Number(peak?.[1]) * 1024).toBeLessThan(CHART_MEMORY_LIMIT);
    expect(daemon.logs.filter((l) => l['level'] === 'error' || l['level'] === 'fatal')).toEqual([]);
    await daemon.stop();
    daemon = undefined;
    await expectUndisturbed();
  }, 240_000);
});
