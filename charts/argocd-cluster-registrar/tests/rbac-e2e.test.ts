// The chart's RBAC, proven on a real API server: the rendered ServiceAccount, ClusterRole(Binding)
// and Role(Binding) are applied to the `test-host` plane, a token is minted for that
// ServiceAccount, and the CLI runs with exactly the container arguments the chart renders,
// authenticated by that token. Registrations (and removals) must work; everything else the
// identity tries must be refused with 403. The chart's admission policies (on by default) are
// applied beside the RBAC and enforced before the CLI starts, so every run here also proves
// that they let the registrar do its job (admission-e2e.test.ts proves what they refuse). With
// `capiClusters` on, the same on a plane of its own (Cluster API's CRDs are cluster-wide, and
// the shared host plane must serve none): the daemon starts before the CRDs exist, and
// registers a Cluster once they do. With `vclusterSleep` on, the identity reads a vcluster's
// StatefulSet as metadata (list only, never get) and the child of a paused vcluster is paused.

import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  coreApi,
  finalizeNamespace,
  installCapiCrds,
  mintToken,
  statusOf,
  testChildPlane,
  startControlPlane,
  testHostPlane,
  tokenKubeConfig,
  uniqueName,
} from '@argocd-cluster-registrar/testkit';
import type { ControlPlane } from '@argocd-cluster-registrar/testkit';
import {
  clusterConfig,
  decoded,
  eventually,
  getSecret,
  kubeconfigYaml,
  putSecret,
  whoAmI,
} from '../../../packages/cli/src/test-support/e2e.js';
import {
  containerOf,
  helm,
  only,
  render,
  repoRoot,
  run,
  toolsBinDir,
  YAML,
} from './chart-support.js';
import type { Manifest } from './chart-support.js';

const MAIN = join(repoRoot, 'packages/cli/src/main.ts');
const SOURCE_TSCONFIG = join(repoRoot, 'packages/cli/tsconfig.source.json');
const PREFIX = 'argocd-cluster-registrar/';
const RBAC_KINDS = new Set([
  'ServiceAccount',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
]);

let host: ControlPlane;
let child: ControlPlane;
let scratch = '';

beforeAll(async () => {
  [host, child] = await Promise.all([testHostPlane(), testChildPlane()]);
  scratch = await mkdtemp(join(tmpdir(), 'acr-rbac-e2e-'));
});

afterAll(async () => {
  if (scratch !== '') await rm(scratch, { recursive: true, force: true });
  // The policies are cluster-wide: the next test file gets a plane without them.
  await kubectl([
    'delete',
    'validatingadmissionpolicybinding,validatingadmissionpolicy',
    '-l',
    'app.kubernetes.io/part-of=argocd-cluster-registrar',
  ]);
});

