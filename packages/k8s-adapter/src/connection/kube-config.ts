// Which cluster we talk to and as whom. Precedence as controller-runtime's: --kubeconfig,
// then $KUBECONFIG (several files, the first to set a value wins), then the in-cluster
// service account, then ~/.kube/config. One difference, on purpose: a --context is never
// silently dropped for the service account (controller-runtime ignores it in-cluster).
// Files are read by client-node (kubeconfig-files.ts), credentials applied by it per request
// (kube-credentials.ts); checks kubectl makes and client-node does not are made at load time
// (kubeconfig-checks.ts). Messages name files, contexts, clusters and users, never what is
// inside them.
import { existsSync, readFileSync } from 'node:fs';
import type { Agent } from 'node:http';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { AgentOptions } from 'node:https';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
// client-node's KubeConfig by its module, not the package entry: the entry also imports its
// informers, watches and API clients, which would keep its generated models in the bundle.
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import type { Cluster, User } from '@kubernetes/client-node';
import { credentialsFor } from './kube-credentials.js';
import type { CredentialOptions, Credentials } from './kube-credentials.js';
import { mergeFirstWins, parseKubeconfig, readKubeconfigFile } from './kubeconfig-files.js';
import { checkCluster, checkUser, serverUrl } from './kubeconfig-checks.js';
import type { Kubeconfig } from './kubeconfig-files.js';
import { proxyFromEnvironment } from './proxy-env.js';

/** Everything a request needs to reach the API server and be recognised by it. */
export interface KubeCluster {
  /** e.g. https://10.0.0.1:443, without a trailing slash. */
  readonly server: string;
  readonly insecureSkipTlsVerify: boolean;
  readonly tlsServerName?: string;
  /** The proxy requests go through (proxy-url, else the environment's), without its credentials. */
  readonly proxy?: string;
  readonly credentials: Credentials;
  /** A new agent for one TLS identity: through the proxy (client-node's agents), else direct. */
  newAgent(options: AgentOptions): Agent;
}

export interface KubeconfigChoice {
  readonly kubeconfig?: string;
  readonly context?: string;
}

/** Where the in-cluster service account is looked for; a parameter so tests can place one. */
export interface InClusterProbe {
  /** Put before /var/run/secrets/kubernetes.io/serviceaccount (client-node's pathPrefix). */
  readonly pathPrefix: string;
}

/** loadKubeCluster's order, as `--help` states it (kept beside the code it describes). */
export const KUBECONFIG_PRECEDENCE = [
  '--kubeconfig',
  '$KUBECONFIG',
  'the in-cluster service account (unless --context is given)',
  '~/.kube/config',
] as const;

export const IN_CLUSTER: InClusterProbe = { pathPrefix: '' };
const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

export function loadKubeCluster(
  opts: KubeconfigChoice,
  inCluster: InClusterProbe = IN_CLUSTER,
): { readonly cluster: KubeCluster; readonly source: string } {
  if (opts.kubeconfig !== undefined) return fromFiles([opts.kubeconfig], opts.context);
  const envPaths = (process.env['KUBECONFIG'] ?? '').split(delimiter).filter((p) => p !== '');
  if (envPaths.length > 0) return fromFiles(envPaths, opts.context);
  const host = process.env['KUBERNETES_SERVICE_HOST'];
  const port = process.env['KUBERNETES_SERVICE_PORT'];
  const token = `${inCluster.pathPrefix}${SERVICE_ACCOUNT}/token`;
  if (opts.context === undefined && host && port && existsSync(token))
    return { cluster: inClusterCluster(inCluster, host, port), source: 'in-cluster' };
  return fromFiles([join(homedir(), '.kube', 'config')], opts.context);
}

function fromFiles(
  paths: readonly string[],
  context: string | undefined,
): { readonly cluster: KubeCluster; readonly source: string } {
  const existing = paths.filter((p) => existsSync(p));
  if (existing.length === 0) {
    throw new Error(
      `no kubeconfig found (tried ${paths.join(', ')}); pass --kubeconfig or run in-cluster`,
    );
  }
  const files = existing.map((path) => {
    try {
      return readKubeconfigFile(path);
    } catch (err) {
      // Parser errors quote the offending line, which may hold a credential: keep the class only.
      const code =
        err instanceof Error &&
        'code' in err &&
        typeof err.code === 'string' &&
        /^E[A-Z]+$/.test(err.code)
          ? err.code
          : 'unreadable or not YAML';
      throw new Error(`cannot read kubeconfig ${path} (${code})`, { cause: undefined });
    }
  });
  const merged = mergeFirstWins(files);
  const where = `kubeconfig ${existing.join(delimiter)}`;
  const chosen = chooseContext(merged, context, where);
  return {
    cluster: clusterOf(merged, chosen, where),
    source: `${existing.join(delimiter)} (context ${chosen})`,
  };
}

/** A kubeconfig given as text (relative paths against `baseDir`): for the package's tests. */
export function kubeClusterFromText(
  text: string,
  options: { readonly context?: string; readonly baseDir?: string } & CredentialOptions = {},
): KubeCluster {
  const config = parseKubeconfig(text, options.baseDir ?? process.cwd());
  const where = 'the kubeconfig';
  return clusterOf(config, chooseContext(config, options.context, where), where, options);
}

