// fast-check generators of planner inputs. Small, composable pieces drawn from small pools
// (a handful of namespaces, cluster names and servers) so that collisions, renames and
// takeovers are common and shrunk counterexamples stay readable.
//
// Existing registrations are never invented: a "history" of earlier worlds is settled by the
// planner itself, then people meddle with the result (prune vetoes, a missing uid label) and
// foreign Secrets appear; the present world is planned against that.

import fc from 'fast-check';
import { encodeBase64Text } from '../common/base64.js';
import { PROVIDER_PRESETS } from '../config/provider-presets.js';
import { parseSourceKey, sourceNamespaceOf } from '../config/sources.js';
import { EMPTY_EXEC_POLICY } from '../config/exec-policy.js';
import {
  CA_CERT_PEM,
  CA_KEY_PEM,
  CLIENT_CERT_PEM,
  CLIENT_KEY_PEM,
  OTHER_CA_CERT_PEM,
  RSA_TRADITIONAL_KEY_PEM,
} from '../test-fixtures/certificates.js';
import type { Config, ObservedSecret, Snapshot, SourceLookup } from '../common/types.js';
import {
  DAY,
  HOUR,
  KEYS,
  NOW,
  PEM,
  recordedSource,
  scenario,
  settle,
  sourcesOf,
  testConfig,
  type Credentials,
  type KubeconfigSecretOptions,
} from './fixtures.js';

/**
 * Sources: namespaces, and Cluster API Clusters keyed `<namespace>/<name>` (two in one
 * namespace, and one in a namespace that may itself be managed: the conflict case).
 */
export const NAMESPACE_POOL = [
  'ns-a',
  'ns-b',
  'ns-c',
  'ns-d',
  'fleet/one',
  'fleet/two',
  'ns-a/three',
] as const;
/** At most this many sources in one world (keeps runs fast; collisions stay common). */
const WORLD_SIZE = 4;
export const CLUSTER_POOL = ['alpha', 'beta', 'gamma'] as const;
/** Includes spellings that normalise to one another. */
export const SERVER_POOL = [
  'https://one.example.com',
  'https://two.example.com:6443',
  'https://TWO.example.com:6443/',
  'https://three.example.com:443',
] as const;
const CREATED_POOL = ['2026-01-01T00:00:00Z', '2026-03-01T00:00:00Z'] as const;

const CREDENTIALS: Readonly<Record<string, Credentials>> = {
  client: PEM.client,
  client2: PEM.client2,
  other: PEM.other,
  token1: { token: 'token-one' },
  token2: { token: 'token-two' },
  basic: { username: 'admin', password: 'hunter2' },
  // Exec plugins of the three clouds, translated because PROPERTY_CONFIG has both gates on.
  eks: { exec: 'aws-iam-authenticator', args: ['token', '-i', 'prod'] },
  eksRegion: {
    exec: 'aws',
    args: ['--region', 'eu-west-1', 'eks', 'get-token', '--cluster-name', 'prod'],
  },
  aks: {
    exec: 'kubelogin',
    args: [
      'get-token',
      '--server-id',
      '6dae42f8-4368-4678-94ff-3960e28e3630',
      '--login',
      'azurecli',
    ],
  },
  gke: { exec: 'gke-gcloud-auth-plugin' },
};

/** Credentials that register an exec form, for reporting how often the properties meet one. */
export const EXEC_CREDENTIALS: ReadonlySet<string> = new Set(['eks', 'eksRegion', 'aks', 'gke']);

export type KubeconfigSpec =
  | {
      readonly kind: 'valid';
      readonly server: string;
      readonly credentials: string;
      readonly insecure: boolean;
      readonly otherCa: boolean;
    }
  | {
      readonly kind: 'broken';
      readonly how: 'not-yaml' | 'exec' | 'loopback' | 'in-cluster' | 'no-credentials';
    };

