// Reading a kubeconfig's structure as kubectl does: the YAML itself, typed fields, and the
// cluster and user the current context selects.

import { Composer, isMap as isYamlMap, isScalar, isSeq, Parser } from 'yaml';
import type { CST, Document, DocumentOptions, ErrorCode, ParseOptions, SchemaOptions } from 'yaml';
import { KUBECONFIG_LIMITS, scanYamlShape } from './kubeconfig-limits.js';
import { readPlainYaml } from './plain-yaml.js';
import type { RefusalCode } from '../common/types.js';

// YAML, as kubectl reads it: one document, YAML 1.1 scalars (`yes` is a boolean), no
// custom or exotic tags, no duplicate keys, bounded alias expansion. The library's own
// duplicate-key check compares each key with every earlier one (quadratic in a mapping's size),
// so duplicates are found afterwards, in one pass (`problemInTree`).

// By id, or by tag (`tag:yaml.org,2002:<id>`); without timestamp, date-looking strings stay strings.
const EXCLUDED_TAGS = new Set(['binary', 'omap', 'pairs', 'set', 'timestamp']);

const PARSE_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  schema: 'yaml-1.1',
  strict: true,
  uniqueKeys: false,
  prettyErrors: false,
  customTags: (tags) =>
    tags.filter(
      (tag) =>
        !EXCLUDED_TAGS.has(
          typeof tag === 'string' ? tag : tag.tag.replace(/^tag:yaml\.org,2002:/, ''),
        ),
    ),
};

export type YamlMap = Readonly<Record<string, unknown>>;

export const isMap = (value: unknown): value is YamlMap =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.getPrototypeOf(value) === Object.prototype;

type Parsed =
  | { readonly ok: true; readonly root: YamlMap }
  /** `overLimit`: the text is over one of KUBECONFIG_LIMITS. */
  | { readonly ok: false; readonly problem: string; readonly overLimit?: true };

// The library's messages can quote the text (a tag, a directive, the token it stumbled on),
// and the text holds credentials: refusals say what kind of problem and where, in our words.
const YAML_PROBLEMS: Partial<Record<ErrorCode, string>> = {
  BAD_ALIAS: 'an alias without its anchor',
  BAD_DIRECTIVE: 'an unknown directive',
  BAD_DQ_ESCAPE: 'a bad escape in a double-quoted string',
  BAD_INDENT: 'bad indentation',
  BAD_SCALAR_START: 'a value that starts with a reserved character',
  BLOCK_AS_IMPLICIT_KEY: 'a block value used as a key',
  BLOCK_IN_FLOW: 'a block value inside brackets or braces',
  DUPLICATE_KEY: 'duplicate key',
  KEY_OVER_1024_CHARS: 'a key longer than 1024 characters',
  MISSING_CHAR: 'an unclosed quote, bracket or brace',
  MULTILINE_IMPLICIT_KEY: 'a key spanning lines',
  MULTIPLE_DOCS: 'more than one document',
  NON_STRING_KEY: 'a key that is not a plain value',
  RESOURCE_EXHAUSTION: 'a structure too deep to read',
  TAB_AS_INDENT: 'a tab as indentation',
  TAG_RESOLVE_FAILED: 'a value that does not match its tag',
};

const notYaml = (text: string, what: string, offset: number | undefined): Parsed => ({
  ok: false,
  problem: `is not valid YAML (${what}${offset === undefined ? '' : ` at line ${text.slice(0, offset).split('\n').length}`})`,
});

/**
 * A duplicate key, or a key that is a mapping, list or alias (kubectl reads keys as strings;
 * the library would turn such a key into a string by printing it, at a cost that grows with
 * its depth), in one pass over the parsed tree: a Set per mapping.
 */
function problemInTree(document: Document.Parsed, text: string): Parsed | undefined {
  const pending: unknown[] = [document.contents];
  while (pending.length > 0) {
    const node = pending.pop();
    if (isSeq(node)) pending.push(...node.items);
    if (!isYamlMap(node)) continue;
    const keys = new Set<unknown>();
    for (const pair of node.items) {
      const key: unknown = pair.key;
      if (key !== null && !isScalar(key))
        return notYaml(text, 'a key that is not a plain value', node.range?.[0]);
      // The library's own rule: keys are equal when their values are (`yes` and `true` too).
      const value = key === null ? null : key.value;
      if (keys.has(value)) return notYaml(text, 'duplicate key', key?.range?.[0]);
      keys.add(value);
      pending.push(pair.value);
    }
  }
  return undefined;
}

