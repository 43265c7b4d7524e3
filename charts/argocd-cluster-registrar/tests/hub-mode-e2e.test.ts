// The chart's hub mode on a real API server, and scripts/hub-kubeconfig as the README gives it:
// the hub-side objects are rendered with helm and applied to the `test-host` plane (the hub
// here), the script prints a spoke's kubeconfig Secret, that Secret is applied on the
// `test-child` plane (the spoke here), and the kubeconfig it holds authenticates at the hub as
// exactly the spoke's identity: it may watch and write Secrets in the ArgoCD namespace, only
// registrations of its managed-by (the write policy), and nothing else.
//
// No kube-controller-manager runs on these planes, so nobody fills a
// kubernetes.io/service-account-token Secret: the test does what its token controller does
// (testkit's fillTokenSecret).

import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  coreApi,
  fillTokenSecret,
  statusOf,
  testChildPlane,
  testHostPlane,
  tokenKubeConfig,
  uniqueName,
} from '@argocd-cluster-registrar/testkit';
import type { ControlPlane } from '@argocd-cluster-registrar/testkit';
import { eventually, whoAmI } from '../../../packages/cli/src/test-support/e2e.js';
import { YAML, render, repoRoot, run, toolsBinDir } from './chart-support.js';
import type { Manifest } from './chart-support.js';

const SCRIPT = join(repoRoot, 'scripts/hub-kubeconfig');
const PREFIX = 'argocd-cluster-registrar/';

let hub: ControlPlane;
let spoke: ControlPlane;
const release = uniqueName('hub');
const releaseNamespace = uniqueName('registrar-hub');
const argocd = uniqueName('argocd');
const spokeNamespace = uniqueName('registrar');
let manifests: Manifest[] = [];
let identity = '';
let scratch = '';

