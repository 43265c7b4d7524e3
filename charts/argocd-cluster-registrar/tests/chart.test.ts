// Renders of the chart's defaults and of each option, asserted on the parsed objects.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { leaseName } from '@argocd-cluster-registrar/k8s-adapter';
import {
  RELEASE_NAMESPACE,
  YAML,
  chartDir,
  containerOf,
  deploymentOf,
  find,
  helm,
  only,
  render,
  repoRoot,
  rulesOf,
} from './chart-support.js';
import type { Manifest } from './chart-support.js';

// The version every file carries (scripts/release/check.test.ts holds them together).
const { version: VERSION } = JSON.parse(
  await readFile(join(repoRoot, 'packages/cli/package.json'), 'utf8'),
) as { version: string };

const FULLNAME = 'acr-argocd-cluster-registrar';

describe('helm lint', () => {
  test('passes with the defaults', async () => {
    const result = await helm(['lint', '--strict', chartDir]);
    expect(result.stderr + result.stdout).toContain('0 chart(s) failed');
    expect(result.code).toBe(0);
  });

  test('passes with every option switched on', async () => {
    const result = await helm([
      'lint',
      '--strict',
      chartDir,
      '--set',
      'leaderElection.enabled=true,replicaCount=2,metrics.service.enabled=true,admissionPolicy.enabled=true,providers={vcluster,k3k}',
    ]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
  });
});

describe('Chart.yaml', () => {
  test('is the package version of argocd-cluster-registrar with apiVersion v2', async () => {
    const chart = YAML.parse(await readFile(join(chartDir, 'Chart.yaml'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(chart).toMatchObject({
      apiVersion: 'v2',
      name: 'argocd-cluster-registrar',
      version: VERSION,
      appVersion: VERSION,
    });
  });
});

describe('default render', () => {
  test('renders exactly the ServiceAccount, RBAC, Deployment and the two admission policies', async () => {
    const manifests = await render();
    expect(manifests.map((m) => `${m.kind}/${m.metadata.name}`).sort()).toEqual(
      [
        `ClusterRole/${FULLNAME}`,
        `ClusterRoleBinding/${FULLNAME}`,
        `Deployment/${FULLNAME}`,
        `Role/${FULLNAME}`,
        `RoleBinding/${FULLNAME}`,
        `ServiceAccount/${FULLNAME}`,
        `ValidatingAdmissionPolicy/${FULLNAME}-source-keys`,
        `ValidatingAdmissionPolicyBinding/${FULLNAME}-source-keys`,
        `ValidatingAdmissionPolicy/${FULLNAME}-registrar-writes`,
        `ValidatingAdmissionPolicyBinding/${FULLNAME}-registrar-writes`,
      ].sort(),
    );
    expect(find(manifests, 'ServiceAccount')?.metadata.namespace).toBe(RELEASE_NAMESPACE);
    expect(find(manifests, 'Deployment')?.metadata.namespace).toBe(RELEASE_NAMESPACE);
    // Writes happen only in the namespace ArgoCD reads.
    expect(find(manifests, 'Role')?.metadata.namespace).toBe('argocd');
    expect(find(manifests, 'RoleBinding')?.metadata.namespace).toBe('argocd');
  });

  test('passes exactly the CLI flags for the default values', async () => {
    expect(containerOf(await render()).args).toEqual([
      '--target-namespace=argocd',
      '--label-prefix=argocd-cluster-registrar/',
      '--managed-by=cluster-registrar',
      '--exec-credentials=false',
      '--drain-on-terminate=false',
      '--capi-clusters=false',
      '--capi-cluster-names=namespace-name',
      '--capi-cluster-name-label=false',
      '--probe-children=false',
      '--probe-failures=3',
      '--probe-interval=3m',
      '--kamaji-sleep=false',
      '--vcluster-sleep=false',
      '--reference-mode=off',
      '--secretreader-path=kubeconfig-secretreader',
      '--cluster-profiles=false',
      '--cluster-manager=argocd-cluster-registrar',
      '--interval=60s',
      '--resync-period=10m',
      '--demoted-ttl=168h',
      '--credential-refresh-window=0s',
      '--dry-run=false',
      '--debug=false',
      '--log-format=json',
      '--leader-elect=false',
      '--health-addr=:8081',
      '--metrics-addr=:8080',
    ]);
  });

  test('runs the appVersion image as non-root with a read-only root filesystem and no capabilities', async () => {
    const manifests = await render();
    const container = containerOf(manifests);
    const pod = deploymentOf(manifests).template.spec;
    expect(container.image).toBe(
      `ghcr.io/argocd-cluster-registrar/argocd-cluster-registrar:${VERSION}`,
    );
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 65532,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 65532,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.serviceAccountName).toBe(FULLNAME);
  });

  test('probes /healthz and /readyz on the health port and exposes the metrics port', async () => {
    const container = containerOf(await render());
    expect(container.ports).toEqual([
      { name: 'metrics', containerPort: 8080, protocol: 'TCP' },
      { name: 'health', containerPort: 8081, protocol: 'TCP' },
    ]);
    expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 8081 });
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 8081 });
  });

  test('without leader election, one replica replaced with Recreate (two writers never overlap)', async () => {
    const deployment = deploymentOf(await render());
    expect(deployment.replicas).toBe(1);
    expect(deployment.strategy.type).toBe('Recreate');
  });

  test('selector labels are a subset of the pod labels', async () => {
    const deployment = deploymentOf(await render());
    expect(deployment.template.metadata.labels).toMatchObject(deployment.selector.matchLabels);
  });
});

