import { execFile, execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { AuthenticationV1Api, Watch, VersionApi } from '@kubernetes/client-node';
import type { V1Secret } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONTROL_PLANE_SCRIPT,
  adminKubeConfig,
  coreApi,
  finalizeNamespace,
  freePort,
  mintToken,
  rbacApi,
  runControlPlaneScript,
  startControlPlane,
  startFaultProxy,
  statusOf,
  testChildPlane,
  testHostPlane,
  tokenKubeConfig,
  uniqueName,
} from './index.js';
import type { ControlPlane, FaultProxy } from './index.js';

const execFileAsync = promisify(execFile);

// Smoke suite against the real etcd + kube-apiserver of the integration project's global setup.

let host: ControlPlane;

beforeAll(async () => {
  host = await testHostPlane();
});

async function createNamespace(name: string, labels: Record<string, string> = {}): Promise<void> {
  await coreApi(host).createNamespace({ body: { metadata: { name, labels } } });
}

function secret(name: string, labels: Record<string, string>): V1Secret {
  return { metadata: { name, labels }, type: 'Opaque', stringData: { value: name } };
}

async function rejectionStatus(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
  } catch (error) {
    return statusOf(error);
  }
  return undefined;
}

describe('the shared planes', () => {
  it('are real servers of the built Kubernetes version with distinct CAs', async () => {
    const child = await testChildPlane();
    const version = await adminKubeConfig(host).makeApiClient(VersionApi).getCode();
    expect(version.gitVersion).toBe('v1.36.3');
    expect(host.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(child.server).not.toBe(host.server);
    expect(child.caPem).not.toBe(host.caPem);
    expect(host.caPem).toContain('-----BEGIN CERTIFICATE-----');
    await expect(host.stop()).rejects.toThrow(/shared/);
  });
});

describe('namespaces and Secrets', () => {
  const ns = uniqueName('smoke-secrets');
  const run = uniqueName('run');

  beforeAll(async () => {
    await createNamespace(ns, { 'smoke.test/run': run });
  });

  it('creates Secrets and lists them by label selector', async () => {
    const core = coreApi(host);
    await core.createNamespacedSecret({
      namespace: ns,
      body: secret('a', { role: 'kubeconfig', run }),
    });
    await core.createNamespacedSecret({
      namespace: ns,
      body: secret('b', { role: 'kubeconfig', run }),
    });
    await core.createNamespacedSecret({ namespace: ns, body: secret('c', { role: 'other', run }) });

    const selected = await core.listNamespacedSecret({
      namespace: ns,
      labelSelector: 'role=kubeconfig',
    });
    expect(selected.items.map((s) => s.metadata?.name).sort()).toEqual(['a', 'b']);

    const acrossNamespaces = await core.listSecretForAllNamespaces({
      labelSelector: `run=${run},role!=kubeconfig`,
    });
    expect(
      acrossNamespaces.items.map((s) => `${s.metadata?.namespace ?? ''}/${s.metadata?.name ?? ''}`),
    ).toEqual([`${ns}/c`]);
    // stringData is folded into base64 data by the server.
    expect(acrossNamespaces.items[0]?.data?.['value']).toBe(Buffer.from('c').toString('base64'));

    const namespaces = await core.listNamespace({ labelSelector: `smoke.test/run=${run}` });
    expect(namespaces.items.map((n) => n.metadata?.name)).toEqual([ns]);
  });

  it('delivers a watch event for a created Secret', async () => {
    const watch = new Watch(adminKubeConfig(host));
    const name = uniqueName('watched');
    let abort: AbortController | undefined;
    const seen = new Promise<{ phase: string; name: string | undefined }>((resolve, reject) => {
      watch
        .watch(
          `/api/v1/namespaces/${ns}/secrets`,
          { labelSelector: 'role=watched' },
          (phase, obj: V1Secret) => {
            resolve({ phase, name: obj.metadata?.name });
          },
          (err: unknown) => {
            if (err instanceof Error) reject(err);
            else if (err !== null && err !== undefined)
              reject(new Error('watch ended with a non-Error failure'));
          },
        )
        .then(async (controller) => {
          abort = controller;
          await coreApi(host).createNamespacedSecret({
            namespace: ns,
            body: secret(name, { role: 'watched' }),
          });
        })
        .catch(reject);
    });
    try {
      await expect(seen).resolves.toEqual({ phase: 'ADDED', name });
    } finally {
      abort?.abort();
    }
  });

  it('finishes a namespace deletion with finalize (no controller-manager runs)', async () => {
    const core = coreApi(host);
    const doomed = uniqueName('smoke-doomed');
    await createNamespace(doomed);
    await core.deleteNamespace({ name: doomed });

    const terminating = await core.readNamespace({ name: doomed });
    expect(terminating.status?.phase).toBe('Terminating');
    expect(terminating.spec?.finalizers).toEqual(['kubernetes']);

    await finalizeNamespace(host, doomed);
    expect(await rejectionStatus(core.readNamespace({ name: doomed }))).toBe(404);
    // Finalizing a namespace that is already gone is fine.
    await finalizeNamespace(host, doomed);
  });

  it('finalize fails, never reports a namespace gone, when the server stops answering after the delete', async () => {
    // The plane as the script knows it (its certificates), with its API server behind a
    // proxy that answers every GET with 503 once the namespace's DELETE has gone through,
    // as an API server restarting right after the delete does.
    const live = uniqueName('smoke-cut');
    await createNamespace(live);
    const proxy: FaultProxy = await startFaultProxy(host, {
      beforeWrite: (write) => {
        if (write.method === 'DELETE' && write.path === `/api/v1/namespaces/${live}`)
          proxy.setFaults({ rate: 1, kinds: ['status-503'], only: /^GET / });
        return Promise.resolve();
      },
    });
    const planes = mkdtempSync(join(tmpdir(), 'acr-finalize-'));
    const state = join(planes, 'behind-proxy');
    mkdirSync(state);
    const real = dirname(host.kubeconfigPath);
    symlinkSync(join(real, 'pki'), join(state, 'pki'));
    copyFileSync(host.kubeconfigPath, join(state, 'kubeconfig'));
    writeFileSync(join(state, 'apiserver.port'), new URL(proxy.server).port);
    try {
      const run = execFileAsync(CONTROL_PLANE_SCRIPT, ['finalize', 'behind-proxy', live], {
        env: { ...process.env, REGISTRAR_PLANES_DIR: planes },
      });
      await expect(run).rejects.toThrow(/namespace/);
      const left = await coreApi(host).readNamespace({ name: live });
      expect(left.metadata?.deletionTimestamp).toBeDefined();
    } finally {
      await proxy.close();
      rmSync(planes, { recursive: true, force: true });
      await finalizeNamespace(host, live);
    }
  });

  it('deletes a live namespace for good with finalize alone', async () => {
    const live = uniqueName('smoke-live');
    await createNamespace(live);
    await finalizeNamespace(host, live);
    expect(await rejectionStatus(coreApi(host).readNamespace({ name: live }))).toBe(404);
  });
});

describe('ServiceAccount tokens and RBAC', () => {
  const ns = uniqueName('smoke-rbac');
  const other = uniqueName('smoke-rbac-other');
  const sa = 'reader';

  beforeAll(async () => {
    await createNamespace(ns);
    await createNamespace(other);
    const core = coreApi(host);
    const rbac = rbacApi(host);
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: sa } } });
    await rbac.createNamespacedRole({
      namespace: ns,
      body: {
        metadata: { name: 'secret-reader' },
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: 'secret-reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'secret-reader' },
        subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
      },
    });
    await core.createNamespacedSecret({ namespace: ns, body: secret('visible', {}) });
    await core.createNamespacedSecret({ namespace: other, body: secret('hidden', {}) });
  });

  it('mints a token that authenticates as the ServiceAccount', async () => {
    const token = await mintToken(host, ns, sa, 600);
    const review = await tokenKubeConfig(host, token)
      .makeApiClient(AuthenticationV1Api)
      .createSelfSubjectReview({ body: {} });
    expect(review.status?.userInfo?.username).toBe(`system:serviceaccount:${ns}:${sa}`);
  });

  it('allows what the Role grants and denies the rest with 403', async () => {
    const asReader = coreApi(tokenKubeConfig(host, await mintToken(host, ns, sa)));

    const listed = await asReader.listNamespacedSecret({ namespace: ns });
    expect(listed.items.map((s) => s.metadata?.name)).toEqual(['visible']);
    const read = await asReader.readNamespacedSecret({ namespace: ns, name: 'visible' });
    expect(read.metadata?.name).toBe('visible');

    expect(await rejectionStatus(asReader.listNamespacedSecret({ namespace: other }))).toBe(403);
    expect(
      await rejectionStatus(asReader.readNamespacedSecret({ namespace: other, name: 'hidden' })),
    ).toBe(403);
    expect(
      await rejectionStatus(
        asReader.createNamespacedSecret({ namespace: ns, body: secret('forbidden', {}) }),
      ),
    ).toBe(403);
    expect(
      await rejectionStatus(asReader.deleteNamespacedSecret({ namespace: ns, name: 'visible' })),
    ).toBe(403);
    expect(await rejectionStatus(asReader.listNamespace())).toBe(403);
  });

  it('rejects an unknown token with 401', async () => {
    const stranger = coreApi(tokenKubeConfig(host, 'not-a-token'));
    expect(await rejectionStatus(stranger.listNamespacedSecret({ namespace: ns }))).toBe(401);
  });
});

