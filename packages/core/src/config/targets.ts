// The targets file (`--targets-file`): the ArgoCD namespaces a registrar writes into, here or in
// other clusters, each with an optional source selector and cluster-name template. Every
// problem is reported at once, naming the target and the fix.

import { YAMLError, parse } from 'yaml';
import type { Config, LabelSelector, TargetScope } from '../common/types.js';
import { formProblem } from './form-checks.js';
import { LABEL_VALUE_FORM, TARGET_NAMESPACE_FORM } from './forms.js';
import { parseLabelSelector } from './label-selector.js';

/** One target as the file describes it, validated. */
export interface TargetDefinition {
  readonly name: string;
  readonly namespace: string;
  /** Path of the kubeconfig that reaches the target's cluster; absent: this cluster. */
  readonly kubeconfig?: string;
  readonly context?: string;
  /** As written, for messages; `selector` is its parsed form. */
  readonly selectorText?: string;
  readonly selector?: LabelSelector;
  readonly nameTemplate?: string;
}

export type TargetsResult =
  | { readonly ok: true; readonly targets: readonly TargetDefinition[] }
  | { readonly ok: false; readonly errors: readonly string[] };

/** The placeholder of a name template. */
export const NAME_PLACEHOLDER = '{name}';

export const TARGETS_FILE_FORM =
  '{"targets":[{"name":"hub","namespace":"argocd","kubeconfig":"/path/to/kubeconfig","context":"optional","selector":"env=prod","nameTemplate":"host-a-{name}"}]}';

const KEYS = new Set(['name', 'namespace', 'kubeconfig', 'context', 'selector', 'nameTemplate']);
/** An operator's file, but still read bounded. */
const MAX_BYTES = 1024 * 1024;

/** Reads the targets file's text (YAML or JSON). */
export function parseTargetsFile(text: string): TargetsResult {
  const unusable = (why: string): TargetsResult => ({
    ok: false,
    errors: [`${why}; expected ${TARGETS_FILE_FORM}`],
  });
  if (text.length > MAX_BYTES) return unusable(`is over ${MAX_BYTES} bytes`);
  let document: unknown;
  try {
    document = parse(text, { uniqueKeys: true, maxAliasCount: 0 });
  } catch (err) {
    const line = err instanceof YAMLError ? err.linePos?.[0].line : undefined;
    return unusable(`is not valid YAML or JSON${line === undefined ? '' : ` (line ${line})`}`);
  }
  if (!isRecord(document) || !Array.isArray(document['targets']))
    return unusable('has no "targets" list');
  const errors: string[] = [];
  for (const key of Object.keys(document))
    if (key !== 'targets') errors.push(`has an unknown key ${JSON.stringify(key)} at the top`);
  const entries = document['targets'] as unknown[];
  if (entries.length === 0) errors.push('lists no target; list at least one');
  const targets: TargetDefinition[] = [];
  const names = new Set<string>();
  const places = new Map<string, string>();
  entries.forEach((entry, index) => {
    const name = isRecord(entry) ? entry['name'] : undefined;
    if (typeof name === 'string' && names.has(name))
      errors.push(`target ${JSON.stringify(name)} is listed twice; give each target its own name`);
    if (typeof name === 'string') names.add(name);
    const target = readTarget(entry, index, errors);
    if (target === undefined) return;
    // Two targets writing one namespace of one cluster would each see the other's
    // registrations as their own: one would delete what the other writes.
    const place = `${target.kubeconfig ?? ''}\u0000${target.context ?? ''}\u0000${target.namespace}`;
    const other = places.get(place);
    if (other !== undefined)
      errors.push(
        `targets ${JSON.stringify(other)} and ${JSON.stringify(target.name)} both write namespace ${target.namespace} of ${target.kubeconfig === undefined ? 'this cluster' : `the cluster of ${target.kubeconfig}`}; merge them into one target (one namespace, one target)`,
      );
    else places.set(place, target.name);
    targets.push(target);
  });
  return errors.length === 0 ? { ok: true, targets } : { ok: false, errors };
}

