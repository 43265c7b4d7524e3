// Exec credentials end to end: the user kubeconfig Secrets the managed-cluster providers write
// (CAPA's EKS, CAPZ's AKS, GKE's), one `--once` pass with --exec-credentials and the matching
// presets and the operator's allow-lists, and ArgoCD's own code (tools/argocd's check-secrets:
// SecretToCluster, RawRestConfig) judging every registration written and printing the exec
// provider it would run. With either gate off, the same Secrets are refused and nothing is
// written; a hostile exec Secret is refused by name while its neighbour registers.

import { beforeAll, describe, expect, it } from 'vitest';
import { checkClusterSecrets } from '@argocd-cluster-registrar/testkit';
import type { ArgoVerdict } from '@argocd-cluster-registrar/testkit';
import {
  PREFIX,
  childCredentials,
  createSourceNamespace,
  createWorld,
  decoded,
  outcomeOf,
  planJson,
  putSecret,
  targetSecrets,
} from '../test-support/e2e.js';
import type { JsonPlan, World } from '../test-support/e2e.js';

const V1BETA1 = 'client.authentication.k8s.io/v1beta1';
const ROLE = 'arn:aws:iam::123456789012:role/argocd';
const AKS_SERVER_ID = '6dae42f8-4368-4678-94ff-3960e28e3630';
const PRESETS = ['--provider=capa-eks', '--provider=capz-aks', '--provider=gke'];
/** What the operator allows: these EKS clusters and role, and the GKE endpoint. */
const ALLOWED = [
  '--exec-eks-cluster-names=team-a_*',
  '--exec-eks-cluster-names=prod',
  `--exec-eks-role-arns=${ROLE}`,
  '--exec-allowed-servers=34.77.120.15',
];
const EXEC_ON = ['--exec-credentials', ...PRESETS, ...ALLOWED];

