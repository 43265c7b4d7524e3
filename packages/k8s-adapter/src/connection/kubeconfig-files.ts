// Reading kubeconfig files. client-node's KubeConfig parses each file, checks its entries and
// makes its certificate paths absolute; what kubectl does beyond client-node 1.4 is added here:
// - several files ($KUBECONFIG) merge as kubectl merges them: the first file to set
//   current-context, or to name a cluster, user or context, wins (client-node's mergeConfig
//   lets a later current-context win and throws on a name given twice);
// - inline data wins over a file, as in kubectl (client-node reads the file when both are set);
// - user fields client-node does not read are kept beside its users, by name: `tokenFile`,
//   `as-groups`, `as-uid`, `as-user-extra`, and `exec` (its command, when it has a directory
//   part, is relative to the file; the plugin is run by exec-credential.ts, see there why).
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
// client-node's KubeConfig by its module, not the package entry: the entry also imports its
// informers, watches and API clients, which would keep its generated models in the bundle.
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import type { Cluster, Context, User } from '@kubernetes/client-node';
import { parse } from 'yaml';

export interface ExecConfig {
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: readonly { readonly name?: string; readonly value?: string }[] | null;
  readonly apiVersion?: string;
  readonly installHint?: string;
  readonly provideClusterInfo?: boolean;
  readonly interactiveMode?: string;
}

/** What a user entry sets that client-node's User does not carry. */
export interface UserExtras {
  /** Absolute. */
  readonly tokenFile?: string;
  readonly exec?: ExecConfig;
  readonly impersonateGroups?: readonly string[];
  readonly impersonateUid?: string;
  readonly impersonateExtra?: Readonly<Record<string, readonly string[]>>;
}

/** One or more files merged. */
export interface Kubeconfig {
  readonly currentContext: string | undefined;
  readonly clusters: ReadonlyMap<string, Cluster>;
  readonly users: ReadonlyMap<string, User>;
  readonly contexts: ReadonlyMap<string, Context>;
  readonly extras: ReadonlyMap<string, UserExtras>;
  /** Cluster names given without a server (client-node drops those entries). */
  readonly serverless: ReadonlySet<string>;
  /** The `extension` of each cluster's client.authentication.k8s.io/exec extension. */
  readonly execExtensions: ReadonlyMap<string, unknown>;
}

/** Reads and parses one file; throws the file system's or parser's error (caller words it). */
export function readKubeconfigFile(path: string): Kubeconfig {
  return parseKubeconfig(readFileSync(path, 'utf8'), dirname(resolve(path)));
}

/** `baseDir`: what relative paths in the text are relative to. */
export function parseKubeconfig(text: string, baseDir: string): Kubeconfig {
  const doc: unknown = parse(text);
  if (!isRecord(doc) && doc !== null && doc !== undefined) throw new Error('not a kubeconfig');
  const raw = isRecord(doc) ? doc : {};
  const kc = new KubeConfig();
  // Entries that are not valid (a cluster without a server) are dropped, not fatal: kubectl
  // only checks the entries the chosen context uses, and so does kube-config.ts.
  kc.loadFromString(text === '' ? '{}' : text, { onInvalidEntry: 'filter' });
  kc.makePathsAbsolute(baseDir);
  const at = (path: unknown): string | undefined =>
    typeof path !== 'string' || path === ''
      ? undefined
      : isAbsolute(path)
        ? path
        : resolve(baseDir, path);

  const rawClusters = namedEntries(raw['clusters'], 'cluster');
  const clusters = new Map<string, Cluster>();
  for (const cluster of kc.getClusters()) {
    if (clusters.has(cluster.name)) continue;
    const { caFile, ...rest } = cluster;
    clusters.set(cluster.name, cluster.caData || !caFile ? rest : cluster);
  }
  const serverless = new Set<string>();
  const execExtensions = new Map<string, unknown>();
  for (const { name, value } of rawClusters) {
    if (typeof value['server'] !== 'string' || value['server'] === '') serverless.add(name);
    const extensions = Array.isArray(value['extensions']) ? (value['extensions'] as unknown[]) : [];
    const exec = extensions.find(
      (e) => isRecord(e) && e['name'] === 'client.authentication.k8s.io/exec',
    );
    if (isRecord(exec) && !execExtensions.has(name)) execExtensions.set(name, exec['extension']);
  }

  const users = new Map<string, User>();
  const extras = new Map<string, UserExtras>();
  const rawUsers = new Map(namedEntries(raw['users'], 'user').map((e) => [e.name, e.value]));
  for (const user of kc.getUsers()) {
    if (users.has(user.name)) continue;
    const entry = rawUsers.get(user.name) ?? {};
    const exec = isRecord(entry['exec']) ? (entry['exec'] as ExecConfig) : undefined;
    // The exec plugin is ours to run (exec-credential.ts): client-node must not run it too.
    const { certFile, keyFile, ...rest } = user;
    users.set(user.name, {
      ...withoutExec(rest),
      ...(certFile && !user.certData ? { certFile } : {}),
      ...(keyFile && !user.keyData ? { keyFile } : {}),
    });
    extras.set(user.name, userExtras(entry, exec, at));
  }

  const contexts = new Map<string, Context>();
  for (const context of kc.getContexts())
    if (!contexts.has(context.name)) contexts.set(context.name, context);
  const current = raw['current-context'];
  return {
    currentContext: typeof current === 'string' && current !== '' ? current : undefined,
    clusters,
    users,
    contexts,
    extras,
    serverless,
    execExtensions,
  };
}