describe('startControlPlane', () => {
  let own: ControlPlane | undefined;

  afterAll(async () => {
    await own?.stop();
  });

  it('starts a named plane, reuses it while healthy, and stop() removes it', async () => {
    const name = uniqueName('smoke-own');
    own = await startControlPlane(name, { ownerPid: process.pid });
    const again = await startControlPlane(name);
    expect(again.kubeconfigPath).toBe(own.kubeconfigPath);
    expect(again.server).toBe(own.server);
    const namespaces = await coreApi(own).listNamespace();
    expect(namespaces.items.length).toBeGreaterThan(0);

    const state = dirname(own.kubeconfigPath);
    await own.stop();
    own = undefined;
    expect(existsSync(state)).toBe(false);
  });

  it('is stopped by its watcher once the owner process exits', async () => {
    const owner = spawn('sleep', ['3'], { stdio: 'ignore' });
    if (owner.pid === undefined) throw new Error('sleep did not start');
    const exited = new Promise((resolve) => owner.on('exit', resolve));
    const name = uniqueName('smoke-owned');
    const plane = await startControlPlane(name, { ownerPid: owner.pid });
    const state = dirname(plane.kubeconfigPath);
    await exited;
    // The watcher polls every 2 s, then runs `down` (which must not signal the watcher itself).
    await expect.poll(() => existsSync(state), { timeout: 20_000, interval: 250 }).toBe(false);
  });

  it('is stopped by its watcher when the owner exited before the plane was ready', async () => {
    // The watcher then finds the owner gone at once, before `up` has recorded its pid: it
    // must still take the plane down, not decide it is a stale watcher of another plane.
    const owner = spawn('true', [], { stdio: 'ignore' });
    if (owner.pid === undefined) throw new Error('true did not start');
    await new Promise((resolve) => owner.on('exit', resolve));
    const name = uniqueName('smoke-orphan');
    const plane = await startControlPlane(name, { ownerPid: owner.pid });
    const state = dirname(plane.kubeconfigPath);
    await expect.poll(() => existsSync(state), { timeout: 20_000, interval: 250 }).toBe(false);
  });

  it('says how a component ended when it dies', async () => {
    const name = uniqueName('smoke-dies');
    const plane = await startControlPlane(name, { ownerPid: process.pid });
    try {
      const state = dirname(plane.kubeconfigPath);
      process.kill(Number(readFileSync(join(state, 'etcd.pid'), 'utf8')), 'SIGKILL');
      await expect(runControlPlaneScript(['restart-apiserver', name])).rejects.toThrow(
        /etcd exited while the apiserver started: killed by signal 9 \(KILL\)/,
      );
    } finally {
      await runControlPlaneScript(['down', '--name', name]);
    }
  });
});