async function kubectl(
  args: readonly string[],
  input?: string,
  plane: ControlPlane = host,
): Promise<string> {
  const bin = await toolsBinDir();
  const result = await run(
    join(bin, 'kubectl'),
    ['--kubeconfig', plane.kubeconfigPath, ...args],
    input === undefined ? {} : { input },
  );
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed:\n${result.stderr}`);
  return result.stdout;
}

async function applyAsAdmin(
  manifests: readonly Manifest[],
  plane: ControlPlane = host,
): Promise<void> {
  await kubectl(
    ['apply', '-f', '-'],
    manifests.map((m) => `---\n${YAML.stringify(m)}`).join(''),
    plane,
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        resolve(typeof address === 'object' && address !== null ? address.port : 0);
      });
    });
  });
}

/** The CLI's environment: sources via tsx, nothing inherited that could point it elsewhere. */
function cliEnv(): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(
    ([key]) => !key.startsWith('ACR_') && key !== 'KUBECONFIG' && key !== 'KUBERNETES_SERVICE_HOST',
  );
  return { ...Object.fromEntries(inherited), TSX_TSCONFIG_PATH: SOURCE_TSCONFIG, NO_COLOR: '1' };
}

/** An installation of the chart's RBAC on the host plane, with a token of its ServiceAccount. */
interface Installation {
  readonly releaseNamespace: string;
  readonly targetNamespace: string;
  readonly managedBy: string;
  readonly serviceAccount: string;
  /** The Deployment's container args, verbatim. */
  readonly args: readonly string[];
  /** A kubeconfig authenticated only by the ServiceAccount's token. */
  readonly kubeconfigPath: string;
  readonly tokenApi: ReturnType<typeof coreApi>;
  readonly manifests: readonly Manifest[];
}

async function install(
  values: Record<string, unknown> = {},
  plane: ControlPlane = host,
): Promise<Installation> {
  const release = uniqueName('acr');
  const releaseNamespace = uniqueName('registrar');
  const targetNamespace = uniqueName('argocd');
  const managedBy = uniqueName('rbac');
  const manifests = await render(
    { targetNamespace, managedBy, ...values },
    { release, namespace: releaseNamespace },
  );
  const api = coreApi(plane);
  for (const name of [releaseNamespace, targetNamespace]) {
    await api.createNamespace({ body: { metadata: { name } } });
  }
  // The RBAC and the chart's admission policies: the registrar must work within both.
  await applyAsAdmin(
    manifests.filter((m) => RBAC_KINDS.has(m.kind) || m.kind.startsWith('ValidatingAdmission')),
    plane,
  );
  const serviceAccount = only(manifests, 'ServiceAccount').metadata.name;
  const token = await mintToken(plane, releaseNamespace, serviceAccount, 3600);
  const kubeConfig = tokenKubeConfig(plane, token, serviceAccount);
  const kubeconfigPath = join(scratch, `${release}.kubeconfig`);
  await writeFile(kubeconfigPath, kubeConfig.exportConfig(), { mode: 0o600 });
  await chmod(kubeconfigPath, 0o600);
  const tokenApi = coreApi(kubeConfig);
  if (manifests.some((m) => m.metadata.name.endsWith('-registrar-writes'))) {
    // Policies take effect once the API server has loaded them: from then on, a Secret that
    // is not a registration is refused even as a server-side dry run.
    await eventually(
      async () => {
        try {
          await tokenApi.createNamespacedSecret({
            namespace: targetNamespace,
            body: { metadata: { name: 'argocd-secret' } },
            dryRun: 'All',
          });
          return undefined;
        } catch (error) {
          return statusOf(error) === 403 ? true : undefined;
        }
      },
      'the registrar policy to be enforced',
      30_000,
      250,
    );
  }
  return {
    releaseNamespace,
    targetNamespace,
    managedBy,
    serviceAccount,
    args: containerOf(manifests).args,
    kubeconfigPath,
    tokenApi,
    manifests,
  };
}

/** A labelled source namespace holding a k3k-style kubeconfig Secret for the child plane. */
async function sourceNamespace(
  installation: Installation,
  cluster: string,
  plane: ControlPlane = host,
): Promise<string> {
  const name = uniqueName('k3k');
  const api = coreApi(plane);
  await api.createNamespace({
    body: {
      metadata: {
        name,
        labels: {
          [`${PREFIX}managed-by`]: installation.managedBy,
          [`${PREFIX}cluster`]: cluster,
          [`${PREFIX}team`]: 'a',
        },
      },
    },
  });
  await putSecret(api, name, `k3k-${cluster}-kubeconfig`, {
    'kubeconfig.yaml': kubeconfigYaml(child),
  });
  return name;
}

interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `node --import tsx packages/cli/src/main.ts <the Deployment's args> --once --kubeconfig <token>`. */
function runOnce(installation: Installation): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const cli = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        MAIN,
        ...installation.args,
        '--once',
        '--kubeconfig',
        installation.kubeconfigPath,
      ],
      { cwd: repoRoot, env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    cli.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    cli.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    cli.on('error', reject);
    cli.on('close', (code) => {
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
}

interface Daemon {
  /** The last 20,000 characters of its stderr (its log). */
  log(): string;
  stop(): Promise<void>;
}

/** The daemon, with exactly the Deployment's args, authenticated by the ServiceAccount token. */
function startDaemon(installation: Installation): Daemon {
  const cli = spawn(
    process.execPath,
    ['--import', 'tsx', MAIN, ...installation.args, '--kubeconfig', installation.kubeconfigPath],
    { cwd: repoRoot, env: cliEnv(), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  cli.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-20_000);
  });
  const exited = new Promise<number | null>((resolve) => cli.on('exit', resolve));
  return {
    log: () => stderr,
    stop: async () => {
      if (cli.exitCode === null) cli.kill('SIGTERM');
      await exited;
    },
  };
}

/** `kubectl auth can-i <args>` as the installation's identity: `yes` or `no`. */
async function canI(installation: Installation, ...args: string[]): Promise<string> {
  const result = await run(join(await toolsBinDir(), 'kubectl'), [
    '--kubeconfig',
    installation.kubeconfigPath,
    'auth',
    'can-i',
    ...args,
  ]);
  return result.stdout.trim();
}

async function denied(what: string, call: () => Promise<unknown>): Promise<void> {
  let status: number | undefined;
  try {
    await call();
  } catch (error) {
    status = statusOf(error);
  }
  expect(status, `${what} should be refused with 403`).toBe(403);
}

describe('the chart RBAC on a real API server (default values)', () => {
  let installation: Installation;
  let source = '';
  const cluster = 'rbac-child';
  const renamed = 'rbac-child-renamed';

  beforeAll(async () => {
    installation = await install();
    source = await sourceNamespace(installation, cluster);
  });

  test('the CLI, run with the rendered args and the ServiceAccount token, registers the child', async () => {
    const result = await runOnce(installation);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/forbidden/i);

    const secret = await getSecret(
      coreApi(host),
      installation.targetNamespace,
      `cluster-${cluster}`,
    );
    expect(secret?.metadata?.labels).toMatchObject({
      'argocd.argoproj.io/secret-type': 'cluster',
      [`${PREFIX}managed-by`]: installation.managedBy,
      [`${PREFIX}source-namespace`]: source,
      [`${PREFIX}team`]: 'a',
    });
    expect(decoded(secret, 'name')).toBe(cluster);
    // The registered credentials authenticate against the child plane.
    const config = clusterConfig(secret);
    const who = await whoAmI(decoded(secret, 'server') ?? '', config);
    expect(who.status).toBe(201);
  });

  test('a second pass writes nothing and succeeds', async () => {
    const before = await getSecret(
      coreApi(host),
      installation.targetNamespace,
      `cluster-${cluster}`,
    );
    const result = await runOnce(installation);
    expect(result.code, result.stderr).toBe(0);
    const after = await getSecret(
      coreApi(host),
      installation.targetNamespace,
      `cluster-${cluster}`,
    );
    expect(after?.metadata?.resourceVersion).toBe(before?.metadata?.resourceVersion);
  });

  test('a rename creates the new registration, then demotes the old one (an update)', async () => {
    const admin = coreApi(host);
    const namespace = await admin.readNamespace({ name: source });
    const labels = { ...(namespace.metadata?.labels ?? {}), [`${PREFIX}cluster`]: renamed };
    await admin.replaceNamespace({
      name: source,
      body: {
        metadata: {
          name: source,
          labels,
          resourceVersion: namespace.metadata?.resourceVersion ?? '',
        },
      },
    });
    // The demotion waits for a pass that observes the new registration.
    for (let pass = 0; pass < 2; pass++) {
      const result = await runOnce(installation);
      expect(result.code, result.stderr).toBe(0);
    }
    const demoted = await getSecret(admin, installation.targetNamespace, `cluster-${cluster}`);
    expect(demoted?.metadata?.labels?.['argocd.argoproj.io/secret-type']).toBeUndefined();
    expect(demoted?.metadata?.labels?.[`${PREFIX}superseded-by`]).toBe(renamed);
    expect(
      await getSecret(admin, installation.targetNamespace, `cluster-${renamed}`),
    ).toBeDefined();
  });

  test('once the source namespace is gone, the same identity deletes its registrations', async () => {
    await coreApi(host).deleteNamespace({ name: source });
    await finalizeNamespace(host, source);
    const result = await runOnce(installation);
    expect(result.code, result.stderr).toBe(0);
    for (const name of [renamed, cluster]) {
      expect(
        await getSecret(coreApi(host), installation.targetNamespace, `cluster-${name}`),
        name,
      ).toBeUndefined();
    }
  });

  test('the identity cannot write Secrets outside targetNamespace', async () => {
    const api = installation.tokenApi;
    const body = { metadata: { name: 'intruder' }, stringData: { a: 'b' } };
    await denied('create a Secret in the release namespace', () =>
      api.createNamespacedSecret({ namespace: installation.releaseNamespace, body }),
    );
    const other = uniqueName('victim');
    await coreApi(host).createNamespace({ body: { metadata: { name: other } } });
    await putSecret(coreApi(host), other, 'k3k-x-kubeconfig', {
      'kubeconfig.yaml': 'not read here',
    });
    await denied('create a Secret in another namespace', () =>
      api.createNamespacedSecret({ namespace: other, body }),
    );
    await denied("replace a provisioner's Secret", () =>
      api.replaceNamespacedSecret({
        name: 'k3k-x-kubeconfig',
        namespace: other,
        body: { metadata: { name: 'k3k-x-kubeconfig' } },
      }),
    );
    await denied("delete a provisioner's Secret", () =>
      api.deleteNamespacedSecret({ name: 'k3k-x-kubeconfig', namespace: other }),
    );
    await denied("patch a provisioner's Secret (patch is granted in targetNamespace only)", () =>
      api.patchNamespacedSecret({
        name: 'k3k-x-kubeconfig',
        namespace: other,
        body: [],
      }),
    );
    await denied(
      'replace a Secret in targetNamespace (update is not granted: writes are patches)',
      () =>
        api.replaceNamespacedSecret({
          name: 'anything',
          namespace: installation.targetNamespace,
          body: { metadata: { name: 'anything' } },
        }),
    );
  });

  test('the identity cannot read what it does not need', async () => {
    const api = installation.tokenApi;
    // Secrets may be got and watched (the daemon watches their metadata and reads a changed
    // kubeconfig once): neither grants more than the cluster-wide list already does.
    await denied('list ConfigMaps', () => api.listConfigMapForAllNamespaces());
    await denied('list ConfigMaps in targetNamespace', () =>
      api.listNamespacedConfigMap({ namespace: installation.targetNamespace }),
    );
    await denied('list Pods', () => api.listPodForAllNamespaces());
    await denied('list ServiceAccounts', () => api.listServiceAccountForAllNamespaces());
    await denied('list Events', () => api.listEventForAllNamespaces());
  });

  test('the identity cannot change namespaces or use Leases without leader election', async () => {
    const api = installation.tokenApi;
    await denied('label a namespace', () =>
      api.patchNamespace({
        name: installation.targetNamespace,
        body: [{ op: 'add', path: '/metadata/labels', value: { x: 'y' } }],
      }),
    );
    await denied('delete a namespace', () =>
      api.deleteNamespace({ name: installation.targetNamespace }),
    );
    await denied('create a namespace', () =>
      api.createNamespace({ body: { metadata: { name: uniqueName('nope') } } }),
    );
    expect(
      await canI(
        installation,
        'create',
        'leases.coordination.k8s.io',
        '-n',
        installation.targetNamespace,
      ),
    ).toBe('no');
  });
});

