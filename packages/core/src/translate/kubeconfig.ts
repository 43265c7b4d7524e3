// kubeconfig → ArgoCD cluster config. Pure and total: any text gives either a Translation that
// ArgoCD's parser accepts or a Refusal that names the Secret and the fix. One malformed cluster
// Secret breaks ApplicationSet pruning for every cluster, so the output is held to ArgoCD's
// rules (padded base64, one credential form, never `insecure` with `caData`).

import type {
  ArgoClusterConfig,
  Provider,
  Translation,
  TranslationResult,
  Warning,
} from '../common/types.js';
import {
  classifyServer,
  plainHttpWarning,
  proxyUrlProblem,
  redactUrl,
} from '../common/server-address.js';
import {
  NOT_A_KUBECONFIG_FIX,
  OVER_LIMIT_FIX,
  parseYaml,
  Problem,
  readString,
  selectPair,
  where,
  type SecretSource,
  type YamlMap,
} from './kubeconfig-structure.js';
import {
  CREDENTIAL_FIX,
  fileReferences,
  IMPERSONATION_FIELDS,
  present,
  readCredentials,
  readTls,
  type Warn,
} from './kubeconfig-fields.js';
import { execConnectionProblem } from './exec/exec-policy.js';
import { EMPTY_EXEC_POLICY } from '../config/exec-policy.js';
import { translateExec, type TranslatedExec } from './exec/translate-exec.js';
import { secretReaderFit } from './reference-mode.js';

export interface TranslateContext extends SecretSource {
  readonly provider: Provider;
  /**
   * The `<prefix>server` annotation overrides the server: the kubeconfig's own is neither used
   * nor checked, so a loopback or in-cluster address there does not block the namespace.
   */
  readonly serverOverridden?: boolean;
  /** A Cluster API Cluster's kubeconfig: its server override is the Cluster's annotation. */
  readonly clusterSource?: boolean;
  /** The server annotation's full key, for messages; a placeholder when not given. */
  readonly serverAnnotation?: string;
  /** The Secret's `vcluster-name` label, for a loopback rewrite; else from a `vc-<name>` name. */
  readonly vcluster?: string;
  /** Also say whether the kubeconfig-secretreader plugin can read it (reference mode). */
  readonly secretReaderFit?: boolean;
}

const serverAnnotationHint = (context: TranslateContext): string =>
  `the \`${context.serverAnnotation ?? '<label-prefix>server'}\` ${context.clusterSource === true ? 'annotation of the Cluster' : 'namespace annotation'}`;

/** Who a message is about: the selected context's cluster and user, by name. */
type Owners = Readonly<Record<'cluster' | 'user', string>>;

/** The kubeconfig's selected pair as ArgoCD's cluster config, or what makes it unusable. */
function translateRoot(root: YamlMap, context: TranslateContext): Translation | Problem {
  const selected = selectPair(root);
  if (selected instanceof Problem) return selected;
  const owners: Owners = {
    cluster: `cluster ${JSON.stringify(selected.cluster.name)}`,
    user: `user ${JSON.stringify(selected.user.name)}`,
  };
  const cluster = selected.cluster.body;
  const user = selected.user.body;
  const warnings: Warning[] = [];
  const warn: Warn = (code, message) => {
    warnings.push({
      code,
      namespace: context.namespace,
      secret: context.secret,
      message: `${where(context)}: ${message}`,
    });
  };

  if (selected.danglingContext !== undefined) {
    warn(
      'current-context-dangling',
      `${selected.danglingContext}; used its only ${owners.cluster} and ${owners.user} (kubectl would refuse this kubeconfig: point current-context at a context for them)`,
    );
  }

  const exec = refuseWhatArgoCdWouldRun(cluster, user, owners, context);
  if (exec instanceof Problem) return exec;
  const server = readServer(cluster, owners.cluster, context, warn);
  if (server instanceof Problem) return server;
  const tls = readTls(cluster, owners.cluster, warn);
  if (tls instanceof Problem) return tls;
  const read = readCredentials(user, owners.user, exec !== undefined);
  if (read instanceof Problem) return read;
  const proxyUrl = readProxyUrl(cluster, owners.cluster, warn);
  if (proxyUrl instanceof Problem) return proxyUrl;

  // ArgoCD's own cloud token goes wherever an exec registration points. An overridden server
  // is refused when the registration is built (registration.ts).
  if (exec !== undefined && context.serverOverridden !== true) {
    const unbound = execConnectionProblem(
      exec.cloud,
      { server, insecure: tls.insecure, proxyUrl },
      context.provider.execPolicy ?? EMPTY_EXEC_POLICY,
      owners.cluster,
    );
    if (unbound !== undefined) return unbound;
  }

  const { kind: credential, clientCertificate } = read;
  const config: ArgoClusterConfig = {
    ...read.credentials,
    tlsClientConfig: { ...tls, ...read.tls },
    ...exec?.form,
    ...(proxyUrl !== undefined ? { proxyUrl } : {}),
  };
  return {
    server,
    config,
    warnings,
    credential,
    ...(clientCertificate === undefined ? {} : { clientCertificate }),
    ...(context.secretReaderFit === true
      ? { secretReader: secretReaderFit(root, selected.context, credential) }
      : {}),
  };
}

