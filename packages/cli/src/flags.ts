// Command-line flags and their ACR_* environment equivalents. Parsing here is purely
// syntactic (which flag, which form); settings the planner uses are validated by core's
// parseConfig so the CLI, the chart and the tests share one set of rules and messages.
// An unknown flag is an error, never ignored: a stale invocation must fail loudly.

import type { ConfigInput } from '@argocd-cluster-registrar/core';

export type OutputFormat = 'text' | 'json';
export type LogFormat = 'auto' | 'text' | 'json';

type FlagKind = 'string' | 'bool' | 'list' | 'enum' | 'duration' | 'addr';

interface FlagSpec {
  readonly name: string;
  readonly kind: FlagKind;
  readonly group: FlagGroup;
  readonly help: string;
  /** Shown in --help; the effective default of config settings comes from core. */
  readonly defaultText?: string;
  readonly values?: readonly string[];
  readonly placeholder?: string;
}

type FlagGroup =
  'Discovery' | 'Registration' | 'Timing' | 'Connection' | 'Run mode' | 'Output' | 'Runtime';

const GROUPS: readonly FlagGroup[] = [
  'Discovery',
  'Registration',
  'Timing',
  'Connection',
  'Run mode',
  'Output',
  'Runtime',
];

export const FLAGS: readonly FlagSpec[] = [
  {
    name: 'label-prefix',
    kind: 'string',
    group: 'Discovery',
    defaultText: 'argocd-cluster-registrar/',
    placeholder: 'prefix',
    help: 'Prefix of the labels read off source namespaces and copied onto registrations.',
  },
  {
    name: 'managed-by',
    kind: 'string',
    group: 'Discovery',
    defaultText: 'cluster-registrar',
    placeholder: 'name',
    help: 'Value of <prefix>managed-by: selects the namespaces to watch and the registrations this instance owns.',
  },
  {
    name: 'provider',
    kind: 'list',
    group: 'Discovery',
    defaultText: 'k3k',
    placeholder: 'provider',
    help: 'Provisioner preset (k3k, vcluster, kamaji, capi) or custom:<glob>=<key>[,<key>...]; repeatable, in precedence order (env: comma list). Not combinable with the two legacy flags.',
  },
  {
    name: 'secret-name-pattern',
    kind: 'string',
    group: 'Discovery',
    defaultText: 'k3k-*-kubeconfig',
    placeholder: 'glob',
    help: 'Legacy: glob over kubeconfig Secret names (use --provider instead).',
  },
  {
    name: 'secret-key',
    kind: 'string',
    group: 'Discovery',
    defaultText: 'kubeconfig.yaml',
    placeholder: 'key',
    help: 'Legacy: key of the kubeconfig inside the Secret (use --provider instead).',
  },
  {
    name: 'target-namespace',
    kind: 'string',
    group: 'Registration',
    defaultText: 'argocd',
    placeholder: 'namespace',
    help: 'Namespace ArgoCD reads cluster Secrets from.',
  },
  {
    name: 'interval',
    kind: 'duration',
    group: 'Timing',
    defaultText: '60s',
    placeholder: 'duration',
    help: 'Time between full passes; also the minimum gap between credential-only writes.',
  },
  {
    name: 'demoted-ttl',
    kind: 'duration',
    group: 'Timing',
    defaultText: '168h',
    placeholder: 'duration',
    help: 'Demoted (renamed-away) registrations older than this are deleted.',
  },
  {
    name: 'credential-refresh-window',
    kind: 'duration',
    group: 'Timing',
    defaultText: '0s',
    placeholder: 'duration',
    help: 'Defer credential-only rewrites while the registered client certificate is valid for longer than this (0s: write at most once per interval).',
  },
  {
    name: 'kubeconfig',
    kind: 'string',
    group: 'Connection',
    placeholder: 'path',
    help: 'Kubeconfig of the host cluster when not running in-cluster (default: $KUBECONFIG, then ~/.kube/config).',
  },
  {
    name: 'context',
    kind: 'string',
    group: 'Connection',
    placeholder: 'name',
    help: 'Kubeconfig context to use (default: its current-context).',
  },
  {
    name: 'once',
    kind: 'bool',
    group: 'Run mode',
    defaultText: 'false',
    help: 'Run one pass and exit instead of running as a daemon.',
  },
  {
    name: 'dry-run',
    kind: 'bool',
    group: 'Run mode',
    defaultText: 'false',
    help: 'Gather and plan, print what would change, write nothing.',
  },
  {
    name: 'detailed-exitcode',
    kind: 'bool',
    group: 'Run mode',
    defaultText: 'false',
    help: 'With --once: exit 2 when the pass found changes (pending with --dry-run, applied otherwise), 0 when none, 1 on error.',
  },
  {
    name: 'save-snapshot',
    kind: 'string',
    group: 'Run mode',
    placeholder: 'file',
    help: 'With --once: also write what was gathered to this file (mode 0600; it holds the kubeconfig Secrets, so treat it as a secret), to reproduce the plan elsewhere with --from-snapshot.',
  },
  {
    name: 'from-snapshot',
    kind: 'string',
    group: 'Run mode',
    placeholder: 'file',
    help: 'Plan from a snapshot saved with --save-snapshot instead of a cluster: connects to nothing and writes nothing (implies --once --dry-run). Time-dependent rules use the current time.',
  },
  {
    name: 'leader-elect',
    kind: 'bool',
    group: 'Run mode',
    defaultText: 'false',
    help: 'Hold a Lease in the target namespace; only the leader writes, standbys stay ready.',
  },
  {
    name: 'output',
    kind: 'enum',
    group: 'Output',
    values: ['text', 'json'],
    defaultText: 'text',
    help: 'Format of the plan printed by --once.',
  },
  {
    name: 'log-format',
    kind: 'enum',
    group: 'Output',
    values: ['auto', 'text', 'json'],
    defaultText: 'auto',
    help: 'Log format; auto is json in-cluster and text on a terminal. Logs go to stderr.',
  },
  { name: 'debug', kind: 'bool', group: 'Output', defaultText: 'false', help: 'Verbose logging.' },
  {
    name: 'health-addr',
    kind: 'addr',
    group: 'Runtime',
    defaultText: ':8081',
    placeholder: 'host:port',
    help: "Address of /healthz and /readyz ('' disables).",
  },
  {
    name: 'metrics-addr',
    kind: 'addr',
    group: 'Runtime',
    defaultText: ':8080',
    placeholder: 'host:port',
    help: "Address of /metrics ('' disables; may equal --health-addr).",
  },
];