describe('RBAC', () => {
  test("the ClusterRole reads namespaces, reads and watches secrets, creates events and reads this cluster's ID, nothing else", async () => {
    const base = [
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'get', 'patch'] },
    ];
    expect(rulesOf(find(await render(), 'ClusterRole'))).toEqual([
      ...base,
      {
        apiGroups: ['about.k8s.io'],
        resources: ['clusterproperties'],
        resourceNames: ['id.k8s.io'],
        verbs: ['get'],
      },
    ]);
    // A hostId of its own: the cluster's ID is never read.
    expect(rulesOf(find(await render({ hostId: 'host-a' }), 'ClusterRole'))).toEqual(base);
  });

  test('capiClusters, and only it, adds get, list and watch on clusters.cluster.x-k8s.io', async () => {
    const rules = rulesOf(find(await render({ capiClusters: true }), 'ClusterRole'));
    expect(rules.slice(4)).toEqual([
      { apiGroups: ['cluster.x-k8s.io'], resources: ['clusters'], verbs: ['get', 'list', 'watch'] },
    ]);
    const off = rulesOf(find(await render({ capiClusters: false }), 'ClusterRole'));
    expect(off.some((rule) => rule.apiGroups.includes('cluster.x-k8s.io'))).toBe(false);
    expect(containerOf(await render({ capiClusters: true })).args).toContain(
      '--capi-clusters=true',
    );
  });

  test('kamajiSleep and vclusterSleep, and only they, add list and watch on what each reads', async () => {
    const kamaji = rulesOf(find(await render({ kamajiSleep: true }), 'ClusterRole'));
    expect(kamaji.slice(4)).toEqual([
      {
        apiGroups: ['kamaji.clastix.io'],
        resources: ['tenantcontrolplanes'],
        verbs: ['list', 'watch'],
      },
    ]);
    const vcluster = rulesOf(find(await render({ vclusterSleep: true }), 'ClusterRole'));
    expect(vcluster.slice(4)).toEqual([
      { apiGroups: ['apps'], resources: ['statefulsets', 'deployments'], verbs: ['list', 'watch'] },
    ]);
    const off = rulesOf(find(await render({}), 'ClusterRole'));
    expect(
      off.some((rule) => rule.apiGroups.some((g) => g === 'apps' || g === 'kamaji.clastix.io')),
    ).toBe(false);
    const args = containerOf(await render({ kamajiSleep: true, vclusterSleep: true })).args;
    expect(args).toContain('--kamaji-sleep=true');
    expect(args).toContain('--vcluster-sleep=true');
  });

  test('the Role writes secrets in targetNamespace; no leases without leader election', async () => {
    const manifests = await render({ targetNamespace: 'gitops' });
    const role = find(manifests, 'Role');
    expect(role?.metadata.namespace).toBe('gitops');
    expect(rulesOf(role)).toEqual([
      { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'patch', 'delete'] },
    ]);
    expect(containerOf(manifests).args).toContain('--target-namespace=gitops');
  });

  test("leader election adds leases in targetNamespace (get/update only on the daemon's Lease) and allows replicas", async () => {
    const manifests = await render({ leaderElection: { enabled: true }, replicaCount: 3 });
    const rules = rulesOf(find(manifests, 'Role'));
    expect(rules.slice(1)).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: ['argocd-cluster-registrar-cluster-registrar'],
        verbs: ['get', 'update'],
      },
    ]);
    const deployment = deploymentOf(manifests);
    expect(deployment.replicas).toBe(3);
    expect(deployment.strategy.type).toBe('RollingUpdate');
    expect(containerOf(manifests).args).toContain('--leader-elect=true');
  });

  test.each([
    ['argocd-cluster-registrar/', 'cluster-registrar'],
    ['registrar.example.com/', 'Team_A'],
    ['a/', 'x.y'],
    ['x--y.example/', 'A.b__C'],
  ])(
    'the Lease name for prefix %s and managedBy %s is the one the daemon uses',
    async (labelPrefix, managedBy) => {
      const rules = rulesOf(
        find(await render({ labelPrefix, managedBy, leaderElection: { enabled: true } }), 'Role'),
      );
      expect(rules.find((r) => r.resourceNames !== undefined)?.resourceNames).toEqual([
        leaseName({ labelPrefix, managedBy }),
      ]);
    },
  );

  test('bindings name the release ServiceAccount in the release namespace', async () => {
    const manifests = await render();
    for (const kind of ['ClusterRoleBinding', 'RoleBinding']) {
      expect(only(manifests, kind)['subjects']).toEqual([
        { kind: 'ServiceAccount', name: FULLNAME, namespace: RELEASE_NAMESPACE },
      ]);
    }
  });

  test('an existing ServiceAccount is bound, not created', async () => {
    const manifests = await render({ serviceAccount: { create: false, name: 'existing' } });
    expect(find(manifests, 'ServiceAccount')).toBeUndefined();
    expect(deploymentOf(manifests).template.spec.serviceAccountName).toBe('existing');
    expect(only(manifests, 'RoleBinding')['subjects']).toEqual([
      { kind: 'ServiceAccount', name: 'existing', namespace: RELEASE_NAMESPACE },
    ]);
  });
});