/**
 * Commands and files would run or be read inside the ArgoCD pod: refused before anything
 * else, unless both exec gates are on and the plugin has an ArgoCD form of its own (returned).
 */
function refuseWhatArgoCdWouldRun(
  cluster: YamlMap,
  user: YamlMap,
  owners: Owners,
  context: TranslateContext,
): TranslatedExec | undefined | Problem {
  const exec = present(user['exec'])
    ? translateExec(user['exec'], owners.user, context.provider)
    : undefined;
  if (exec instanceof Problem) return exec;
  if (present(user['auth-provider'])) {
    return new Problem(
      'auth-provider',
      `the kubeconfig uses an auth-provider plugin, which ArgoCD would have to run with its own credentials`,
      CREDENTIAL_FIX,
    );
  }
  const fileProblem = fileReferences({ cluster, user }, owners);
  if (fileProblem !== undefined) return fileProblem;
  const impersonation = IMPERSONATION_FIELDS.find((field) => present(user[field]));
  if (impersonation !== undefined) {
    return new Problem(
      'impersonation',
      `${owners.user} impersonates another identity ("${impersonation}"), which ArgoCD's cluster config cannot express; registering it would give ArgoCD the unimpersonated identity`,
      'use a kubeconfig whose credentials belong to the identity ArgoCD should act as',
    );
  }
  return exec;
}

/**
 * The server ArgoCD should reach (unchecked when overridden: the registration takes the
 * override), a vcluster's loopback rewritten to its Service.
 */
function readServer(
  cluster: YamlMap,
  clusterOwner: string,
  context: TranslateContext,
  warn: Warn,
): string | Problem {
  const rawServer = readString(cluster, 'server', clusterOwner);
  if (rawServer instanceof Problem) return rawServer;
  const server = rawServer?.replace(/\/+$/, '') ?? '';
  if (context.serverOverridden === true) return server;
  if (rawServer === undefined) {
    return new Problem(
      'server-missing',
      `${clusterOwner} has no server`,
      `set its server to the child API server's https:// address, or set ${serverAnnotationHint(context)}`,
    );
  }
  const classified = classifyServer(server);
  switch (classified.kind) {
    case 'ok': {
      const plainHttp = plainHttpWarning(server);
      if (plainHttp !== undefined)
        warn('server-plain-http', `${clusterOwner} has server ${plainHttp}`);
      return server;
    }
    case 'invalid':
      return new Problem(
        'server-invalid',
        `${clusterOwner} has server ${JSON.stringify(redactUrl(rawServer))}, which is not an https:// (or http://) URL with a host and without user-info, query or fragment`,
        `set it to the child API server's address, e.g. https://api.child.example.com:6443, or set ${serverAnnotationHint(context)}`,
      );
    case 'in-cluster':
      return new Problem(
        'server-in-cluster',
        `${clusterOwner} has server ${redactUrl(server)}, the host cluster's own API service, which ArgoCD would reach with its own service account`,
        `use a kubeconfig that addresses the child cluster, or set ${serverAnnotationHint(context)} to the child API server's address`,
      );
    case 'loopback':
      return rewriteLoopback(server, clusterOwner, context, warn);
  }
}