function readTarget(entry: unknown, index: number, errors: string[]): TargetDefinition | undefined {
  if (!isRecord(entry)) {
    errors.push(`targets[${index}] is not an object; expected ${TARGETS_FILE_FORM}`);
    return undefined;
  }
  const rawName = entry['name'];
  const label =
    typeof rawName === 'string' && rawName !== ''
      ? `target ${JSON.stringify(rawName)}`
      : `targets[${index}]`;
  const before = errors.length;
  const fail = (message: string): void => {
    errors.push(`${label} ${message}`);
  };
  for (const key of Object.keys(entry))
    if (!KEYS.has(key))
      fail(
        `has an unknown key ${JSON.stringify(key)}; the keys are name, namespace, kubeconfig, context, selector and nameTemplate`,
      );
  const text = (key: string): string | undefined => {
    const value = entry[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || value === '') {
      fail(`has ${key} ${JSON.stringify(value)}; expected a non-empty string`);
      return undefined;
    }
    return value;
  };
  const name = text('name');
  const nameProblem = name === undefined ? undefined : formProblem(LABEL_VALUE_FORM, name);
  if (name === undefined && !('name' in entry))
    fail('has no name; give it one (it names the target in status, metrics and messages)');
  else if (nameProblem !== undefined) fail(`name ${nameProblem}`);
  const namespace = text('namespace');
  const namespaceProblem =
    namespace === undefined ? undefined : formProblem(TARGET_NAMESPACE_FORM, namespace);
  if (namespace === undefined && !('namespace' in entry))
    fail('has no namespace; set it to the namespace ArgoCD runs in');
  else if (namespaceProblem !== undefined)
    fail(`namespace ${JSON.stringify(namespace)} ${namespaceProblem}`);
  const kubeconfig = text('kubeconfig');
  const context = text('context');
  if (context !== undefined && kubeconfig === undefined)
    fail('sets a context but no kubeconfig; a context selects a cluster of a kubeconfig');
  const selectorText = text('selector');
  const parsed = selectorText === undefined ? undefined : parseLabelSelector(selectorText);
  if (parsed?.ok === false) fail(`selector ${JSON.stringify(selectorText)} ${parsed.message}`);
  const selector = parsed?.ok === true ? parsed.selector : undefined;
  const nameTemplate = text('nameTemplate');
  const templateProblem =
    nameTemplate === undefined ? undefined : nameTemplateProblem(nameTemplate);
  if (templateProblem !== undefined)
    fail(`nameTemplate ${JSON.stringify(nameTemplate)} ${templateProblem}`);
  if (errors.length > before || name === undefined || namespace === undefined) return undefined;
  return {
    name,
    namespace,
    ...(kubeconfig === undefined ? {} : { kubeconfig }),
    ...(context === undefined ? {} : { context }),
    ...(selectorText === undefined || selector === undefined ? {} : { selectorText, selector }),
    ...(nameTemplate === undefined ? {} : { nameTemplate }),
  };
}

/** Why a name template cannot make cluster names, or `undefined`. */
export function nameTemplateProblem(template: string): string | undefined {
  if (template.split(NAME_PLACEHOLDER).length !== 2)
    return `must hold ${NAME_PLACEHOLDER} exactly once (for example host-a-${NAME_PLACEHOLDER})`;
  if (/[{}]/.test(template.replace(NAME_PLACEHOLDER, '')))
    return `has a brace outside ${NAME_PLACEHOLDER}; ${NAME_PLACEHOLDER} is the only placeholder`;
  // The shortest name a source can ask for is one character.
  const sample = applyNameTemplate(template, 'a');
  if (formProblem(LABEL_VALUE_FORM, sample) !== undefined || !/^[a-z0-9.-]+$/.test(sample))
    return `gives names such as ${JSON.stringify(sample)}, which are not cluster names (lower-case letters, digits, "-" and ".", starting and ending with a letter or digit, at most 63 characters)`;
  return undefined;
}

export function applyNameTemplate(template: string, name: string): string {
  return template.replace(NAME_PLACEHOLDER, name);
}

/**
 * The name a source registers under in a target: its claim through the target's template. The
 * planner and the re-check before a demotion read it alike, or a template change would look
 * like a revert.
 */
export function targetClusterName(
  config: Pick<Config, 'target'>,
  claimed: string | undefined,
): string | undefined {
  const template = config.target?.nameTemplate;
  return template === undefined || claimed === undefined || claimed === ''
    ? claimed
    : applyNameTemplate(template, claimed);
}

/** The one label outside the prefix that a tenant cannot set: the API server writes it. */
const NAME_LABEL = 'kubernetes.io/metadata.name';

/**
 * The start-up warning for a target that selects its sources on labels a tenant may write, to
 * move its cluster in or out; `undefined` when every key is under the prefix (the chart's
 * admission policy reserves those) or the name label.
 */
export function targetSelectorWarning(
  config: Pick<Config, 'labelPrefix' | 'target'>,
): string | undefined {
  const target = config.target;
  if (target?.selector === undefined) return undefined;
  const open = [
    ...new Set(
      target.selector
        .map((requirement) => requirement.key)
        .filter((key) => !key.startsWith(config.labelPrefix) && key !== NAME_LABEL),
    ),
  ];
  if (open.length === 0) return undefined;
  return `target ${JSON.stringify(target.name)} selects its sources on ${open.length === 1 ? 'the label' : 'the labels'} ${open.join(', ')}, which whoever may label a namespace or Cluster can set: a tenant can move its cluster into this target or out of it. Select on a key under ${config.labelPrefix} instead (the chart's admission policy reserves those for the identities it lists), or let only trusted identities label sources`;
}

/** The configuration a target is planned with: its namespace, and its scope. */
export function targetConfig(config: Config, target: TargetDefinition): Config {
  const scope: TargetScope = {
    name: target.name,
    remote: target.kubeconfig !== undefined,
    ...(target.selector === undefined ? {} : { selector: target.selector }),
    ...(target.nameTemplate === undefined ? {} : { nameTemplate: target.nameTemplate }),
  };
  return { ...config, targetNamespace: target.namespace, target: scope };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
