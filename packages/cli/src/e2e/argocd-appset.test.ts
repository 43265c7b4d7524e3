// ArgoCD's ApplicationSet controller consumes what the daemon writes: a clusters generator on
// the label the registrar copies from the namespace (`argocd-cluster-registrar/flux: "true"`,
// as in the README) yields exactly one Application per registered, labelled cluster, and
// follows every change the daemon makes. One ArgoCD and one daemon serve the whole file.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyObjects,
  clustersApplicationSet,
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
  decoded,
  deleteNamespace,
  eventually,
  kubeconfigYaml,
  putK3kKubeconfig,
  registration,
  startReadyDaemon,
  targetSecrets,
} from '../test-support/e2e.js';
import type { RunningDaemon, World } from '../test-support/e2e.js';

const FLUX = `${PREFIX}flux`;
const APPSET = 'flux';
const APP_PREFIX = 'flux-';

let world: World;
let argo: ArgoCd | undefined;
let daemon: RunningDaemon | undefined;

beforeAll(async () => {
  world = await createWorld();
  argo = await startArgoCd(world.host, { namespace: world.target });
  ({ daemon } = await startReadyDaemon(world));
  await applyObjects(world.host, [
    clustersApplicationSet(world.target, APPSET, { [FLUX]: 'true' }, APP_PREFIX),
  ]);
});

afterAll(async () => {
  await daemon?.stop();
  await argo?.stop();
});

function diagnostics(): string {
  const daemonLines = (daemon?.logs ?? []).slice(-40).map((l) => JSON.stringify(l));
  return `--- daemon\n${daemonLines.join('\n')}\n${argo?.logs() ?? ''}`;
}

/** Adds the daemon's and ArgoCD's recent logs to a failure. */
async function explained<T>(waiting: Promise<T>): Promise<T> {
  try {
    return await waiting;
  } catch (err) {
    throw new Error(`${String(err)}\n${diagnostics()}`);
  }
}

/** The registrations ArgoCD should generate for: cluster Secrets carrying the flux label. */
async function fluxRegistrations(): Promise<Map<string, string>> {
  const expected = new Map<string, string>();
  for (const secret of (await targetSecrets(world)).values()) {
    const labels = secret.metadata?.labels ?? {};
    if (labels['argocd.argoproj.io/secret-type'] === 'cluster' && labels[FLUX] === 'true')
      expected.set(
        `${APP_PREFIX}${decoded(secret, 'name') ?? ''}`,
        decoded(secret, 'server') ?? '',
      );
  }
  return expected;
}

/**
 * Waits until ArgoCD's Applications are exactly one per flux-labelled registration and
 * `check` holds for them. While waiting it asks for a reconcile with ArgoCD's refresh
 * annotation every 2 seconds: the controller's cluster informer can lag the Secret event that
 * triggered its last reconcile, and its own next look would be 3 minutes later.
 */
async function untilArgo(
  what: string,
  check: (apps: ArgoApplication[]) => boolean,
): Promise<ArgoApplication[]> {
  let nextRefresh = Date.now() + 2_000;
  try {
    return await eventually(
      async () => {
        const [apps, expected] = await Promise.all([
          listApplications(world.host, world.target),
          fluxRegistrations(),
        ]);
        const exact =
          apps.length === expected.size &&
          apps.every((a) => expected.get(a.name) === a.destinationServer);
        if (exact && check(apps)) return apps;
        if (Date.now() > nextRefresh) {
          await refreshApplicationSet(world.host, world.target, APPSET);
          nextRefresh = Date.now() + 2_000;
        }
        return undefined;
      },
      what,
      60_000,
      200,
    );
  } catch (err) {
    throw new Error(`${String(err)}\n${diagnostics()}`);
  }
}

const names = (apps: ArgoApplication[]): string[] => apps.map((a) => a.name);

/**
 * The child plane under a name of the cluster's own: the registrar refuses two registrations
 * of one server (ArgoCD would pick one at random), as provisioners give each cluster its own
 * Service.
 */
function serverOf(cluster: string): string {
  return `https://${cluster}.${CHILD_HOST}:${new URL(world.child.server).port}`;
}

function childKubeconfig(cluster: string): string {
  return kubeconfigYaml(world.child, { server: serverOf(cluster) });
}

async function fluxNamespace(cluster: string, kubeconfig = childKubeconfig(cluster)) {
  const ns = await createSourceNamespace(world, { cluster, labels: { [FLUX]: 'true' } });
  const name = ns.metadata?.name ?? '';
  await putK3kKubeconfig(world, name, kubeconfig, cluster);
  return name;
}