export interface NamespaceSpec {
  readonly name: string;
  /** `null`: no cluster label. */
  readonly cluster: string | null;
  /** 1 or 2: a namespace deleted and re-created gets a new uid. */
  readonly generation: number;
  readonly created: string;
  readonly terminating: boolean;
  readonly team: string | undefined;
  readonly serverOverride: string | undefined;
  readonly kubeconfig: KubeconfigSpec | undefined;
}

export const kubeconfigSpecArb: fc.Arbitrary<KubeconfigSpec> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('valid' as const),
      server: fc.constantFrom(...SERVER_POOL),
      credentials: fc.oneof(
        {
          weight: 3,
          arbitrary: fc.constantFrom(
            ...Object.keys(CREDENTIALS).filter((name) => !EXEC_CREDENTIALS.has(name)),
          ),
        },
        { weight: 2, arbitrary: fc.constantFrom(...EXEC_CREDENTIALS) },
      ),
      insecure: fc.boolean(),
      otherCa: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('broken' as const),
      how: fc.constantFrom('not-yaml', 'exec', 'loopback', 'in-cluster', 'no-credentials'),
    }),
  },
);

export const clusterLabelArb: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom<string | null>(...CLUSTER_POOL) },
  { weight: 1, arbitrary: fc.constantFrom<string | null>(null, '', 'Not_Valid') },
);

export const namespaceSpecArb: fc.Arbitrary<NamespaceSpec> = fc.record({
  name: fc.constantFrom(...NAMESPACE_POOL),
  cluster: clusterLabelArb,
  generation: fc.oneof(
    { weight: 5, arbitrary: fc.constant(1) },
    { weight: 1, arbitrary: fc.constant(2) },
  ),
  created: fc.constantFrom(...CREATED_POOL),
  terminating: fc.oneof(
    { weight: 15, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  ),
  team: fc.option(fc.constantFrom('red', 'blue'), { nil: undefined }),
  serverOverride: fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom('https://override.example.com', 'https://localhost') },
  ),
  kubeconfig: fc.option(kubeconfigSpecArb, { nil: undefined, freq: 6 }),
});

/** Up to four managed sources, distinct by key. */
export const worldArb: fc.Arbitrary<readonly NamespaceSpec[]> = fc.uniqueArray(namespaceSpecArb, {
  selector: (spec) => spec.name,
  maxLength: WORLD_SIZE,
});

export interface ForeignSpec {
  readonly name: string;
  readonly server: string;
  readonly clusterName: string;
}

export const foreignSpecArb: fc.Arbitrary<ForeignSpec> = fc.record({
  name: fc.constantFrom('cluster-alpha', 'vcluster-beta', 'by-hand'),
  server: fc.constantFrom(...SERVER_POOL),
  clusterName: fc.oneof(
    { weight: 3, arbitrary: fc.constant('elsewhere') },
    { weight: 1, arbitrary: fc.constantFrom(...CLUSTER_POOL) },
  ),
});

export type Meddling = 'prune-disabled' | 'drop-uid-label' | 'backdate-demotion';

export type LookupSpec = 'notFound' | 'unknown' | 'present' | 'present-other-uid' | 'missing';

/** How the present differs from the last world of the history. */
export type Evolution =
  | { readonly index: number; readonly change: 'relabel'; readonly cluster: string | null }
  /** The cluster label moves to another name of the pool (a rename of a registered cluster). */
  | { readonly index: number; readonly change: 'rename'; readonly step: number }
  | {
      readonly index: number;
      readonly change: 'kubeconfig';
      readonly kubeconfig: KubeconfigSpec | undefined;
    }
  | { readonly index: number; readonly change: 'remove' | 'recreate' | 'terminate' };

export const evolutionArb: fc.Arbitrary<Evolution> = fc.oneof(
  fc.record({
    index: fc.nat({ max: 3 }),
    change: fc.constant('relabel' as const),
    cluster: clusterLabelArb,
  }),
  {
    weight: 2,
    arbitrary: fc.record({
      index: fc.nat({ max: 3 }),
      change: fc.constant('rename' as const),
      step: fc.integer({ min: 1, max: CLUSTER_POOL.length - 1 }),
    }),
  },
  fc.record({
    index: fc.nat({ max: 3 }),
    change: fc.constant('kubeconfig' as const),
    kubeconfig: fc.option(kubeconfigSpecArb, { nil: undefined, freq: 5 }),
  }),
  fc.record({
    index: fc.nat({ max: 3 }),
    change: fc.constantFrom('remove' as const, 'recreate' as const, 'terminate' as const),
  }),
);

