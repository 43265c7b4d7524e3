// The one table of settings: each row names a setting's flag, environment variable, chart
// value, kind, default and help. The argv parser (flags.ts), the environment reader
// (env.ts), --help (help.ts) and the chart's values test are all derived from it, so a
// setting cannot be added to one of them and forgotten in another.

import { PROVIDER_PRESET_NAMES } from '@argocd-cluster-registrar/core';
import { KUBECONFIG_PRECEDENCE } from '@argocd-cluster-registrar/k8s-adapter';
import type { ConfigInput } from '@argocd-cluster-registrar/core';
import { envName, type Setting } from './setting-shape.js';

export {
  GROUPS,
  envName,
  type ChartValue,
  type LogFormat,
  type OutputFormat,
  type Setting,
  type SettingGroup,
  type SettingKind,
} from './setting-shape.js';

type Row = Omit<Setting, 'env'>;

const ROWS: readonly Row[] = [
  {
    name: 'label-prefix',
    kind: 'string',
    group: 'Discovery',
    configKey: 'labelPrefix',
    chart: { value: 'labelPrefix', example: 'example.com/', passes: 'example.com/' },
    defaultText: 'argocd-cluster-registrar/',
    placeholder: 'prefix',
    help: 'Prefix of the labels read off source namespaces and copied onto registrations.',
  },
  {
    name: 'managed-by',
    kind: 'string',
    group: 'Discovery',
    configKey: 'managedBy',
    chart: { value: 'managedBy', example: 'team-a', passes: 'team-a' },
    defaultText: 'cluster-registrar',
    placeholder: 'name',
    help: 'Value of <prefix>managed-by: selects the namespaces to watch and the registrations this instance owns.',
  },
  {
    name: 'provider',
    kind: 'list',
    group: 'Discovery',
    configKey: 'providers',
    chart: { value: 'providers', example: ['vcluster'], passes: 'vcluster' },
    defaultText: 'k3k',
    placeholder: 'provider',
    help: `Provisioner preset (${PROVIDER_PRESET_NAMES.join(', ')}) or custom:<glob>=<key>[,<key>...][;exec]; repeatable, in precedence order (env: comma list). Not combinable with the two legacy flags.`,
  },
  {
    name: 'secret-name-pattern',
    kind: 'string',
    group: 'Discovery',
    configKey: 'secretNamePattern',
    chart: { value: 'secretNamePattern', example: 'vc-*', passes: 'vc-*' },
    defaultText: 'k3k-*-kubeconfig',
    placeholder: 'glob',
    help: "Legacy: glob over kubeconfig Secret names, read by name only, without a preset's provisioner marks (use --provider instead).",
  },
  {
    name: 'secret-key',
    kind: 'string',
    group: 'Discovery',
    configKey: 'secretKey',
    chart: { value: 'secretKey', example: 'config', passes: 'config' },
    defaultText: 'kubeconfig.yaml',
    placeholder: 'key',
    help: 'Legacy: key of the kubeconfig inside the Secret (use --provider instead).',
  },
  {
    name: 'target-namespace',
    kind: 'string',
    group: 'Registration',
    configKey: 'targetNamespace',
    chart: { value: 'targetNamespace', example: 'gitops', passes: 'gitops' },
    defaultText: 'argocd',
    placeholder: 'namespace',
    help: 'Namespace ArgoCD reads cluster Secrets from.',
  },
  {
    name: 'targets-file',
    kind: 'string',
    group: 'Registration',
    chart: {
      value: 'targets',
      example: [{ name: 'hub', namespace: 'argocd' }],
      passes: '/etc/argocd-cluster-registrar/targets/targets.json',
    },
    placeholder: 'path',
    help: 'YAML or JSON file of targets, each an ArgoCD namespace here or in another cluster: {"targets":[{"name":"hub","namespace":"argocd","kubeconfig":"/path","context":"optional","selector":"env=prod","nameTemplate":"host-a-{name}"}]} (without kubeconfig: this cluster). Each is planned and written on its own. Not combinable with --target-namespace, its one-local-target shorthand.',
  },
  {
    name: 'host-id',
    kind: 'string',
    group: 'Registration',
    chart: { value: 'hostId', example: 'host-a', passes: 'host-a' },
    placeholder: 'id',
    help: "Identity of this host (default: the host cluster's ClusterProperty id.k8s.io, else its kube-system namespace's uid), recorded on every registration (<prefix>host-id): a registration is this registrar's only when its managed-by and host identity are both its own, so registrars of several hosts sharing one ArgoCD never take each other's. A label value.",
  },
  {
    name: 'exec-credentials',
    kind: 'bool',
    group: 'Registration',
    configKey: 'execCredentials',
    chart: { value: 'execCredentials', example: true, passes: 'true' },
    defaultText: 'false',
    help: "Translate exec kubeconfigs (EKS, AKS, GKE plugins) into ArgoCD's own forms, for providers that allow it (capa-eks, capz-aks, gke, custom:...;exec); off: they are refused.",
  },
  // What an exec registration may name: ArgoCD mints a token with its own cloud identity
  // and sends it to the registration's server, so each of these is the operator's choice.
  {
    name: 'exec-allowed-servers',
    kind: 'list',
    group: 'Registration',
    configKey: 'execAllowedServers',
    chart: { value: 'execAllowedServers', example: ['10.20.0.0/16'], passes: '10.20.0.0/16' },
    placeholder: 'server',
    help: "Servers an exec registration may name besides its cloud's endpoints (EKS: *.eks.amazonaws.com forms, AKS: *.azmk8s.io forms; GKE has none, so every GKE server must be listed): CIDRs or addresses, host names matched exactly, .domain suffixes matched by subdomains only; any port. Empty by default. Repeatable; env: comma list.",
  },
  {
    name: 'exec-aks-server-ids',
    kind: 'list',
    group: 'Registration',
    configKey: 'execAksServerIds',
    chart: {
      value: 'execAksServerIds',
      example: ['3f3a8e5e-5f7b-4b8a-9c1d-2e4f6a8b0c1d'],
      passes: '3f3a8e5e-5f7b-4b8a-9c1d-2e4f6a8b0c1d',
    },
    placeholder: 'guid',
    help: 'AKS token audiences (kubelogin --server-id) allowed besides the AKS server application 6dae42f8-4368-4678-94ff-3960e28e3630; none by default. Repeatable; env: comma list.',
  },
  {
    name: 'exec-eks-cluster-names',
    kind: 'list',
    group: 'Registration',
    configKey: 'execEksClusterNames',
    chart: { value: 'execEksClusterNames', example: ['prod-*'], passes: 'prod-*' },
    placeholder: 'glob',
    help: 'EKS cluster names (globs) an EKS exec registration may name; a token for a cluster opens it wherever it is sent, so none is allowed until listed. Repeatable; env: comma list.',
  },
  {
    name: 'exec-eks-role-arns',
    kind: 'list',
    group: 'Registration',
    configKey: 'execEksRoleArns',
    chart: {
      value: 'execEksRoleArns',
      example: ['arn:aws:iam::123456789012:role/argocd'],
      passes: 'arn:aws:iam::123456789012:role/argocd',
    },
    placeholder: 'arn',
    help: 'IAM role ARNs an EKS exec registration may have ArgoCD assume (-r, --role-arn), exactly; none by default. Repeatable; env: comma list.',
  },
  {
    name: 'drain-on-terminate',
    kind: 'bool',
    group: 'Registration',
    configKey: 'drainOnTerminate',
    chart: { value: 'drainOnTerminate', example: true, passes: 'true' },
    defaultText: 'false',
    help: 'While a source namespace is terminating, remove the labels its registration copied from it (what ApplicationSet generators select on), so ArgoCD deletes the generated Applications while it can still reach the cluster; the registration is deleted once the namespace is gone.',
  },
  {
    name: 'capi-clusters',
    kind: 'bool',
    group: 'Discovery',
    configKey: 'capiClusters',
    chart: { value: 'capiClusters', example: true, passes: 'true' },
    defaultText: 'false',
    help: 'Also register Cluster API Clusters labelled <prefix>managed-by=<managed-by> (many per namespace), each from its own <cluster>-kubeconfig (as the providers name it); needs get, list and watch on clusters.cluster.x-k8s.io.',
  },
  {
    name: 'capi-cluster-names',
    kind: 'enum',
    group: 'Discovery',
    configKey: 'capiClusterNames',
    chart: { value: 'capiClusterNames', example: 'name', passes: 'name' },
    defaultText: 'namespace-name',
    values: ['name', 'namespace-name'],
    placeholder: 'form',
    help: 'Cluster name of a Cluster: namespace-name gives <namespace>.<name> (Clusters of two namespaces never contend for a name); name gives its own name, or its <prefix>cluster label.',
  },
  {
    name: 'capi-cluster-name-label',
    kind: 'bool',
    group: 'Discovery',
    configKey: 'capiClusterNameLabel',
    chart: { value: 'capiClusterNameLabel', example: true, passes: 'true' },
    defaultText: 'false',
    help: "Under --capi-cluster-names namespace-name, let a Cluster's <prefix>cluster label choose its cluster name (whoever labels a Cluster can then claim any name); off: the label is ignored, with a warning.",
  },
  {
    name: 'probe-children',
    kind: 'bool',
    group: 'Registration',
    configKey: 'probeChildren',
    chart: { value: 'probeChildren', example: true, passes: 'true' },
    defaultText: 'false',
    help: 'Probe each registered child (at most once an interval, 16 at once, 5s each: its /version with its registered credentials, or, between those calls, a TCP connect to its server; a paused child less often, down to once 5 intervals; needs egress to every child API server) and pause an unreachable one in ArgoCD (argocd.argoproj.io/skip-reconcile, ArgoCD 3.4 or later) until it answers /version again; its registration and Applications stay.',
  },
  {
    name: 'probe-failures',
    kind: 'string',
    group: 'Registration',
    configKey: 'probeFailures',
    chart: { value: 'probeFailures', example: 5, passes: '5' },
    defaultText: '3',
    placeholder: 'count',
    help: 'With --probe-children: consecutive failed probes (1 to 100) before a child counts as unreachable and is paused.',
  },
  {
    name: 'kamaji-sleep',
    kind: 'bool',
    group: 'Registration',
    configKey: 'kamajiSleep',
    chart: { value: 'kamajiSleep', example: true, passes: 'true' },
    defaultText: 'false',
    help: "Pause a child in ArgoCD (argocd.argoproj.io/skip-reconcile) while its Kamaji TenantControlPlane's status says Sleeping; needs get, list and watch on tenantcontrolplanes.kamaji.clastix.io (off while that CRD is absent).",
  },
  {
    name: 'vcluster-sleep',
    kind: 'bool',
    group: 'Registration',
    configKey: 'vclusterSleep',
    chart: { value: 'vclusterSleep', example: true, passes: 'true' },
    defaultText: 'false',
    help: 'Pause a child in ArgoCD (argocd.argoproj.io/skip-reconcile) while its vcluster is paused or asleep (its StatefulSet or Deployment marked loft.sh/paused or loft.sh/sleep-mode); needs get, list and watch on statefulsets and deployments (metadata only).',
  },
  {
    name: 'reference-mode',
    kind: 'enum',
    group: 'Registration',
    configKey: 'referenceMode',
    chart: { value: 'referenceMode', example: 'on-or-copy', passes: 'on-or-copy' },
    defaultText: 'off',
    values: ['off', 'on', 'on-or-copy'],
    placeholder: 'mode',
    help: "Register by reference (ArgoCD 3.5 or later): the registration runs the kubeconfig-secretreader plugin (--secretreader-path) with provideClusterInfo and names the source's own kubeconfig Secret, so no credential is copied and a rotation needs no write; ArgoCD's application controller needs the plugin and get on those Secrets. on: a kubeconfig the plugin cannot read (exec, username and password, extensions, no current-context) is refused; on-or-copy: its credentials are copied as with off.",
  },
  {
    name: 'secretreader-path',
    kind: 'string',
    group: 'Registration',
    configKey: 'secretreaderPath',
    chart: {
      value: 'secretreaderPath',
      example: '/usr/local/bin/kubeconfig-secretreader',
      passes: '/usr/local/bin/kubeconfig-secretreader',
    },
    defaultText: 'kubeconfig-secretreader',
    placeholder: 'path',
    help: "With --reference-mode: the kubeconfig-secretreader plugin inside ArgoCD's application controller, an absolute path or a command name on its PATH.",
  },
  {
    name: 'cluster-profiles',
    kind: 'bool',
    group: 'Registration',
    configKey: 'clusterProfiles',
    chart: { value: 'clusterProfiles.enabled', example: true, passes: 'true' },
    defaultText: 'false',
    help: "Also publish each registered source as a ClusterProfile of the cluster inventory (multicluster.x-k8s.io, v1alpha1) in --cluster-profile-namespace: server and CA, and the source's kubeconfig Secret by reference for the kubeconfig-secretreader plugin (never a credential); needs the ClusterProfile CRD (without it: said once, registrations unaffected).",
  },
  {
    name: 'cluster-profile-namespace',
    kind: 'string',
    group: 'Registration',
    configKey: 'clusterProfileNamespace',
    chart: {
      value: 'clusterProfiles.namespace',
      example: 'fleet-inventory',
      passes: 'fleet-inventory',
    },
    placeholder: 'namespace',
    help: 'With --cluster-profiles: the inventory namespace the ClusterProfiles are written to (default: the target namespace).',
  },
  {
    name: 'cluster-manager',
    kind: 'string',
    group: 'Registration',
    configKey: 'clusterManager',
    chart: {
      value: 'clusterProfiles.clusterManager',
      example: 'registrar-east',
      passes: 'registrar-east',
    },
    defaultText: 'argocd-cluster-registrar',
    placeholder: 'name',
    help: 'With --cluster-profiles: the cluster manager named by our ClusterProfiles (spec.clusterManager.name and the x-k8s.io/cluster-manager label); a profile of another manager is never written.',
  },
  {
    name: 'interval',
    kind: 'duration',
    group: 'Timing',
    configKey: 'interval',
    chart: { value: 'interval', example: '30s', passes: '30s' },
    defaultText: '60s',
    placeholder: 'duration',
    examples: '30s, 60s, 1m30s or 5m',
    help: 'Time between full passes; also the minimum gap between credential-only writes.',
  },
  {
    name: 'demoted-ttl',
    kind: 'duration',
    group: 'Timing',
    configKey: 'demotedTTL',
    chart: { value: 'demotedTTL', example: '24h', passes: '24h' },
    defaultText: '168h',
    placeholder: 'duration',
    help: 'Demoted (renamed-away) registrations older than this are deleted.',
  },
  {
    name: 'credential-refresh-window',
    kind: 'duration',
    group: 'Timing',
    configKey: 'credentialRefreshWindow',
    chart: { value: 'credentialRefreshWindow', example: '720h', passes: '720h' },
    defaultText: '0s',
    placeholder: 'duration',
    help: 'Defer credential-only rewrites while the registered client certificate is valid for longer than this (0s: write at most once per interval).',
  },
  {
    name: 'resync-period',
    kind: 'duration',
    group: 'Timing',
    chart: { value: 'resyncPeriod', example: '30m', passes: '30m' },
    defaultText: '10m',
    placeholder: 'duration',
    examples: '5m, 10m, 30m or 1h',
    help: 'How often the daemon re-lists what it watches (namespaces, Secret metadata, cluster Secrets), as a safety net under the watches; at least 1m.',
  },
  {
    name: 'kubeconfig',
    kind: 'string',
    group: 'Connection',
    placeholder: 'path',
    help: `Kubeconfig of the host cluster. Which one is used, in order: ${KUBECONFIG_PRECEDENCE.join(', then ')}.`,
  },
  {
    name: 'context',
    kind: 'string',
    group: 'Connection',
    placeholder: 'name',
    help: 'Kubeconfig context to use (default: its current-context); given, the kubeconfig wins over the in-cluster service account.',
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
    chart: { value: 'dryRun', example: true, passes: 'true' },
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
    chart: { value: 'leaderElection.enabled', example: true, passes: 'true' },
    defaultText: 'false',
    help: 'Hold a Lease in the target namespace; only the leader writes, standbys stay ready.',
  },
  {
    name: 'namespace',
    kind: 'list',
    group: 'Status',
    placeholder: 'namespace',
    help: 'With status: only the sources in these namespaces, or one Cluster as <namespace>/<name> (repeatable; env: comma list).',
  },
  {
    name: 'state',
    kind: 'list',
    group: 'Status',
    placeholder: 'state',
    help: 'With status: only rows in these states (registered, unchanged, waiting, refused, stale, skipped, drained, demoted, source-gone, pinned, foreign; repeatable; env: comma list).',
  },
  {
    name: 'output',
    short: 'o',
    kind: 'enum',
    group: 'Output',
    values: ['text', 'json'],
    defaultText: 'text',
    help: 'Format of the plan printed by --once, and of status.',
  },
  {
    name: 'log-format',
    kind: 'enum',
    group: 'Output',
    values: ['auto', 'text', 'json'],
    chart: { value: 'logFormat', example: 'text', passes: 'text' },
    defaultText: 'auto',
    help: 'Log format; auto is json in-cluster and text on a terminal. Logs go to stderr.',
  },
  {
    name: 'debug',
    kind: 'bool',
    group: 'Output',
    chart: { value: 'debug', example: true, passes: 'true' },
    defaultText: 'false',
    help: 'Verbose logging.',
  },
  {
    name: 'trace',
    kind: 'bool',
    group: 'Output',
    envOnly: true,
    defaultText: 'false',
    help: 'Print the stack trace of an unexpected error (for bug reports).',
  },
  {
    name: 'health-addr',
    kind: 'addr',
    group: 'Runtime',
    chart: { value: 'probes.port', example: 9091, passes: ':9091' },
    defaultText: '127.0.0.1:8081',
    placeholder: 'host:port',
    help: "Address of /healthz and /readyz ('' disables; :8081 listens on every interface, as the kubelet's probes need in a pod).",
  },
  {
    name: 'metrics-addr',
    kind: 'addr',
    group: 'Runtime',
    chart: { value: 'metrics.port', example: 9090, passes: ':9090' },
    defaultText: '127.0.0.1:8080',
    placeholder: 'host:port',
    help: "Address of /metrics ('' disables; may equal --health-addr). It names every cluster and its credentials' expiry: :8080 listens on every interface, for Prometheus to scrape the pod.",
  },
];

