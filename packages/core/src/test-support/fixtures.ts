// A readable builder for planner inputs: every test starts from sensible defaults and states
// only what differs. Kubeconfigs are real YAML with real certificates, base64'd into Secrets
// exactly as the API serves them; registrations come from running the planner itself
// (`settle`), so fixtures never drift from what the registrar actually writes.

import { kubeconfigText } from '@argocd-cluster-registrar/testkit';
import { decodeBase64Text, encodeBase64Text } from '../common/base64.js';
import { labelKeys } from '../config/label-keys.js';
import { plan } from '../plan/index.js';
import { PROVIDER_PRESETS } from '../config/provider-presets.js';
import { EMPTY_EXEC_POLICY } from '../config/exec-policy.js';
import {
  CA_CERT_PEM,
  CLIENT2_CERT_PEM,
  CLIENT2_KEY_PEM,
  CLIENT_CERT_PEM,
  CLIENT_KEY_PEM,
  OTHER_CA_CERT_PEM,
  OTHER_CLIENT_CERT_PEM,
  OTHER_CLIENT_KEY_PEM,
} from '../test-fixtures/certificates.js';
import type {
  Config,
  Labels,
  ObservedSecret,
  Plan,
  Snapshot,
  SourceCluster,
  SourceLookup,
  SourceNamespace,
} from '../common/types.js';
import { applyPlanToSnapshot } from './apply-plan.js';

export const NOW = Date.parse('2026-11-30T12:00:00Z');
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const TARGET = 'argocd';
export const PREFIX = 'argocd-cluster-registrar/';
export const MANAGED_BY = 'cluster-registrar';
export const KEYS = labelKeys(PREFIX);

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    targetNamespace: TARGET,
    labelPrefix: PREFIX,
    managedBy: MANAGED_BY,
    providers: [PROVIDER_PRESETS.k3k],
    intervalMs: MINUTE,
    demotedTtlMs: DAY,
    credentialRefreshWindowMs: 0,
    execCredentials: false,
    execPolicy: EMPTY_EXEC_POLICY,
    drainOnTerminate: false,
    capiClusters: false,
    capiClusterNames: 'name',
    capiClusterNameLabel: false,
    probeChildren: false,
    probeFailures: 3,
    probeIntervalMs: 3 * MINUTE,
    kamajiSleep: false,
    vclusterSleep: false,
    referenceMode: 'off',
    secretreaderPath: 'kubeconfig-secretreader',
    clusterProfiles: false,
    clusterProfileNamespace: TARGET,
    clusterManager: 'argocd-cluster-registrar',
    ...overrides,
  };
}

// ---------------------------------------------------------------------------------------
// Namespaces

export interface NamespaceOptions {
  /** `<prefix>cluster` label; defaults to the namespace name, `null` leaves it off. */
  readonly cluster?: string | null;
  readonly uid?: string;
  /** Extra labels (the managed-by and cluster labels are added unless overridden). */
  readonly labels?: Labels;
  readonly annotations?: Labels;
  readonly created?: string;
  readonly terminating?: boolean;
}

export function namespace(name: string, options: NamespaceOptions = {}): SourceNamespace {
  const labels: Record<string, string> = { [KEYS.managedBy]: MANAGED_BY };
  const cluster = options.cluster === undefined ? name : options.cluster;
  if (cluster !== null) labels[KEYS.cluster] = cluster;
  return {
    name,
    uid: options.uid ?? `uid-${name}`,
    labels: { ...labels, ...options.labels },
    annotations: options.annotations ?? {},
    creationTimestamp: options.created ?? '2026-01-01T00:00:00Z',
    ...(options.terminating === true ? { deletionTimestamp: '2026-11-30T11:59:00Z' } : {}),
  };
}

export interface ClusterOptions extends Omit<NamespaceOptions, 'cluster'> {
  /** `<prefix>cluster` label; absent by default (the Cluster's name is the default). */
  readonly cluster?: string | null;
}