/**
 * vcluster writes a localhost kubeconfig for port-forwarding; its Service `<vcluster>` serves
 * on 443 with `<vcluster>.<namespace>` on its certificate. Other providers' loopback
 * addresses are refused: from ArgoCD's pod they are ArgoCD itself.
 */
function rewriteLoopback(
  server: string,
  clusterOwner: string,
  context: TranslateContext,
  warn: Warn,
): string | Problem {
  if (!context.provider.loopbackRewrite) {
    return new Problem(
      'server-loopback',
      `${clusterOwner} has server ${redactUrl(server)}, a loopback address, which from ArgoCD's pod is ArgoCD itself`,
      `expose the child API server and set ${serverAnnotationHint(context)} to its address`,
    );
  }
  const name =
    context.vcluster ?? (context.secret.startsWith('vc-') ? context.secret.slice(3) : '');
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) || name.length > 63) {
    return new Problem(
      'server-loopback',
      `${clusterOwner} has server ${redactUrl(server)}, a loopback address, and neither a vcluster-name label nor a vc-<vcluster> Secret name says which vcluster it is, so the vcluster Service cannot be derived`,
      `set ${serverAnnotationHint(context)} to the vcluster Service address (https://<vcluster>.<namespace>)`,
    );
  }
  const rewritten = `https://${name}.${context.namespace}`;
  // A vcluster named `kubernetes` in `default` would point ArgoCD at the host cluster.
  if (classifyServer(rewritten).kind !== 'ok') {
    return new Problem(
      'server-in-cluster',
      `${clusterOwner} has server ${redactUrl(server)}, a loopback address, and the vcluster Service it rewrites to, ${rewritten}, is the host cluster's own API service, which ArgoCD would reach with its own service account`,
      `set ${serverAnnotationHint(context)} to the vcluster's own address`,
    );
  }
  warn(
    'loopback-rewritten',
    `server ${redactUrl(server)} is a loopback address; registered the vcluster Service ${rewritten} instead`,
  );
  return rewritten;
}

/** An optional proxy: a URL without credentials, and a warning that it sees the traffic. */
function readProxyUrl(
  cluster: YamlMap,
  clusterOwner: string,
  warn: Warn,
): string | undefined | Problem {
  const proxyUrl = readString(cluster, 'proxy-url', clusterOwner);
  if (proxyUrl === undefined || proxyUrl instanceof Problem) return proxyUrl;
  const problem = proxyUrlProblem(proxyUrl);
  if (problem !== undefined) {
    return new Problem(
      'proxy-url-invalid',
      `proxy-url ${JSON.stringify(redactUrl(proxyUrl))} of ${clusterOwner} ${problem}`,
      'set it to http://, https:// or socks5://<host>:<port> without credentials, or remove it',
    );
  }
  warn(
    'proxy-url',
    `${clusterOwner} sets proxy-url ${redactUrl(proxyUrl)}: ArgoCD will connect to this cluster through that proxy, which learns where ArgoCD connects and can block the connection`,
  );
  return proxyUrl;
}

/** Translates one kubeconfig; never throws. */
export function translateKubeconfig(
  kubeconfigText: string,
  context: TranslateContext,
): TranslationResult {
  const parsed = parseYaml(kubeconfigText);
  const translated = parsed.ok
    ? translateRoot(parsed.root, context)
    : parsed.overLimit === true
      ? new Problem('kubeconfig-over-limit', `the kubeconfig ${parsed.problem}`, OVER_LIMIT_FIX)
      : new Problem(
          'kubeconfig-not-yaml',
          `the kubeconfig ${parsed.problem}`,
          NOT_A_KUBECONFIG_FIX,
        );
  if (!(translated instanceof Problem)) return { ok: true, translation: translated };
  return {
    ok: false,
    refusal: {
      code: translated.code,
      message: `${where(context)}: ${translated.problem}; ${translated.fix}`,
    },
  };
}