export type PresentSpec =
  | { readonly kind: 'fresh'; readonly world: readonly NamespaceSpec[] }
  | {
      readonly kind: 'evolved';
      readonly changes: readonly Evolution[];
      readonly newcomers: readonly NamespaceSpec[];
    };

export const presentArb: fc.Arbitrary<PresentSpec> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fresh' as const), world: worldArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('evolved' as const),
      changes: fc.array(evolutionArb, { maxLength: 3 }),
      newcomers: fc.array(namespaceSpecArb, { maxLength: 1 }),
    }),
  },
);

function evolve(last: readonly NamespaceSpec[], present: PresentSpec): readonly NamespaceSpec[] {
  if (present.kind === 'fresh') return present.world;
  const byName = new Map(last.map((spec) => [spec.name, spec]));
  for (const evolution of present.changes) {
    const spec = last[evolution.index % Math.max(1, last.length)];
    const current = spec === undefined ? undefined : byName.get(spec.name);
    if (spec === undefined || current === undefined) continue;
    switch (evolution.change) {
      case 'relabel':
        byName.set(spec.name, { ...current, cluster: evolution.cluster });
        break;
      case 'rename': {
        const at = CLUSTER_POOL.indexOf(current.cluster as (typeof CLUSTER_POOL)[number]);
        const cluster = CLUSTER_POOL[(Math.max(0, at) + evolution.step) % CLUSTER_POOL.length];
        byName.set(spec.name, { ...current, cluster: cluster ?? null });
        break;
      }
      case 'kubeconfig':
        byName.set(spec.name, { ...current, kubeconfig: evolution.kubeconfig });
        break;
      case 'remove':
        byName.delete(spec.name);
        break;
      case 'recreate':
        byName.set(spec.name, { ...current, generation: current.generation + 1 });
        break;
      case 'terminate':
        byName.set(spec.name, { ...current, terminating: true });
        break;
    }
  }
  for (const newcomer of present.newcomers)
    if (!byName.has(newcomer.name)) byName.set(newcomer.name, newcomer);
  return [...byName.values()];
}

export interface PlannerInput {
  /** Earlier worlds, each settled on top of the previous one's registrations. */
  readonly history: readonly (readonly NamespaceSpec[])[];
  readonly meddling: readonly { readonly index: number; readonly what: Meddling }[];
  readonly foreign: readonly ForeignSpec[];
  readonly present: PresentSpec;
  /** What a direct GET of a no-longer-managed source namespace returns, by pool index. */
  readonly lookups: readonly LookupSpec[];
  /** How long ago the history was settled. */
  readonly age: number;
}

export const plannerInputArb: fc.Arbitrary<PlannerInput> = fc.record({
  history: fc.array(worldArb, { minLength: 1, maxLength: 2 }),
  meddling: fc.array(
    fc.record({
      index: fc.nat({ max: 7 }),
      what: fc.constantFrom<Meddling>('prune-disabled', 'drop-uid-label', 'backdate-demotion'),
    }),
    { maxLength: 2 },
  ),
  foreign: fc.uniqueArray(foreignSpecArb, { selector: (spec) => spec.name, maxLength: 2 }),
  present: presentArb,
  lookups: fc.array(
    fc.constantFrom<LookupSpec>('notFound', 'unknown', 'present', 'present-other-uid', 'missing'),
    {
      minLength: NAMESPACE_POOL.length,
      maxLength: NAMESPACE_POOL.length,
    },
  ),
  age: fc.constantFrom(0, 30_000, HOUR, 2 * DAY),
});

/**
 * Planner inputs of which half rename one namespace of the last world (besides whatever else
 * changed): for properties whose interesting case is a rename.
 */