/** A Cluster API Cluster labelled for registration, in `namespaceName`. */
export function capiCluster(
  namespaceName: string,
  name: string,
  options: ClusterOptions = {},
): SourceCluster {
  const labels: Record<string, string> = { [KEYS.managedBy]: MANAGED_BY };
  if (options.cluster !== undefined && options.cluster !== null)
    labels[KEYS.cluster] = options.cluster;
  return {
    namespace: namespaceName,
    name,
    uid: options.uid ?? `uid-${namespaceName}-${name}`,
    labels: { ...labels, ...options.labels },
    annotations: options.annotations ?? {},
    creationTimestamp: options.created ?? '2026-01-01T00:00:00Z',
    ...(options.terminating === true ? { deletionTimestamp: '2026-11-30T11:59:00Z' } : {}),
  };
}

/** The source key and uid a registration records (see sources.ts), for assertions. */
export function recordedSource(secret: ObservedSecret): { key?: string; uid?: string } {
  const labels = secret.labels;
  const namespaceName = labels[KEYS.sourceNamespace];
  if (labels[KEYS.sourceKind] === undefined) {
    return {
      ...(namespaceName === undefined ? {} : { key: namespaceName }),
      ...(labels[KEYS.sourceNamespaceUid] === undefined
        ? {}
        : { uid: labels[KEYS.sourceNamespaceUid] }),
    };
  }
  const cluster = labels[KEYS.sourceCluster];
  return {
    ...(namespaceName === undefined || cluster === undefined
      ? {}
      : { key: `${namespaceName}/${cluster}` }),
    ...(labels[KEYS.sourceClusterUid] === undefined ? {} : { uid: labels[KEYS.sourceClusterUid] }),
  };
}

/** Every source of a snapshot as the planner keys it: namespaces, then Clusters. */
export function sourcesOf(snapshot: Snapshot): SourceNamespace[] {
  return [
    ...snapshot.namespaces,
    ...(snapshot.clusters ?? []).map((cluster) => ({
      ...cluster,
      name: `${cluster.namespace}/${cluster.name}`,
    })),
  ];
}

// ---------------------------------------------------------------------------------------
// Kubeconfigs

export const PEM = {
  ca: CA_CERT_PEM,
  otherCa: OTHER_CA_CERT_PEM,
  /** Signed by `ca`, valid until 2027-11-29. */
  client: { cert: CLIENT_CERT_PEM, key: CLIENT_KEY_PEM },
  /** Also signed by `ca` (a k3k-style re-mint), valid until 2026-12-29. */
  client2: { cert: CLIENT2_CERT_PEM, key: CLIENT2_KEY_PEM },
  /** Signed by `otherCa`. */
  other: { cert: OTHER_CLIENT_CERT_PEM, key: OTHER_CLIENT_KEY_PEM },
} as const;

export type Credentials =
  | { readonly cert: string; readonly key: string }
  | { readonly token: string }
  | { readonly username: string; readonly password: string }
  | { readonly exec: string; readonly args?: readonly string[] };

export interface KubeconfigOptions {
  readonly server?: string;
  /** CA PEM for `certificate-authority-data`; `null` leaves it out. Default: the test CA. */
  readonly ca?: string | null;
  readonly insecure?: boolean;
  readonly tlsServerName?: string;
  readonly proxyUrl?: string;
  /** Default: the test client certificate. */
  readonly credentials?: Credentials;
}

