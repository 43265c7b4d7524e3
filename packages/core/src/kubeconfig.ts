// kubeconfig → ArgoCD cluster config. Pure and total: any text gives either a
// Translation that ArgoCD's parser accepts or a Refusal that names the Secret and the fix.
//
// One malformed cluster Secret breaks ApplicationSet pruning for every cluster, so the output
// is held to ArgoCD's rules (padded standard base64, exactly one credential form, never
// `insecure` together with `caData`) rather than passed through.

import type {
  ArgoClusterConfig,
  CertificateFacts,
  CredentialKind,
  Provider,
  Refusal,
  TranslationResult,
  Warning,
} from './types.js';
import { decodeBase64, decodeUtf8, encodeBase64 } from './base64.js';
import { classifyServer, proxyUrlProblem, redactUrl } from './server-address.js';
import { readCertificateDer, readPemBlocks } from './x509.js';
import {
  isMap,
  NOT_A_KUBECONFIG_FIX,
  parseYaml,
  Problem,
  readBoolean,
  readString,
  selectPair,
  type YamlMap,
} from './kubeconfig-structure.js';
import { isExecProblem, type ExecForm } from './exec-credentials/exec-block.js';
import { translateExec } from './exec-credentials/translate-exec.js';

export interface TranslateContext {
  readonly namespace: string;
  readonly secret: string;
  readonly provider: Provider;
  /** The Secret data key the kubeconfig came from, for messages. */
  readonly key?: string;
  /**
   * The namespace overrides the server address (`<prefix>server` annotation), so the
   * kubeconfig's own `server` is not used and not checked: a loopback or in-cluster address
   * there must not block a namespace that has said where the API server really is.
   */
  readonly serverOverridden?: boolean;
  /**
   * The full key of the server-override annotation (`<label prefix>server`), for messages
   * that suggest it; a placeholder when not given.
   */
  readonly serverAnnotation?: string;
}

// ---------------------------------------------------------------------------------------
// PEM data fields.

/**
 * `*-data` fields are []byte in client-go, decoded with Go's StdEncoding, which skips CR and
 * LF; anything else must be padded standard base64. Returns the bytes (re-encoded
 * canonically for ArgoCD) and the PEM blocks.
 */
function readPemData(
  value: string,
):
  | { readonly bytes: Uint8Array; readonly blocks: ReturnType<typeof readPemBlocks> }
  | 'base64'
  | 'pem' {
  const bytes = decodeBase64(value.replace(/[\r\n]/g, ''));
  if (bytes === undefined || bytes.length === 0) return 'base64';
  const text = decodeUtf8(bytes);
  if (text === undefined) return 'pem';
  const blocks = readPemBlocks(text);
  return blocks.length === 0 ? 'pem' : { bytes, blocks };
}

const isPrivateKeyLabel = (label: string): boolean =>
  label === 'PRIVATE KEY' || (label.endsWith(' PRIVATE KEY') && label !== 'ENCRYPTED PRIVATE KEY');

// ---------------------------------------------------------------------------------------

const FILE_FIELDS: readonly (readonly ['cluster' | 'user', string, string])[] = [
  ['cluster', 'certificate-authority', 'certificate-authority-data'],
  ['user', 'client-certificate', 'client-certificate-data'],
  ['user', 'client-key', 'client-key-data'],
  ['user', 'tokenFile', 'token'],
];

const IMPERSONATION_FIELDS = ['as', 'as-uid', 'as-groups', 'as-user-extra'];

const present = (value: unknown): boolean =>
  value !== undefined &&
  value !== null &&
  value !== '' &&
  !(Array.isArray(value) && value.length === 0) &&
  !(isMap(value) && Object.keys(value).length === 0);