describe('options', () => {
  test('registrar settings become flags', async () => {
    const args = containerOf(
      await render({
        labelPrefix: 'registrar.example.com/',
        managedBy: 'team-a',
        interval: '30s',
        demotedTTL: '24h',
        credentialRefreshWindow: '72h',
        dryRun: true,
        debug: true,
        logFormat: 'text',
      }),
    ).args;
    expect(args).toEqual(
      expect.arrayContaining([
        '--label-prefix=registrar.example.com/',
        '--managed-by=team-a',
        '--interval=30s',
        '--demoted-ttl=24h',
        '--credential-refresh-window=72h',
        '--dry-run=true',
        '--debug=true',
        '--log-format=text',
      ]),
    );
  });

  test('providers become repeated --provider flags, in order', async () => {
    const args = containerOf(
      await render({ providers: ['vcluster', 'custom:*-kubeconfig=value,config', 'k3k'] }),
    ).args;
    expect(args.filter((a) => a.startsWith('--provider='))).toEqual([
      '--provider=vcluster',
      '--provider=custom:*-kubeconfig=value,config',
      '--provider=k3k',
    ]);
    expect(args.some((a) => a.startsWith('--secret-'))).toBe(false);
  });

  test('the legacy pair becomes the legacy flags', async () => {
    const args = containerOf(await render({ secretNamePattern: 'vc-*', secretKey: 'config' })).args;
    expect(args).toEqual(
      expect.arrayContaining(['--secret-name-pattern=vc-*', '--secret-key=config']),
    );
    expect(args.some((a) => a.startsWith('--provider'))).toBe(false);
  });

  test('probes and metrics off: empty listen addresses, no ports, no probes', async () => {
    const container = containerOf(
      await render({ probes: { enabled: false }, metrics: { enabled: false } }),
    );
    expect(container.args).toEqual(expect.arrayContaining(['--health-addr=', '--metrics-addr=']));
    expect(container.ports).toBeUndefined();
    expect(container.livenessProbe).toBeUndefined();
    expect(container.readinessProbe).toBeUndefined();
  });

  test('custom ports reach flags, container ports and probes', async () => {
    const container = containerOf(
      await render({ probes: { port: 9440 }, metrics: { port: 9090 } }),
    );
    expect(container.args).toEqual(
      expect.arrayContaining(['--health-addr=:9440', '--metrics-addr=:9090']),
    );
    expect(container.ports).toEqual([
      { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
      { name: 'health', containerPort: 9440, protocol: 'TCP' },
    ]);
  });

  test('health and metrics may share one port', async () => {
    const container = containerOf(
      await render({ probes: { port: 8080 }, metrics: { port: 8080 } }),
    );
    expect(container.args).toEqual(
      expect.arrayContaining(['--health-addr=:8080', '--metrics-addr=:8080']),
    );
    expect(container.ports).toEqual([{ name: 'metrics', containerPort: 8080, protocol: 'TCP' }]);
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 8080 });
  });

  test('metrics Service targets the metrics port', async () => {
    const manifests = await render({
      metrics: {
        service: {
          enabled: true,
          type: 'NodePort',
          port: 9100,
          annotations: { 'prometheus.io/scrape': 'true' },
        },
      },
    });
    const service = only(manifests, 'Service');
    expect(service.metadata.name).toBe('acr-argocd-cluster-registrar-metrics');
    expect(service.metadata.annotations).toEqual({ 'prometheus.io/scrape': 'true' });
    expect(service['spec']).toMatchObject({
      type: 'NodePort',
      ports: [{ name: 'metrics', port: 9100, targetPort: 'metrics', protocol: 'TCP' }],
      selector: deploymentOf(manifests).selector.matchLabels,
    });
  });

  test('image repository, tag, digest and pull policy', async () => {
    expect(
      containerOf(await render({ image: { repository: 'registry.example/acr', tag: 'dev' } }))
        .image,
    ).toBe('registry.example/acr:dev');
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(containerOf(await render({ image: { digest } })).image).toBe(
      `ghcr.io/argocd-cluster-registrar/argocd-cluster-registrar@${digest}`,
    );
    const manifests = await render({
      image: { pullPolicy: 'Always' },
      imagePullSecrets: [{ name: 'pull' }],
    });
    expect(deploymentOf(manifests).template.spec['imagePullSecrets']).toEqual([{ name: 'pull' }]);
    expect(containerOf(manifests)).toMatchObject({ imagePullPolicy: 'Always' });
  });

  test('scheduling and resources pass through', async () => {
    const values = {
      resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '512Mi' } },
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ key: 'infra', operator: 'Exists', effect: 'NoSchedule' }],
      affinity: {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } },
      },
      priorityClassName: 'system-cluster-critical',
    };
    const manifests = await render(values);
    const pod = deploymentOf(manifests).template.spec;
    expect(containerOf(manifests).resources).toEqual(values.resources);
    expect(pod).toMatchObject({
      nodeSelector: values.nodeSelector,
      tolerations: values.tolerations,
      affinity: values.affinity,
      priorityClassName: values.priorityClassName,
    });
  });

  test('commonLabels and commonAnnotations reach every object; the chart keeps its own selector labels', async () => {
    const manifests = await render({
      commonLabels: { team: 'platform', 'app.kubernetes.io/name': 'hijack' },
      commonAnnotations: { owner: 'platform@example.com' },
      metrics: { service: { enabled: true } },
      admissionPolicy: { enabled: true },
    });
    for (const m of manifests) {
      expect(m.metadata.labels?.['team'], `${m.kind} labels`).toBe('platform');
      expect(m.metadata.labels?.['app.kubernetes.io/name'], `${m.kind} name label`).toBe(
        'argocd-cluster-registrar',
      );
      expect(m.metadata.annotations?.['owner'], `${m.kind} annotations`).toBe(
        'platform@example.com',
      );
    }
  });

  test('pod labels and annotations reach the pod template only', async () => {
    const manifests = await render({
      podLabels: { sidecar: 'none' },
      podAnnotations: { 'example.com/scrape': 'yes' },
    });
    const metadata = deploymentOf(manifests).template.metadata;
    expect(metadata.labels['sidecar']).toBe('none');
    expect(metadata.annotations).toEqual({ 'example.com/scrape': 'yes' });
    expect(only(manifests, 'Deployment').metadata.labels?.['sidecar']).toBeUndefined();
  });

  test('serviceAccount name and annotations', async () => {
    const manifests = await render({
      serviceAccount: {
        name: 'registrar',
        annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::1:role/x' },
      },
    });
    const account = only(manifests, 'ServiceAccount');
    expect(account.metadata.name).toBe('registrar');
    expect(account.metadata.annotations).toEqual({
      'eks.amazonaws.com/role-arn': 'arn:aws:iam::1:role/x',
    });
    expect(deploymentOf(manifests).template.spec.serviceAccountName).toBe('registrar');
  });
});

