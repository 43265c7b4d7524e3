// Drain before deregistration with ArgoCD's ApplicationSet controller in the loop: a clusters
// generator selects `<prefix>env: e2e`, the label the registrar copies from the namespace.
// With --drain-on-terminate, a terminating namespace's registration loses that label, so
// ArgoCD removes the generated Application while the registration (the cluster ArgoCD would
// reach to clean up) still exists; the registration goes once the namespace is gone. Without
// the flag, the Application stays until the registration is deleted. One ArgoCD serves the
// file; each test runs its own daemon. No namespace controller runs on the test plane, so a
// deleted namespace stays terminating until the test finalizes it.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  applyObjects,
  clustersApplicationSet,
  finalizeNamespace,
  listApplications,
  refreshApplicationSet,
  startArgoCd,
} from '@argocd-cluster-registrar/testkit';
import type { ArgoApplication, ArgoCd } from '@argocd-cluster-registrar/testkit';
import {
  CHILD_HOST,
  PREFIX,
  createSourceNamespace,
  createWorld,
  eventually,
  kubeconfigYaml,
  putK3kKubeconfig,
  registration,
  startReadyDaemon,
} from '../test-support/e2e.js';
import type { RunningDaemon, World } from '../test-support/e2e.js';

const ENV = `${PREFIX}env`;
const APPSET = 'e2e';
const APP_PREFIX = 'e2e-';

let world: World;
let argo: ArgoCd | undefined;
let daemon: RunningDaemon | undefined;

beforeAll(async () => {
  world = await createWorld();
  argo = await startArgoCd(world.host, { namespace: world.target });
  // preserveResourcesOnDeletion (the helper sets it): no repo server runs, so a resources
  // finalizer on a removed Application would wait forever.
  await applyObjects(world.host, [
    clustersApplicationSet(world.target, APPSET, { [ENV]: 'e2e' }, APP_PREFIX),
  ]);
});

afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
});

afterAll(async () => {
  await argo?.stop();
});

function diagnostics(): string {
  const daemonLines = (daemon?.logs ?? []).slice(-40).map((l) => JSON.stringify(l));
  return `--- daemon\n${daemonLines.join('\n')}\n${argo?.logs() ?? ''}`;
}

async function explained<T>(waiting: Promise<T>): Promise<T> {
  try {
    return await waiting;
  } catch (err) {
    throw new Error(`${String(err)}\n${diagnostics()}`);
  }
}

async function startReady(extra: readonly string[]): Promise<void> {
  ({ daemon } = await startReadyDaemon(world, ['--interval=10m', ...extra]));
}

/**
 * Waits until `check` holds for ArgoCD's Applications, asking for a reconcile with ArgoCD's
 * refresh annotation every 2 seconds (its own next look after a lagging informer would be
 * 3 minutes later).
 */
async function untilArgo(
  what: string,
  check: (apps: ArgoApplication[]) => boolean,
): Promise<ArgoApplication[]> {
  let nextRefresh = Date.now() + 2_000;
  return explained(
    eventually(
      async () => {
        const apps = await listApplications(world.host, world.target);
        if (check(apps)) return apps;
        if (Date.now() > nextRefresh) {
          await refreshApplicationSet(world.host, world.target, APPSET);
          nextRefresh = Date.now() + 2_000;
        }
        return undefined;
      },
      what,
      60_000,
      200,
    ),
  );
}

const has = (apps: ArgoApplication[], cluster: string): boolean =>
  apps.some((a) => a.name === `${APP_PREFIX}${cluster}`);

/** A namespace labelled `env: e2e` with a kubeconfig for the child under the cluster's own name. */
async function e2eNamespace(cluster: string): Promise<string> {
  const ns = await createSourceNamespace(world, { cluster, labels: { [ENV]: 'e2e' } });
  const name = ns.metadata?.name ?? '';
  const server = `https://${cluster}.${CHILD_HOST}:${new URL(world.child.server).port}`;
  await putK3kKubeconfig(world, name, kubeconfigYaml(world.child, { server }), cluster);
  return name;
}

async function untilGone(cluster: string, what: string): Promise<void> {
  await explained(
    eventually(
      async () => ((await registration(world, cluster)) === undefined ? true : undefined),
      what,
    ),
  );
}

describe('drain on terminate with ArgoCD', () => {
  it('removes the generated Application while the registration still exists, then the registration', async () => {
    await startReady(['--drain-on-terminate']);
    const name = await e2eNamespace('draining');
    await untilArgo('the Application for draining', (apps) => has(apps, 'draining'));

    await world.hostApi.deleteNamespace({ name });
    const drained = await explained(
      eventually(async () => {
        const secret = await registration(world, 'draining');
        return secret !== undefined && secret.metadata?.labels?.[ENV] === undefined
          ? secret
          : undefined;
      }, 'the registration to lose the copied label'),
    );
    expect(drained.metadata?.labels?.['argocd.argoproj.io/secret-type']).toBe('cluster');
    await untilArgo('the Application for draining to go', (apps) => !has(apps, 'draining'));
    // ArgoCD removed it while the cluster it would clean up on is still registered.
    const still = await registration(world, 'draining');
    expect(still?.metadata?.uid).toBe(drained.metadata?.uid);
    expect(still?.metadata?.labels?.['argocd.argoproj.io/secret-type']).toBe('cluster');

    await finalizeNamespace(world.host, name);
    await untilGone('draining', 'the registration to be deleted once the namespace is gone');
  });

  it('without the flag, the Application stays while the namespace terminates, and goes with the registration', async () => {
    await startReady([]);
    const name = await e2eNamespace('kept');
    await untilArgo('the Application for kept', (apps) => has(apps, 'kept'));

    await world.hostApi.deleteNamespace({ name });
    // A later labelled cluster: once ArgoCD generated its Application, both the daemon and
    // ArgoCD have looked again after the namespace began terminating.
    await e2eNamespace('marker');
    const apps = await untilArgo('the Application for marker', (a) => has(a, 'marker'));
    expect(has(apps, 'kept')).toBe(true);
    expect((await registration(world, 'kept'))?.metadata?.labels?.[ENV]).toBe('e2e');

    await finalizeNamespace(world.host, name);
    await untilGone('kept', 'the registration to be deleted once the namespace is gone');
    await untilArgo('the Application for kept to go', (a) => !has(a, 'kept') && has(a, 'marker'));
  });
});
