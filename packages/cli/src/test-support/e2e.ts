// Helpers for the CLI's end-to-end tests: a fresh, isolated "world" on the shared host plane
// (own target namespace, own managed-by value, so tests never see each other's namespaces),
// provisioner-style kubeconfig Secrets holding the child plane's credentials, running the
// real CLI in a child process, and proving registered credentials against the child plane.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:https';
import type { LookupFunction } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import type { CoreV1Api, V1Namespace, V1Secret } from '@kubernetes/client-node';
import type { ArgoClusterConfig } from '@argocd-cluster-registrar/core';
import {
  checkClusterSecrets,
  coreApi,
  finalizeNamespace,
  kubeconfigText,
  mintClientCertificate,
  statusOf,
  testChildPlane,
  testHostPlane,
  uniqueName,
} from '@argocd-cluster-registrar/testkit';
import type { ControlPlane } from '@argocd-cluster-registrar/testkit';

export const PREFIX = 'argocd-cluster-registrar/';
export const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
export const MAIN = join(REPO, 'packages/cli/src/main.ts');
export const SOURCE_TSCONFIG = join(REPO, 'packages/cli/tsconfig.source.json');

export interface World {
  readonly host: ControlPlane;
  readonly child: ControlPlane;
  readonly hostApi: CoreV1Api;
  readonly childApi: CoreV1Api;
  /** Target namespace (ArgoCD's), unique to this world. */
  readonly target: string;
  /** managed-by value, unique to this world. */
  readonly managedBy: string;
  /** Flags every CLI run of this world gets. */
  readonly baseArgs: readonly string[];
}

// Every world this test file created: after each test, ArgoCD's own parser (tools/argocd's
// check-secrets) judges every registration the registrar wrote into their target namespaces,
// and any Secret it refuses fails that test.
const worlds: World[] = [];

// Only under vitest: `pnpm bench chaos` imports these helpers outside any test run, where
// registering a hook throws.
if (process.env['VITEST'] !== undefined)
  afterEach(async () => {
    for (const world of worlds) {
      const verdicts = await checkClusterSecrets(world.host, [world.target], {
        [`${PREFIX}managed-by`]: world.managedBy,
      });
      const refused = verdicts.filter((v) => !v.accepted);
      if (refused.length > 0)
        throw new Error(
          `ArgoCD refuses registrations the registrar wrote:\n${refused
            .map((v) => `${v.namespace}/${v.secret}: ${v.error ?? ''}`)
            .join('\n')}`,
        );
    }
  });

/**
 * A world on the run's shared planes, or on `options.host` (a plane of the file's own, for
 * controllers that must not act on the shared one). `options.target`: another world's target
 * namespace, for a second registrar (a managed-by of its own) writing beside the first for
 * the same ArgoCD.
 */
export async function createWorld(
  options: { readonly host?: ControlPlane; readonly target?: string } = {},
): Promise<World> {
  const [host, child] = await Promise.all([options.host ?? testHostPlane(), testChildPlane()]);
  const hostApi = coreApi(host);
  const target = options.target ?? uniqueName('argocd');
  const managedBy = uniqueName('e2e');
  if (options.target === undefined)
    await hostApi.createNamespace({ body: { metadata: { name: target } } });
  const world: World = {
    host,
    child,
    hostApi,
    childApi: coreApi(child),
    target,
    managedBy,
    baseArgs: [
      '--kubeconfig',
      host.kubeconfigPath,
      '--target-namespace',
      target,
      '--managed-by',
      managedBy,
    ],
  };
  worlds.push(world);
  return world;
}

/**
 * The set-up of an e2e file whose tests each get a world of their own: a fresh world before
 * each test, and every daemon a test adds to `daemons` killed after it. `world` is one object
 * throughout, holding the current test's world (so a file can take it once, at the top).
 */
export function useWorld(): { readonly world: World; readonly daemons: RunningDaemon[] } {
  const world = {} as World;
  const daemons: RunningDaemon[] = [];
  beforeEach(async () => {
    Object.assign(world, await createWorld());
  });
  afterEach(async () => {
    await Promise.all(daemons.splice(0).map((daemon) => daemon.stop('SIGKILL')));
  });
  return { world, daemons };
}

/** Facts of the child plane's admin kubeconfig. */
export interface ChildCredentials {
  readonly server: string;
  readonly caData: string;
  readonly certData: string;
  readonly keyData: string;
}