describe('the chart RBAC with leader election: the daemon, exactly as deployed', () => {
  test('takes the Lease, registers, records an Event on the source namespace and releases the Lease', async () => {
    const [healthPort, metricsPort] = [await freePort(), await freePort()];
    const installation = await install({
      leaderElection: { enabled: true },
      probes: { port: healthPort },
      metrics: { port: metricsPort },
      // Full passes far apart: the registration comes from the watch.
      interval: '10m',
      // Event failures are logged at debug level: show them if the Event never arrives.
      debug: true,
    });
    expect(installation.args).toContain('--leader-elect=true');
    const cluster = 'rbac-leader';
    const daemon = startDaemon(installation);
    try {
      const admin = coreApi(host);
      const leaseHolder = async (): Promise<string | undefined> => {
        const list = JSON.parse(
          await kubectl([
            'get',
            'leases.coordination.k8s.io',
            '-n',
            installation.targetNamespace,
            '-o',
            'json',
          ]),
        ) as { items: { spec: { holderIdentity?: string } }[] };
        const holder = list.items[0]?.spec.holderIdentity;
        return holder === undefined || holder === '' ? undefined : holder;
      };
      // Leader first (create + get/update of the Lease), then the namespace: its Events are
      // written by the leader.
      await eventually(leaseHolder, 'the daemon to hold the Lease', 60_000, 200).catch(
        (error: unknown) => {
          throw new Error(`${String(error)}\ndaemon log:\n${daemon.log()}`);
        },
      );
      const source = await sourceNamespace(installation, cluster);
      await eventually(
        () => getSecret(admin, installation.targetNamespace, `cluster-${cluster}`),
        'the registration',
        60_000,
        200,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}\ndaemon log:\n${daemon.log()}`);
      });
      const lease = JSON.parse(
        await kubectl([
          'get',
          'leases.coordination.k8s.io',
          '-n',
          installation.targetNamespace,
          '-o',
          'json',
        ]),
      ) as {
        items: { metadata: { name: string }; spec: { holderIdentity?: string } }[];
      };
      expect(lease.items.map((l) => l.metadata.name)).toEqual([
        (only(installation.manifests, 'Role')['rules'] as { resourceNames?: string[] }[]).find(
          (r) => r.resourceNames,
        )?.resourceNames?.[0],
      ]);
      expect(lease.items[0]?.spec.holderIdentity).toBeTruthy();
      const events = await eventually(
        async () => {
          const list = await admin.listNamespacedEvent({ namespace: source });
          return list.items.length > 0 ? list.items : undefined;
        },
        'an Event on the source namespace',
        30_000,
        200,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}\ndaemon log:\n${daemon.log()}`);
      });
      expect(events.map((e) => e.involvedObject.kind)).toContain('Namespace');
      expect(daemon.log()).not.toMatch(/forbidden/i);
    } finally {
      await daemon.stop();
    }
    // Released on shutdown (an update of the Lease): a standby may take over at once.
    const after = JSON.parse(
      await kubectl([
        'get',
        'leases.coordination.k8s.io',
        '-n',
        installation.targetNamespace,
        '-o',
        'json',
      ]),
    ) as {
      items: { spec: { holderIdentity?: string } }[];
    };
    expect(after.items[0]?.spec.holderIdentity ?? '').toBe('');
  });
});