async function relabel(
  name: string,
  change: (labels: Record<string, string>) => Record<string, string>,
) {
  const ns = await world.hostApi.readNamespace({ name });
  const labels = change({ ...(ns.metadata?.labels ?? {}) });
  await world.hostApi.replaceNamespace({
    name,
    body: { ...ns, metadata: { ...ns.metadata, labels } },
  });
}

describe('ArgoCD ApplicationSet clusters generator on the copied flux label', () => {
  it('generates one Application per registered, labelled cluster and none for the unlabelled', async () => {
    await fluxNamespace('alpha');
    await fluxNamespace('beta');
    const plain = await createSourceNamespace(world, { cluster: 'gamma' });
    await putK3kKubeconfig(world, plain.metadata?.name ?? '', childKubeconfig('gamma'), 'gamma');
    await explained(eventually(() => registration(world, 'gamma'), 'the unlabelled registration'));

    const apps = await untilArgo('Applications for alpha and beta', (a) =>
      ['flux-alpha', 'flux-beta'].every((n) => names(a).includes(n)),
    );
    expect(names(apps)).toEqual(['flux-alpha', 'flux-beta']);
    expect(apps.map((a) => a.destinationServer)).toEqual([serverOf('alpha'), serverOf('beta')]);
  });

  it('removes the Application when the label is removed from the namespace', async () => {
    const name = await fluxNamespace('delta');
    await untilArgo('the Application for delta', (a) => names(a).includes('flux-delta'));

    await relabel(name, (labels) =>
      Object.fromEntries(Object.entries(labels).filter(([key]) => key !== FLUX)),
    );
    const apps = await untilArgo(
      'the Application for delta to go',
      (a) => !names(a).includes('flux-delta'),
    );
    // The cluster stays registered; only ArgoCD's selection changed.
    expect((await registration(world, 'delta'))?.metadata?.labels).not.toHaveProperty(FLUX);
    expect(names(apps)).not.toContain('flux-delta');
  });

  it('removes the registration and then the Application when the namespace is deleted', async () => {
    const name = await fluxNamespace('epsilon');
    await untilArgo('the Application for epsilon', (a) => names(a).includes('flux-epsilon'));

    await deleteNamespace(world, name);
    await eventually(
      async () => ((await registration(world, 'epsilon')) === undefined ? true : undefined),
      'the registration to be removed',
    );
    await untilArgo('the Application for epsilon to go', (a) => !names(a).includes('flux-epsilon'));
  });

  it('follows a rename; the demoted registration generates nothing', async () => {
    const name = await fluxNamespace('before');
    await untilArgo('the Application for before', (a) => names(a).includes('flux-before'));

    await relabel(name, (labels) => ({ ...labels, [`${PREFIX}cluster`]: 'after' }));
    const apps = await untilArgo(
      'the Application to follow the rename',
      (a) => names(a).includes('flux-after') && !names(a).includes('flux-before'),
    );
    // The old registration is still there, demoted: not a cluster Secret to ArgoCD.
    const demoted = await registration(world, 'before');
    expect(demoted?.metadata?.labels).not.toHaveProperty('argocd.argoproj.io/secret-type');
    expect(names(apps)).not.toContain('flux-before');
  });

  it('a broken kubeconfig in one namespace never disturbs the Applications of the others', async () => {
    const before = names(await untilArgo('a settled set of Applications', () => true));
    const broken = await fluxNamespace(
      'broken',
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: broken',
        '  cluster:',
        '    server: https://broken.example:6443',
        '    certificate-authority: /etc/rancher/k3s/server/tls/server-ca.crt',
        'users:',
        '- name: admin',
        '  user:',
        '    client-certificate: /etc/rancher/k3s/server/tls/client-admin.crt',
        '    client-key: /etc/rancher/k3s/server/tls/client-admin.key',
        'contexts:',
        '- name: broken',
        '  context: {cluster: broken, user: admin}',
        'current-context: broken',
        '',
      ].join('\n'),
    );
    // The daemon refuses it (an Event on the namespace says why) and writes nothing for it.
    await eventually(async () => {
      const events = await world.hostApi.listNamespacedEvent({ namespace: broken });
      return events.items.some((e) => e.reason === 'Refused') ? true : undefined;
    }, 'the refusal');
    // Another labelled cluster registers meanwhile, and everyone else's Application stays.
    await fluxNamespace('zeta');
    const apps = await untilArgo('the Application for zeta', (a) => names(a).includes('flux-zeta'));
    expect(names(apps)).toEqual([...before, 'flux-zeta'].sort());
    expect(await registration(world, 'broken')).toBeUndefined();
  });
});