/**
 * Characters outside YAML's printable set. The library passes them through inside scalars;
 * kubectl refuses them, and a NUL in a token would reach ArgoCD's config as it stands.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const NON_PRINTABLE = /[\0-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffe\uffff]/;

/** The document the scan's lexemes make, and where a second one starts, if one does. */
function composeDocument(
  lexemes: readonly string[],
  length: number,
): { readonly parsed: Document.Parsed; readonly second: number | undefined } {
  const parser = new Parser();
  function* tokens(): Generator<CST.Token> {
    for (const lexeme of lexemes) yield* parser.next(lexeme);
    yield* parser.end();
  }
  let parsed: Document.Parsed | undefined;
  for (const document of new Composer(PARSE_OPTIONS).compose(tokens(), true, length)) {
    if (parsed !== undefined) return { parsed, second: document.range[0] };
    parsed = document;
  }
  // compose() ends with a document, an empty one for empty text.
  if (parsed === undefined) throw new Error('the YAML library composed no document');
  return { parsed, second: undefined };
}

export function parseYaml(written: string): Parsed {
  if (written.length <= KUBECONFIG_LIMITS.maxLength) {
    const root = readPlainYaml(written);
    if (root !== undefined) return { ok: true, root };
  }
  return parseWithLibrary(written);
}

/** The YAML library's reading, with its checks: what readPlainYaml must agree with. */
export function parseWithLibrary(text: string): Parsed {
  const shape = scanYamlShape(text);
  if (!shape.ok) return { ok: false, problem: shape.overLimit, overLimit: true };
  const control = NON_PRINTABLE.exec(text);
  if (control !== null) return notYaml(text, 'a control character', control.index);
  try {
    const document = composeDocument(shape.lexemes, text.length);
    const { errors, warnings } = document.parsed;
    // In the library's order: the first document's errors, a second document, warnings.
    const issue =
      errors[0] ??
      (document.second === undefined
        ? warnings[0]
        : { code: 'MULTIPLE_DOCS' as const, pos: [document.second] });
    if (issue !== undefined)
      return notYaml(text, YAML_PROBLEMS[issue.code] ?? 'malformed YAML', issue.pos[0]);
    const inTree = problemInTree(document.parsed, text);
    if (inTree !== undefined) return inTree;
    const root: unknown = document.parsed.toJS({ maxAliasCount: 100 });
    if (root === null || root === undefined) return { ok: false, problem: 'is empty' };
    if (!isMap(root)) return { ok: false, problem: 'is not a YAML mapping' };
    return { ok: true, root };
  } catch {
    // toJS throws on alias bombs; the bounds above keep anything else from throwing, and
    // whatever the library might still throw is, to the user, unreadable YAML.
    return { ok: false, problem: 'is not valid YAML (too many aliases or a malformed structure)' };
  }
}

// Typed reading of the kubeconfig structure. Each reader returns the value or a problem
// phrase; `null` and empty strings read as absent, as they do in client-go.

export class Problem {
  constructor(
    readonly code: RefusalCode,
    readonly problem: string,
    readonly fix: string,
  ) {}
}

/** The Secret (and key) a kubeconfig was read from, as every message about it starts. */
export interface SecretSource {
  readonly namespace: string;
  readonly secret: string;
  readonly key?: string;
}

export const where = ({ namespace, secret, key }: SecretSource): string =>
  `namespace ${namespace}, Secret ${secret}${key === undefined ? '' : ` key ${key}`}`;

export const NOT_A_KUBECONFIG_FIX =
  'store a kubeconfig as written by `kubectl config view --raw --flatten`';

export const OVER_LIMIT_FIX =
  "store only the child cluster's kubeconfig, as written by `kubectl config view --raw --flatten --minify`";

function notKubeconfig(problem: string): Problem {
  return new Problem(
    'kubeconfig-not-yaml',
    `the kubeconfig is malformed: ${problem}`,
    NOT_A_KUBECONFIG_FIX,
  );
}

export function readString(
  body: YamlMap,
  field: string,
  owner: string,
): string | undefined | Problem {
  const value = body[field];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string')
    return notKubeconfig(`"${field}" of ${owner} is not a string (quote it)`);
  return value;
}

/** `fields` of `body`, each as {@link readString} reads it, or the first one's problem. */
export function readStrings<Field extends string>(
  body: YamlMap,
  fields: readonly Field[],
  owner: string,
): Partial<Record<Field, string>> | Problem {
  const values: Partial<Record<Field, string>> = {};
  for (const field of fields) {
    const value = readString(body, field, owner);
    if (value instanceof Problem) return value;
    if (value !== undefined) values[field] = value;
  }
  return values;
}

export function readBoolean(body: YamlMap, field: string, owner: string): boolean | Problem {
  const value = body[field];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean')
    return notKubeconfig(`"${field}" of ${owner} is not true or false`);
  return value;
}

interface NamedEntry {
  readonly name: string;
  readonly body: YamlMap;
}