const SPECS = new Map(FLAGS.map((spec) => [spec.name, spec]));

/** ACR_<UPPER_SNAKE> for a flag name. */
export function envName(flag: string): string {
  return `ACR_${flag.toUpperCase().replace(/-/g, '_')}`;
}

// Environment variables with the ACR_ prefix that are not flags but legitimately set by
// the project's own tooling; anything else unknown is reported as a warning.
const KNOWN_OTHER_ENV = new Set([
  'ACR_TOOLS_CACHE',
  'ACR_TOOLS_BIN',
  'ACR_PLANES_DIR',
  'ACR_PLANE_READY_TIMEOUT',
  'ACR_PLANE_NAME',
  'ACR_PLANE_SERVER',
  'ACR_KEEP_PLANES',
  'ACR_TRACE',
]);

export type ValueSource = 'flag' | 'env' | 'default';

export interface CliOptions {
  /** Only settings that were given; parseConfig supplies defaults. */
  readonly config: ConfigInput;
  readonly once: boolean;
  readonly detailedExitcode: boolean;
  readonly leaderElect: boolean;
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
  /** Non-fatal remarks (unknown ACR_* variables). */
  readonly notices: readonly string[];
}

export interface FlagError {
  readonly flag: string;
  readonly message: string;
}

export type FlagParseResult =
  | { readonly ok: true; readonly options: CliOptions }
  | { readonly ok: false; readonly errors: readonly FlagError[] };

type RawValue = { readonly source: 'flag' | 'env'; readonly values: readonly string[] };

