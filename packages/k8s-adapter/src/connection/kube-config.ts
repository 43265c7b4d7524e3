// Which cluster we talk to and as whom. Precedence as controller-runtime's: --kubeconfig,
// then $KUBECONFIG (several files, the first to set a value wins), then the in-cluster
// service account, then ~/.kube/config. One difference, on purpose: a --context is never
// silently dropped for the service account (controller-runtime ignores it in-cluster).
// Files are read by client-node (kubeconfig-files.ts), credentials applied by it per request
// (kube-credentials.ts); checks kubectl makes and client-node does not are made here, at
// load time. Messages name files, contexts, clusters and users, never what is inside them.
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
import { codeOf } from './kube-credentials.js';
import { mergeFirstWins, parseKubeconfig, readKubeconfigFile } from './kubeconfig-files.js';
import type { Kubeconfig, UserExtras } from './kubeconfig-files.js';
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

/** Users client-node's authenticators know; any other would silently send no credential. */
const AUTH_PROVIDERS = new Set(['oidc', 'azure', 'gcp']);
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
    clusters: [{ ...entry, server, ...(proxy !== undefined ? { proxyUrl: proxy } : {}) }],
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
 * client-node builds its proxy agents (hpagent for http(s) proxies, socks-proxy-agent for
 * socks) in `createAgent`, which its typings call private; the version is pinned exactly.
 */
interface CreatesAgents {
  createAgent(cluster: Cluster, options: AgentOptions): Agent;
}

/** What kubectl refuses before the first request, and client-node would only fail on (or ignore). */
function checkCluster(entry: Cluster, where: string): void {
  if (entry.skipTLSVerify && (entry.caData || entry.caFile)) {
    throw new Error(
      `cluster ${entry.name} in ${where} sets insecure-skip-tls-verify together with a certificate authority; ` +
        'kubectl refuses this too: remove one of them',
    );
  }
  if (entry.caFile) readable(entry.caFile, 'certificate authority');
}

function checkUser(user: User, extras: UserExtras, userName: string): void {
  const authProvider = user.authProvider as { readonly name?: unknown } | undefined;
  const provider = authProvider?.name;
  if (authProvider && !(typeof provider === 'string' && AUTH_PROVIDERS.has(provider))) {
    throw new Error(
      `user ${userName} in the kubeconfig uses the ${typeof provider === 'string' ? provider : 'unnamed'} auth-provider, which is not supported ` +
        `(supported: ${[...AUTH_PROVIDERS].join(', ')}); use an exec credential plugin instead (e.g. kubelogin)`,
    );
  }
  const hasCert = Boolean(user.certData || user.certFile);
  const hasKey = Boolean(user.keyData || user.keyFile);
  if (hasCert !== hasKey) {
    throw new Error(
      `user ${userName} in the kubeconfig has a client ${hasCert ? 'certificate' : 'key'} without its ${hasCert ? 'key' : 'certificate'}`,
    );
  }
  if (user.certFile) readable(user.certFile, 'client certificate');
  if (user.keyFile) readable(user.keyFile, 'client key');
  if (user.username && (user.token || extras.tokenFile !== undefined)) {
    throw new Error(
      `user ${userName} in the kubeconfig sets both a username/password and a bearer token; kubectl refuses this too: keep one`,
    );
  }
  const narrowing =
    extras.impersonateGroups !== undefined ||
    extras.impersonateUid !== undefined ||
    extras.impersonateExtra !== undefined;
  if (narrowing && !user.impersonateUser) {
    throw new Error(
      `user ${userName} in the kubeconfig sets as-groups, as-uid or as-user-extra without as; set as: to the user to act as`,
    );
  }
}

/** client-go's rule for a server without a scheme: https when TLS is configured, else http. */
function serverUrl(entry: Cluster, user: User): string {
  const server = entry.server.replace(/\/+$/, '');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(server)) return server;
  const tls = Boolean(
    entry.caData || entry.caFile || user.certData || user.certFile || entry.skipTLSVerify,
  );
  return `${tls ? 'https' : 'http'}://${server}`;
}

function readable(path: string, what: string): void {
  try {
    readFileSync(path);
  } catch (err) {
    throw new Error(`cannot read ${what} file ${path} (${codeOf(err)})`, { cause: undefined });
  }
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
