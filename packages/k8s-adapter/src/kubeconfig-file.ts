// Reading kubeconfig files the way kubectl does: relative file paths are relative to the file
// that names them, and with several files ($KUBECONFIG) the first file to set a value wins,
// for current-context and for each cluster, user and context by name.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { parse } from 'yaml';

export interface ClusterEntry {
  readonly server?: string;
  readonly 'certificate-authority'?: string;
  readonly 'certificate-authority-data'?: string;
  readonly 'insecure-skip-tls-verify'?: boolean;
  readonly 'tls-server-name'?: string;
  readonly 'proxy-url'?: string;
  readonly extensions?: readonly { readonly name?: string; readonly extension?: unknown }[];
}

export interface ExecConfig {
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: readonly { readonly name?: string; readonly value?: string }[] | null;
  readonly apiVersion?: string;
  readonly installHint?: string;
  readonly provideClusterInfo?: boolean;
  readonly interactiveMode?: string;
}

export interface UserEntry {
  readonly 'client-certificate'?: string;
  readonly 'client-certificate-data'?: string;
  readonly 'client-key'?: string;
  readonly 'client-key-data'?: string;
  readonly token?: string;
  readonly tokenFile?: string;
  readonly username?: string;
  readonly password?: string;
  readonly exec?: ExecConfig;
  readonly 'auth-provider'?: { readonly name?: string };
}

export interface ContextEntry {
  readonly cluster?: string;
  readonly user?: string;
  readonly namespace?: string;
}

/** One or more files merged: names map to entries whose paths are absolute. */
export interface Kubeconfig {
  currentContext: string | undefined;
  readonly clusters: Map<string, ClusterEntry>;
  readonly users: Map<string, UserEntry>;
  readonly contexts: Map<string, ContextEntry>;
}

export function emptyKubeconfig(): Kubeconfig {
  return { currentContext: undefined, clusters: new Map(), users: new Map(), contexts: new Map() };
}

/** Reads and parses one file; throws the file system's or parser's error (caller words it). */
export function readKubeconfigFile(path: string): Kubeconfig {
  return parseKubeconfig(readFileSync(path, 'utf8'), dirname(resolve(path)));
}

/** `baseDir`: what relative paths in the text are relative to. */
export function parseKubeconfig(text: string, baseDir: string): Kubeconfig {
  const doc: unknown = parse(text);
  const config = emptyKubeconfig();
  if (!isRecord(doc)) {
    if (doc === null || doc === undefined) return config; // an empty file is an empty config
    throw new Error('not a kubeconfig');
  }
  const current = doc['current-context'];
  if (typeof current === 'string' && current !== '') config.currentContext = current;
  const at = (path: string | undefined): string | undefined =>
    path === undefined || path === '' || isAbsolute(path) ? path : resolve(baseDir, path);
  for (const { name, value } of namedEntries(doc['clusters'], 'cluster')) {
    const cluster = value as ClusterEntry;
    const ca = at(cluster['certificate-authority']);
    if (!config.clusters.has(name))
      config.clusters.set(name, {
        ...cluster,
        ...(ca !== undefined ? { 'certificate-authority': ca } : {}),
      });
  }
  for (const { name, value } of namedEntries(doc['users'], 'user')) {
    if (!config.users.has(name)) config.users.set(name, resolveUserPaths(value, at));
  }
  for (const { name, value } of namedEntries(doc['contexts'], 'context')) {
    if (!config.contexts.has(name)) config.contexts.set(name, value);
  }
  return config;
}

function resolveUserPaths(
  user: UserEntry,
  at: (path: string | undefined) => string | undefined,
): UserEntry {
  const resolved: Record<string, unknown> = { ...user };
  for (const key of ['client-certificate', 'client-key', 'tokenFile'] as const) {
    const path = at(user[key]);
    if (path !== undefined) resolved[key] = path;
  }
  // Like client-go: a bare command name is looked up on PATH; one with a directory part is a
  // file, relative to the kubeconfig.
  const command = user.exec?.command;
  if (command !== undefined && command.includes(sep)) {
    resolved['exec'] = { ...user.exec, command: at(command) };
  }
  return resolved;
}

/** Adds what `into` does not set yet: the first file to set a value wins. */
export function mergeFirstWins(into: Kubeconfig, from: Kubeconfig): void {
  into.currentContext ??= from.currentContext;
  for (const [name, entry] of from.clusters)
    if (!into.clusters.has(name)) into.clusters.set(name, entry);
  for (const [name, entry] of from.users) if (!into.users.has(name)) into.users.set(name, entry);
  for (const [name, entry] of from.contexts)
    if (!into.contexts.has(name)) into.contexts.set(name, entry);
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