/** Parses argv (without node and script) and the environment. Flags win over env vars. */
export function parseFlags(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): FlagParseResult {
  const errors: FlagError[] = [];
  const fromFlags = new Map<string, string[]>();
  let help = false;
  let version = false;

  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (arg === '--') {
      const rest = argv.slice(i + 1);
      if (rest.length > 0)
        errors.push({
          flag: rest[0] ?? '',
          message: `unexpected argument ${JSON.stringify(rest[0])}: this command takes flags only (see --help)`,
        });
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
      errors.push({
        flag: arg,
        message: `unexpected argument ${JSON.stringify(arg)}: this command takes flags only (see --help)`,
      });
      continue;
    }
    const name = match[1] ?? '';
    const inline = match[2];
    const spec = SPECS.get(name);
    if (spec === undefined) {
      errors.push({
        flag: `--${name}`,
        message: `unknown flag --${name}${suggest(name)} (see --help)`,
      });
      // Its value, if it has one, is not a second problem worth reporting.
      const next = argv[i + 1];
      if (inline === undefined && next !== undefined && !next.startsWith('-')) i += 1;
      continue;
    }
    let value: string;
    if (inline !== undefined) {
      value = inline;
    } else if (spec.kind === 'bool') {
      value = 'true';
    } else {
      const next = argv[i + 1];
      if (next === undefined) {
        errors.push({
          flag: `--${name}`,
          message: `flag --${name} needs a value: ${acceptedForm(spec)}`,
        });
        continue;
      }
      value = next;
      i += 1;
    }
    const list = fromFlags.get(name) ?? [];
    list.push(value);
    fromFlags.set(name, list);
  }

  const notices: string[] = [];
  for (const key of Object.keys(env)) {
    if (!key.startsWith('ACR_') || KNOWN_OTHER_ENV.has(key)) continue;
    const flag = key.slice(4).toLowerCase().replace(/_/g, '-');
    if (!SPECS.has(flag))
      notices.push(`ignoring unknown environment variable ${key} (no flag --${flag})`);
  }

  const raw = (name: string): RawValue | undefined => {
    const given = fromFlags.get(name);
    if (given !== undefined) return { source: 'flag', values: given };
    const spec = SPECS.get(name);
    const fromEnv = env[envName(name)];
    if (fromEnv === undefined) return undefined;
    // An empty variable means "not set", except for addresses where '' disables the server.
    if (fromEnv === '' && spec?.kind !== 'addr') return undefined;
    return { source: 'env', values: [fromEnv] };
  };
  const where = (name: string, value: RawValue): string =>
    value.source === 'flag' ? `--${name}` : `${envName(name)} (for --${name})`;

  const sources: Record<string, ValueSource> = {};
  const single = (name: string): string | undefined => {
    const value = raw(name);
    if (value === undefined) return undefined;
    sources[name] = value.source;
    const spec = SPECS.get(name);
    if (value.values.length > 1 && spec?.kind !== 'list') {
      errors.push({
        flag: `--${name}`,
        message: `${where(name, value)} given ${value.values.length} times; it takes one value`,
      });
    }
    return value.values[value.values.length - 1];
  };
  const bool = (name: string): boolean | undefined => {
    const text = single(name);
    if (text === undefined) return undefined;
    const lower = text.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    const value = raw(name);
    errors.push({
      flag: `--${name}`,
      message: `${value === undefined ? `--${name}` : where(name, value)} has invalid value ${JSON.stringify(text)}: expected --${name}, --${name}=true or --${name}=false`,
    });
    return undefined;
  };
  const choice = <T extends string>(name: string, fallback: T): T => {
    const text = single(name);
    if (text === undefined) return fallback;
    const spec = SPECS.get(name);
    if (spec?.values?.includes(text) === true) return text as T;
    const value = raw(name);
    errors.push({
      flag: `--${name}`,
      message: `${value === undefined ? `--${name}` : where(name, value)} has invalid value ${JSON.stringify(text)}: expected one of ${(spec?.values ?? []).join(', ')}`,
    });
    return fallback;
  };
  const address = (name: string, fallback: string): string => {
    const text = single(name);
    if (text === undefined) return fallback;
    if (text === '' || parseListenAddress(text) !== undefined) return text;
    const value = raw(name);
    errors.push({
      flag: `--${name}`,
      message: `${value === undefined ? `--${name}` : where(name, value)} has invalid value ${JSON.stringify(text)}: expected [host]:port such as :8080 or 127.0.0.1:8080, or '' to disable`,
    });
    return fallback;
  };
  const providers = (): string[] | undefined => {
    const value = raw('provider');
    if (value === undefined) return undefined;
    sources['provider'] = value.source;
    return value.values.flatMap(splitProviderList);
  };

  const config: ConfigInput = {};
  const setString = (
    name: string,
    key:
      | 'targetNamespace'
      | 'labelPrefix'
      | 'managedBy'
      | 'secretNamePattern'
      | 'secretKey'
      | 'interval'
      | 'demotedTTL'
      | 'credentialRefreshWindow',
  ): void => {
    const text = single(name);
    if (text !== undefined) config[key] = text;
  };
  setString('target-namespace', 'targetNamespace');
  setString('label-prefix', 'labelPrefix');
  setString('managed-by', 'managedBy');
  setString('secret-name-pattern', 'secretNamePattern');
  setString('secret-key', 'secretKey');
  setString('interval', 'interval');
  setString('demoted-ttl', 'demotedTTL');
  setString('credential-refresh-window', 'credentialRefreshWindow');
  const providerList = providers();
  if (providerList !== undefined) config.providers = providerList;
  const dryRun = bool('dry-run');
  if (dryRun !== undefined) config.dryRun = dryRun;
  const debug = bool('debug');
  if (debug !== undefined) config.debug = debug;

  const kubeconfig = single('kubeconfig');
  const context = single('context');
  const saveSnapshot = single('save-snapshot');
  const fromSnapshot = single('from-snapshot');
  const replaying = fromSnapshot !== undefined && fromSnapshot !== '';
  // Replaying a snapshot is a preview by definition: nothing to connect to, nothing to write.
  if (replaying) config.dryRun = true;
  const options: CliOptions = {
    config,
    once: replaying || (bool('once') ?? false),
    detailedExitcode: bool('detailed-exitcode') ?? false,
    leaderElect: bool('leader-elect') ?? false,
    ...(kubeconfig !== undefined && kubeconfig !== '' ? { kubeconfig } : {}),
    ...(context !== undefined && context !== '' ? { context } : {}),
    ...(saveSnapshot !== undefined && saveSnapshot !== '' ? { saveSnapshot } : {}),
    ...(replaying ? { fromSnapshot } : {}),
    output: choice<OutputFormat>('output', 'text'),
    logFormat: choice<LogFormat>('log-format', 'auto'),
    healthAddr: address('health-addr', ':8081'),
    metricsAddr: address('metrics-addr', ':8080'),
    help,
    version,
    sources,
    notices,
  };
  if (options.detailedExitcode && !options.once && !help && !version) {
    errors.push({
      flag: '--detailed-exitcode',
      message: '--detailed-exitcode only applies to a single pass: add --once',
    });
  }
  if (options.saveSnapshot !== undefined && !options.once && !help && !version) {
    errors.push({
      flag: '--save-snapshot',
      message: '--save-snapshot saves the snapshot of a single pass: add --once',
    });
  }
  if (replaying) {
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
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, options };
}

