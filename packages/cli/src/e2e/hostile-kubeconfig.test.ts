// Kubeconfig Secrets written to hurt: a tenant's text must be refused by name, cheaply, while
// every other namespace registers, in `--once` and in the daemon, whose probes keep answering.

import { describe, expect, it } from 'vitest';
import { KUBECONFIG_LIMITS } from '@argocd-cluster-registrar/core';
import {
  createSourceNamespace,
  eventually,
  httpGet,
  kubeconfigYaml,
  outcomeOf,
  planJson,
  putK3kKubeconfig,
  registration,
  startReadyDaemon,
  useWorld,
} from '../test-support/e2e.js';

const { world, daemons } = useWorld();

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.aG9zdGlsZS10ZW5hbnQ.SiGnAtUrE';

// 30,000 short keys, ~200 KB: quadratic to check for duplicates.
const MANY_KEYS = Array.from({ length: 30_000 }, (_, i) => `${i.toString(36)}: 1`).join('\n');
// A few KB that the YAML library would recurse into once per bracket.
const DEEP = `clusters: ${'['.repeat(5_000)}${']'.repeat(5_000)}\n`;
// A token carried in a tag, which the library's error message quotes.
const TAGGED = `users:\n- name: u\n  user:\n    token: !${TOKEN} x\n`;

/** A neighbour with a usable kubeconfig, and one namespace per hostile kubeconfig. */
async function hostileNamespaces(): Promise<Record<'many' | 'deep' | 'tagged', string>> {
  const neighbour = await createSourceNamespace(world, { cluster: 'neighbour' });
  await putK3kKubeconfig(world, neighbour.metadata?.name ?? '', kubeconfigYaml(world.child));
  const names = { many: '', deep: '', tagged: '' };
  for (const [what, text] of [
    ['many', MANY_KEYS],
    ['deep', DEEP],
    ['tagged', TAGGED],
  ] as const) {
    const ns = await createSourceNamespace(world, { cluster: `hostile-${what}` });
    names[what] = ns.metadata?.name ?? '';
    await putK3kKubeconfig(world, names[what], text, what);
  }
  return names;
}

describe('hostile kubeconfigs', () => {
  it('--once refuses each by name and registers the neighbour', async () => {
    const names = await hostileNamespaces();
    const started = Date.now();
    const { plan, run } = await planJson(world);
    expect(Date.now() - started).toBeLessThan(30_000);

    expect(outcomeOf(plan, names.many)?.reason).toMatchObject({ code: 'kubeconfig-over-limit' });
    expect(outcomeOf(plan, names.many)?.reason?.message).toContain(
      `Secret k3k-many-kubeconfig key kubeconfig.yaml: the kubeconfig has more than ${KUBECONFIG_LIMITS.maxNodes} keys`,
    );
    expect(outcomeOf(plan, names.deep)?.reason).toMatchObject({ code: 'kubeconfig-over-limit' });
    expect(outcomeOf(plan, names.deep)?.reason?.message).toContain(
      `nested more than ${KUBECONFIG_LIMITS.maxDepth} levels deep`,
    );
    expect(outcomeOf(plan, names.tagged)?.reason).toMatchObject({ code: 'kubeconfig-not-yaml' });
    for (const output of [run.stdout, run.stderr]) expect(output).not.toContain(TOKEN.slice(0, 20));
    const events = await world.hostApi.listNamespacedEvent({ namespace: names.tagged });
    expect(events.items.map((event) => event.message).join('\n')).not.toContain(TOKEN.slice(0, 20));

    expect(await registration(world, 'neighbour')).toBeDefined();
    for (const what of ['many', 'deep', 'tagged'])
      expect(await registration(world, `hostile-${what}`)).toBeUndefined();
  });

  it('the daemon keeps answering /healthz while it reads them', async () => {
    const { daemon, port } = await startReadyDaemon(world, ['--interval=10m']);
    daemons.push(daemon);
    // Created while the daemon runs: each Secret is read (and refused) as its event arrives,
    // on the thread that answers the probes.
    const writing = hostileNamespaces();
    const refused = async (namespace: string): Promise<boolean> => {
      const events = await world.hostApi.listNamespacedEvent({ namespace });
      return events.items.some((event) => event.reason === 'Refused');
    };
    // Probed until both refusals are out, so the probes span the reads.
    let slowest = 0;
    await eventually(async () => {
      const asked = Date.now();
      expect((await httpGet(port, '/healthz')).status).toBe(200);
      slowest = Math.max(slowest, Date.now() - asked);
      const names = await writing;
      return (await refused(names.many)) && (await refused(names.deep)) ? true : undefined;
    }, 'both refusals');
    await eventually(() => registration(world, 'neighbour'), 'the neighbour to register');
    expect((await httpGet(port, '/healthz')).status).toBe(200);
    // The chart's liveness probe gives up after 3 s.
    expect(slowest).toBeLessThan(3_000);
    expect(JSON.stringify(daemon.logs)).not.toContain(TOKEN.slice(0, 20));
  });
});
