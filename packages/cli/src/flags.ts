// Command-line flags and their ACR_* environment equivalents, parsed off the settings
// table (settings.ts). Parsing here is purely syntactic (which flag, which form); settings
// the planner uses are validated by core's parseConfig so the CLI, the chart and the tests
// share one set of rules and messages. An unknown flag or ACR_* variable is an error,
// never ignored: a stale invocation must fail loudly.

import { durationForm, formProblem, parseDuration } from '@argocd-cluster-registrar/core';
import type { ConfigInput, FormCheck } from '@argocd-cluster-registrar/core';
import { envForm, readEnv } from './env.js';
import { FLAGS, describeSource, settingNamed } from './settings.js';
import type { LogFormat, OutputFormat, Setting } from './settings.js';
import { closest, parseListenAddress, splitProviderList } from './values.js';

export type ValueSource = 'flag' | 'env' | 'default';

export interface CliOptions {
  /** `run` (the daemon or --once) or `status` (read-only report). */
  readonly command: 'run' | 'status';
  /** With status: the source namespaces and states to show (empty: all). */
  readonly statusNamespaces: readonly string[];
  readonly statusStates: readonly string[];
  /** Only the core settings that were given; parseConfig supplies defaults. */
  readonly config: ConfigInput;
  readonly once: boolean;
  /** Plan and preview, write nothing (a run mode, so it is the CLI's, not core's). */
  readonly dryRun: boolean;
  readonly debug: boolean;
  /** Print stack traces of unexpected errors (ACR_TRACE). */
  readonly trace: boolean;
  readonly detailedExitcode: boolean;
  readonly leaderElect: boolean;
  /** Daemon only: how often every watch re-lists (milliseconds). */
  readonly resyncPeriodMs: number;
  readonly kubeconfig?: string;
  readonly context?: string;
  /** With --once: where to write the gathered snapshot. */
  readonly saveSnapshot?: string;
  /** Plan from this saved snapshot instead of a cluster. */
  readonly fromSnapshot?: string;
  readonly output: OutputFormat;
  readonly logFormat: LogFormat;
  /** '' disables. */
  readonly healthAddr: string;
  readonly metricsAddr: string;
  readonly help: boolean;
  readonly version: boolean;
  /** Where each given setting came from, by flag name, so messages can name the right one. */
  readonly sources: Readonly<Record<string, ValueSource>>;
}

export interface FlagError {
  readonly flag: string;
  readonly message: string;
}

export type FlagParseResult =
  | { readonly ok: true; readonly options: CliOptions }
  | { readonly ok: false; readonly errors: readonly FlagError[] };

interface Tokens {
  readonly given: ReadonlyMap<string, readonly string[]>;
  readonly help: boolean;
  readonly version: boolean;
}

const FLAG_BY_NAME = new Map(FLAGS.map((s) => [s.name, s]));
const FLAG_BY_SHORT = new Map(
  FLAGS.flatMap((s) => (s.short === undefined ? [] : [[s.short, s] as const])),
);
/** The command words; anything else first is a flag (the daemon or --once). */
const COMMANDS = ['status'];

/** A setting's values as given, and where: flags win over env vars. */
interface Given {
  readonly source: 'flag' | 'env';
  readonly values: readonly string[];
}

/**
 * Reads settings off the tokens and the environment, recording where each given one came
 * from and what was wrong with it; what was not given is the settings table's default.
 */
class SettingReader {
  readonly sources: Record<string, ValueSource> = {};

  constructor(
    private readonly tokens: Tokens,
    private readonly env: ReadonlyMap<string, string>,
    private readonly errors: FlagError[],
  ) {}

  /** A flag wins over its env var; every occurrence of a flag is kept. */
  given(name: string): Given | undefined {
    const flags = this.tokens.given.get(name);
    const value = flags === undefined ? this.env.get(name) : undefined;
    const given: Given | undefined =
      flags !== undefined
        ? { source: 'flag', values: flags }
        : value === undefined
          ? undefined
          : { source: 'env', values: [value] };
    if (given !== undefined) this.sources[name] = given.source;
    return given;
  }

  /** A setting that takes one value: the last one, and an error when it was given twice. */
  single(name: string): { text: string; source: 'flag' | 'env' } | undefined {
    const given = this.given(name);
    if (given === undefined) return undefined;
    if (given.values.length > 1 && settingNamed(name)?.kind !== 'list') {
      this.errors.push({
        flag: `--${name}`,
        message: `${describeSource(name, given.source)} given ${given.values.length} times; it takes one value`,
      });
    }
    return { text: given.values[given.values.length - 1] ?? '', source: given.source };
  }