/** Every file reference at once, so one edit fixes them all. */
function fileReferences(
  cluster: YamlMap,
  user: YamlMap,
  clusterOwner: string,
  userOwner: string,
): Problem | undefined {
  const found = FILE_FIELDS.filter(([section, field]) =>
    present((section === 'cluster' ? cluster : user)[field]),
  );
  if (found.length === 0) return undefined;
  const quoted = (fields: readonly string[]): string =>
    fields.map((field) => JSON.stringify(field)).join(', ');
  const owners = (['cluster', 'user'] as const).flatMap((section) => {
    const fields = found.filter(([owner]) => owner === section).map(([, field]) => field);
    if (fields.length === 0) return [];
    const owner = section === 'cluster' ? clusterOwner : userOwner;
    return [`${owner} refers to ${fields.length === 1 ? 'a file' : 'files'} (${quoted(fields)})`];
  });
  const single = found.length === 1;
  return new Problem(
    'file-reference',
    `${owners.join(' and ')}, which would name ${single ? 'a file' : 'files'} inside the ArgoCD pod`,
    `embed the ${single ? 'content' : 'contents'} as ${quoted(found.map(([, , inline]) => inline))} (\`kubectl config view --raw --flatten\`)`,
  );
}

const CREDENTIAL_FIX = 'use a kubeconfig with a client certificate or token';
const serverAnnotationHint = (context: TranslateContext): string =>
  `the \`${context.serverAnnotation ?? '<label-prefix>server'}\` namespace annotation`;

interface TranslationDraft {
  server: string;
  config: ArgoClusterConfig;
  warnings: Warning[];
  credential: CredentialKind;
  clientCertificate?: CertificateFacts;
}