describe('the chart RBAC with capiClusters: the daemon, exactly as deployed, on a plane whose Cluster API CRDs come later', () => {
  let plane: ControlPlane | undefined;

  beforeAll(async () => {
    plane = await startControlPlane(`rbac-capi-${String(process.pid)}`, {
      ownerPid: process.pid,
    });
  });

  afterAll(async () => {
    await plane?.stop();
  });

  test('may get, list and watch Clusters and nothing more of them; serves namespaces while the CRDs are missing, then registers a Cluster once they are installed', async () => {
    if (plane === undefined) throw new Error('no plane');
    const capiPlane = plane;
    const [healthPort, metricsPort] = [await freePort(), await freePort()];
    const installation = await install(
      {
        providers: ['k3k', 'capi'],
        capiClusters: true,
        probes: { port: healthPort },
        metrics: { port: metricsPort },
        // Discovery is asked again on each full pass while the CRDs are missing.
        interval: '2s',
      },
      capiPlane,
    );
    expect(installation.args).toContain('--capi-clusters=true');
    const admin = coreApi(capiPlane);
    const daemon = startDaemon(installation);
    const waitFor = <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> =>
      eventually(probe, what, 90_000, 200).catch((error: unknown) => {
        throw new Error(`${String(error)}\ndaemon log:\n${daemon.log()}`);
      });
    try {
      await waitFor('the daemon to say the Cluster API CRDs are missing', () =>
        Promise.resolve(daemon.log().includes('Cluster API CRDs are not installed') || undefined),
      );
      // Namespaces are served meanwhile.
      await sourceNamespace(installation, 'rbac-ns', capiPlane);
      await waitFor('the namespace registration', () =>
        getSecret(admin, installation.targetNamespace, 'cluster-rbac-ns'),
      );

      await installCapiCrds(capiPlane);
      // kubectl resolves the resource by discovery: asked once the CRDs are served.
      for (const verb of ['get', 'list', 'watch'])
        expect(
          await canI(installation, verb, 'clusters.cluster.x-k8s.io', '--all-namespaces'),
        ).toBe('yes');
      for (const verb of ['create', 'update', 'patch', 'delete'])
        expect(
          await canI(installation, verb, 'clusters.cluster.x-k8s.io', '--all-namespaces'),
        ).toBe('no');
      expect(
        await canI(
          installation,
          'update',
          'clusters.cluster.x-k8s.io',
          '--subresource=status',
          '-A',
        ),
      ).toBe('no');
      expect(await canI(installation, 'list', 'machines.cluster.x-k8s.io', '-A')).toBe('no');
      // With capiClusters off (the default), no access to Clusters at all.
      const off = await install({}, capiPlane);
      for (const verb of ['get', 'list', 'watch'])
        expect(await canI(off, verb, 'clusters.cluster.x-k8s.io', '--all-namespaces')).toBe('no');
      const fleet = uniqueName('fleet');
      await admin.createNamespace({ body: { metadata: { name: fleet } } });
      await kubectl(
        ['create', '-f', '-'],
        JSON.stringify({
          apiVersion: 'cluster.x-k8s.io/v1beta2',
          kind: 'Cluster',
          metadata: {
            namespace: fleet,
            name: 'alpha',
            labels: {
              [`${PREFIX}managed-by`]: installation.managedBy,
              [`${PREFIX}team`]: 'b',
            },
          },
          // The schema wants a non-empty spec; no CAPI controller runs on this plane.
          spec: { paused: true },
        }),
        capiPlane,
      );
      // A server of its own: the namespace source already holds the child's.
      const server = `https://alpha.acr.test:${new URL(child.server).port}`;
      await putSecret(admin, fleet, 'alpha-kubeconfig', {
        value: kubeconfigYaml(child, { server }),
      });
      const secret = await waitFor('the registration of Cluster alpha', () =>
        // Named <namespace>.<name>, the default for Cluster sources.
        getSecret(admin, installation.targetNamespace, `cluster-${fleet}.alpha`),
      );
      expect(secret.metadata?.labels).toMatchObject({
        [`${PREFIX}source-kind`]: 'Cluster',
        [`${PREFIX}source-namespace`]: fleet,
        [`${PREFIX}source-cluster`]: 'alpha',
        [`${PREFIX}team`]: 'b',
      });
      expect(daemon.log()).toContain('Cluster sources are served now');
      // Its Event goes on the Cluster, in the Cluster's namespace.
      const events = await waitFor('an Event on Cluster alpha', async () => {
        const list = await admin.listNamespacedEvent({ namespace: fleet });
        return list.items.some((e) => e.involvedObject.kind === 'Cluster') ? list.items : undefined;
      });
      expect(events.map((e) => e.involvedObject.name)).toContain('alpha');
      expect(await getSecret(admin, installation.targetNamespace, 'cluster-rbac-ns')).toBeDefined();
      expect(daemon.log()).not.toMatch(/forbidden/i);
    } finally {
      await daemon.stop();
    }
    // A plane of its own, CRDs installed mid-test and a daemon run from sources: more than
    // the default two minutes on a loaded 2-core machine.
  }, 300_000);

  // The cluster-wide ClusterProperty CRD is why this shares the Cluster API plane, not the host's.
  test("records the cluster's own ID (ClusterProperty id.k8s.io) as its host identity, read with the rendered identity", async () => {
    if (plane === undefined) throw new Error('no plane');
    const idPlane = plane;
    await applyAsAdmin([CLUSTER_PROPERTY_CRD], idPlane);
    await eventually(
      () =>
        kubectl(['get', 'clusterproperties'], undefined, idPlane).then(
          () => true,
          () => undefined,
        ),
      'the ClusterProperty CRD to be served',
      30_000,
      200,
    );
    await applyAsAdmin(
      [
        {
          apiVersion: 'about.k8s.io/v1alpha1',
          kind: 'ClusterProperty',
          metadata: { name: 'id.k8s.io' },
          spec: { value: 'prod-eu-1' },
        },
      ],
      idPlane,
    );
    const installation = await install({}, idPlane);
    expect(await canI(installation, 'get', 'clusterproperties.about.k8s.io/id.k8s.io')).toBe('yes');
    expect(await canI(installation, 'list', 'clusterproperties.about.k8s.io')).toBe('no');
    await sourceNamespace(installation, 'rbac-identity', idPlane);
    const result = await runOnce(installation);
    expect(result.code, result.stderr).toBe(0);
    const secret = await getSecret(
      coreApi(idPlane),
      installation.targetNamespace,
      'cluster-rbac-identity',
    );
    expect(secret?.metadata?.labels?.[`${PREFIX}host-id`]).toBe('prod-eu-1');
  }, 120_000);
});

