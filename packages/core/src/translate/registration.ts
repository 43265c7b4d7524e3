// The registration Secret a namespace asks for, built from its translated kubeconfig (its
// metadata-only variants, demoted, restored and drained, are in relabel.ts).

import { encodeBase64Text, encodeUtf8 } from '../common/base64.js';
import { clusterConfigJson } from './cluster-config-json.js';
import {
  ARGOCD_CLUSTER_SECRET_TYPE,
  ARGOCD_SECRET_TYPE_LABEL,
  ARGOCD_SKIP_RECONCILE_ANNOTATION,
  hasPrefix,
  type LabelKeys,
} from '../config/label-keys.js';
import { classifyServer, plainHttpWarning } from '../common/server-address.js';
import { CLUSTER_SOURCE_KIND, describeSource, quoted } from '../config/sources.js';
import type {
  ArgoClusterConfig,
  Config,
  DesiredSecret,
  Labels,
  ObservedSecret,
  PauseReason,
  ProviderName,
  Refusal,
  SourceNamespace,
  Timestamp,
  Translation,
  Warning,
} from '../common/types.js';

/** Per-annotation, count and total limits for copied namespace annotations. */
const ANNOTATION_LIMITS = { valueBytes: 4096, keys: 32, totalBytes: 32768 } as const;

/** Data keys the registrar writes; any other data key on a registration belongs to someone else. */
export const REGISTRATION_DATA_KEYS = [
  'name',
  'server',
  'config',
  'project',
  'namespaces',
  'clusterResources',
] as const;
const OWN_DATA_KEYS: ReadonlySet<string> = new Set(REGISTRATION_DATA_KEYS);

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const RFC_3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const HOST_NAME = new RegExp(DNS_SUBDOMAIN.source, 'i');

/** The registration Secret's name for a cluster. */
export function registrationName(cluster: string): string {
  return `cluster-${cluster}`;
}

/** A Kubernetes object name that must be a DNS-1123 subdomain (Secrets are). */
export function isDnsSubdomain(name: string): boolean {
  return name.length > 0 && name.length <= 253 && DNS_SUBDOMAIN.test(name);
}