export function childCredentials(child: ControlPlane): ChildCredentials {
  const kc = new KubeConfig();
  kc.loadFromString(child.kubeConfig);
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (cluster?.caData === undefined || user?.certData === undefined || user.keyData === undefined) {
    throw new Error('child kubeconfig lacks embedded CA or client certificate data');
  }
  return {
    server: cluster.server,
    caData: cluster.caData,
    certData: user.certData,
    keyData: user.keyData,
  };
}

export type KubeconfigUser =
  { readonly certData: string; readonly keyData: string } | { readonly token: string };

// The planes listen on loopback only, and a loopback server is useless to ArgoCD (it would
// reach its own pod), so the registrar refuses it. Registrations therefore name the child by
// a host name, as a provisioner would (its Service), and `whoAmI` plays the part of ArgoCD's
// DNS by resolving every name to 127.0.0.1. The serving certificate is for `localhost`, which
// the kubeconfig's tls-server-name supplies: TLS is verified for real.
export const CHILD_HOST = 'child.acr.test';

/** The child plane's API server as registrations name it. */
export function childServer(child: ControlPlane): string {
  return `https://${CHILD_HOST}:${new URL(child.server).port}`;
}

/** A provisioner-style kubeconfig (YAML) for the child plane, optionally with another server. */
export function kubeconfigYaml(
  child: ControlPlane,
  options: { server?: string; user?: KubeconfigUser; insecure?: boolean } = {},
): string {
  const creds = childCredentials(child);
  const user = options.user ?? { certData: creds.certData, keyData: creds.keyData };
  return kubeconfigText({
    server: options.server ?? childServer(child),
    cluster: [
      options.insecure === true
        ? 'insecure-skip-tls-verify: true'
        : `certificate-authority-data: ${creds.caData}`,
      'tls-server-name: localhost',
    ],
    user:
      'token' in user
        ? [`token: ${user.token}`]
        : [`client-certificate-data: ${user.certData}`, `client-key-data: ${user.keyData}`],
    names: { cluster: 'child', user: 'child-user', context: 'child' },
  });
}

/** Creates a source namespace labelled for this world. `cluster: undefined` omits the label. */
export async function createSourceNamespace(
  world: World,
  options: {
    name?: string;
    cluster?: string | null;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  } = {},
): Promise<V1Namespace> {
  const name = options.name ?? uniqueName('k3k');
  const labels: Record<string, string> = {
    [`${PREFIX}managed-by`]: world.managedBy,
    ...(options.labels ?? {}),
  };
  if (options.cluster !== null) labels[`${PREFIX}cluster`] = options.cluster ?? name;
  return world.hostApi.createNamespace({
    body: {
      metadata: {
        name,
        labels,
        ...(options.annotations !== undefined ? { annotations: options.annotations } : {}),
      },
    },
  });
}

/** Creates or replaces a Secret whose data is given as plain text. */
export async function putSecret(
  api: CoreV1Api,
  namespace: string,
  name: string,
  data: Record<string, string>,
  type = 'Opaque',
): Promise<V1Secret> {
  const encoded = Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]),
  );
  const existing = await getSecret(api, namespace, name);
  if (existing === undefined) {
    return api.createNamespacedSecret({
      namespace,
      body: { metadata: { name, namespace }, type, data: encoded },
    });
  }
  return api.replaceNamespacedSecret({ name, namespace, body: { ...existing, data: encoded } });
}

/** The k3k provisioner's Secret: `k3k-<cluster>-kubeconfig`, key `kubeconfig.yaml`. */
export async function putK3kKubeconfig(
  world: World,
  namespace: string,
  kubeconfig: string,
  cluster = 'c',
): Promise<V1Secret> {
  return putSecret(world.hostApi, namespace, `k3k-${cluster}-kubeconfig`, {
    'kubeconfig.yaml': kubeconfig,
  });
}

export async function getSecret(
  api: CoreV1Api,
  namespace: string,
  name: string,
): Promise<V1Secret | undefined> {
  try {
    return await api.readNamespacedSecret({ name, namespace });
  } catch (err) {
    if (statusOf(err) === 404) return undefined;
    throw err;
  }
}

export async function registration(world: World, cluster: string): Promise<V1Secret | undefined> {
  return getSecret(world.hostApi, world.target, `cluster-${cluster}`);
}

/** Every Secret in the target namespace, by name. */
export async function targetSecrets(world: World): Promise<Map<string, V1Secret>> {
  const list = await world.hostApi.listNamespacedSecret({ namespace: world.target });
  return new Map(list.items.map((s) => [s.metadata?.name ?? '', s]));
}