export const renamingInputArb: fc.Arbitrary<PlannerInput> = fc.oneof(
  plannerInputArb,
  fc
    .tuple(
      plannerInputArb,
      fc.nat({ max: NAMESPACE_POOL.length - 1 }),
      fc.integer({ min: 1, max: CLUSTER_POOL.length - 1 }),
    )
    .map(([input, index, step]): PlannerInput => {
      const rename: Evolution = { index, change: 'rename', step };
      const present: PresentSpec =
        input.present.kind === 'evolved'
          ? { ...input.present, changes: [rename, ...input.present.changes] }
          : { kind: 'evolved', changes: [rename], newcomers: [] };
      return { ...input, present };
    }),
);

// Both exec gates on (the k3k glob, allowing every cloud's plugin), so generated exec
// kubeconfigs are translated and their registrations held to ArgoCD's rules too.
// The pool's servers and the one EKS cluster name are on the operator's allow-lists, so
// exec registrations are planned (not all refused) wherever their TLS settings allow.
const PROPERTY_EXEC_POLICY = {
  ...EMPTY_EXEC_POLICY,
  allowedServers: ['.example.com'],
  eksClusterNames: ['prod'],
};
export const PROPERTY_CONFIG: Config = testConfig({
  execCredentials: true,
  execPolicy: PROPERTY_EXEC_POLICY,
  providers: [
    {
      ...PROVIDER_PRESETS.k3k,
      execClouds: ['aws', 'azure', 'gcp'],
      execCredentials: true,
      execPolicy: PROPERTY_EXEC_POLICY,
    },
  ],
});

// ---------------------------------------------------------------------------------------
// From specs to snapshots

function kubeconfigOptions(spec: KubeconfigSpec): KubeconfigSecretOptions {
  if (spec.kind === 'valid') {
    const credentials = CREDENTIALS[spec.credentials] ?? PEM.client;
    return {
      server: spec.server,
      credentials,
      insecure: spec.insecure,
      ...(spec.otherCa ? { ca: PEM.otherCa } : {}),
    };
  }
  switch (spec.how) {
    case 'not-yaml':
      return { text: 'clusters: [unclosed' };
    case 'exec':
      return { credentials: { exec: 'aws' } };
    case 'loopback':
      return { server: 'https://127.0.0.1:6443' };
    case 'in-cluster':
      return { server: 'https://kubernetes.default.svc' };
    case 'no-credentials':
      return {
        text: 'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://x.example.com\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: d\n  context: {cluster: c, user: u}\ncurrent-context: d\n',
      };
  }
}

/** The world's namespaces and kubeconfigs on top of `base`'s target-namespace Secrets. */
export function worldSnapshot(world: readonly NamespaceSpec[], base?: Snapshot): Snapshot {
  const builder = scenario({
    namespaces: [],
    candidateSecrets: [],
    clusterSecrets: base?.clusterSecrets ?? [],
    sourceLookups: {},
  });
  for (const spec of world) {
    const options = {
      cluster: spec.cluster,
      uid: `uid-${spec.name}-${spec.generation}`,
      created: spec.created,
      terminating: spec.terminating,
      labels: spec.team === undefined ? {} : { [`${KEYS.prefix}team`]: spec.team },
      annotations: spec.serverOverride === undefined ? {} : { [KEYS.server]: spec.serverOverride },
    };
    const source = parseSourceKey(spec.name);
    const namespaceName = sourceNamespaceOf(spec.name);
    const clusterName = source.kind === 'Cluster' ? source.name : undefined;
    if (clusterName === undefined) builder.namespace(spec.name, options);
    else builder.cluster(namespaceName, clusterName, options);
    if (spec.kubeconfig !== undefined)
      builder.kubeconfig(namespaceName, {
        ...kubeconfigOptions(spec.kubeconfig),
        // The k3k pattern names a Cluster's Secret too: k3k-<cluster>-kubeconfig.
        name: `k3k-${clusterName ?? namespaceName}-kubeconfig`,
      });
  }
  return builder.build();
}