function userExtras(
  entry: Record<string, unknown>,
  exec: ExecConfig | undefined,
  at: (path: unknown) => string | undefined,
): UserExtras {
  const tokenFile = at(entry['tokenFile']);
  const groups = stringList(entry['as-groups']);
  const uid = entry['as-uid'];
  const extra = isRecord(entry['as-user-extra'])
    ? Object.fromEntries(
        Object.entries(entry['as-user-extra']).map(([key, values]) => [key, stringList(values)]),
      )
    : undefined;
  // Like client-go: a bare command name is looked up on PATH; one with a directory part is a
  // file, relative to the kubeconfig.
  const command = exec?.command;
  return {
    ...(tokenFile !== undefined ? { tokenFile } : {}),
    ...(exec !== undefined
      ? {
          exec:
            command !== undefined && command.includes(sep)
              ? { ...exec, command: at(command) ?? command }
              : exec,
        }
      : {}),
    ...(groups.length > 0 ? { impersonateGroups: groups } : {}),
    ...(typeof uid === 'string' && uid !== '' ? { impersonateUid: uid } : {}),
    ...(extra !== undefined && Object.keys(extra).length > 0 ? { impersonateExtra: extra } : {}),
  };
}

/** Adds what `into` does not set yet: the first file to set a value wins. */
export function mergeFirstWins(files: readonly Kubeconfig[]): Kubeconfig {
  const merged = {
    currentContext: undefined as string | undefined,
    clusters: new Map<string, Cluster>(),
    users: new Map<string, User>(),
    contexts: new Map<string, Context>(),
    extras: new Map<string, UserExtras>(),
    serverless: new Set<string>(),
    execExtensions: new Map<string, unknown>(),
  };
  const addAll = <T>(into: Map<string, T>, from: ReadonlyMap<string, T>): void => {
    for (const [name, entry] of from) if (!into.has(name)) into.set(name, entry);
  };
  for (const file of files) {
    merged.currentContext ??= file.currentContext;
    addAll(merged.users, file.users);
    addAll(merged.extras, file.extras);
    addAll(merged.contexts, file.contexts);
    addAll(merged.execExtensions, file.execExtensions);
    // A file's cluster entry wins over later ones even when it is invalid (no server).
    for (const name of file.serverless) if (!merged.clusters.has(name)) merged.serverless.add(name);
    for (const [name, entry] of file.clusters)
      if (!merged.clusters.has(name) && !merged.serverless.has(name))
        merged.clusters.set(name, entry);
  }
  return merged;
}

function withoutExec<T extends { readonly exec?: unknown }>(user: T): Omit<T, 'exec'> {
  const copy: Record<string, unknown> = { ...user };
  delete copy['exec'];
  return copy as Omit<T, 'exec'>;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function namedEntries(
  list: unknown,
  field: string,
): { name: string; value: Record<string, unknown> }[] {
  if (!Array.isArray(list)) return [];
  const entries: { name: string; value: Record<string, unknown> }[] = [];
  for (const item of list as unknown[]) {
    if (!isRecord(item) || typeof item['name'] !== 'string') continue;
    const value = item[field];
    entries.push({ name: item['name'], value: isRecord(value) ? value : {} });
  }
  return entries;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
