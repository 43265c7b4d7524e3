// A kubeconfig user's `exec` block and its command line, read strictly: any field, flag or
// environment variable the cloud's translation does not know is refused by name.

import type { ArgoClusterConfig } from '../../common/types.js';
import { isMap, Problem } from '../kubeconfig-structure.js';

/** What an exec block becomes: exactly one of ArgoCD's own exec forms. */
export type ExecForm =
  | { readonly awsAuthConfig: NonNullable<ArgoClusterConfig['awsAuthConfig']> }
  | { readonly execProviderConfig: NonNullable<ArgoClusterConfig['execProviderConfig']> };

export interface ExecBlock {
  readonly command: string;
  readonly args: readonly string[];
  /** In the kubeconfig's order; names are unique. */
  readonly env: readonly { readonly name: string; readonly value: string }[];
}

/** The ExecCredential version argocd-k8s-auth prints and ArgoCD sets for awsAuthConfig (v3.6.1). */
export const EXEC_API_VERSION = 'client.authentication.k8s.io/v1beta1';

/** The ExecCredential versions client-go runs (v1alpha1 went in Kubernetes 1.24). */
export const EXEC_API_VERSIONS: ReadonlySet<string> = new Set([
  'client.authentication.k8s.io/v1',
  EXEC_API_VERSION,
]);

/** ExecConfig fields that shape only how the plugin runs on the user's machine: dropped. */
const DROPPED_FIELDS = new Set([
  'apiVersion',
  'installHint',
  'provideClusterInfo',
  'interactiveMode',
]);
const READ_FIELDS = new Set(['command', 'args', 'env']);

const absent = (value: unknown): boolean => value === undefined || value === null;

/** The exec block's command, for messages; `undefined` when it has none. */
export function execCommandOf(exec: unknown): string | undefined {
  return isMap(exec) && typeof exec['command'] === 'string' ? exec['command'] : undefined;
}

export function readExecBlock(exec: unknown, owner: string): ExecBlock | Problem {
  const malformed = (what: string): Problem =>
    new Problem(
      'exec-unsupported',
      `the exec block of ${owner} ${what}`,
      'store the kubeconfig exactly as the provisioner wrote it',
    );
  if (!isMap(exec)) return malformed('is not a mapping');
  for (const field of Object.keys(exec)) {
    if (!READ_FIELDS.has(field) && !DROPPED_FIELDS.has(field)) {
      return new Problem(
        'exec-unsupported',
        `the exec block of ${owner} sets "${field}", which the translation does not know`,
        `remove "${field}" from the exec block`,
      );
    }
  }
  const apiVersion = exec['apiVersion'];
  if (!absent(apiVersion) && !EXEC_API_VERSIONS.has(String(apiVersion)))
    return malformed(
      `names apiVersion ${JSON.stringify(apiVersion)}, not a client.authentication.k8s.io version`,
    );
  const command = exec['command'];
  if (typeof command !== 'string' || command === '') return malformed('has no command');
  const rawArgs = exec['args'];
  if (
    !absent(rawArgs) &&
    !(Array.isArray(rawArgs) && rawArgs.every((arg) => typeof arg === 'string'))
  )
    return malformed('has "args" that are not a list of strings (quote them)');
  const rawEnv = exec['env'];
  const env: { name: string; value: string }[] = [];
  if (!absent(rawEnv)) {
    if (!Array.isArray(rawEnv)) return malformed('has "env" that is not a list');
    for (const entry of rawEnv as unknown[]) {
      if (!isMap(entry) || typeof entry['name'] !== 'string' || entry['name'] === '')
        return malformed('has an "env" entry without a name');
      const name = entry['name'];
      const value = entry['value'];
      if (typeof value !== 'string')
        return malformed(`has env ${name} whose value is not a string (quote it)`);
      if (env.some((seen) => seen.name === name)) return malformed(`sets env ${name} twice`);
      env.push({ name, value });
    }
  }
  return { command, args: (rawArgs as string[] | null | undefined) ?? [], env };
}

interface FlagSpec {
  /** Canonical name → every spelling (`--cluster-name`, `-i`). */
  readonly valued: Readonly<Record<string, readonly string[]>>;
  /** Flags without a value (`--use_application_default_credentials`). */
  readonly switches?: readonly string[];
}

/**
 * The block's args as Go's pflag and the AWS CLI read them (`--flag value`, `--flag=value`,
 * `-f value`), with only the flags in `spec`; an unknown or repeated flag is named.
 */
export function parseCommandLine(
  block: ExecBlock,
  owner: string,
  spec: FlagSpec,
  unknownFlag: (flag: string) => Problem,
):
  | { readonly positionals: readonly string[]; readonly flags: ReadonlyMap<string, string> }
  | Problem {
  const canonical = new Map<string, { name: string; valued: boolean }>();
  for (const [name, spellings] of Object.entries(spec.valued))
    for (const spelling of spellings) canonical.set(spelling, { name, valued: true });
  for (const name of spec.switches ?? []) canonical.set(name, { name, valued: false });
  const { args } = block;
  const positionals: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    const spelling = equals < 0 ? arg : arg.slice(0, equals);
    const known = canonical.get(spelling);
    if (known === undefined) return unknownFlag(spelling);
    let value: string;
    if (equals >= 0) value = arg.slice(equals + 1);
    else if (!known.valued) value = 'true';
    else {
      const next = args[i + 1];
      if (next === undefined)
        return new Problem(
          'exec-unsupported',
          `the exec args of ${owner} end with ${spelling} but give it no value`,
          `give ${spelling} its value`,
        );
      value = next;
      i++;
    }
    if (flags.has(known.name))
      return new Problem(
        'exec-unsupported',
        `the exec args of ${owner} give ${spelling} twice`,
        `give ${spelling} once`,
      );
    flags.set(known.name, value);
  }
  return { positionals, flags };
}

/** Subcommand words a message may show; any other positional could be a credential. */
const SUBCOMMAND_WORDS = new Set([
  'token',
  'eks',
  'get-token',
  'verify',
  'convert-kubeconfig',
  'remove-tokens',
]);

/** {@link parseCommandLine}'s flags, when the positionals are exactly `subcommand`. */
export function parseSubcommand(
  block: ExecBlock,
  owner: string,
  subcommand: string,
  spec: FlagSpec,
  unknownFlag: (flag: string) => Problem,
  fix: string,
): ReadonlyMap<string, string> | Problem {
  const parsed = parseCommandLine(block, owner, spec, unknownFlag);
  if (parsed instanceof Problem) return parsed;
  const { positionals, flags } = parsed;
  if (positionals.join(' ') === subcommand) return flags;
  const shape = positionals.map((word) => (SUBCOMMAND_WORDS.has(word) ? word : '<argument>'));
  return new Problem(
    'exec-unsupported',
    `the exec plugin ${block.command} of ${owner} is given ${positionals.length === 0 ? 'no subcommand' : `the arguments ${JSON.stringify(shape.join(' '))}`}, not ${block.command} ${subcommand}`,
    fix,
  );
}