// Custom providers carry their own comma list of keys (`custom:<glob>=<a>,<b>`), so a
// fragment that does not start a new provider continues the previous custom entry.
export function splitProviderList(text: string): string[] {
  const presets = new Set(['k3k', 'vcluster', 'kamaji', 'capi']);
  const entries: string[] = [];
  for (const fragment of text.split(',')) {
    const piece = fragment.trim();
    if (piece === '') continue;
    const previous = entries[entries.length - 1];
    const startsEntry = piece.startsWith('custom:') || presets.has(piece);
    if (!startsEntry && previous?.startsWith('custom:') === true) {
      entries[entries.length - 1] = `${previous},${piece}`;
    } else {
      entries.push(piece);
    }
  }
  return entries;
}

export interface ListenAddress {
  /** undefined: all interfaces. */
  readonly host?: string;
  readonly port: number;
}

/** Go-style listen address: `:8080`, `127.0.0.1:8080`, `[::1]:8080`, `localhost:0`. */
export function parseListenAddress(text: string): ListenAddress | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]*)):(\d{1,5})$/.exec(text);
  if (match === null) return undefined;
  const port = Number(match[3]);
  if (!Number.isInteger(port) || port > 65535) return undefined;
  const host = match[1] ?? match[2] ?? '';
  return host === '' ? { port } : { host, port };
}

