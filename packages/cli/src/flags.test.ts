import { describe, expect, it } from 'vitest';
import { parseFlags } from './flags.js';
import type { CliOptions } from './flags.js';
import { renderHelp } from './help.js';
import { FLAGS, SETTINGS, envName, flagForSetting } from './settings.js';
import { parseListenAddress, splitProviderList } from './values.js';

function ok(argv: readonly string[], env: Record<string, string> = {}): CliOptions {
  const result = parseFlags(argv, env);
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.errors)}`);
  return result.options;
}

function errors(argv: readonly string[], env: Record<string, string> = {}): string[] {
  const result = parseFlags(argv, env);
  if (result.ok) throw new Error('expected errors');
  return result.errors.map((e) => e.message);
}

describe('parseFlags', () => {
  it('has the documented defaults when nothing is given', () => {
    const options = ok([]);
    expect(options.config).toEqual({});
    expect(options).toMatchObject({
      once: false,
      dryRun: false,
      debug: false,
      detailedExitcode: false,
      leaderElect: false,
      output: 'text',
      logFormat: 'auto',
      // Loopback: metrics name clusters and their certificates' expiry; the chart listens on
      // the pod's interfaces explicitly, for the kubelet and Prometheus.
      healthAddr: '127.0.0.1:8081',
      metricsAddr: '127.0.0.1:8080',
      help: false,
      version: false,
    });
    expect(options.kubeconfig).toBeUndefined();
  });

  it('takes a resync period of at least a minute, 10m by default', () => {
    expect(ok([]).resyncPeriodMs).toBe(600_000);
    expect(ok(['--resync-period', '30m']).resyncPeriodMs).toBe(1_800_000);
    expect(ok([], { ACR_RESYNC_PERIOD: '1h' }).resyncPeriodMs).toBe(3_600_000);
    expect(errors(['--resync-period=30s'])).toEqual([
      `--resync-period "30s": must be at least 1m, as each re-list reads every Secret's metadata; such as 5m, 10m, 30m or 1h`,
    ]);
    expect(errors([], { ACR_RESYNC_PERIOD: '10' })).toEqual([
      'ACR_RESYNC_PERIOD (for --resync-period) "10": must be a Go duration such as 500ms, 60s, 1m30s or 168h (units ns, us, ms, s, m, h)',
    ]);
  });

  it('reads --flag value and --flag=value forms', () => {
    const options = ok([
      '--target-namespace',
      'argo',
      '--label-prefix=example.com/',
      '--interval',
      '30s',
      '--demoted-ttl=1h',
    ]);
    expect(options.config).toEqual({
      targetNamespace: 'argo',
      labelPrefix: 'example.com/',
      interval: '30s',
      demotedTTL: '1h',
    });
    expect(options.sources).toMatchObject({ 'target-namespace': 'flag', interval: 'flag' });
  });

  it('accepts Go-style single-dash flags from the 0.1.x seed', () => {
    const options = ok(['-once', '-dry-run', '-managed-by', 'x']);
    expect(options.once).toBe(true);
    expect(options.dryRun).toBe(true);
    expect(options.config).toEqual({ managedBy: 'x' });
  });

  it('reads booleans as --flag, --flag=true and --flag=false', () => {
    expect(ok(['--once']).once).toBe(true);
    expect(ok(['--once=true']).once).toBe(true);
    expect(ok(['--once=false']).once).toBe(false);
    expect(ok(['--dry-run=FALSE']).dryRun).toBe(false);
    // A boolean never consumes the next argument.
    expect(ok(['--debug', '--once']).debug).toBe(true);
  });

  it('rejects a bad boolean value naming the flag and the accepted form', () => {
    expect(errors(['--once=yes'])).toEqual([
      '--once has invalid value "yes": expected --once, --once=true or --once=false',
    ]);
  });

  it('rejects an unknown flag by name, with a suggestion', () => {
    expect(errors(['--intervall=5s'])[0]).toBe(
      'unknown flag --intervall (did you mean --interval?)',
    );
    // --namespace is status's filter; elsewhere the message points at --target-namespace.
    expect(errors(['--namespace', 'x'])[0]).toContain(
      'the namespace ArgoCD reads is --target-namespace',
    );
    expect(errors(['--clusters=a'])[0]).toMatch(/^unknown flag --clusters/);
    // The unknown flag's value is not reported as a stray argument too.
    expect(errors(['--intervl', '5s'])).toHaveLength(1);
  });

  it("accepts kubectl's -o for --output: -o json, -o=json, -ojson", () => {
    for (const argv of [['-o', 'json'], ['-o=json'], ['-ojson'], ['--output', 'json']]) {
      const parsed = parseFlags(['status', ...argv], {});
      expect(parsed.ok && parsed.options.output, argv.join(' ')).toBe('json');
    }
    expect(errors(['-o', 'yaml'])[0]).toBe(
      '--output has invalid value "yaml": expected one of text, json',
    );
    // A long flag that starts with o is still itself.
    const once = parseFlags(['-once'], {});
    expect(once.ok && once.options.once).toBe(true);
  });

  it('suggests the command a mistyped word meant', () => {
    expect(errors(['stauts'])[0]).toBe(
      'unknown command "stauts" (did you mean status?); the commands are status, and without one the registrar runs (as a daemon, or once with --once)',
    );
    expect(errors(['once'])[0]).toBe(
      'unexpected argument "once": this command takes flags only (did you mean --once?)',
    );
  });

  it('refuses ClusterProfiles beside a targets file: each target would publish its own', () => {
    expect(errors(['--targets-file=t.yaml', '--cluster-profiles'])).toEqual([
      expect.stringMatching(/^--cluster-profiles publishes one inventory per registrar/),
    ]);
  });

  it('rejects positional arguments', () => {
    expect(errors(['once'])[0]).toContain('unexpected argument "once"');
    expect(errors(['--once', '--', 'x'])[0]).toContain('unexpected argument "x"');
  });

  it('rejects a value flag without its value', () => {
    expect(errors(['--interval'])).toEqual([
      'flag --interval needs a value: --interval=<duration> such as 30s, 60s, 1m30s or 5m',
    ]);
    expect(errors(['--demoted-ttl'])).toEqual([
      'flag --demoted-ttl needs a value: --demoted-ttl=<duration> such as 500ms, 60s, 1m30s or 168h',
    ]);
  });

  it('rejects a single-valued flag given twice', () => {
    expect(errors(['--interval=1s', '--interval=2s'])[0]).toContain('--interval given 2 times');
  });

  it('validates enumerations', () => {
    expect(ok(['--output', 'json']).output).toBe('json');
    expect(ok(['--log-format=json']).logFormat).toBe('json');
    expect(errors(['--output=yaml'])).toEqual([
      '--output has invalid value "yaml": expected one of text, json',
    ]);
    expect(errors(['--log-format', 'pretty'])[0]).toContain('expected one of auto, text, json');
  });

  it('validates listen addresses and allows disabling with an empty value', () => {
    expect(ok(['--health-addr=']).healthAddr).toBe('');
    expect(ok(['--metrics-addr', '127.0.0.1:0']).metricsAddr).toBe('127.0.0.1:0');
    expect(ok(['--metrics-addr=[::1]:9090']).metricsAddr).toBe('[::1]:9090');
    expect(errors(['--health-addr=8081'])[0]).toContain('expected [host]:port such as :8080');
    expect(errors(['--health-addr=:70000'])[0]).toContain(
      '--health-addr has invalid value ":70000"',
    );
  });

  it('repeats --provider and splits comma lists, keeping custom key lists together', () => {
    expect(ok(['--provider', 'vcluster', '--provider=k3k']).config.providers).toEqual([
      'vcluster',
      'k3k',
    ]);
    expect(ok(['--provider', 'k3k,custom:*-kc=a,b,capi']).config.providers).toEqual([
      'k3k',
      'custom:*-kc=a,b',
      'capi',
    ]);
  });

  it('splits lists with the exec presets and a custom entry ending in ;exec', () => {
    expect(
      ok(['--provider', 'capa-eks,custom:*-kc=a,b;exec,capz-aks', '--provider=gke']).config
        .providers,
    ).toEqual(['capa-eks', 'custom:*-kc=a,b;exec', 'capz-aks', 'gke']);
  });

  it('reads --exec-credentials as a boolean core setting', () => {
    expect(ok([]).config.execCredentials).toBeUndefined();
    expect(ok(['--exec-credentials']).config.execCredentials).toBe(true);
    expect(ok(['--exec-credentials=false']).config.execCredentials).toBe(false);
    expect(ok([], { ACR_EXEC_CREDENTIALS: 'true' }).config.execCredentials).toBe(true);
    expect(ok(['--drain-on-terminate']).config.drainOnTerminate).toBe(true);
    expect(errors(['--exec-credentials=on'])).toEqual([
      '--exec-credentials has invalid value "on": expected --exec-credentials, --exec-credentials=true or --exec-credentials=false',
    ]);
  });

  it('reads the exec allow-lists as repeatable flags or comma lists in their variables', () => {
    expect(ok([]).config.execAllowedServers).toBeUndefined();
    expect(
      ok(['--exec-allowed-servers=10.0.0.0/8', '--exec-allowed-servers', '.corp.example']).config
        .execAllowedServers,
    ).toEqual(['10.0.0.0/8', '.corp.example']);
    const fromEnv = ok([], {
      ACR_EXEC_ALLOWED_SERVERS: '34.77.120.15, 2600:1900::/28',
      ACR_EXEC_AKS_SERVER_IDS: '6dae42f8-4368-4678-94ff-3960e28e3630',
      ACR_EXEC_EKS_CLUSTER_NAMES: 'prod,team-*',
      ACR_EXEC_EKS_ROLE_ARNS: 'arn:aws:iam::123456789012:role/argocd',
    }).config;
    expect(fromEnv).toMatchObject({
      execAllowedServers: ['34.77.120.15', '2600:1900::/28'],
      execAksServerIds: ['6dae42f8-4368-4678-94ff-3960e28e3630'],
      execEksClusterNames: ['prod', 'team-*'],
      execEksRoleArns: ['arn:aws:iam::123456789012:role/argocd'],
    });
  });

  it('reads the status command and its filters', () => {
    const options = ok(['status', '--namespace', 'a,b', '--namespace=c', '--state=refused']);
    expect(options).toMatchObject({
      command: 'status',
      statusNamespaces: ['a', 'b', 'c'],
      statusStates: ['refused'],
    });
    expect(ok([]).command).toBe('run');
    expect(ok(['status'], { ACR_STATE: 'stale,refused' }).statusStates).toEqual([
      'stale',
      'refused',
    ]);
  });

  it('keeps the status filters to status, and the run modes out of it', () => {
    expect(errors(['--namespace', 'a'])).toEqual([
      '--namespace only applies to the status command (argocd-cluster-registrar status --namespace ...); the namespace ArgoCD reads is --target-namespace',
    ]);
    expect(errors(['status', '--once'])).toEqual([
      '--once does not apply to status, which only reads: drop it',
    ]);
    expect(errors(['--once', 'status'])[0]).toContain('unexpected argument "status"');
  });

  it('requires --once for --detailed-exitcode', () => {
    expect(errors(['--detailed-exitcode'])[0]).toContain('add --once');
    expect(ok(['--once', '--detailed-exitcode']).detailedExitcode).toBe(true);
  });

  it('recognises --help, -h and --version', () => {
    expect(ok(['--help']).help).toBe(true);
    expect(ok(['-h']).help).toBe(true);
    expect(ok(['--version']).version).toBe(true);
  });
});