async function kubectl(plane: ControlPlane, args: readonly string[], input?: string) {
  const result = await run(
    join(await toolsBinDir(), 'kubectl'),
    ['--kubeconfig', plane.kubeconfigPath, ...args],
    input === undefined ? {} : { input },
  );
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

/** The script as a user runs it: kubectl on PATH, stdout a pipe. */
function hubKubeconfig(
  args: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    void toolsBinDir().then((bin) => {
      execFile(
        SCRIPT,
        args,
        { env: { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}`, KUBECONFIG: '' } },
        (error, stdout, stderr) => {
          resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr });
        },
      );
    });
  });
}

beforeAll(async () => {
  [hub, spoke] = await Promise.all([testHostPlane(), testChildPlane()]);
  scratch = await mkdtemp(join(tmpdir(), 'acr-hub-mode-'));
  manifests = await render(
    {
      hub: {
        enabled: true,
        argocdNamespace: argocd,
        spokes: [{ name: 'host-a' }, { name: 'host-b' }],
      },
    },
    { release, namespace: releaseNamespace },
  );
  for (const name of [releaseNamespace, argocd])
    await coreApi(hub).createNamespace({ body: { metadata: { name } } });
  await coreApi(spoke).createNamespace({ body: { metadata: { name: spokeNamespace } } });
  await kubectl(
    hub,
    ['apply', '-f', '-'],
    manifests.map((m) => `---\n${YAML.stringify(m)}`).join(''),
  );
  identity = `${release}-argocd-cluster-registrar-host-a`;
  await fillTokenSecret(hub, releaseNamespace, `${identity}-token`, identity);
  await fillTokenSecret(
    hub,
    releaseNamespace,
    `${release}-argocd-cluster-registrar-host-b-token`,
    `${release}-argocd-cluster-registrar-host-b`,
  );
});

afterAll(async () => {
  if (scratch !== '') await rm(scratch, { recursive: true, force: true });
  // The policies are cluster-wide: no other file may meet them.
  const policies = manifests
    .filter((m) => m.kind.startsWith('ValidatingAdmissionPolicy'))
    .map((m) => `${m.kind.toLowerCase()}/${m.metadata.name}`);
  if (policies.length > 0) await kubectl(hub, ['delete', '--ignore-not-found', ...policies]);
});

interface AppliedKubeconfig {
  readonly server: string;
  readonly caPem: string;
  readonly token: string;
}

/** What the kubeconfig in the applied Secret says, read as the spoke's registrar reads it. */
async function appliedKubeconfig(): Promise<AppliedKubeconfig> {
  const secret = await coreApi(spoke).readNamespacedSecret({
    namespace: spokeNamespace,
    name: 'hub',
  });
  const text = Buffer.from(secret.data?.['config'] ?? '', 'base64').toString('utf8');
  const config = YAML.parse(text) as {
    'current-context': string;
    contexts: { name: string; context: { cluster: string; user: string } }[];
    clusters: { name: string; cluster: { server: string; 'certificate-authority-data': string } }[];
    users: { name: string; user: { token: string } }[];
  };
  const context = config.contexts.find((c) => c.name === config['current-context'])?.context;
  const cluster = config.clusters.find((c) => c.name === context?.cluster)?.cluster;
  const user = config.users.find((u) => u.name === context?.user)?.user;
  return {
    server: cluster?.server ?? '',
    caPem: Buffer.from(cluster?.['certificate-authority-data'] ?? '', 'base64').toString('utf8'),
    token: user?.token ?? '',
  };
}

const spokeAtHub = async () => {
  const applied = await appliedKubeconfig();
  return tokenKubeConfig({ name: 'hub', ...applied }, applied.token, 'spoke');
};

describe('scripts/hub-kubeconfig and the hub identity the chart renders', () => {
  test('prints a Secret the spoke applies; its kubeconfig authenticates at the hub as the spoke', async () => {
    const printed = await hubKubeconfig([
      'host-a',
      '--kubeconfig',
      hub.kubeconfigPath,
      '-n',
      releaseNamespace,
      '--secret-name',
      'hub',
      '--key',
      'config',
    ]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stderr).toBe('');
    await kubectl(spoke, ['apply', '-n', spokeNamespace, '-f', '-'], printed.stdout);

    const applied = await appliedKubeconfig();
    expect(applied.server).toBe(hub.server);
    expect(applied.caPem).toBe(hub.caPem);
    const who = await whoAmI(applied.server, {
      bearerToken: applied.token,
      tlsClientConfig: { insecure: false, caData: Buffer.from(applied.caPem).toString('base64') },
    });
    expect(who).toEqual({
      status: 201,
      username: `system:serviceaccount:${releaseNamespace}:${identity}`,
    });
  });

  test('the identity may list, watch, create, patch and delete Secrets in the ArgoCD namespace, and nothing else', async () => {
    const kc = await spokeAtHub();
    const api = coreApi(kc);
    const path = join(scratch, 'spoke-at-hub.kubeconfig');
    await writeFile(path, kc.exportConfig(), { mode: 0o600 });
    const kubectlBin = join(await toolsBinDir(), 'kubectl');
    const canI = async (...args: string[]): Promise<string> =>
      (await run(kubectlBin, ['--kubeconfig', path, 'auth', 'can-i', ...args])).stdout.trim();
    for (const verb of ['list', 'watch', 'create', 'patch', 'delete'])
      expect(await canI(verb, 'secrets', '-n', argocd), verb).toBe('yes');
    for (const args of [
      ['get', 'secrets', '-n', argocd],
      ['update', 'secrets', '-n', argocd],
      ['list', 'secrets', '-n', releaseNamespace],
      ['create', 'secrets', '-n', 'default'],
      ['list', 'secrets', '--all-namespaces'],
      ['create', 'events', '-n', argocd],
      ['create', 'leases.coordination.k8s.io', '-n', argocd],
      ['get', `namespace/${argocd}`],
      ['list', 'namespaces'],
    ])
      expect(await canI(...args), args.join(' ')).toBe('no');
    // And the list really answers (the watches' first request).
    const listed = await api.listNamespacedSecret({ namespace: argocd });
    expect(listed.items).toEqual([]);
  });

  test("the write policy lets the spoke write only cluster-* registrations of its managed-by and its host, never another spoke's or ArgoCD's own Secrets", async () => {
    const api = coreApi(await spokeAtHub());
    const registration = {
      metadata: {
        name: 'cluster-child-a',
        labels: {
          'argocd.argoproj.io/secret-type': 'cluster',
          [`${PREFIX}managed-by`]: 'cluster-registrar',
          // Spoke host-a's entry names no hostId: its name is the identity it must record.
          [`${PREFIX}host-id`]: 'host-a',
        },
      },
      stringData: { name: 'child-a', server: 'https://child-a.example:6443', config: '{}' },
    };
    // Policies are enforced once the API server has loaded them.
    await eventually(
      async () => {
        try {
          await api.createNamespacedSecret({
            namespace: argocd,
            body: { metadata: { name: 'argocd-secret' } },
            dryRun: 'All',
          });
          return undefined;
        } catch (error) {
          return statusOf(error) === 403 ? true : undefined;
        }
      },
      'the write policy to be enforced',
      30_000,
      250,
    );
    await api.createNamespacedSecret({ namespace: argocd, body: registration });
    const denied = async (what: string, call: () => Promise<unknown>): Promise<void> => {
      let status: number | undefined;
      try {
        await call();
      } catch (error) {
        status = statusOf(error);
      }
      expect(status, what).toBe(403);
    };
    await denied('a registration of another managed-by', () =>
      api.createNamespacedSecret({
        namespace: argocd,
        body: {
          ...registration,
          metadata: {
            name: 'cluster-other',
            labels: { ...registration.metadata.labels, [`${PREFIX}managed-by`]: 'someone-else' },
          },
        },
      }),
    );
    // Spokes share a managed-by: host-b's registration is still not host-a's to write.
    const ofHostB = {
      ...registration,
      metadata: {
        name: 'cluster-child-b',
        labels: { ...registration.metadata.labels, [`${PREFIX}host-id`]: 'host-b' },
      },
    };
    await denied("a registration recording another spoke's host", () =>
      api.createNamespacedSecret({ namespace: argocd, body: ofHostB }),
    );
    await coreApi(hub).createNamespacedSecret({ namespace: argocd, body: ofHostB });
    await denied("a patch of another spoke's registration", () =>
      api.patchNamespacedSecret({
        namespace: argocd,
        name: 'cluster-child-b',
        body: [{ op: 'add', path: '/data/server', value: 'eA==' }],
      }),
    );
    await denied("a deletion of another spoke's registration", () =>
      api.deleteNamespacedSecret({ namespace: argocd, name: 'cluster-child-b' }),
    );
    await denied('handing its own registration to another host', () =>
      api.patchNamespacedSecret({
        namespace: argocd,
        name: 'cluster-child-a',
        body: [
          {
            op: 'replace',
            path: `/metadata/labels/${PREFIX.replace('/', '~1')}host-id`,
            value: 'host-b',
          },
        ],
      }),
    );
    await denied('a registration without a host identity', () =>
      api.createNamespacedSecret({
        namespace: argocd,
        body: {
          ...registration,
          metadata: {
            name: 'cluster-unmarked',
            labels: { [`${PREFIX}managed-by`]: 'cluster-registrar' },
          },
        },
      }),
    );
    await coreApi(hub).deleteNamespacedSecret({ namespace: argocd, name: 'cluster-child-b' });
    // argocd-secret, as ArgoCD's install holds it: the spoke can neither change nor delete it.
    await coreApi(hub).createNamespacedSecret({
      namespace: argocd,
      body: { metadata: { name: 'argocd-secret' }, stringData: { 'server.secretkey': 'x' } },
    });
    await denied('a patch of argocd-secret', () =>
      api.patchNamespacedSecret({
        namespace: argocd,
        name: 'argocd-secret',
        body: [{ op: 'add', path: '/data/admin.password', value: 'eA==' }],
      }),
    );
    await denied('a deletion of argocd-secret', () =>
      api.deleteNamespacedSecret({ namespace: argocd, name: 'argocd-secret' }),
    );
    await api.deleteNamespacedSecret({ namespace: argocd, name: 'cluster-child-a' });
  });

  test('a spoke the hub does not list, or a stdout that is a terminal, gets no token', async () => {
    const unknown = await hubKubeconfig([
      'host-c',
      '--kubeconfig',
      hub.kubeconfigPath,
      '-n',
      releaseNamespace,
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain('no identity for spoke host-c');
    expect(unknown.stderr).toContain('hub.spokes');
    const plain = await hubKubeconfig([
      'host-a',
      '--kubeconfig',
      hub.kubeconfigPath,
      '-n',
      releaseNamespace,
      '--server',
      'http://hub.example:6443',
    ]);
    expect(plain.code).toBe(2);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toContain('not an https:// address');
    // `script` gives the command a terminal for stdout.
    const tty = await run(
      'script',
      [
        '-qec',
        `${SCRIPT} host-a --kubeconfig ${hub.kubeconfigPath} -n ${releaseNamespace}`,
        '/dev/null',
      ],
      { env: { ...process.env, PATH: `${await toolsBinDir()}:${process.env['PATH'] ?? ''}` } },
    );
    expect(tty.code).toBe(2);
    expect(tty.stdout).toContain('this prints a token: pipe it');
    expect(tty.stdout).not.toMatch(/token: ey/);
  });
});