/** A kubeconfig as a provisioner writes it: one cluster, one user, one context. */
export function kubeconfigYaml(options: KubeconfigOptions = {}): string {
  const cluster: string[] = [];
  const ca = options.ca === undefined ? PEM.ca : options.ca;
  if (ca !== null) cluster.push(`certificate-authority-data: ${encodeBase64Text(ca)}`);
  if (options.insecure === true) cluster.push('insecure-skip-tls-verify: true');
  if (options.tlsServerName !== undefined)
    cluster.push(`tls-server-name: ${options.tlsServerName}`);
  if (options.proxyUrl !== undefined) cluster.push(`proxy-url: ${options.proxyUrl}`);
  const credentials = options.credentials ?? PEM.client;
  const user: string[] = [];
  if ('cert' in credentials) {
    user.push(
      `client-certificate-data: ${encodeBase64Text(credentials.cert)}`,
      `client-key-data: ${encodeBase64Text(credentials.key)}`,
    );
  } else if ('token' in credentials) {
    user.push(`token: ${credentials.token}`);
  } else if ('username' in credentials) {
    user.push(`username: ${credentials.username}`, `password: ${credentials.password}`);
  } else {
    user.push(
      'exec:',
      '  apiVersion: client.authentication.k8s.io/v1',
      `  command: ${credentials.exec}`,
      ...(credentials.args === undefined
        ? []
        : ['  args:', ...credentials.args.map((arg) => `  - ${JSON.stringify(arg)}`)]),
    );
  }
  return kubeconfigText({
    server: options.server ?? 'https://child.example.com:6443',
    cluster,
    user,
  });
}

export interface KubeconfigSecretOptions extends KubeconfigOptions {
  /** Secret name; default `k3k-<namespace>-kubeconfig`. */
  readonly name?: string;
  readonly key?: string;
  /** Raw kubeconfig text instead of the generated YAML. */
  readonly text?: string;
  readonly resourceVersion?: string;
  readonly type?: string;
}

export function kubeconfigSecret(
  namespaceName: string,
  options: KubeconfigSecretOptions = {},
): ObservedSecret {
  const name = options.name ?? `k3k-${namespaceName}-kubeconfig`;
  return {
    namespace: namespaceName,
    name,
    uid: `uid-${namespaceName}-${name}`,
    resourceVersion: options.resourceVersion ?? '1',
    type: options.type ?? 'Opaque',
    labels: {},
    annotations: {},
    data: {
      [options.key ?? 'kubeconfig.yaml']: encodeBase64Text(options.text ?? kubeconfigYaml(options)),
    },
  };
}

/** The default server of a child built with {@link Scenario.child}. */
export function serverOf(namespaceName: string): string {
  return `https://${namespaceName}.child.example.com:6443`;
}

// ---------------------------------------------------------------------------------------
// Other Secrets in the target namespace

export interface ForeignSecretOptions {
  readonly server?: string;
  /** `data.name`; default the Secret name. */
  readonly clusterName?: string;
  readonly labels?: Labels;
}

/** A cluster Secret someone else wrote (ArgoCD's UI, a 0.1.x exporter, another tool). */
export function foreignClusterSecret(
  name: string,
  options: ForeignSecretOptions = {},
): ObservedSecret {
  return {
    namespace: TARGET,
    name,
    uid: `uid-${name}`,
    resourceVersion: '1',
    type: 'Opaque',
    labels: { 'argocd.argoproj.io/secret-type': 'cluster', ...options.labels },
    annotations: {},
    data: {
      name: encodeBase64Text(options.clusterName ?? name),
      server: encodeBase64Text(options.server ?? 'https://elsewhere.example.com'),
      config: encodeBase64Text('{"tlsClientConfig":{"insecure":false}}'),
    },
  };
}

/** `data[key]` of a Secret, decoded. */
export function dataOf(
  secret: { readonly data: Readonly<Record<string, string>> },
  key: string,
): string | undefined {
  const value = secret.data[key];
  return value === undefined ? undefined : decodeBase64Text(value);
}