export function decoded(secret: V1Secret | undefined, key: string): string | undefined {
  const value = secret?.data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

export function clusterConfig(secret: V1Secret | undefined): ArgoClusterConfig {
  const text = decoded(secret, 'config');
  if (text === undefined) throw new Error('registration has no config');
  return JSON.parse(text) as ArgoClusterConfig;
}

/** Deletes a namespace and finishes its finalization (no controller-manager runs). */
export async function deleteNamespace(world: World, name: string): Promise<void> {
  await world.hostApi.deleteNamespace({ name });
  await finalizeNamespace(world.host, name);
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  // The CLI must not pick up the runner's own cluster settings.
  const inherited = Object.entries(process.env).filter(
    ([key]) => key !== 'KUBERNETES_SERVICE_HOST' && key !== 'KUBECONFIG' && !key.startsWith('ACR_'),
  );
  return {
    ...Object.fromEntries(inherited),
    TSX_TSCONFIG_PATH: SOURCE_TSCONFIG,
    NO_COLOR: '1',
    ...extra,
  };
}

/** Runs `node --import tsx packages/cli/src/main.ts <args>` to completion. */
export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
      cwd: REPO,
      env: cliEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
}

/** One applying pass of this world; fails the test on a non-zero exit. */
export async function applyOnce(world: World, extra: readonly string[] = []): Promise<CliRun> {
  const run = await runCli([...world.baseArgs, '--once', '--log-format=json', ...extra]);
  if (run.code !== 0)
    throw new Error(`cli exited ${String(run.code)}\n${run.stderr}\n${run.stdout}`);
  return run;
}

interface JsonOutcome {
  readonly namespace: string;
  readonly cluster?: string;
  readonly state: string;
  readonly reason?: { readonly code: string; readonly message: string };
}

interface JsonAction {
  readonly kind: string;
  readonly cluster: string;
  readonly reason: { readonly code: string; readonly namespace: string };
}

interface JsonFollowUp {
  readonly kind: string;
  readonly cluster: string;
  readonly secret: string;
  readonly source: string;
  readonly after: { readonly kind: string; readonly cluster: string; readonly secret: string };
}

interface JsonResult {
  readonly kind: string;
  readonly cluster: string;
  readonly status: string;
  /** Dry run only: what the API server said of the write. */
  readonly verdict?: string;
  readonly error?: string;
}

/** One round's plan, and what became of its writes. */
interface JsonRound {
  readonly actions: readonly JsonAction[];
  readonly outcomes: readonly JsonOutcome[];
  readonly warnings: readonly {
    readonly code: string;
    readonly namespace?: string;
    readonly message: string;
  }[];
  /** What a further round does once this round's writes are observed. */
  readonly followUps?: readonly JsonFollowUp[];
  readonly results?: readonly JsonResult[];
  readonly readFailures?: number;
}

/** A run's document: its first round's plan at the top, each later round's in `laterRounds`. */
export interface JsonPlan extends JsonRound {
  readonly formatVersion: string;
  readonly laterRounds?: readonly (JsonRound & { readonly round: number })[];
  readonly converged?: boolean;
}

/** One pass with --output json (applying unless `dryRun`); returns the parsed document. */
export async function planJson(
  world: World,
  options: {
    dryRun?: boolean;
    extra?: readonly string[];
    allowCodes?: readonly number[];
    env?: Record<string, string>;
  } = {},
): Promise<{ plan: JsonPlan; run: CliRun }> {
  const args = [
    ...world.baseArgs,
    '--once',
    '--output=json',
    '--log-format=json',
    ...(options.dryRun === true ? ['--dry-run'] : []),
    ...(options.extra ?? []),
  ];
  const run = await runCli(args, options.env);
  if (!(options.allowCodes ?? [0]).includes(run.code ?? -1))
    throw new Error(`cli exited ${String(run.code)}\n${run.stderr}`);
  return { plan: JSON.parse(run.stdout) as JsonPlan, run };
}

export function outcomeOf(plan: JsonPlan, namespace: string): JsonOutcome | undefined {
  return plan.outcomes.find((o) => o.namespace === namespace);
}

