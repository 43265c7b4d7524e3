// Which cluster we talk to and as whom, from the kubeconfig rules kubectl follows: an explicit
// --kubeconfig/--context first (never silently replaced by the pod's service account), then
// the in-cluster service account, then $KUBECONFIG (several files, the first to set a value
// wins), then ~/.kube/config. Messages name files and contexts, never what is inside them.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { credentialsFor, pem } from './kube-credentials.js';
import type { CredentialOptions, Credentials } from './kube-credentials.js';
import {
  emptyKubeconfig,
  mergeFirstWins,
  parseKubeconfig,
  readKubeconfigFile,
} from './kubeconfig-file.js';
import type { Kubeconfig } from './kubeconfig-file.js';

/** Everything a request needs to reach the API server and be recognised by it. */
export interface KubeCluster {
  /** e.g. https://10.0.0.1:443, without a trailing slash. */
  readonly server: string;
  /** PEM; absent: the system's roots. */
  readonly ca?: Buffer;
  readonly insecureSkipTlsVerify: boolean;
  readonly tlsServerName?: string;
  readonly credentials: Credentials;
}

export interface KubeconfigChoice {
  readonly kubeconfig?: string;
  readonly context?: string;
}

/** Where the in-cluster service account is looked for; a parameter so tests can place one. */
export interface InClusterProbe {
  readonly serviceHost: string | undefined;
  /** Default 443. */
  readonly servicePort?: string | undefined;
  /** ca.crt is looked for beside it. */
  readonly tokenPath: string;
}

export const IN_CLUSTER: InClusterProbe = {
  get serviceHost() {
    return process.env['KUBERNETES_SERVICE_HOST'];
  },
  get servicePort() {
    return process.env['KUBERNETES_SERVICE_PORT'];
  },
  tokenPath: '/var/run/secrets/kubernetes.io/serviceaccount/token',
};

export function loadKubeCluster(
  opts: KubeconfigChoice,
  inCluster: InClusterProbe = IN_CLUSTER,
): { readonly cluster: KubeCluster; readonly source: string } {
  const explicit = opts.kubeconfig !== undefined || opts.context !== undefined;
  if (!explicit && inCluster.serviceHost && existsSync(inCluster.tokenPath)) {
    return { cluster: inClusterCluster(inCluster), source: 'in-cluster' };
  }

  const envPaths = (process.env['KUBECONFIG'] ?? '').split(delimiter).filter((p) => p.length > 0);
  const paths = opts.kubeconfig
    ? [opts.kubeconfig]
    : envPaths.length > 0
      ? envPaths
      : [join(homedir(), '.kube', 'config')];
  const existing = paths.filter((p) => existsSync(p));
  if (existing.length === 0) {
    throw new Error(
      `no kubeconfig found (tried ${paths.join(', ')}); pass --kubeconfig or run in-cluster`,
    );
  }
  const merged = emptyKubeconfig();
  for (const path of existing) {
    try {
      // Like kubectl: with several $KUBECONFIG files, the first one to set a value wins.
      mergeFirstWins(merged, readKubeconfigFile(path));
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
  }
  const where = `kubeconfig ${existing.join(delimiter)}`;
  const context = chooseContext(merged, opts.context, where);
  return {
    cluster: clusterOf(merged, context, where),
    source: `${existing.join(delimiter)} (context ${context})`,
  };
}

/** A kubeconfig given as text (relative paths against `baseDir`): for tests and tools. */
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

function clusterOf(
  config: Kubeconfig,
  contextName: string,
  where: string,
  options: CredentialOptions = {},
): KubeCluster {
  const context = config.contexts.get(contextName) ?? {};
  const entry = context.cluster === undefined ? undefined : config.clusters.get(context.cluster);
  if (entry === undefined)
    throw new Error(`context ${contextName} in ${where} names no known cluster`);
  const clusterName = context.cluster ?? '';
  if (entry.server === undefined || entry.server === '')
    throw new Error(`cluster ${clusterName} in ${where} has no server`);
  if (entry['proxy-url'] !== undefined && entry['proxy-url'] !== '') {
    throw new Error(
      `cluster ${clusterName} in ${where} sets proxy-url, which is not supported; ` +
        'reach the API server directly (e.g. run the registrar where it can), or remove proxy-url',
    );
  }
  const ca = pem(
    entry['certificate-authority-data'],
    entry['certificate-authority'],
    'certificate authority',
  );
  const insecureSkipTlsVerify = entry['insecure-skip-tls-verify'] === true;
  const tlsServerName = entry['tls-server-name'] || undefined;
  const server = entry.server.replace(/\/+$/, '');
  const userName = context.user ?? '';
  // A context without a (known) user is anonymous, as with kubectl.
  const user = config.users.get(userName) ?? {};
  const execConfig = entry.extensions?.find((e) => e.name === 'client.authentication.k8s.io/exec');
  const credentials = credentialsFor(user, userName || '(none)', {
    ...options,
    cluster: {
      server,
      ...(ca !== undefined ? { 'certificate-authority-data': ca.toString('base64') } : {}),
      ...(insecureSkipTlsVerify ? { 'insecure-skip-tls-verify': true } : {}),
      ...(tlsServerName !== undefined ? { 'tls-server-name': tlsServerName } : {}),
      ...(execConfig?.extension !== undefined ? { config: execConfig.extension } : {}),
    },
  });
  return {
    server,
    ...(ca !== undefined ? { ca } : {}),
    insecureSkipTlsVerify,
    ...(tlsServerName !== undefined ? { tlsServerName } : {}),
    credentials,
  };
}

/** The pod's service account: its token file is re-read, as the kubelet rotates it. */
function inClusterCluster(probe: InClusterProbe): KubeCluster {
  const host = probe.serviceHost ?? '';
  const port = probe.servicePort || '443';
  const caPath = join(dirname(probe.tokenPath), 'ca.crt');
  let ca: Buffer | undefined;
  try {
    ca = readFileSync(caPath);
  } catch {
    // client-go carries on without it too: the system's roots may still verify the server.
    ca = undefined;
  }
  return {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    ...(ca !== undefined ? { ca } : {}),
    insecureSkipTlsVerify: false,
    credentials: credentialsFor({ tokenFile: probe.tokenPath }, 'in-cluster service account'),
  };
}