/** KEP-2149's ClusterProperty, as sigs.k8s.io/about-api defines it (the fields read here). */
const CLUSTER_PROPERTY_CRD: Manifest = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: 'clusterproperties.about.k8s.io',
    // k8s.io groups need an approved API; about-api's CRD carries KEP-2149's approval.
    annotations: {
      'api-approved.kubernetes.io': 'https://github.com/kubernetes/enhancements/pull/3084',
    },
  },
  spec: {
    group: 'about.k8s.io',
    scope: 'Cluster',
    names: {
      kind: 'ClusterProperty',
      plural: 'clusterproperties',
      singular: 'clusterproperty',
      listKind: 'ClusterPropertyList',
    },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { value: { type: 'string', maxLength: 128, minLength: 1 } },
                required: ['value'],
              },
            },
          },
        },
      },
    ],
  },
};

describe('the whole chart on a real API server', () => {
  test('every rendered object, all options on, passes server-side validation (including the policy CEL)', async () => {
    const releaseNamespace = uniqueName('registrar');
    const targetNamespace = uniqueName('argocd');
    await coreApi(host).createNamespace({ body: { metadata: { name: releaseNamespace } } });
    await coreApi(host).createNamespace({ body: { metadata: { name: targetNamespace } } });
    const manifests = await render(
      {
        targetNamespace,
        leaderElection: { enabled: true },
        replicaCount: 2,
        metrics: { service: { enabled: true } },
        admissionPolicy: { enabled: true, allowedUsers: ['someone'] },
        providers: ['vcluster', 'k3k'],
      },
      { release: uniqueName('acr'), namespace: releaseNamespace },
    );
    const output = await kubectl(
      ['apply', '--dry-run=server', '-f', '-'],
      manifests.map((m) => `---\n${YAML.stringify(m)}`).join(''),
    );
    expect(output).toContain('validatingadmissionpolicy.admissionregistration.k8s.io');
    expect(output).toContain('deployment.apps');
  });

  test('NOTES.txt tells the user the exact kubectl label command', async () => {
    const bin = await toolsBinDir();
    const result = await helm([
      'install',
      uniqueName('acr'),
      join(repoRoot, 'charts/argocd-cluster-registrar'),
      '--dry-run=server',
      '--kubeconfig',
      host.kubeconfigPath,
      '--namespace',
      'default',
      '--set',
      // targetNamespace must exist on the plane: a server dry run checks it (lookup).
      'labelPrefix=registrar.example.com/,managedBy=team-a,targetNamespace=default',
    ]);
    expect(result.code, `${bin}: ${result.stderr}`).toBe(0);
    const notes = result.stdout.slice(result.stdout.indexOf('NOTES:'));
    expect(notes).toContain(
      'kubectl label namespace <namespace> \\\n    registrar.example.com/managed-by=team-a \\\n    registrar.example.com/cluster=<name>',
    );
  });
});