describe('environment variables', () => {
  it('names every flag ACR_<UPPER_SNAKE>', () => {
    expect(envName('target-namespace')).toBe('ACR_TARGET_NAMESPACE');
    expect(envName('credential-refresh-window')).toBe('ACR_CREDENTIAL_REFRESH_WINDOW');
  });

  it('reads every flag from its variable', () => {
    const options = ok([], {
      ACR_TARGET_NAMESPACE: 'argo',
      ACR_LABEL_PREFIX: 'p/',
      ACR_MANAGED_BY: 'm',
      ACR_INTERVAL: '5s',
      ACR_DEMOTED_TTL: '1h',
      ACR_CREDENTIAL_REFRESH_WINDOW: '24h',
      ACR_PROVIDER: 'vcluster,k3k',
      ACR_DRY_RUN: 'true',
      ACR_DEBUG: 'false',
      ACR_ONCE: 'true',
      ACR_KUBECONFIG: '/tmp/kc',
      ACR_CONTEXT: 'ctx',
      ACR_OUTPUT: 'json',
      ACR_LOG_FORMAT: 'text',
      ACR_LEADER_ELECT: 'true',
      ACR_HEALTH_ADDR: ':9000',
      ACR_METRICS_ADDR: '',
      ACR_DETAILED_EXITCODE: 'true',
      ACR_EXEC_CREDENTIALS: 'true',
      ACR_DRAIN_ON_TERMINATE: 'true',
    });
    expect(options.config).toEqual({
      targetNamespace: 'argo',
      labelPrefix: 'p/',
      managedBy: 'm',
      interval: '5s',
      demotedTTL: '1h',
      credentialRefreshWindow: '24h',
      providers: ['vcluster', 'k3k'],
      execCredentials: true,
      drainOnTerminate: true,
    });
    expect(options).toMatchObject({
      once: true,
      dryRun: true,
      debug: false,
      kubeconfig: '/tmp/kc',
      context: 'ctx',
      output: 'json',
      logFormat: 'text',
      leaderElect: true,
      healthAddr: ':9000',
      metricsAddr: '',
      detailedExitcode: true,
    });
    expect(options.sources['interval']).toBe('env');
  });

  it('reads the legacy pair from the environment', () => {
    expect(ok([], { ACR_SECRET_NAME_PATTERN: 'vc-*', ACR_SECRET_KEY: 'config' }).config).toEqual({
      secretNamePattern: 'vc-*',
      secretKey: 'config',
    });
  });

  it('lets a flag win over its variable', () => {
    const options = ok(['--interval=2s', '--provider=capi'], {
      ACR_INTERVAL: '5s',
      ACR_PROVIDER: 'k3k',
    });
    expect(options.config.interval).toBe('2s');
    expect(options.config.providers).toEqual(['capi']);
    expect(options.sources['interval']).toBe('flag');
  });

  it('treats an empty variable as unset, except for addresses', () => {
    expect(ok([], { ACR_INTERVAL: '', ACR_KUBECONFIG: '' }).config).toEqual({});
    expect(ok([], { ACR_HEALTH_ADDR: '' }).healthAddr).toBe('');
  });

  it('names the variable when its value is bad', () => {
    expect(errors([], { ACR_DRY_RUN: 'yes' })).toEqual([
      'ACR_DRY_RUN (for --dry-run) has invalid value "yes": expected ACR_DRY_RUN=true or ACR_DRY_RUN=false',
    ]);
    // Answered in the variable's own terms, not with flag syntax.
    expect(errors([], { ACR_ONCE: '1' })).toEqual([
      'ACR_ONCE (for --once) has invalid value "1": expected ACR_ONCE=true or ACR_ONCE=false',
    ]);
    expect(errors([], { ACR_OUTPUT: 'xml' })[0]).toMatch(
      /^ACR_OUTPUT \(for --output\) has invalid value "xml"/,
    );
  });

  it('refuses unknown ACR_ variables, suggesting the closest known one', () => {
    expect(errors([], { ACR_INTERVALL: '5s' })).toEqual([
      'unknown environment variable ACR_INTERVALL (did you mean ACR_INTERVAL?)',
    ]);
    expect(errors([], { ACR_DRYRUN: 'true' })).toEqual([
      'unknown environment variable ACR_DRYRUN (did you mean ACR_DRY_RUN?)',
    ]);
    // No allowlist: the project's own tooling uses names outside ACR_.
    expect(errors([], { ACR_TOOLS_CACHE: '/x' })[0]).toMatch(
      /^unknown environment variable ACR_TOOLS_CACHE \(did you mean ACR_/,
    );
    expect(ok([], { REGISTRAR_TOOLS_CACHE: '/x', PATH: '/bin' }).config).toEqual({});
  });

  it('reads the environment-only ACR_TRACE', () => {
    expect(ok([], { ACR_TRACE: 'true' }).trace).toBe(true);
    expect(ok([]).trace).toBe(false);
    expect(errors(['--trace'])[0]).toMatch(/^unknown flag --trace/);
  });
});

describe('helpers', () => {
  it('maps core settings back to flags', () => {
    expect(flagForSetting('targetNamespace')).toBe('target-namespace');
    expect(flagForSetting('demotedTTL')).toBe('demoted-ttl');
    expect(flagForSetting('providers')).toBe('provider');
    expect(flagForSetting('credentialRefreshWindow')).toBe('credential-refresh-window');
  });

  it('parses Go listen addresses', () => {
    expect(parseListenAddress(':8080')).toEqual({ port: 8080 });
    expect(parseListenAddress('0.0.0.0:1')).toEqual({ host: '0.0.0.0', port: 1 });
    expect(parseListenAddress('localhost:0')).toEqual({ host: 'localhost', port: 0 });
    expect(parseListenAddress('[::]:8080')).toEqual({ host: '::', port: 8080 });
    expect(parseListenAddress('8080')).toBeUndefined();
    expect(parseListenAddress('host:')).toBeUndefined();
  });

  it('splits provider lists', () => {
    expect(splitProviderList('k3k, vcluster,')).toEqual(['k3k', 'vcluster']);
    expect(splitProviderList('custom:a-*=x,y,z')).toEqual(['custom:a-*=x,y,z']);
    expect(splitProviderList('bogus,k3k')).toEqual(['bogus', 'k3k']);
    expect(splitProviderList('custom:a-*=x,y;exec,gke')).toEqual(['custom:a-*=x,y;exec', 'gke']);
  });

  it('documents every flag in --help with its default and variable, grouped', () => {
    const help = renderHelp('1.2.3');
    expect(help).toContain('argocd-cluster-registrar 1.2.3');
    for (const spec of FLAGS) {
      expect(help).toContain(`--${spec.name}`);
      expect(help).toContain(`env ${envName(spec.name)}`);
    }
    for (const setting of SETTINGS) expect(help).toContain(`env ${setting.env}`);
    expect(help).toContain('default 60s; env ACR_INTERVAL');
    expect(help).toMatch(/Discovery:\n {2}--label-prefix/);
  });
});