/** RFC 3339 in UTC at second precision, the way the API server writes timestamps. */
export function formatTimestamp(epochMs: number): Timestamp {
  return new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Epoch ms of an RFC 3339 timestamp, `undefined` when it is not one. */
export function parseTimestamp(text: string | undefined): number | undefined {
  if (text === undefined || !RFC_3339.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

export { clusterConfigJson };

export interface RegistrationInput {
  /** The source's metadata; for a Cluster, `name` is its source key (sources.ts). */
  readonly namespace: SourceNamespace;
  /** Set when the source is a Cluster API Cluster: its namespace and name. */
  readonly capi?: { readonly namespace: string; readonly name: string };
  readonly cluster: string;
  readonly provider: ProviderName;
  readonly translation: Translation;
  readonly keys: LabelKeys;
  readonly config: Pick<Config, 'targetNamespace' | 'managedBy' | 'hostId' | 'target'>;
  /** The registration as it exists now: other owners' keys and our bookkeeping survive. */
  readonly existing?: ObservedSecret;
  /** Set while the child is paused (plan/pause.ts): ArgoCD is told to skip it. */
  readonly pause?: PauseReason;
}

export type RegistrationResult =
  | {
      readonly ok: true;
      readonly secret: DesiredSecret;
      /** The server written to `data.server` (after any namespace override). */
      readonly server: string;
      readonly clusterConfig: ArgoClusterConfig;
      readonly warnings: readonly Warning[];
    }
  | { readonly ok: false; readonly refusal: Refusal; readonly warnings: readonly Warning[] };

export function buildRegistration(input: RegistrationInput): RegistrationResult {
  const { namespace, keys, existing } = input;
  const connection = applyServerOverride(input);
  if ('code' in connection) return { ok: false, refusal: connection, warnings: [] };
  const { server, clusterConfig } = connection;
  const hostOnly = hostOnlyRefusal(input, server);
  if (hostOnly !== undefined) return { ok: false, refusal: hostOnly, warnings: [] };
  const warnings: Warning[] = [];
  // Without the annotation, the kubeconfig's server was warned about when it was translated.
  const plainHttp =
    namespace.annotations[keys.server] === undefined ? undefined : plainHttpWarning(server);
  if (plainHttp !== undefined) {
    warnings.push({
      code: 'server-plain-http',
      namespace: namespace.name,
      message: `annotation ${keys.server} of ${describeSource(namespace.name)} sets server ${plainHttp}`,
    });
  }

  const labels: Record<string, string> = keepForeignKeys(existing?.labels, keys);
  // The prune veto is set by people on the registration itself; it is not ours to drop.
  const prune = existing?.labels[keys.prune];
  if (prune !== undefined) labels[keys.prune] = prune;
  // for-in rather than Object.entries: this runs for every namespace on every pass.
  for (const key in namespace.labels) {
    const value = namespace.labels[key];
    if (value !== undefined && hasPrefix(keys, key) && !keys.reserved.has(key)) labels[key] = value;
  }
  labels[ARGOCD_SECRET_TYPE_LABEL] = ARGOCD_CLUSTER_SECRET_TYPE;
  labels[keys.managedBy] = input.config.managedBy;
  if (input.config.hostId !== undefined) labels[keys.hostId] = input.config.hostId;
  labels[keys.cluster] = input.cluster;
  const { capi } = input;
  if (capi === undefined) {
    labels[keys.sourceNamespace] = namespace.name;
    labels[keys.sourceNamespaceUid] = namespace.uid;
  } else {
    // The kind tells a deletion proof which object to look up (sources.ts).
    labels[keys.sourceKind] = CLUSTER_SOURCE_KIND;
    labels[keys.sourceNamespace] = capi.namespace;
    labels[keys.sourceCluster] = capi.name;
    labels[keys.sourceClusterUid] = namespace.uid;
  }
  labels[keys.provider] = input.provider;

  const annotations: Record<string, string> = keepForeignKeys(existing?.annotations, keys);
  copyAnnotations(namespace, keys, annotations, warnings);
  const stamped = existing?.annotations[keys.credentialsUpdatedAt];
  if (stamped !== undefined) annotations[keys.credentialsUpdatedAt] = stamped;
  pauseAnnotations(annotations, existing, keys, input.pause);

  const data: Record<string, string> = {
    name: encodeBase64Text(input.cluster),
    server: encodeBase64Text(server),
    config: encodeBase64Text(clusterConfigJson(clusterConfig)),
  };
  const project = namespace.labels[keys.project];
  if (project !== undefined && project !== '') data['project'] = encodeBase64Text(project);
  const namespaces = namespaceList(namespace.annotations[keys.namespaces]);
  if (namespaces !== undefined) data['namespaces'] = encodeBase64Text(namespaces);
  const clusterResources =
    namespace.labels[keys.clusterResources] ?? namespace.annotations[keys.clusterResources];
  if (clusterResources === 'true') data['clusterResources'] = encodeBase64Text('true');
  // ArgoCD data keys we never write (`shard`, say) are an operator's: keep them.
  if (existing !== undefined) {
    for (const key in existing.data) {
      const value = existing.data[key];
      if (value !== undefined && !OWN_DATA_KEYS.has(key)) data[key] = value;
    }
  }

  return {
    ok: true,
    secret: {
      namespace: input.config.targetNamespace,
      name: registrationName(input.cluster),
      type: 'Opaque',
      labels,
      annotations,
      data,
    },
    server,
    clusterConfig,
    warnings,
  };
}

/** The registration with its credentials stamp set to `stamp` (credentials are written). */
export function stampCredentials(
  secret: DesiredSecret,
  keys: LabelKeys,
  stamp: Timestamp,
): DesiredSecret {
  return {
    ...secret,
    annotations: { ...secret.annotations, [keys.credentialsUpdatedAt]: stamp },
  };
}

/**
 * ArgoCD's skip-reconcile annotation is ours only while our pause reason sits beside it: then
 * it follows the pause; otherwise it is left as it is, and set only where nobody has.
 */
export function pauseAnnotations(
  annotations: Record<string, string>,
  existing: ObservedSecret | undefined,
  keys: LabelKeys,
  pause: PauseReason | undefined,
): void {
  const ours = existing?.annotations[keys.pauseReason] !== undefined;
  if (ours && pause === undefined) {
    Reflect.deleteProperty(annotations, ARGOCD_SKIP_RECONCILE_ANNOTATION);
    return;
  }
  if (pause === undefined || (!ours && ARGOCD_SKIP_RECONCILE_ANNOTATION in annotations)) return;
  annotations[ARGOCD_SKIP_RECONCILE_ANNOTATION] = 'true';
  annotations[keys.pauseReason] = pause;
}

/** Other owners' keys: everything outside our prefix, except ArgoCD's selector label we set. */
function keepForeignKeys(existing: Labels | undefined, keys: LabelKeys): Record<string, string> {
  const kept: Record<string, string> = {};
  if (existing === undefined) return kept;
  for (const key in existing) {
    const value = existing[key];
    if (value !== undefined && !hasPrefix(keys, key) && key !== ARGOCD_SECRET_TYPE_LABEL)
      kept[key] = value;
  }
  return kept;
}

/** `a, b,,c` → `a,b,c`; nothing left → no `namespaces` key. */
function namespaceList(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items.length === 0 ? undefined : items.join(',');
}

/** The namespace's prefixed annotations into `annotations`, within ANNOTATION_LIMITS. */
function copyAnnotations(
  namespace: SourceNamespace,
  keys: LabelKeys,
  annotations: Record<string, string>,
  warnings: Warning[],
): void {
  const prefixed = Object.keys(namespace.annotations)
    .filter((key) => hasPrefix(keys, key) && !keys.reserved.has(key))
    .sort();
  const overLimit: string[] = [];
  let count = 0;
  let total = 0;
  for (const key of prefixed) {
    const value = namespace.annotations[key] ?? '';
    const valueBytes = encodeUtf8(value).length;
    if (valueBytes > ANNOTATION_LIMITS.valueBytes) {
      warnings.push({
        code: 'annotation-too-large',
        namespace: namespace.name,
        message: `annotation ${key} of ${describeSource(namespace.name)} is ${valueBytes} bytes, over the ${ANNOTATION_LIMITS.valueBytes}-byte limit for copied annotations; it is not copied (shorten it, or move the data elsewhere)`,
      });
      continue;
    }
    const size = encodeUtf8(key).length + valueBytes;
    if (count >= ANNOTATION_LIMITS.keys || total + size > ANNOTATION_LIMITS.totalBytes) {
      overLimit.push(key);
      continue;
    }
    annotations[key] = value;
    count += 1;
    total += size;
  }
  if (overLimit.length > 0) {
    warnings.push({
      code: 'annotations-over-limit',
      namespace: namespace.name,
      message: `copied annotations are limited to ${ANNOTATION_LIMITS.keys} keys and ${ANNOTATION_LIMITS.totalBytes} bytes; not copied: ${overLimit.join(', ')}`,
    });
  }
}

/** A remote target's ArgoCD cannot reach an address that resolves only inside this host. */
function hostOnlyRefusal(input: RegistrationInput, server: string): Refusal | undefined {
  const target = input.config.target;
  if (target?.remote !== true) return undefined;
  const { namespace, keys } = input;
  const overridden = namespace.annotations[keys.server] !== undefined;
  const rewritten =
    !overridden && input.translation.warnings.some((w) => w.code === 'loopback-rewritten');
  const classified = classifyServer(server);
  const host = (classified.host ?? '').toLowerCase();
  let why: string | undefined;
  if (rewritten) why = 'the vcluster Service name its loopback address was rewritten to';
  else if (classified.kind === 'loopback') why = 'a loopback address';
  else if (classified.kind === 'in-cluster') why = "the host's own API Service";
  else if (host.endsWith('.svc') || host.endsWith('.cluster.local') || host === 'cluster.local')
    why = 'a Service name of the host';
  if (why === undefined) return undefined;
  const fix = overridden
    ? `set ${keys.server} to an address that cluster reaches`
    : `make the provisioner export an address that cluster reaches (vcluster: exportKubeConfig.server; Kamaji: the TenantControlPlane's external address; Cluster API: the control plane endpoint), or set the ${keys.server} annotation on the ${describeSource(namespace.name)} to one`;
  return {
    code: 'server-host-only',
    message: `server ${server} of ${describeSource(namespace.name)} resolves only inside this host (${why}), and target ${JSON.stringify(target.name)} is an ArgoCD in another cluster, which cannot reach it; ${fix}`,
  };
}

/** `<prefix>server` / `<prefix>tls-server-name` annotations replace what the kubeconfig says. */
function applyServerOverride(
  input: RegistrationInput,
): { readonly server: string; readonly clusterConfig: ArgoClusterConfig } | Refusal {
  const { namespace, keys, translation } = input;
  const serverOverride = namespace.annotations[keys.server]?.trim();
  const serverName = namespace.annotations[keys.tlsServerName]?.trim();
  let server = translation.server;
  // The kubeconfig's server was checked against its cloud's endpoints and the operator's
  // allow-list (ArgoCD sends its own cloud token there); an annotation would bypass that.
  if (
    translation.credential === 'exec' &&
    (serverOverride !== undefined || serverName !== undefined)
  ) {
    const key = serverOverride !== undefined ? keys.server : keys.tlsServerName;
    return refuseOverride(
      `annotation ${key} on ${describeSource(namespace.name)} does not apply to an exec registration, whose server must be its kubeconfig's own (its cloud's endpoint, or one on --exec-allowed-servers); remove the annotation`,
    );
  }
  if (serverOverride !== undefined) {
    const candidate = serverOverride.replace(/\/+$/, '');
    const kind = classifyServer(candidate).kind;
    if (kind !== 'ok') {
      const why: Record<typeof kind, string> = {
        'in-cluster': 'points ArgoCD at its own cluster',
        loopback: 'is a loopback address, which ArgoCD cannot reach',
        invalid: 'is not an https:// (or http://) URL with a host',
      };
      return refuseOverride(
        `annotation ${keys.server}=${quoted(serverOverride)} on ${describeSource(namespace.name)} ${why[kind]}; set it to the child API server's address, e.g. https://api.child.example.com:6443, or remove it`,
      );
    }
    server = candidate;
  }
  if (serverName !== undefined && !(serverName.length <= 253 && HOST_NAME.test(serverName))) {
    return refuseOverride(
      `annotation ${keys.tlsServerName}=${quoted(serverName)} on ${describeSource(namespace.name)} is not a DNS name; set it to a name on the child API server's certificate, or remove it`,
    );
  }
  const config = translation.config;
  return {
    server,
    clusterConfig:
      serverName === undefined
        ? config
        : { ...config, tlsClientConfig: { ...config.tlsClientConfig, serverName } },
  };
}

const refuseOverride = (message: string): Refusal => ({ code: 'server-override-invalid', message });