function readNamedList(
  root: YamlMap,
  field: 'cluster' | 'user' | 'context',
): NamedEntry[] | Problem {
  const list = `${field}s`;
  const value = root[list];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return notKubeconfig(`"${list}" is not a list`);
  const entries: NamedEntry[] = [];
  for (const [index, entry] of (value as unknown[]).entries()) {
    if (!isMap(entry)) return notKubeconfig(`${list}[${index}] is not a mapping`);
    const name = entry['name'];
    if (typeof name !== 'string' || name === '')
      return notKubeconfig(`${list}[${index}] has no name`);
    const body = entry[field];
    if (body !== undefined && body !== null && !isMap(body))
      return notKubeconfig(
        `"${field}" of ${list}[${index}] (${JSON.stringify(name)}) is not a mapping`,
      );
    entries.push({ name, body: body ?? {} });
  }
  return entries;
}

function findNamed(
  entries: readonly NamedEntry[],
  name: string,
  kind: string,
  referrer: string,
): NamedEntry | Problem {
  const found = entries.filter((entry) => entry.name === name);
  if (found.length === 1 && found[0] !== undefined) return found[0];
  const known = entries.slice(0, 10).map((entry) => JSON.stringify(entry.name));
  return new Problem(
    'kubeconfig-context-dangling',
    `${referrer} names ${kind} ${JSON.stringify(name)}, which the kubeconfig ${found.length > 1 ? `defines ${found.length} times` : 'does not define'}`,
    found.length > 1
      ? `keep a single ${kind} of that name`
      : known.length === 0
        ? `add the ${kind} to the kubeconfig`
        : `point it at one of ${known.join(', ')}`,
  );
}

// Context choice: the only cluster+user pair, else current-context. Never a guess.

interface Selected {
  readonly cluster: NamedEntry;
  readonly user: NamedEntry;
  /** What is wrong with current-context when the only pair was used without it, for a warning. */
  readonly danglingContext?: string;
  /** The current-context's name, when it leads to the pair used. */
  readonly context?: string;
}

export function selectPair(root: YamlMap): Selected | Problem {
  const clusters = readNamedList(root, 'cluster');
  if (clusters instanceof Problem) return clusters;
  const users = readNamedList(root, 'user');
  if (users instanceof Problem) return users;
  const contexts = readNamedList(root, 'context');
  if (contexts instanceof Problem) return contexts;

  const followed = followCurrentContext(root, contexts, clusters, users);
  const [onlyCluster] = clusters;
  const [onlyUser] = users;
  if (
    clusters.length === 1 &&
    users.length === 1 &&
    onlyCluster !== undefined &&
    onlyUser !== undefined
  ) {
    // The single pair is unambiguous, so it is used (a current-context that leads anywhere leads
    // to it); one that leads nowhere is still worth a warning: kubectl would not accept it.
    return followed instanceof Problem
      ? { cluster: onlyCluster, user: onlyUser, danglingContext: followed.problem }
      : (followed ?? { cluster: onlyCluster, user: onlyUser });
  }
  if (followed !== undefined) return followed;
  const what =
    clusters.length === 0
      ? 'defines no cluster'
      : users.length === 0
        ? 'defines no user'
        : `has ${clusters.length} clusters and ${users.length} users and no current-context`;
  return new Problem(
    'kubeconfig-no-context',
    `the kubeconfig ${what}, so there is no way to tell which cluster to register`,
    'set current-context, or store a kubeconfig with exactly one cluster and one user',
  );
}

/** The pair current-context selects, a problem when it leads nowhere, undefined when unset. */
function followCurrentContext(
  root: YamlMap,
  contexts: readonly NamedEntry[],
  clusters: readonly NamedEntry[],
  users: readonly NamedEntry[],
): Selected | Problem | undefined {
  const current = readString(root, 'current-context', 'the kubeconfig');
  if (current instanceof Problem || current === undefined) return current;
  const context = findNamed(contexts, current, 'context', 'current-context');
  if (context instanceof Problem) return context;
  const referrer = `context ${JSON.stringify(current)}`;
  const names = readStrings(context.body, ['cluster', 'user'], referrer);
  if (names instanceof Problem) return names;
  const { cluster: clusterName, user: userName } = names;
  if (clusterName === undefined || userName === undefined) {
    return new Problem(
      'kubeconfig-context-dangling',
      `${referrer} (the current-context) names no ${clusterName === undefined ? 'cluster' : 'user'}`,
      `set its ${clusterName === undefined ? 'cluster' : 'user'}`,
    );
  }
  const cluster = findNamed(clusters, clusterName, 'cluster', referrer);
  if (cluster instanceof Problem) return cluster;
  const user = findNamed(users, userName, 'user', referrer);
  if (user instanceof Problem) return user;
  return { cluster, user, context: current };
}