  text(name: string): string | undefined {
    return this.single(name)?.text;
  }

  /** A non-empty path or name, or nothing ('' means "not given"). */
  nonEmpty(name: string): string | undefined {
    const value = this.text(name);
    return value === '' ? undefined : value;
  }

  /** true or false in any case; undefined when not given or malformed (reported). */
  givenBool(name: string): boolean | undefined {
    const value = this.single(name);
    if (value === undefined) return undefined;
    const lower = value.text.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    const setting = settingOf(name);
    const expected = value.source === 'env' ? envForm(setting) : flagForm(setting);
    this.invalid(setting, value.source, value.text, expected);
    return undefined;
  }

  bool(name: string): boolean {
    return this.givenBool(name) ?? defaultText(name) === 'true';
  }

  choice(name: string): string {
    const value = this.single(name);
    const setting = settingOf(name);
    if (value !== undefined && setting.values?.includes(value.text) === true) return value.text;
    if (value !== undefined)
      this.invalid(
        setting,
        value.source,
        value.text,
        `one of ${(setting.values ?? []).join(', ')}`,
      );
    return defaultText(name);
  }

  /** A listen address, or '' (disabled). */
  address(name: string): string {
    const value = this.single(name);
    if (value === undefined) return defaultText(name);
    if (value.text === '' || parseListenAddress(value.text) !== undefined) return value.text;
    const expected = "[host]:port such as :8080 or 127.0.0.1:8080, or '' to disable";
    this.invalid(settingOf(name), value.source, value.text, expected);
    return defaultText(name);
  }

  /** A duration of the daemon's own (core checks its own), in milliseconds. */
  duration(name: string, form: readonly FormCheck[]): number {
    const value = this.single(name);
    if (value === undefined) return defaultMs(name);
    const problem = formProblem(form, value.text);
    const parsed = parseDuration(value.text);
    if (problem === undefined && parsed.ok) return parsed.ms;
    this.errors.push({
      flag: `--${name}`,
      message: `${describeSource(name, value.source)} ${JSON.stringify(value.text)}: ${problem ?? 'is not a Go duration'}`,
    });
    return defaultMs(name);
  }

  /** Comma lists, repeatable: every entry of every occurrence. */
  list(name: string): readonly string[] {
    const given = this.given(name);
    if (given === undefined) return [];
    return given.values.flatMap((v) => v.split(',').map((part) => part.trim())).filter(Boolean);
  }

  private invalid(setting: Setting, source: 'flag' | 'env', text: string, expected: string): void {
    this.errors.push({
      flag: `--${setting.name}`,
      message: `${describeSource(setting.name, source)} has invalid value ${JSON.stringify(text)}: expected ${expected}`,
    });
  }
}

/** The default the settings table shows, which is the one applied. */
function defaultText(name: string): string {
  const text = settingOf(name).defaultText;
  if (text === undefined) throw new Error(`setting ${name} has no default in the table`);
  return text;
}

function defaultMs(name: string): number {
  const parsed = parseDuration(defaultText(name));
  if (!parsed.ok) throw new Error(`the default of ${name} is not a duration`);
  return parsed.ms;
}

export const DEFAULT_RESYNC_PERIOD_MS = defaultMs('resync-period');

const RESYNC_EXAMPLES = 'such as 5m, 10m, 30m or 1h';
/**
 * The form of --resync-period, as data: the chart checks its value with these very checks
 * (charts/argocd-cluster-registrar/tests/settings-validation.ts generates them).
 */
export const RESYNC_PERIOD_FORM: readonly FormCheck[] = [
  ...durationForm(`a Go duration of at least 1m, ${RESYNC_EXAMPLES}`),
  {
    kind: 'minimum',
    seconds: 60,
    // A re-list costs a list of every Secret's metadata: more often than a minute is polling.
    message: `must be at least 1m, as each re-list reads every Secret's metadata; ${RESYNC_EXAMPLES}`,
  },
];