/** A user kubeconfig as clientcmd.Write prints it, with the provider's exec block. */
function userKubeconfig(world: World, server: string, user: string, exec: readonly string[]) {
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${childCredentials(world.child).caData}`,
    `    server: ${server}`,
    '  name: managed',
    'contexts:',
    '- context:',
    '    cluster: managed',
    `    user: ${user}`,
    `  name: ${user}@managed`,
    `current-context: ${user}@managed`,
    'kind: Config',
    'preferences: {}',
    'users:',
    `- name: ${user}`,
    '  user:',
    '    exec:',
    ...exec.map((line) => `      ${line}`),
    '',
  ].join('\n');
}

interface Source {
  readonly cluster: string;
  readonly secretName: string;
  readonly secretType?: string;
  readonly server: string;
  readonly exec: readonly string[];
}

// What CAPA, CAPZ and GKE write (the core's exec-credentials tests hold the same shapes).
const SOURCES: readonly Source[] = [
  {
    cluster: 'eks-authenticator',
    secretName: 'eks-authenticator-user-kubeconfig',
    secretType: 'cluster.x-k8s.io/secret',
    server: 'https://0A1B2C3D4E5F60718293A4B5C6D7E8F9.gr7.eu-west-1.eks.amazonaws.com',
    exec: [
      `apiVersion: ${V1BETA1}`,
      'args:',
      '- token',
      '- -i',
      '- team-a_eks-authenticator-control-plane',
      '- -r',
      `- ${ROLE}`,
      'command: aws-iam-authenticator',
      'env: null',
      'interactiveMode: IfAvailable',
      'provideClusterInfo: false',
    ],
  },
  {
    cluster: 'eks-get-token',
    secretName: 'eks-get-token-user-kubeconfig',
    secretType: 'cluster.x-k8s.io/secret',
    server: 'https://1B2C3D4E5F60718293A4B5C6D7E8F90A.gr7.eu-west-1.eks.amazonaws.com',
    exec: [
      `apiVersion: ${V1BETA1}`,
      'args:',
      '- eks',
      '- get-token',
      '- --cluster-name',
      '- team-a_eks-get-token-control-plane',
      'command: aws',
      'env: null',
      'interactiveMode: IfAvailable',
      'provideClusterInfo: false',
    ],
  },
  {
    cluster: 'eks-region',
    secretName: 'eks-region-user-kubeconfig',
    secretType: 'cluster.x-k8s.io/secret',
    server: 'https://2C3D4E5F60718293A4B5C6D7E8F90A1B.gr7.us-east-2.eks.amazonaws.com',
    exec: [
      `apiVersion: ${V1BETA1}`,
      `args: [--region, us-east-2, eks, get-token, --cluster-name, prod, --role-arn, "${ROLE}"]`,
      'command: aws',
    ],
  },
  {
    cluster: 'aks',
    secretName: 'aks-kubeconfig-user',
    server: 'https://prod-aks-4f2a1c.hcp.westeurope.azmk8s.io:443',
    exec: [
      `apiVersion: ${V1BETA1}`,
      'args:',
      '- get-token',
      '- --environment',
      '- AzurePublicCloud',
      '- --server-id',
      `- ${AKS_SERVER_ID}`,
      '- --client-id',
      '- 80faf920-1908-4b52-b5ef-a8e7bedfc67a',
      '- --tenant-id',
      '- 72f988bf-86f1-41af-91ab-2d7cd011db47',
      '- --login',
      '- devicecode',
      'command: kubelogin',
      'env: null',
      'installHint: |2',
      '',
      '  kubelogin is not installed which is required to connect to AAD enabled cluster.',
      '',
      '  To learn more, please go to https://aka.ms/aks/kubelogin',
      'provideClusterInfo: false',
    ],
  },
  {
    cluster: 'gke',
    secretName: 'gke-user-kubeconfig',
    secretType: 'cluster.x-k8s.io/secret',
    server: 'https://34.77.120.15',
    exec: [
      `apiVersion: ${V1BETA1}`,
      'command: gke-gcloud-auth-plugin',
      'installHint: Install gke-gcloud-auth-plugin for use with kubectl by following',
      '  https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin',
      'provideClusterInfo: true',
    ],
  },
];

/** One source namespace per Source, each with its provider's Secret; namespace by cluster. */
async function sourceNamespaces(world: World): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const source of SOURCES) {
    const ns = await createSourceNamespace(world, { cluster: source.cluster });
    const name = ns.metadata?.name ?? '';
    await putSecret(
      world.hostApi,
      name,
      source.secretName,
      { value: userKubeconfig(world, source.server, `${source.cluster}-user`, source.exec) },
      source.secretType,
    );
    names.set(source.cluster, name);
  }
  return names;
}

async function registrationNames(world: World): Promise<string[]> {
  return [...(await targetSecrets(world)).keys()].filter((n) => n.startsWith('cluster-')).sort();
}

describe('exec presets through ArgoCD’s own parser', () => {
  let world: World;
  let verdicts: Map<string, ArgoVerdict>;

  beforeAll(async () => {
    world = await createWorld();
    await sourceNamespaces(world);
    const { plan } = await planJson(world, { extra: EXEC_ON });
    expect(plan.outcomes.map((o) => [o.cluster, o.state]).sort()).toEqual(
      SOURCES.map((s) => [s.cluster, 'registered']).sort(),
    );
    const list = await checkClusterSecrets(world.host, [world.target], {
      [`${PREFIX}managed-by`]: world.managedBy,
    });
    verdicts = new Map(list.map((v) => [v.secret, v]));
  });

  it('writes one registration per source, every one accepted by ArgoCD', () => {
    expect([...verdicts.keys()].sort()).toEqual(SOURCES.map((s) => `cluster-${s.cluster}`).sort());
    for (const source of SOURCES) {
      expect(verdicts.get(`cluster-${source.cluster}`)).toMatchObject({
        accepted: true,
        name: source.cluster,
        server: source.server,
      });
    }
  });

  // ArgoCD turns awsAuthConfig into this exec provider itself (RawRestConfig).
  it('CAPA aws-iam-authenticator with a role: argocd-k8s-auth aws with the EKS name and role', () => {
    expect(verdicts.get('cluster-eks-authenticator')?.exec).toEqual({
      command: 'argocd-k8s-auth',
      args: ['aws', '--cluster-name', 'team-a_eks-authenticator-control-plane', '--role-arn', ROLE],
      env: {},
      apiVersion: V1BETA1,
    });
  });

  it('CAPA aws eks get-token: argocd-k8s-auth aws with the EKS name', () => {
    expect(verdicts.get('cluster-eks-get-token')?.exec).toEqual({
      command: 'argocd-k8s-auth',
      args: ['aws', '--cluster-name', 'team-a_eks-get-token-control-plane'],
      env: {},
      apiVersion: V1BETA1,
    });
  });

  it('aws --region: the same command with AWS_REGION, which awsAuthConfig cannot carry', () => {
    expect(verdicts.get('cluster-eks-region')?.exec).toEqual({
      command: 'argocd-k8s-auth',
      args: ['aws', '--cluster-name', 'prod', '--role-arn', ROLE],
      env: { AWS_REGION: 'us-east-2' },
      apiVersion: V1BETA1,
    });
  });

  it('CAPZ kubelogin: argocd-k8s-auth azure with the AAD server id and environment, not the user’s sign-in', () => {
    expect(verdicts.get('cluster-aks')?.exec).toEqual({
      command: 'argocd-k8s-auth',
      args: ['azure'],
      env: {
        AAD_ENVIRONMENT_NAME: 'AzurePublicCloud',
        AAD_SERVER_APPLICATION_ID: AKS_SERVER_ID,
      },
      apiVersion: V1BETA1,
    });
  });

  it('GKE gke-gcloud-auth-plugin: argocd-k8s-auth gcp', () => {
    expect(verdicts.get('cluster-gke')?.exec).toEqual({
      command: 'argocd-k8s-auth',
      args: ['gcp'],
      env: {},
      apiVersion: V1BETA1,
    });
  });
});

describe('exec gates', () => {
  function refusedForExec(plan: JsonPlan, namespaces: Map<string, string>, hint: string) {
    for (const [cluster, namespace] of namespaces) {
      const outcome = outcomeOf(plan, namespace);
      expect({ cluster, state: outcome?.state }).toEqual({ cluster, state: 'refused' });
      expect(outcome?.reason?.code).toBe('exec-plugin');
      expect(outcome?.reason?.message).toContain(hint);
    }
  }

  it('with either gate off, refuses every exec kubeconfig and writes nothing; with both on, registers', async () => {
    const world = await createWorld();
    const namespaces = await sourceNamespaces(world);

    const globalOff = await planJson(world, { extra: PRESETS, allowCodes: [0, 1] });
    refusedForExec(
      globalOff.plan,
      namespaces,
      '--exec-credentials (chart value execCredentials) is off',
    );
    expect(globalOff.plan.actions).toEqual([]);
    expect(await registrationNames(world)).toEqual([]);

    // The same globs and keys as the presets, but custom providers that did not opt in (;exec).
    const customs = [
      '--provider=custom:*-user-kubeconfig=value',
      '--provider=custom:*-kubeconfig-user=value',
    ];
    const providerOff = await planJson(world, {
      extra: ['--exec-credentials', ...customs],
      allowCodes: [0, 1],
    });
    refusedForExec(providerOff.plan, namespaces, 'does not allow exec translation');
    expect(providerOff.plan.actions).toEqual([]);
    expect(await registrationNames(world)).toEqual([]);

    await planJson(world, { extra: EXEC_ON });
    expect(await registrationNames(world)).toEqual(
      SOURCES.map((s) => `cluster-${s.cluster}`).sort(),
    );
  });
});

describe('a hostile exec Secret', () => {
  it('is refused by name, whatever steers the token elsewhere, while its neighbour registers', async () => {
    const world = await createWorld();
    const [eks] = SOURCES;
    if (eks === undefined) throw new Error('no EKS source');
    const source = async (
      cluster: string,
      server: string,
      annotations?: Record<string, string>,
    ): Promise<string> => {
      const ns = await createSourceNamespace(world, {
        cluster,
        ...(annotations === undefined ? {} : { annotations }),
      });
      const name = ns.metadata?.name ?? '';
      const text = userKubeconfig(world, server, 'user', eks.exec);
      await putSecret(world.hostApi, name, eks.secretName, { value: text }, eks.secretType);
      return name;
    };
    const neighbour = await source('neighbour', eks.server);
    const elsewhere = await source('elsewhere', 'https://attacker.example');
    const plain = await source('plain', eks.server.replace('https:', 'http:'));
    const overridden = await source('overridden', eks.server, {
      [`${PREFIX}server`]: 'https://attacker.example',
    });

    const { plan } = await planJson(world, { extra: EXEC_ON, allowCodes: [0, 1] });
    expect(outcomeOf(plan, neighbour)?.state).toBe('registered');
    for (const [namespace, code, says] of [
      [elsewhere, 'exec-not-allowed', 'which is not an EKS endpoint'],
      [plain, 'exec-not-allowed', 'uses http://'],
      [overridden, 'server-override-invalid', 'does not apply to an exec registration'],
    ] as const) {
      const outcome = outcomeOf(plan, namespace);
      expect({ namespace, state: outcome?.state, code: outcome?.reason?.code }).toEqual({
        namespace,
        state: 'refused',
        code,
      });
      expect(outcome?.reason?.message).toContain(namespace);
      expect(outcome?.reason?.message).toContain(says);
    }
    expect(await registrationNames(world)).toEqual(['cluster-neighbour']);
    const written = [...(await targetSecrets(world)).values()].flatMap((secret) =>
      Object.keys(secret.data ?? {}).map((key) => decoded(secret, key) ?? ''),
    );
    expect(written.join('\n')).not.toContain('attacker');
  });
});