function translateRoot(root: YamlMap, context: TranslateContext): TranslationDraft | Problem {
  const selected = selectPair(root);
  if (selected instanceof Problem) return selected;
  const clusterOwner = `cluster ${JSON.stringify(selected.cluster.name)}`;
  const userOwner = `user ${JSON.stringify(selected.user.name)}`;
  const cluster = selected.cluster.body;
  const user = selected.user.body;
  const warnings: Warning[] = [];
  const warn = (code: Warning['code'], message: string): void => {
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
      `${selected.danglingContext}; used its only ${clusterOwner} and ${userOwner} (kubectl would refuse this kubeconfig: point current-context at a context for them)`,
    );
  }

  // Commands and files would run or be read inside the ArgoCD pod: refused before anything
  // else, unless both exec gates are on and the plugin has an ArgoCD form of its own.
  let execForm: ExecForm | undefined;
  if (present(user['exec'])) {
    const translated = translateExec(user['exec'], userOwner, context.provider);
    if (isExecProblem(translated))
      return new Problem(translated.code, translated.problem, translated.fix);
    execForm = translated;
  }
  if (present(user['auth-provider'])) {
    return new Problem(
      'auth-provider',
      `the kubeconfig uses an auth-provider plugin, which ArgoCD would have to run with its own credentials`,
      CREDENTIAL_FIX,
    );
  }
  const fileProblem = fileReferences(cluster, user, clusterOwner, userOwner);
  if (fileProblem !== undefined) return fileProblem;
  const impersonation = IMPERSONATION_FIELDS.find((field) => present(user[field]));
  if (impersonation !== undefined) {
    return new Problem(
      'impersonation',
      `${userOwner} impersonates another identity ("${impersonation}"), which ArgoCD's cluster config cannot express; registering it would give ArgoCD the unimpersonated identity`,
      'use a kubeconfig whose credentials belong to the identity ArgoCD should act as',
    );
  }

  // Server.
  const rawServer = readString(cluster, 'server', clusterOwner);
  if (rawServer instanceof Problem) return rawServer;
  let server = rawServer?.replace(/\/+$/, '') ?? '';
  if (context.serverOverridden !== true) {
    if (rawServer === undefined) {
      return new Problem(
        'server-missing',
        `${clusterOwner} has no server`,
        `set its server to the child API server's https:// address, or set ${serverAnnotationHint(context)}`,
      );
    }
    const classified = classifyServer(server);
    switch (classified.kind) {
      case 'ok':
        break;
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
      case 'loopback': {
        if (!context.provider.loopbackRewrite) {
          return new Problem(
            'server-loopback',
            `${clusterOwner} has server ${redactUrl(server)}, a loopback address, which from ArgoCD's pod is ArgoCD itself`,
            `expose the child API server and set ${serverAnnotationHint(context)} to its address`,
          );
        }
        // vcluster writes a localhost kubeconfig for port-forwarding; its Service `<vcluster>`
        // serves on 443 with `<vcluster>.<namespace>` on its certificate.
        const name = context.secret.startsWith('vc-') ? context.secret.slice(3) : '';
        if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) || name.length > 63) {
          return new Problem(
            'server-loopback',
            `${clusterOwner} has server ${redactUrl(server)}, a loopback address, and the Secret name is not vc-<vcluster>, so the vcluster Service cannot be derived`,
            `set ${serverAnnotationHint(context)} to the vcluster Service address (https://<vcluster>.<namespace>)`,
          );
        }
        const rewritten = `https://${name}.${context.namespace}`;
        warn(
          'loopback-rewritten',
          `server ${redactUrl(server)} is a loopback address; registered the vcluster Service ${rewritten} instead`,
        );
        server = rewritten;
        break;
      }
    }
  }

  // TLS.
  const insecure = readBoolean(cluster, 'insecure-skip-tls-verify', clusterOwner);
  if (insecure instanceof Problem) return insecure;
  const serverName = readString(cluster, 'tls-server-name', clusterOwner);
  if (serverName instanceof Problem) return serverName;
  const caField = readString(cluster, 'certificate-authority-data', clusterOwner);
  if (caField instanceof Problem) return caField;
  let caData: string | undefined;
  if (caField !== undefined && insecure) {
    warn(
      'insecure-drops-ca',
      `${clusterOwner} sets insecure-skip-tls-verify, so its certificate-authority-data is not registered (ArgoCD rejects both together)`,
    );
  } else if (caField !== undefined) {
    const ca = readPemData(caField);
    const certificates =
      typeof ca === 'string' ? [] : ca.blocks.filter((block) => block.label === 'CERTIFICATE');
    if (
      typeof ca === 'string' ||
      certificates.length === 0 ||
      certificates.some(
        (block) => block.der === undefined || readCertificateDer(block.der) === undefined,
      )
    ) {
      const why =
        ca === 'base64'
          ? 'is not padded standard base64'
          : 'does not hold PEM CERTIFICATE blocks that parse';
      return new Problem(
        'ca-invalid',
        `certificate-authority-data of ${clusterOwner} ${why}`,
        'set it to the base64 of the PEM CA bundle, or remove it',
      );
    }
    caData = encodeBase64(ca.bytes);
  }

  // Credentials: client certificate, else token, else basic auth; exactly one is emitted.
  const certField = readString(user, 'client-certificate-data', userOwner);
  if (certField instanceof Problem) return certField;
  const keyField = readString(user, 'client-key-data', userOwner);
  if (keyField instanceof Problem) return keyField;
  const token = readString(user, 'token', userOwner);
  if (token instanceof Problem) return token;
  const username = readString(user, 'username', userOwner);
  if (username instanceof Problem) return username;
  const password = readString(user, 'password', userOwner);
  if (password instanceof Problem) return password;

  const tlsClientConfig: {
    insecure: boolean;
    serverName?: string;
    caData?: string;
    certData?: string;
    keyData?: string;
  } = { insecure };
  if (serverName !== undefined) tlsClientConfig.serverName = serverName;
  if (caData !== undefined) tlsClientConfig.caData = caData;
  let credentials: { username: string; password: string } | { bearerToken: string } | undefined;
  let clientCertificate: CertificateFacts | undefined;

  if (execForm !== undefined) {
    // client-go ignores an exec plugin when the user also has a certificate, token or
    // password, so a kubeconfig with both means something other than what it would register.
    const other = [certField ?? keyField, token, username ?? password].some(
      (field) => field !== undefined,
    );
    if (other) {
      return new Problem(
        'exec-unsupported',
        `${userOwner} has an exec plugin and also a client certificate, token or password, which kubectl would use instead`,
        'keep one of them',
      );
    }
  } else if (certField !== undefined || keyField !== undefined) {
    if (certField === undefined || keyField === undefined) {
      return new Problem(
        'client-cert-incomplete',
        `${userOwner} has ${certField === undefined ? 'client-key-data but no client-certificate-data' : 'client-certificate-data but no client-key-data'}`,
        'store both, or use a kubeconfig with a token',
      );
    }
    const cert = readPemData(certField);
    const certBlock =
      typeof cert === 'string'
        ? undefined
        : cert.blocks.find((block) => block.label === 'CERTIFICATE');
    const facts = certBlock?.der === undefined ? undefined : readCertificateDer(certBlock.der);
    if (typeof cert === 'string' || facts === undefined) {
      const why =
        cert === 'base64'
          ? 'is not padded standard base64'
          : 'does not hold a PEM CERTIFICATE block that parses';
      return new Problem(
        'client-cert-invalid',
        `client-certificate-data of ${userOwner} ${why}`,
        'set it to the base64 of the PEM client certificate',
      );
    }
    const key = readPemData(keyField);
    const keyBlock =
      typeof key === 'string'
        ? undefined
        : key.blocks.find((block) => isPrivateKeyLabel(block.label) && block.der !== undefined);
    if (typeof key === 'string' || keyBlock === undefined) {
      const encrypted =
        typeof key !== 'string' &&
        key.blocks.some(
          (block) => block.label === 'ENCRYPTED PRIVATE KEY' || block.der === undefined,
        );
      const why =
        key === 'base64'
          ? 'is not padded standard base64'
          : encrypted
            ? 'holds an encrypted private key'
            : 'does not hold a PEM PRIVATE KEY block';
      return new Problem(
        'client-cert-invalid',
        `client-key-data of ${userOwner} ${why}`,
        'set it to the base64 of the unencrypted PEM private key',
      );
    }
    tlsClientConfig.certData = encodeBase64(cert.bytes);
    tlsClientConfig.keyData = encodeBase64(key.bytes);
    clientCertificate = facts;
  } else if (token !== undefined) {
    credentials = { bearerToken: token };
  } else if (username !== undefined && password !== undefined) {
    credentials = { username, password };
  } else {
    const partial =
      username !== undefined
        ? 'a username but no password'
        : password !== undefined
          ? 'a password but no username'
          : 'no client certificate, token or username and password';
    return new Problem('credentials-missing', `${userOwner} has ${partial}`, CREDENTIAL_FIX);
  }

  const proxyUrl = readString(cluster, 'proxy-url', clusterOwner);
  if (proxyUrl instanceof Problem) return proxyUrl;
  if (proxyUrl !== undefined) {
    const problem = proxyUrlProblem(proxyUrl);
    if (problem !== undefined) {
      return new Problem(
        'proxy-url-invalid',
        `proxy-url ${JSON.stringify(redactUrl(proxyUrl))} of ${clusterOwner} ${problem}`,
        'set it to http://, https:// or socks5://<host>:<port> without credentials, or remove it',
      );
    }
  }

  // Fixed key order, so equal configs serialise equally.
  const config: ArgoClusterConfig = {
    ...(credentials !== undefined && 'username' in credentials
      ? { username: credentials.username, password: credentials.password }
      : {}),
    ...(credentials !== undefined && 'bearerToken' in credentials
      ? { bearerToken: credentials.bearerToken }
      : {}),
    tlsClientConfig,
    ...execForm,
    ...(proxyUrl !== undefined ? { proxyUrl } : {}),
  };
  const credential: CredentialKind =
    execForm !== undefined
      ? 'exec'
      : clientCertificate !== undefined
        ? 'client-certificate'
        : credentials !== undefined && 'bearerToken' in credentials
          ? 'bearer-token'
          : 'basic-auth';
  const draft: TranslationDraft = { server, config, warnings, credential };
  if (clientCertificate !== undefined) draft.clientCertificate = clientCertificate;
  return draft;
}

function where(context: TranslateContext): string {
  return `namespace ${context.namespace}, Secret ${context.secret}${context.key === undefined ? '' : ` key ${context.key}`}`;
}

function refusal(context: TranslateContext, problem: Problem): Refusal {
  return { code: problem.code, message: `${where(context)}: ${problem.problem}; ${problem.fix}` };
}

/** Translates one kubeconfig; never throws. */
export function translateKubeconfig(
  kubeconfigText: string,
  context: TranslateContext,
): TranslationResult {
  const parsed = parseYaml(kubeconfigText);
  if (!parsed.ok) {
    return {
      ok: false,
      refusal: refusal(
        context,
        new Problem(
          'kubeconfig-not-yaml',
          `the kubeconfig ${parsed.problem}`,
          NOT_A_KUBECONFIG_FIX,
        ),
      ),
    };
  }
  const draft = translateRoot(parsed.root, context);
  if (draft instanceof Problem) return { ok: false, refusal: refusal(context, draft) };
  return { ok: true, translation: draft };
}