describe('the chart RBAC with the vcluster sleep signal on', () => {
  test('the rendered identity reads a paused vcluster as metadata only and pauses its child', async () => {
    const installation = await install({ providers: ['vcluster'], vclusterSleep: true });
    const cluster = 'rbac-sleepy';
    const source = uniqueName('vc');
    const vcluster = 'sleepy';
    await coreApi(host).createNamespace({
      body: {
        metadata: {
          name: source,
          labels: {
            [`${PREFIX}managed-by`]: installation.managedBy,
            [`${PREFIX}cluster`]: cluster,
          },
        },
      },
    });
    await putSecret(coreApi(host), source, `vc-${vcluster}`, { config: kubeconfigYaml(child) });
    // As `vcluster pause` leaves a vcluster: scaled to zero, its StatefulSet annotated.
    const labels = { app: 'vcluster', release: vcluster };
    await applyAsAdmin([
      {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: {
          namespace: source,
          name: vcluster,
          labels,
          annotations: { 'loft.sh/paused': 'true' },
        },
        spec: {
          replicas: 0,
          serviceName: `${vcluster}-headless`,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: 'syncer', image: 'example.invalid/vcluster:0.37' }] },
          },
        },
      },
    ]);

    const result = await runOnce(installation);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/forbidden/i);
    const secret = await getSecret(
      coreApi(host),
      installation.targetNamespace,
      `cluster-${cluster}`,
    );
    expect(secret?.metadata?.annotations).toMatchObject({
      'argocd.argoproj.io/skip-reconcile': 'true',
      [`${PREFIX}pause-reason`]: 'vcluster-sleeping',
    });

    // list and watch, cluster-wide, as metadata; never a read by name, never a write.
    expect(await canI(installation, 'list', 'statefulsets.apps', '--all-namespaces')).toBe('yes');
    expect(await canI(installation, 'watch', 'deployments.apps', '--all-namespaces')).toBe('yes');
    expect(await canI(installation, 'get', 'statefulsets.apps', '-n', source)).toBe('no');
    expect(await canI(installation, 'patch', 'statefulsets.apps', '-n', source)).toBe('no');
    expect(await canI(installation, 'list', 'pods', '-n', source)).toBe('no');
  });
});