describe('admission policies', () => {
  interface PolicySpec {
    failurePolicy: string;
    matchConstraints: { resourceRules: { resources: string[]; operations: string[] }[] };
    matchConditions?: { name: string; expression: string }[];
    variables: { name: string; expression: string }[];
    validations: { expression: string; messageExpression: string }[];
  }
  const specOf = (manifests: readonly Manifest[], suffix: string): PolicySpec => {
    const policy = find(manifests, 'ValidatingAdmissionPolicy', `${FULLNAME}-${suffix}`);
    if (policy === undefined) throw new Error(`no policy ${suffix}`);
    expect(policy.apiVersion).toBe('admissionregistration.k8s.io/v1');
    return policy['spec'] as PolicySpec;
  };
  const variable = (spec: PolicySpec, name: string): string =>
    spec.variables.find((v) => v.name === name)?.expression ?? '';

  test('both are on by default, each with a binding that denies', async () => {
    const manifests = await render();
    for (const suffix of ['source-keys', 'registrar-writes']) {
      expect(specOf(manifests, suffix).failurePolicy).toBe('Fail');
      expect(
        find(manifests, 'ValidatingAdmissionPolicyBinding', `${FULLNAME}-${suffix}`)?.['spec'],
      ).toEqual({
        policyName: `${FULLNAME}-${suffix}`,
        validationActions: ['Deny'],
      });
    }
  });

  test('each can be turned off on its own', async () => {
    const names = (manifests: readonly Manifest[]): string[] =>
      manifests.filter((m) => m.kind.startsWith('ValidatingAdmission')).map((m) => m.metadata.name);
    expect(names(await render({ admissionPolicy: { enabled: false } }))).toEqual([
      `${FULLNAME}-registrar-writes`,
      `${FULLNAME}-registrar-writes`,
    ]);
    expect(names(await render({ registrarPolicy: { enabled: false } }))).toEqual([
      `${FULLNAME}-source-keys`,
      `${FULLNAME}-source-keys`,
    ]);
  });

  test('the source policy guards every key of the configured prefix on namespaces and Clusters, for the allowed identities', async () => {
    const manifests = await render({
      labelPrefix: 'registrar.example.com/',
      admissionPolicy: {
        allowedUsers: ['oidc:alice'],
        allowedGroups: ['platform-admins'],
        allowedServiceAccounts: [{ namespace: 'argocd', name: 'argocd-application-controller' }],
        validationActions: ['Deny', 'Audit'],
      },
    });
    const spec = specOf(manifests, 'source-keys');
    expect(spec.matchConstraints.resourceRules).toEqual([
      {
        apiGroups: [''],
        apiVersions: ['v1'],
        operations: ['CREATE', 'UPDATE'],
        resources: ['namespaces', 'namespaces/status', 'namespaces/finalize'],
      },
      {
        apiGroups: ['cluster.x-k8s.io'],
        apiVersions: ['*'],
        operations: ['CREATE', 'UPDATE'],
        resources: ['clusters', 'clusters/status'],
      },
    ]);
    expect(variable(spec, 'prefix')).toBe('"registrar.example.com/"');
    const allowed = variable(spec, 'allowed');
    expect(allowed).toContain(
      '["oidc:alice","system:serviceaccount:argocd:argocd-application-controller"]',
    );
    expect(allowed).toContain('["platform-admins"]');
    expect(
      find(manifests, 'ValidatingAdmissionPolicyBinding', `${FULLNAME}-source-keys`)?.['spec'],
    ).toMatchObject({ validationActions: ['Deny', 'Audit'] });
  });

  test("the registrar policy matches only the chart's ServiceAccount and names its owner label and target namespace", async () => {
    const spec = specOf(
      await render({
        labelPrefix: 'registrar.example.com/',
        managedBy: 'team-a',
        targetNamespace: 'gitops',
        serviceAccount: { name: 'registrar' },
      }),
      'registrar-writes',
    );
    expect(spec.matchConstraints.resourceRules).toEqual([
      {
        apiGroups: [''],
        apiVersions: ['v1'],
        operations: ['CREATE', 'UPDATE', 'DELETE'],
        resources: ['secrets'],
      },
    ]);
    expect(spec.matchConditions).toEqual([
      {
        name: 'registrar',
        expression: `request.userInfo.username == "system:serviceaccount:${RELEASE_NAMESPACE}:registrar"`,
      },
    ]);
    expect(variable(spec, 'ownedAfter')).toContain('[?"registrar.example.com/managed-by"]');
    expect(variable(spec, 'ownedAfter')).toContain('== "team-a"');
    expect(spec.validations[0]?.expression).toContain('request.namespace in ["gitops"]');
  });
});