function meddle(secret: ObservedSecret, what: Meddling): ObservedSecret {
  const labels: Record<string, string> = { ...secret.labels };
  const annotations: Record<string, string> = { ...secret.annotations };
  switch (what) {
    case 'prune-disabled':
      labels[KEYS.prune] = 'disabled';
      break;
    case 'drop-uid-label':
      return {
        ...secret,
        labels: Object.fromEntries(
          Object.entries(labels).filter(
            ([key]) => key !== KEYS.sourceNamespaceUid && key !== KEYS.sourceClusterUid,
          ),
        ),
      };
    case 'backdate-demotion':
      if (annotations[KEYS.staleSince] !== undefined)
        annotations[KEYS.staleSince] = '2026-01-01T00:00:00Z';
      break;
  }
  return { ...secret, labels, annotations, resourceVersion: `${secret.resourceVersion}0` };
}

function lookupFor(
  name: string,
  spec: LookupSpec,
  recordedUid: string | undefined,
): SourceLookup | undefined {
  switch (spec) {
    case 'notFound':
      return { state: 'notFound' };
    case 'unknown':
      return { state: 'unknown', reason: 'the API server timed out' };
    case 'present':
      return { state: 'present', uid: recordedUid ?? `uid-${name}-1`, labels: {} };
    case 'present-other-uid':
      return { state: 'present', uid: `uid-${name}-9`, labels: {} };
    case 'missing':
      return undefined;
  }
}

/** The snapshot a gather would produce after `input.history` happened. */
export function buildSnapshot(
  input: PlannerInput,
  config: Config = PROPERTY_CONFIG,
  now: number = NOW,
): Snapshot {
  let past: Snapshot | undefined;
  for (const world of input.history)
    past = settle(worldSnapshot(world, past), config, now - input.age);
  let clusterSecrets = [...(past?.clusterSecrets ?? [])];
  for (const { index, what } of input.meddling) {
    const secret = clusterSecrets[index % Math.max(1, clusterSecrets.length)];
    if (secret !== undefined)
      clusterSecrets = clusterSecrets.map((candidate) =>
        candidate === secret ? meddle(secret, what) : candidate,
      );
  }
  const presentWorld = evolve(input.history.at(-1) ?? [], input.present);
  const builder = scenario(
    worldSnapshot(presentWorld, {
      namespaces: [],
      candidateSecrets: [],
      clusterSecrets,
      sourceLookups: {},
    }),
  );
  for (const spec of input.foreign)
    builder.foreign(spec.name, { server: spec.server, clusterName: spec.clusterName });
  const present = new Set(presentWorld.map((spec) => spec.name));
  for (const secret of clusterSecrets) {
    const { key: source, uid } = recordedSource(secret);
    if (source === undefined || present.has(source)) continue;
    const index = NAMESPACE_POOL.indexOf(source as (typeof NAMESPACE_POOL)[number]);
    const lookup = lookupFor(source, input.lookups[index] ?? 'missing', uid);
    if (lookup !== undefined) builder.lookup(source, lookup);
  }
  return builder.build();
}

/** Deterministic shuffle (a small LCG), so a permutation is part of the generated input. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const copy = [...items];
  let state = seed >>> 0 || 1;
  for (let i = copy.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    const a = copy[i] as T;
    copy[i] = copy[j] as T;
    copy[j] = a;
  }
  return copy;
}

// ---------------------------------------------------------------------------------------
// Incomplete input: what a gather could not read

export interface UnreadSpec {
  /** Pool indexes of sources whose namespace's Secret list failed. */
  readonly namespaces: readonly number[];
  /**
   * The target namespace's cluster Secrets: all read; the list failed outright (nothing
   * read); or one of the two lists failed (only the Secrets carrying our label were read).
   */
  readonly clusterSecrets: 'read' | 'failed' | 'owned-only';
}

