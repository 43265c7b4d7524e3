// Command-line flags and their ACR_* environment equivalents, parsed off the settings
// table (settings.ts). Parsing here is purely syntactic (which flag, which form); settings
// the planner uses are validated by core's parseConfig so the CLI, the chart and the tests
// share one set of rules and messages. An unknown flag or ACR_* variable is an error,
// never ignored: a stale invocation must fail loudly.

import {
  durationForm,
  formProblem,
  LABEL_VALUE_FORM,
  parseDuration,
} from '@argocd-cluster-registrar/core';
import type { ConfigInput, FormCheck } from '@argocd-cluster-registrar/core';
import { envForm, readEnv } from './env.js';
import { FLAGS, describeSource, settingNamed } from './settings.js';
import type { LogFormat, OutputFormat, Setting } from './settings.js';
import { parseListenAddress, splitProviderList } from './values.js';
import { flagForm, settingOf, tokenize, type FlagError, type Tokens } from './argv-tokens.js';

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
  /** The targets file (targets.ts); without it, the one local target of --target-namespace. */
  readonly targetsFile?: string;
  /** This host's identity as given; without it, read from the cluster at start-up. */
  readonly hostId?: string;
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

export type { FlagError } from './argv-tokens.js';

export type FlagParseResult =
  | { readonly ok: true; readonly options: CliOptions }
  | { readonly ok: false; readonly errors: readonly FlagError[] };

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
  const targetsFile = read.nonEmpty('targets-file');
  const hostId = read.nonEmpty('host-id');
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
    ...(targetsFile !== undefined ? { targetsFile } : {}),
    ...(hostId !== undefined ? { hostId } : {}),
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
  // The targets file names every namespace written; the shorthand beside it would be ignored.
  if (options.targetsFile !== undefined && options.config.targetNamespace !== undefined) {
    errors.push({
      flag: '--targets-file',
      message:
        '--targets-file lists every target, so --target-namespace (the one-local-target shorthand) would be ignored: list that namespace as a target in the file instead, and drop --target-namespace',
    });
  }
  if (options.targetsFile !== undefined && options.saveSnapshot !== undefined) {
    errors.push({
      flag: '--save-snapshot',
      message:
        '--save-snapshot saves the pass of one target, and --targets-file makes one per target: run with --target-namespace for the target to save',
    });
  }
  const hostIdProblem =
    options.hostId === undefined ? undefined : formProblem(LABEL_VALUE_FORM, options.hostId);
  if (hostIdProblem !== undefined) {
    errors.push({
      flag: '--host-id',
      message: `--host-id ${JSON.stringify(options.hostId)} ${hostIdProblem} (registrations record it in a label)`,
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