/** Maps a core ConfigError's setting (a ConfigInput key) back to the flag that sets it. */
export function flagForSetting(setting: string): string {
  const known: Record<string, string> = {
    targetNamespace: 'target-namespace',
    labelPrefix: 'label-prefix',
    managedBy: 'managed-by',
    secretNamePattern: 'secret-name-pattern',
    secretKey: 'secret-key',
    providers: 'provider',
    provider: 'provider',
    interval: 'interval',
    demotedTTL: 'demoted-ttl',
    demotedTtl: 'demoted-ttl',
    credentialRefreshWindow: 'credential-refresh-window',
    dryRun: 'dry-run',
    debug: 'debug',
  };
  const base = setting.replace(/\[\d+\]$/, '');
  return known[base] ?? base.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function acceptedForm(spec: FlagSpec): string {
  switch (spec.kind) {
    case 'bool':
      return `--${spec.name}, --${spec.name}=true or --${spec.name}=false`;
    case 'enum':
      return `--${spec.name}=<${(spec.values ?? []).join('|')}>`;
    case 'duration':
      return `--${spec.name}=<duration> such as 500ms, 60s, 1m30s or 168h`;
    case 'addr':
      return `--${spec.name}=[host]:port, or --${spec.name}='' to disable`;
    case 'list':
    case 'string':
      return `--${spec.name} <${spec.placeholder ?? 'value'}> or --${spec.name}=<${spec.placeholder ?? 'value'}>`;
  }
}

function suggest(name: string): string {
  let best: string | undefined;
  let bestDistance = 3;
  for (const spec of FLAGS) {
    const distance = editDistance(name, spec.name);
    if (distance < bestDistance) {
      best = spec.name;
      bestDistance = distance;
    }
  }
  if (best === undefined && name === 'namespace') best = 'target-namespace';
  return best === undefined ? '' : ` (did you mean --${best}?)`;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = row[j] ?? 0;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(above + 1, (row[j - 1] ?? 0) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return row[b.length] ?? 0;
}

/** The --help text: flags grouped, each with its default and environment variable. */
export function renderHelp(version: string): string {
  const lines: string[] = [
    `argocd-cluster-registrar ${version}`,
    '',
    'Registers k3k, vcluster, Kamaji and Cluster API child clusters with ArgoCD, and removes',
    'the registrations once their source namespaces are provably gone.',
    '',
    'Usage:',
    '  argocd-cluster-registrar [flags]                 run as a daemon',
    '  argocd-cluster-registrar --once [--dry-run]      one pass (preview with --dry-run)',
    '',
    'Every flag can also be set through the environment variable shown; a flag wins over its',
    'variable. Booleans accept --flag, --flag=true or --flag=false.',
  ];
  for (const group of GROUPS) {
    lines.push('', `${group}:`);
    for (const spec of FLAGS.filter((s) => s.group === group)) {
      const value =
        spec.kind === 'bool'
          ? ''
          : spec.kind === 'enum'
            ? ` ${(spec.values ?? []).join('|')}`
            : ` <${spec.placeholder ?? 'value'}>`;
      lines.push(`  --${spec.name}${value}`);
      lines.push(...wrap(spec.help, 72).map((l) => `      ${l}`));
      const facts = [
        ...(spec.defaultText !== undefined
          ? [`default ${spec.defaultText === '' ? "''" : spec.defaultText}`]
          : []),
        `env ${envName(spec.name)}`,
      ];
      lines.push(`      (${facts.join('; ')})`);
    }
  }
  lines.push(
    '',
    'Other:',
    '  -h, --help      show this help',
    '  --version       print the version',
    '',
    'Exit codes: 0 success; 1 error (invalid flags, unreachable API server, failed pass);',
    '2 with --once --detailed-exitcode when the pass found changes.',
    '',
  );
  return lines.join('\n');
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') out.push(line);
  return out;
}