export const unreadSpecArb: fc.Arbitrary<UnreadSpec> = fc.record({
  namespaces: fc.uniqueArray(fc.nat({ max: NAMESPACE_POOL.length - 1 }), { maxLength: 2 }),
  clusterSecrets: fc.constantFrom<UnreadSpec['clusterSecrets']>('read', 'failed', 'owned-only'),
});

export const UNREAD_REASON = 'the API server answered 503';

/** `snapshot` as a gather that failed to read the parts `spec` names would report it. */
export function withUnreadParts(snapshot: Snapshot, spec: UnreadSpec): Snapshot {
  const managed = new Set(sourcesOf(snapshot).map((source) => source.name));
  const unread = [
    ...new Set(
      spec.namespaces
        .map((index) => NAMESPACE_POOL[index] as string)
        .filter((name) => managed.has(name))
        .map(sourceNamespaceOf),
    ),
  ].sort();
  const unreadSet = new Set(unread);
  const clusterSecrets =
    spec.clusterSecrets === 'read'
      ? snapshot.clusterSecrets
      : spec.clusterSecrets === 'failed'
        ? []
        : snapshot.clusterSecrets.filter(
            (secret) => secret.labels[KEYS.managedBy] === PROPERTY_CONFIG.managedBy,
          );
  return {
    ...snapshot,
    candidateSecrets: snapshot.candidateSecrets.filter(
      (secret) => !unreadSet.has(secret.namespace),
    ),
    clusterSecrets,
    unreadNamespaces: unread.map((name) => ({ name, reason: UNREAD_REASON })),
    ...(spec.clusterSecrets === 'read' ? {} : { clusterSecretsUnread: UNREAD_REASON }),
  };
}

// ---------------------------------------------------------------------------------------
// Kubeconfig documents for translateKubeconfig's properties (kubeconfig.test.ts): mostly
// valid fields with some junk, so that translations succeed often enough to test the output.

type KubeconfigFields = Record<string, unknown>;
const KUBECONFIG_CA = encodeBase64Text(CA_CERT_PEM);
const KUBECONFIG_CERT = encodeBase64Text(CLIENT_CERT_PEM);
const KUBECONFIG_KEY = encodeBase64Text(CLIENT_KEY_PEM);
const dropUndefinedFields = (fields: KubeconfigFields): KubeconfigFields =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));

const junk = fc.oneof(
  fc.constantFrom<unknown>(
    'not base64',
    CA_CERT_PEM,
    '',
    null,
    true,
    0,
    'yes',
    { command: 'x' },
    [],
  ),
  fc.string({ maxLength: 12 }),
);
/** Mostly valid values, so that translations succeed often enough to test the output. */
const kubeconfigField = (...valid: unknown[]): fc.Arbitrary<unknown> =>
  fc.oneof({ arbitrary: fc.constantFrom(...valid), weight: 6 }, { arbitrary: junk, weight: 1 });