/** Core settings, straight off the table, only those given: core validates and defaults them. */
function coreSettings(read: SettingReader): ConfigInput {
  const config: Record<string, unknown> = {};
  for (const setting of FLAGS) {
    if (setting.configKey === undefined) continue;
    let value: unknown;
    if (setting.kind === 'list')
      value = read.given(setting.name)?.values.flatMap(splitProviderList);
    else if (setting.kind === 'bool') value = read.givenBool(setting.name);
    else value = read.text(setting.name);
    if (value !== undefined) config[setting.configKey] = value;
  }
  return config;
}

/** Parses argv (without node and script) and the environment. Flags win over env vars. */
export function parseFlags(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): FlagParseResult {
  const errors: FlagError[] = [];
  // A command word comes first: `status`; anything else is the daemon or --once.
  const command = argv[0] === 'status' ? 'status' : 'run';
  const tokens = tokenize(command === 'status' ? argv.slice(1) : argv, errors, command === 'run');
  const fromEnv = readEnv(env);
  for (const problem of fromEnv.problems)
    errors.push({ flag: problem.variable, message: problem.message });
  const read = new SettingReader(tokens, fromEnv.values, errors);

  const config = coreSettings(read);
  const kubeconfig = read.nonEmpty('kubeconfig');
  const context = read.nonEmpty('context');
  const saveSnapshot = read.nonEmpty('save-snapshot');
  const fromSnapshot = read.nonEmpty('from-snapshot');
  const { help, version } = tokens;
  const options: CliOptions = {
    command,
    statusNamespaces: read.list('namespace'),
    statusStates: read.list('state'),
    config,
    // Replaying a snapshot is a preview by definition: nothing to connect to, nothing to write.
    once: fromSnapshot !== undefined || read.bool('once'),
    dryRun: read.bool('dry-run') || fromSnapshot !== undefined,
    debug: read.bool('debug'),
    trace: read.bool('trace'),
    detailedExitcode: read.bool('detailed-exitcode'),
    leaderElect: read.bool('leader-elect'),
    resyncPeriodMs: read.duration('resync-period', RESYNC_PERIOD_FORM),
    ...(kubeconfig !== undefined ? { kubeconfig } : {}),
    ...(context !== undefined ? { context } : {}),
    ...(saveSnapshot !== undefined ? { saveSnapshot } : {}),
    ...(fromSnapshot !== undefined ? { fromSnapshot } : {}),
    output: read.choice('output') as OutputFormat,
    logFormat: read.choice('log-format') as LogFormat,
    // Loopback unless told otherwise (the table's defaults): /metrics names every cluster and
    // when its credentials expire. The chart passes `:port` for the kubelet and Prometheus.
    healthAddr: read.address('health-addr'),
    metricsAddr: read.address('metrics-addr'),
    help,
    version,
    sources: read.sources,
  };
  if (!help && !version) errors.push(...combinationErrors(options));
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, options };
}

function combinationErrors(options: CliOptions): FlagError[] {
  const errors: FlagError[] = [];
  if (options.command === 'status') {
    // status reads and reports; the run modes' flags have nothing to do there.
    const runOnly = {
      once: options.once,
      'dry-run': options.dryRun,
      'detailed-exitcode': options.detailedExitcode,
      'save-snapshot': options.saveSnapshot !== undefined,
      'from-snapshot': options.fromSnapshot !== undefined,
      'leader-elect': options.leaderElect,
    };
    for (const [flag, given] of Object.entries(runOnly)) {
      if (given) {
        errors.push({
          flag: `--${flag}`,
          message: `--${flag} does not apply to status, which only reads: drop it`,
        });
      }
    }
  } else {
    for (const [flag, values] of [
      ['namespace', options.statusNamespaces],
      ['state', options.statusStates],
    ] as const) {
      if (values.length > 0) {
        errors.push({
          flag: `--${flag}`,
          message: `--${flag} only applies to the status command (argocd-cluster-registrar status --${flag} ...)${flag === 'namespace' ? '; the namespace ArgoCD reads is --target-namespace' : ''}`,
        });
      }
    }
  }
  if (options.detailedExitcode && !options.once) {
    errors.push({
      flag: '--detailed-exitcode',
      message: '--detailed-exitcode only applies to a single pass: add --once',
    });
  }
  if (options.saveSnapshot !== undefined && !options.once) {
    errors.push({
      flag: '--save-snapshot',
      message: '--save-snapshot saves the snapshot of a single pass: add --once',
    });
  }
  if (options.fromSnapshot !== undefined) {
    const conflicting = {
      'save-snapshot': options.saveSnapshot !== undefined,
      kubeconfig: options.kubeconfig !== undefined,
      context: options.context !== undefined,
      'leader-elect': options.leaderElect,
    };
    for (const [other, given] of Object.entries(conflicting)) {
      if (given) {
        errors.push({
          flag: '--from-snapshot',
          message: `--from-snapshot plans without a cluster, so --${other} has nothing to do: drop one of them`,
        });
      }
    }
  }
  return errors;
}