function chooseContext(config: Kubeconfig, asked: string | undefined, where: string): string {
  if (asked !== undefined) {
    if (!config.contexts.has(asked)) throw new Error(`context ${asked} not found in ${where}`);
    return asked;
  }
  const context = config.currentContext;
  if (context === undefined || !config.contexts.has(context))
    throw new Error(`${where} has no current context; pass --context`);
  return context;
}

/** A context without a (known) user is anonymous, as with kubectl; client-node applies even the CA only for a user. */
const ANONYMOUS: User = { name: '' };

function clusterOf(
  config: Kubeconfig,
  contextName: string,
  where: string,
  options: CredentialOptions = {},
): KubeCluster {
  const context = config.contexts.get(contextName);
  const clusterName = context?.cluster ?? '';
  if (config.serverless.has(clusterName))
    throw new Error(`cluster ${clusterName} in ${where} has no server`);
  const entry = config.clusters.get(clusterName);
  if (context === undefined || entry === undefined)
    throw new Error(`context ${contextName} in ${where} names no known cluster`);
  // client-node types a context's user as always set; a context may name none.
  const named = context.user as string | undefined;
  const user = (named !== undefined ? config.users.get(named) : undefined) ?? ANONYMOUS;
  const userName = user.name || '(none)';
  const extras = config.extras.get(user.name) ?? {};
  checkCluster(entry, where);
  checkUser(user, extras, userName);
  const server = serverUrl(entry, user);
  const proxy = entry.proxyUrl || proxyFromEnvironment(new URL(server));
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      { ...entry, server, ...(proxy !== undefined ? { proxyUrl: remoteNames(proxy) } : {}) },
    ],
    users: [user],
    contexts: [{ name: contextName, cluster: entry.name, user: user.name }],
    currentContext: contextName,
  });
  const execConfig = config.execExtensions.get(clusterName);
  const credentials = credentialsFor(kc, extras, userName, {
    ...options,
    cluster: {
      server,
      ...(entry.caData
        ? { 'certificate-authority-data': entry.caData }
        : entry.caFile
          ? { 'certificate-authority-data': readFileSync(entry.caFile).toString('base64') }
          : {}),
      ...(entry.skipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
      ...(entry.tlsServerName ? { 'tls-server-name': entry.tlsServerName } : {}),
      ...(execConfig !== undefined ? { config: execConfig } : {}),
    },
  });
  const internals = kc as unknown as CreatesAgents;
  const proxied = kc.getCurrentCluster();
  return {
    server,
    insecureSkipTlsVerify: entry.skipTLSVerify,
    ...(entry.tlsServerName ? { tlsServerName: entry.tlsServerName } : {}),
    ...(proxy !== undefined ? { proxy: withoutUserInfo(proxy) } : {}),
    credentials,
    newAgent(agentOptions) {
      if (proxy !== undefined && proxied !== null)
        return internals.createAgent(proxied, agentOptions);
      return server.startsWith('https:')
        ? new HttpsAgent(agentOptions)
        : new HttpAgent(agentOptions);
    },
  };
}

/**
 * Through a SOCKS5 proxy, kubectl (Go's SOCKS5 dialer) sends the server's host name to the
 * proxy, which resolves it; socks-proxy-agent does that only for `socks5h:` and resolves
 * `socks5:` names itself, so a name only the proxy can resolve would fail.
 */
function remoteNames(proxy: string): string {
  return proxy.replace(/^socks5:/i, 'socks5h:');
}

/**
 * client-node builds its proxy agents (hpagent for http(s) proxies, socks-proxy-agent for
 * socks) in `createAgent`, which its typings call private; the version is pinned exactly.
 */
interface CreatesAgents {
  createAgent(cluster: Cluster, options: AgentOptions): Agent;
}

function withoutUserInfo(proxy: string): string {
  try {
    const url = new URL(proxy);
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return 'the proxy';
  }
}

/**
 * The pod's service account, as client-go's InClusterConfig reads it: https to the service
 * host and port, ca.crt beside the token (a missing one leaves the system's roots), and the
 * token file re-read as it rotates. Given to client-node as a kubeconfig with a tokenFile
 * (its own loadFromCluster guesses http from ports 80, 8080 and 8001, and fails every request
 * without ca.crt).
 */
function inClusterCluster(probe: InClusterProbe, host: string, port: string): KubeCluster {
  const dir = `${probe.pathPrefix}${SERVICE_ACCOUNT}`;
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const ca = existsSync(`${dir}/ca.crt`) ? { 'certificate-authority': `${dir}/ca.crt` } : {};
  const name = 'in-cluster';
  const text = JSON.stringify({
    'current-context': name,
    clusters: [{ name, cluster: { server, ...ca } }],
    users: [{ name: 'service-account', user: { tokenFile: `${dir}/token` } }],
    contexts: [{ name, context: { cluster: name, user: 'service-account' } }],
  });
  return kubeClusterFromText(text);
}