/** A field that is absent with the given odds (out of 10). */
const absentOrNot = (absent: number, value: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof(
    { arbitrary: fc.constant(undefined), weight: absent },
    { arbitrary: value, weight: 10 - absent },
  );
const kubeconfigFields = (
  shape: Record<string, fc.Arbitrary<unknown>>,
): fc.Arbitrary<KubeconfigFields> => fc.record(shape).map(dropUndefinedFields);
export const kubeconfigClusterFieldsArb = kubeconfigFields({
  server: absentOrNot(
    1,
    kubeconfigField(
      'https://api.child:6443',
      'https://api.child/',
      'http://10.0.0.1',
      'https://127.0.0.1:6443',
      'https://localhost',
      'https://kubernetes.default.svc',
      'ftp://x',
    ),
  ),
  'certificate-authority-data': absentOrNot(
    3,
    kubeconfigField(
      KUBECONFIG_CA,
      encodeBase64Text(`${CA_CERT_PEM}${OTHER_CA_CERT_PEM}`),
      KUBECONFIG_KEY,
    ),
  ),
  'certificate-authority': absentOrNot(9, kubeconfigField('/etc/ca.crt')),
  'insecure-skip-tls-verify': absentOrNot(5, kubeconfigField(true, false)),
  'tls-server-name': absentOrNot(5, kubeconfigField('api.child')),
  'proxy-url': absentOrNot(
    7,
    kubeconfigField('http://proxy:3128', 'socks5://p', 'http://u:p@proxy'),
  ),
});
export const kubeconfigUserFieldsArb = kubeconfigFields({
  'client-certificate-data': absentOrNot(
    4,
    kubeconfigField(KUBECONFIG_CERT, encodeBase64Text(OTHER_CA_CERT_PEM)),
  ),
  'client-key-data': absentOrNot(
    4,
    kubeconfigField(
      KUBECONFIG_KEY,
      encodeBase64Text(RSA_TRADITIONAL_KEY_PEM),
      encodeBase64Text(CA_KEY_PEM),
      KUBECONFIG_CERT,
    ),
  ),
  token: absentOrNot(5, kubeconfigField('tok', 'eyJhbGciOi.x.y')),
  username: absentOrNot(6, kubeconfigField('admin')),
  password: absentOrNot(6, kubeconfigField('pw')),
  exec: absentOrNot(9, kubeconfigField(null, { command: 'aws' })),
  'auth-provider': absentOrNot(9, kubeconfigField(null, { name: 'gcp' })),
  tokenFile: absentOrNot(9, kubeconfigField('', '/var/run/token')),
  as: absentOrNot(9, kubeconfigField('', 'someone')),
});
const entryNames = fc.constantFrom('a', 'b', 'c');
export const kubeconfigObjectArb = fc.record(
  {
    clusters: fc.uniqueArray(fc.record({ name: entryNames, cluster: kubeconfigClusterFieldsArb }), {
      selector: (entry) => entry.name,
      minLength: 1,
      maxLength: 2,
    }),
    users: fc.uniqueArray(fc.record({ name: entryNames, user: kubeconfigUserFieldsArb }), {
      selector: (entry) => entry.name,
      minLength: 1,
      maxLength: 2,
    }),
    contexts: fc.array(
      fc.record({
        name: entryNames,
        context: fc.record({ cluster: entryNames, user: entryNames }),
      }),
      { maxLength: 3 },
    ),
    'current-context': entryNames,
  },
  { requiredKeys: ['clusters', 'users'] },
);
/**
 * Kubeconfigs that usually translate (one cluster, one user, one credential form), so the
 * ArgoCD-validity property spends most of its runs on emitted configs, not on refusals.
 */
export const usableKubeconfigObjectArb = fc
  .record({
    server: fc.constantFrom('https://api.child:6443', 'https://api.child/', 'http://10.0.0.1'),
    ca: fc.option(fc.constantFrom(KUBECONFIG_CA), { nil: undefined }),
    insecure: fc.option(fc.boolean(), { nil: undefined }),
    serverName: fc.option(fc.constant('api.child'), { nil: undefined }),
    credential: fc.constantFrom<KubeconfigFields>(
      { 'client-certificate-data': KUBECONFIG_CERT, 'client-key-data': KUBECONFIG_KEY },
      { token: 'eyJhbGciOi.x.y' },
      { username: 'admin', password: 'pw' },
    ),
  })
  .map(({ server, ca, insecure, serverName, credential }) => ({
    clusters: [
      {
        name: 'a',
        cluster: dropUndefinedFields({
          server,
          'certificate-authority-data': ca,
          'insecure-skip-tls-verify': insecure,
          'tls-server-name': serverName,
        }),
      },
    ],
    users: [{ name: 'a', user: credential }],
    contexts: [{ name: 'a', context: { cluster: 'a', user: 'a' } }],
    'current-context': 'a',
  }));
export const translateContextArb = fc.record({
  namespace: fc.constantFrom('ns', 'team-a'),
  secret: fc.constantFrom('vc-x', 'k3k-a-kubeconfig', 'vc-', 'vc-Bad.Name'),
  provider: fc.constantFrom(...Object.values(PROVIDER_PRESETS)),
  key: fc.constantFrom('config', 'kubeconfig.yaml'),
});