/** `data.config` of a Secret, parsed. */
export function configOf(secret: {
  readonly data: Readonly<Record<string, string>>;
}): Record<string, unknown> {
  return JSON.parse(dataOf(secret, 'config') ?? 'null') as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------
// Scenario: a snapshot under construction

export class Scenario {
  private namespaces = new Map<string, SourceNamespace>();
  /** By `<namespace>/<name>`. */
  private clusters = new Map<string, SourceCluster>();
  private candidates = new Map<string, ObservedSecret>();
  private clusterSecrets = new Map<string, ObservedSecret>();
  private lookups = new Map<string, SourceLookup>();

  constructor(from?: Snapshot) {
    for (const ns of from?.namespaces ?? []) this.namespaces.set(ns.name, ns);
    for (const cluster of from?.clusters ?? [])
      this.clusters.set(`${cluster.namespace}/${cluster.name}`, cluster);
    for (const secret of from?.candidateSecrets ?? [])
      this.candidates.set(`${secret.namespace}/${secret.name}`, secret);
    for (const secret of from?.clusterSecrets ?? []) this.clusterSecrets.set(secret.name, secret);
    for (const [name, lookup] of Object.entries(from?.sourceLookups ?? {}))
      this.lookups.set(name, lookup);
  }

  /** A labelled namespace and its k3k kubeconfig (server {@link serverOf} by default). */
  child(name: string, options: NamespaceOptions & KubeconfigSecretOptions = {}): this {
    return this.namespace(name, options).kubeconfig(name, { server: serverOf(name), ...options });
  }

  /** Adds or replaces a namespace. */
  namespace(name: string, options: NamespaceOptions = {}): this {
    this.namespaces.set(name, namespace(name, options));
    return this;
  }

  /** Adds or replaces a Cluster API Cluster source. */
  cluster(namespaceName: string, name: string, options: ClusterOptions = {}): this {
    this.clusters.set(`${namespaceName}/${name}`, capiCluster(namespaceName, name, options));
    return this;
  }

  /** A labelled Cluster and its CAPI kubeconfig `<name>-kubeconfig` (key `value`). */
  capiChild(
    namespaceName: string,
    name: string,
    options: ClusterOptions & KubeconfigSecretOptions = {},
  ): this {
    return this.cluster(namespaceName, name, options).kubeconfig(namespaceName, {
      server: serverOf(`${name}.${namespaceName}`),
      name: `${name}-kubeconfig`,
      key: 'value',
      type: 'cluster.x-k8s.io/secret',
      ...options,
    });
  }

  /** Changes an existing Cluster. */
  editCluster(key: string, edit: (cluster: SourceCluster) => SourceCluster): this {
    const cluster = this.clusters.get(key);
    if (cluster === undefined) throw new Error(`no Cluster ${key} in the scenario`);
    this.clusters.set(key, edit(cluster));
    return this;
  }

  /** The Cluster `<namespace>/<name>` is no longer managed; `lookup` says what a GET returns. */
  removeCluster(key: string, lookup: SourceLookup = { state: 'notFound' }): this {
    this.clusters.delete(key);
    this.lookups.set(key, lookup);
    return this;
  }

  /** Changes an existing namespace. */
  editNamespace(name: string, edit: (ns: SourceNamespace) => SourceNamespace): this {
    const ns = this.namespaces.get(name);
    if (ns === undefined) throw new Error(`no namespace ${name} in the scenario`);
    this.namespaces.set(name, edit(ns));
    return this;
  }

  /** Sets (or, with `null`, removes) one label of a namespace. */
  label(name: string, key: string, value: string | null): this {
    return this.editNamespace(name, (ns) => ({ ...ns, labels: withKey(ns.labels, key, value) }));
  }

  /** Sets (or, with `null`, removes) one annotation of a namespace. */
  annotate(name: string, key: string, value: string | null): this {
    return this.editNamespace(name, (ns) => ({
      ...ns,
      annotations: withKey(ns.annotations, key, value),
    }));
  }

  /** The namespace is no longer managed; `lookup` says what a direct GET returns. */
  removeNamespace(name: string, lookup: SourceLookup = { state: 'notFound' }): this {
    this.namespaces.delete(name);
    for (const key of [...this.candidates.keys()])
      if (key.startsWith(`${name}/`)) this.candidates.delete(key);
    this.lookups.set(name, lookup);
    return this;
  }

  /** Adds or replaces a kubeconfig Secret (resourceVersion bumps when it replaces one). */
  kubeconfig(namespaceName: string, options: KubeconfigSecretOptions = {}): this {
    const secret = kubeconfigSecret(namespaceName, options);
    const key = `${namespaceName}/${secret.name}`;
    const previous = this.candidates.get(key);
    const resourceVersion =
      options.resourceVersion ??
      (previous === undefined ? '1' : String(Number(previous.resourceVersion) + 1));
    this.candidates.set(key, { ...secret, resourceVersion });
    return this;
  }

  /** Adds or replaces a Secret exactly as given (a provisioner's own shape). */
  secret(secret: ObservedSecret): this {
    this.candidates.set(`${secret.namespace}/${secret.name}`, secret);
    return this;
  }

  removeKubeconfig(namespaceName: string, name = `k3k-${namespaceName}-kubeconfig`): this {
    this.candidates.delete(`${namespaceName}/${name}`);
    return this;
  }

  /** Adds or replaces a Secret in the target namespace. */
  clusterSecret(secret: ObservedSecret): this {
    this.clusterSecrets.set(secret.name, secret);
    return this;
  }

  foreign(name: string, options: ForeignSecretOptions = {}): this {
    return this.clusterSecret(foreignClusterSecret(name, options));
  }

  /** Changes an existing Secret of the target namespace (as someone else's write would). */
  editClusterSecret(name: string, edit: (secret: ObservedSecret) => ObservedSecret): this {
    const secret = this.clusterSecrets.get(name);
    if (secret === undefined) throw new Error(`no Secret ${name} in the target namespace`);
    const edited = edit(secret);
    this.clusterSecrets.set(name, {
      ...edited,
      resourceVersion: String(Number(secret.resourceVersion) + 1),
    });
    return this;
  }

  /** Sets (or removes) one label of a target-namespace Secret. */
  labelSecret(name: string, key: string, value: string | null): this {
    return this.editClusterSecret(name, (secret) => ({
      ...secret,
      labels: withKey(secret.labels, key, value),
    }));
  }

  lookup(name: string, lookup: SourceLookup): this {
    this.lookups.set(name, lookup);
    return this;
  }

  build(): Snapshot {
    return {
      namespaces: [...this.namespaces.values()],
      ...(this.clusters.size === 0 ? {} : { clusters: [...this.clusters.values()] }),
      candidateSecrets: [...this.candidates.values()],
      clusterSecrets: [...this.clusterSecrets.values()],
      sourceLookups: Object.fromEntries(this.lookups),
    };
  }
}

export function scenario(from?: Snapshot): Scenario {
  return new Scenario(from);
}

function withKey(record: Labels, key: string, value: string | null): Labels {
  const copy = Object.fromEntries(Object.entries(record).filter(([existing]) => existing !== key));
  return value === null ? copy : { ...copy, [key]: value };
}

// ---------------------------------------------------------------------------------------
// Running the planner over a scenario

/** Plans and applies until nothing is left to do: the state a running registrar reaches. */
export function settle(
  snapshot: Snapshot,
  config: Config = testConfig(),
  now: number = NOW,
  maxPasses = 5,
): Snapshot {
  let current = snapshot;
  for (let pass = 0; pass < maxPasses; pass++) {
    const result = plan(current, config, now);
    if (result.actions.length === 0) return current;
    current = applyPlanToSnapshot(current, result);
  }
  throw new Error(`no fixpoint after ${maxPasses} passes`);
}

/** The one outcome of a namespace. */
export function outcomeOf(result: Plan, namespaceName: string): Plan['outcomes'][number] {
  const outcome = result.outcomes.find((candidate) => candidate.namespace === namespaceName);
  if (outcome === undefined) throw new Error(`no outcome for ${namespaceName}`);
  return outcome;
}

/** The Secret named `name` in the target namespace of a snapshot. */
export function clusterSecretOf(snapshot: Snapshot, name: string): ObservedSecret {
  const secret = snapshot.clusterSecrets.find((candidate) => candidate.name === name);
  if (secret === undefined) throw new Error(`no Secret ${name}`);
  return secret;
}

/** team-a registered as alpha, the way a running registrar left it. */
export function registeredAlpha(): Snapshot {
  return settle(scenario().child('team-a', { cluster: 'alpha' }).build());
}