function tokenize(argv: readonly string[], errors: FlagError[], commandSlot: boolean): Tokens {
  const given = new Map<string, string[]>();
  let help = false;
  let version = false;
  const positional = (arg: string, first: boolean): void => {
    const command = first ? closest(arg, COMMANDS, 2) : undefined;
    const flag = closest(
      arg,
      FLAGS.map((s) => s.name),
      1,
    );
    errors.push({
      flag: arg,
      message:
        command !== undefined
          ? `unknown command ${JSON.stringify(arg)} (did you mean ${command}?); the commands are ${COMMANDS.join(', ')}, and without one the registrar runs (as a daemon, or once with --once)`
          : `unexpected argument ${JSON.stringify(arg)}: this command takes flags only${flag === undefined ? '' : ` (did you mean --${flag}?)`}`,
    });
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (arg === '--') {
      const first = argv[i + 1];
      if (first !== undefined) positional(first, false);
      break;
    }
    if (arg === '-h' || arg === '--help' || arg === '-help') {
      help = true;
      continue;
    }
    if (arg === '--version' || arg === '-version') {
      version = true;
      continue;
    }
    // Go's flag package (the 0.1.x seed) accepts -name as well as --name.
    const match = /^--?([a-z][a-z0-9-]*)(?:=([\s\S]*))?$/.exec(arg);
    if (match === null) {
      positional(arg, commandSlot && i === 0);
      continue;
    }
    let name = match[1] ?? '';
    let inline = match[2];
    // kubectl's short forms: `-o json`, `-o=json`, `-ojson` (a single dash only).
    const short = arg.startsWith('--') ? undefined : FLAG_BY_SHORT.get(name.slice(0, 1));
    const glued = name.slice(1);
    if (
      short !== undefined &&
      inline === undefined &&
      (name.length === 1 || (!FLAG_BY_NAME.has(name) && short.values?.includes(glued) === true))
    ) {
      if (name.length > 1) inline = glued;
      name = short.name;
    } else if (short !== undefined && name.length === 1) {
      name = short.name;
    }
    const setting = FLAG_BY_NAME.get(name);
    if (setting === undefined) {
      errors.push({ flag: `--${name}`, message: `unknown flag --${name}${suggest(name)}` });
      // Its value, if it has one, is not a second problem worth reporting.
      const next = argv[i + 1];
      if (inline === undefined && next !== undefined && !next.startsWith('-')) i += 1;
      continue;
    }
    let value: string;
    if (inline !== undefined) {
      value = inline;
    } else if (setting.kind === 'bool') {
      value = 'true';
    } else {
      const next = argv[i + 1];
      if (next === undefined) {
        errors.push({
          flag: `--${name}`,
          message: `flag --${name} needs a value: ${flagForm(setting)}`,
        });
        continue;
      }
      value = next;
      i += 1;
    }
    given.set(name, [...(given.get(name) ?? []), value]);
  }
  return { given, help, version };
}

function settingOf(name: string): Setting {
  const setting = settingNamed(name);
  if (setting === undefined) throw new Error(`no setting ${name} in the table`);
  return setting;
}

/** The accepted form of a flag, for messages. */
function flagForm(setting: Setting): string {
  const name = setting.name;
  switch (setting.kind) {
    case 'bool':
      return `--${name}, --${name}=true or --${name}=false`;
    case 'enum':
      return `--${name}=<${(setting.values ?? []).join('|')}>`;
    case 'duration':
      return `--${name}=<duration> such as ${setting.examples ?? '500ms, 60s, 1m30s or 168h'}`;
    case 'addr':
      return `--${name}=[host]:port, or --${name}='' to disable`;
    case 'list':
    case 'string':
      return `--${name} <${setting.placeholder ?? 'value'}> or --${name}=<${setting.placeholder ?? 'value'}>`;
  }
}

function suggest(name: string): string {
  const best =
    closest(
      name,
      FLAGS.map((s) => s.name),
      2,
    ) ?? (name === 'namespace' ? 'target-namespace' : undefined);
  return best === undefined ? '' : ` (did you mean --${best}?)`;
}