describe('a plane on a given CA', () => {
  const work = mkdtempSync(join(tmpdir(), 'smoke-ca-'));
  let onCa: ControlPlane | undefined;

  afterAll(async () => {
    await onCa?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  /** openssl, quietly, in the work directory. */
  const ossl = (args: readonly string[]): void => {
    execFileSync('openssl', args, { cwd: work, stdio: 'ignore' });
  };

  it("serves for the host name on the port, on that CA, and trusts that CA's client certificates", async () => {
    // A provisioner's cluster CA (RSA, as KCP makes them) and a client certificate it issued.
    ossl(
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=kubernetes',
      ].concat(
        [
          '-addext',
          'basicConstraints=critical,CA:TRUE',
          '-addext',
          'keyUsage=critical,keyCertSign',
        ],
        ['-keyout', 'ca.key', '-out', 'ca.crt'],
      ),
    );
    ossl([
      'req',
      '-new',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/O=system:masters/CN=issued-admin',
      '-keyout',
      'client.key',
      '-out',
      'client.csr',
    ]);
    ossl([
      'x509',
      '-req',
      '-in',
      'client.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '1',
      '-out',
      'client.crt',
    ]);
    const ca = {
      certPem: readFileSync(join(work, 'ca.crt'), 'utf8'),
      keyPem: readFileSync(join(work, 'ca.key'), 'utf8'),
    };
    const port = await freePort();
    const name = uniqueName('smoke-ca');
    onCa = await startControlPlane(name, {
      ownerPid: process.pid,
      ca,
      host: 'smoke.acr.test',
      port,
    });
    expect(onCa.server).toBe(`https://127.0.0.1:${String(port)}`);
    expect(onCa.caPem).toBe(ca.certPem);

    const username = await new Promise<string | undefined>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
          method: 'POST',
          // TLS verifies the serving certificate for this name, against the given CA.
          servername: 'smoke.acr.test',
          ca: ca.certPem,
          cert: readFileSync(join(work, 'client.crt')),
          key: readFileSync(join(work, 'client.key')),
          headers: { 'content-type': 'application/json' },
          agent: false,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
              status?: { userInfo?: { username?: string } };
            };
            resolve(body.status?.userInfo?.username);
          });
        },
      );
      req.on('error', reject);
      req.end(
        JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
      );
    });
    expect(username).toBe('issued-admin');

    // The same name asked for without that CA is not the same plane: it is started anew.
    const other = await startControlPlane(name, { ownerPid: process.pid });
    expect(other.caPem).not.toBe(ca.certPem);
    onCa = other;
  });

  it('refuses a CA certificate without its key, and a port that is taken', async () => {
    await expect(
      runControlPlaneScript([
        'up',
        '--name',
        uniqueName('smoke-ca'),
        '--ca-cert',
        join(work, 'ca.crt'),
      ]),
    ).rejects.toThrow(/--ca-cert and --ca-key go together/);
    const taken = new URL(host.server).port;
    await expect(
      runControlPlaneScript(['up', '--name', uniqueName('smoke-ca'), '--port', taken]),
    ).rejects.toThrow(new RegExp(`port ${taken}: it is taken`));
  });
});