export const SETTINGS: readonly Setting[] = ROWS.map((row) => ({ ...row, env: envName(row.name) }));

/** The settings that are flags (every setting but the environment-only ones). */
export const FLAGS: readonly Setting[] = SETTINGS.filter((s) => s.envOnly !== true);

const BY_NAME = new Map(SETTINGS.map((s) => [s.name, s]));
const BY_CONFIG_KEY = new Map(
  SETTINGS.flatMap((s) => (s.configKey !== undefined ? [[s.configKey, s] as const] : [])),
);

export function settingNamed(name: string): Setting | undefined {
  return BY_NAME.get(name);
}

/** The flag that sets a core setting (a ConfigInput key, as core's errors name it). */
export function flagForSetting(setting: string): string {
  const base = setting.replace(/\[\d+\]$/, '');
  return (
    BY_CONFIG_KEY.get(base as keyof ConfigInput)?.name ??
    base.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
  );
}

/** "--name" when given as a flag, "ACR_NAME (for --name)" when given through the environment. */
export function describeSource(name: string, source: 'flag' | 'env' | undefined): string {
  const setting = settingNamed(name);
  if (source !== 'env' || setting === undefined) return `--${name}`;
  return setting.envOnly === true ? setting.env : `${setting.env} (for --${name})`;
}