const everyNameIsThisMachine: LookupFunction = (_host, options, callback) => {
  if (options.all === true) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

/** Authenticates against a Kubernetes API server with a registration's config; returns the user name it sees. */
export function whoAmI(
  server: string,
  config: ArgoClusterConfig,
): Promise<{ status: number; username?: string }> {
  const tls = config.tlsClientConfig;
  const url = new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', server);
  const body = JSON.stringify({
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
  });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        ...(tls.caData !== undefined ? { ca: Buffer.from(tls.caData, 'base64') } : {}),
        ...(tls.certData !== undefined ? { cert: Buffer.from(tls.certData, 'base64') } : {}),
        ...(tls.keyData !== undefined ? { key: Buffer.from(tls.keyData, 'base64') } : {}),
        ...(tls.serverName !== undefined ? { servername: tls.serverName } : {}),
        rejectUnauthorized: !tls.insecure,
        headers: {
          'content-type': 'application/json',
          ...(config.bearerToken !== undefined
            ? { authorization: `Bearer ${config.bearerToken}` }
            : {}),
        },
        agent: false,
        // ArgoCD's DNS, for the test: every name is this machine (see CHILD_HOST).
        lookup: everyNameIsThisMachine,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          try {
            const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
              status?: { userInfo?: { username?: string } };
            };
            const username = parsed.status?.userInfo?.username;
            resolve(username === undefined ? { status } : { status, username });
          } catch {
            resolve({ status });
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A new client certificate for the child plane signed by its CA (a "rotation"). */
export function mintChildClientCertificate(
  child: ControlPlane,
  commonName: string,
): { certData: string; keyData: string } {
  const { certPem, keyPem } = mintClientCertificate(child, `/O=system:masters/CN=${commonName}`);
  return {
    certData: Buffer.from(certPem).toString('base64'),
    keyData: Buffer.from(keyPem).toString('base64'),
  };
}

/** Polls `check` until it returns a value (not undefined) or the deadline passes. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface RunningDaemon {
  readonly process: ChildProcess;
  /** JSON log lines so far. */
  readonly logs: Record<string, unknown>[];
  readonly exited: Promise<number | null>;
  /** Port of the health server once it listens. */
  healthPort(): Promise<number>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the daemon as a child process (JSON logs parsed as they arrive). */
export function startDaemon(
  args: readonly string[],
  env: Record<string, string> = {},
  /**
   * Another build's compiled main.js (a previous release), or a command that runs a script (a
   * bundle under the image's runtime: image-runtime.ts); default: these sources.
   */
  main?: string | { readonly file: string; readonly args: readonly string[] },
): RunningDaemon {
  const [file, entry] =
    main === undefined
      ? [process.execPath, ['--import', 'tsx', MAIN]]
      : typeof main === 'string'
        ? [process.execPath, [main]]
        : [main.file, main.args];
  const child = spawn(file, [...entry, '--log-format=json', ...args], {
    cwd: REPO,
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  let buffer = '';
  child.stderr.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ msg: line, level: 'raw' });
      }
      newline = buffer.indexOf('\n');
    }
  });
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      resolve(code);
    });
  });
  return {
    process: child,
    logs,
    exited,
    healthPort: () =>
      eventually(
        () => {
          const line = logs.find(
            (l) => l['msg'] === 'listening' && String(l['serves']).includes('/healthz'),
          );
          const address = line === undefined ? undefined : String(line['address']);
          return Promise.resolve(
            address === undefined ? undefined : Number(address.slice(address.lastIndexOf(':') + 1)),
          );
        },
        'the daemon to listen',
        // Starting tsx and the sources takes seconds on a quiet machine and more than 30 on a
        // loaded one (seen with a Go build beside the tests): a wait, not a measurement.
        120_000,
      ),
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export async function httpGet(
  port: number,
  path: string,
): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, body: await response.text() };
}

/**
 * A daemon for the world on free loopback ports, once its /readyz answers 200. `extra` comes
 * after the world's own arguments (an interval, a feature flag).
 */
export async function startReadyDaemon(
  world: World,
  extra: readonly string[] = [],
  env: Record<string, string> = {},
  /** A command that runs the daemon (startDaemon's `main`); default: these sources. */
  main?: Parameters<typeof startDaemon>[2],
): Promise<{ daemon: RunningDaemon; port: number }> {
  const daemon = startDaemon(
    [...world.baseArgs, '--health-addr=127.0.0.1:0', '--metrics-addr=127.0.0.1:0', ...extra],
    env,
    main,
  );
  const port = await daemon.healthPort();
  await eventually(
    async () => ((await httpGet(port, '/readyz')).status === 200 ? true : undefined),
    'the daemon to be ready',
  );
  return { daemon, port };
}
