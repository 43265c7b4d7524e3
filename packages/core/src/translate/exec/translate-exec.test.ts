// Realistic CAPA, CAPZ and GKE user kubeconfig Secrets, translated end to end (Secret →
// `data.config` bytes) into exactly the ArgoCD form intended, and every refusal naming what
// to change.

import { describe, expect, it } from 'vitest';
import { encodeBase64Text } from '../../common/base64.js';
import { parseConfig } from '../../config/config.js';
import { translateSecretKey } from '../providers.js';
import { EXEC_API_VERSIONS } from './exec-block.js';
import { clusterConfigJson } from '../registration.js';
import { argoConfigProblems } from '../../test-fixtures/argo-config-check.js';
import { CA_CERT_PEM } from '../../test-fixtures/certificates.js';
import {
  AKS_SERVER,
  AKS_SERVER_ID,
  capaUserKubeconfig,
  capzUserKubeconfig,
  EKS_SERVER,
  GKE_SERVER,
  gkeUserKubeconfig,
  providerSecret,
} from '../../test-fixtures/cloud-kubeconfigs.js';
import type { ObservedSecret, Provider, TranslationResult } from '../../common/types.js';

const CA_DATA = encodeBase64Text(CA_CERT_PEM);

/**
 * What the operator allows for these clusters: their EKS names, the role, the GKE endpoint
 * (exec-binding.test.ts holds the refusals of everything else).
 */
const ALLOWED = {
  execEksClusterNames: ['prod', 'team-a_prod-control-plane'],
  execEksRoleArns: ['arn:aws:iam::123456789012:role/argocd'],
  execAllowedServers: [GKE_SERVER.replace('https://', '')],
};

/** The providers as parseConfig builds them, so both gates come from real settings. */
function providers(entries: readonly string[], execCredentials = true): readonly Provider[] {
  const result = parseConfig({ providers: entries, execCredentials, ...ALLOWED });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.config.providers;
}

function provider(entry: string, execCredentials = true): Provider {
  const [only] = providers([entry], execCredentials);
  if (only === undefined) throw new Error('no provider');
  return only;
}

const eksSecret = (text = capaUserKubeconfig()): ObservedSecret =>
  providerSecret('team-a', 'prod-user-kubeconfig', text);
const aksSecret = (text = capzUserKubeconfig()): ObservedSecret =>
  providerSecret('team-b', 'prod-aks-kubeconfig-user', text, 'Opaque');
const gkeSecret = (text = gkeUserKubeconfig()): ObservedSecret =>
  providerSecret('team-c', 'prod-gke-user-kubeconfig', text);

function configJson(result: TranslationResult): string {
  if (!result.ok) throw new Error(`${result.refusal.code}: ${result.refusal.message}`);
  expect(argoConfigProblems(result.translation.server, result.translation.config)).toEqual([]);
  expect(result.translation.credential).toBe('exec');
  // No certificate, so no expiry to report: ArgoCD fetches short-lived tokens itself.
  expect(result.translation.clientCertificate).toBeUndefined();
  return clusterConfigJson(result.translation.config);
}

function refusal(result: TranslationResult): { code: string; message: string } {
  if (result.ok) throw new Error('expected a refusal');
  return result.refusal;
}

describe('capa-eks', () => {
  const eks = provider('capa-eks');

  it('translates CAPA aws-iam-authenticator into awsAuthConfig', () => {
    const result = translateSecretKey(eksSecret(), 'value', eks);
    expect(result.ok && result.translation.server).toBe(EKS_SERVER);
    expect(JSON.parse(configJson(result))).toEqual({
      tlsClientConfig: { insecure: false, caData: CA_DATA },
      awsAuthConfig: { clusterName: 'team-a_prod-control-plane' },
    });
  });

  it('translates aws eks get-token with a role into awsAuthConfig with roleARN', () => {
    const text = capaUserKubeconfig('prod', [
      'apiVersion: client.authentication.k8s.io/v1beta1',
      'args: [eks, get-token, --cluster-name, prod, --role-arn, "arn:aws:iam::123456789012:role/argocd"]',
      'command: aws',
    ]);
    expect(configJson(translateSecretKey(eksSecret(text), 'value', eks))).toBe(
      `{"tlsClientConfig":{"insecure":false,"caData":"${CA_DATA}"},"awsAuthConfig":{"clusterName":"prod","roleARN":"arn:aws:iam::123456789012:role/argocd"}}`,
    );
  });

  it('accepts the exec API versions client-go still runs, and refuses v1alpha1 as the adapter does', () => {
    const withVersion = (apiVersion: string): TranslationResult =>
      translateSecretKey(
        eksSecret(
          capaUserKubeconfig('prod', [
            `apiVersion: ${apiVersion}`,
            'args: [eks, get-token, --cluster-name, prod]',
            'command: aws',
          ]),
        ),
        'value',
        eks,
      );
    for (const version of EXEC_API_VERSIONS) expect(withVersion(version).ok, version).toBe(true);
    // Removed in Kubernetes 1.24: client-go (and the adapter, for the host) no longer runs it.
    const refused = withVersion('client.authentication.k8s.io/v1alpha1');
    expect(refused.ok || refused.refusal.code).toBe('exec-unsupported');
    expect(refused.ok || refused.refusal.message).toContain(
      'names apiVersion "client.authentication.k8s.io/v1alpha1"',
    );
  });

  it('carries a region, which awsAuthConfig cannot, as the same command with AWS_REGION', () => {
    const text = capaUserKubeconfig('prod', [
      'apiVersion: client.authentication.k8s.io/v1beta1',
      'args: [--region, eu-west-1, eks, get-token, --cluster-name=prod, --role-arn, "arn:aws:iam::123456789012:role/argocd"]',
      'command: aws',
    ]);
    expect(JSON.parse(configJson(translateSecretKey(eksSecret(text), 'value', eks)))).toEqual({
      tlsClientConfig: { insecure: false, caData: CA_DATA },
      execProviderConfig: {
        command: 'argocd-k8s-auth',
        args: [
          'aws',
          '--cluster-name',
          'prod',
          '--role-arn',
          'arn:aws:iam::123456789012:role/argocd',
        ],
        env: { AWS_REGION: 'eu-west-1' },
        apiVersion: 'client.authentication.k8s.io/v1beta1',
      },
    });
  });

  it('reads the region from AWS_REGION in the exec env, and -r as the role', () => {
    const text = capaUserKubeconfig('prod', [
      'args: [token, -i, prod, -r, "arn:aws:iam::123456789012:role/argocd"]',
      'command: aws-iam-authenticator',
      'env: [{name: AWS_REGION, value: us-east-2}]',
    ]);
    expect(JSON.parse(configJson(translateSecretKey(eksSecret(text), 'value', eks)))).toMatchObject(
      {
        execProviderConfig: {
          args: [
            'aws',
            '--cluster-name',
            'prod',
            '--role-arn',
            'arn:aws:iam::123456789012:role/argocd',
          ],
          env: { AWS_REGION: 'us-east-2' },
        },
      },
    );
  });

  it.each([
    ['AWS_PROFILE', 'ops'],
    ['AWS_ACCESS_KEY_ID', 'AKIAEXAMPLE'],
    ['AWS_SECRET_ACCESS_KEY', 'secret'],
    ['AWS_ROLE_ARN', 'arn:aws:iam::123456789012:role/other'],
  ])('refuses env %s, which would change the identity, naming it', (name, value) => {
    const text = capaUserKubeconfig('prod', [
      'args: [token, -i, prod]',
      'command: aws-iam-authenticator',
      `env: [{name: ${name}, value: ${value}}]`,
    ]);
    const { code, message } = refusal(translateSecretKey(eksSecret(text), 'value', eks));
    expect(code).toBe('exec-unsupported');
    expect(message).toMatch(
      new RegExp(
        `^namespace team-a, Secret prod-user-kubeconfig key value: .*sets env ${name}, which would change the AWS identity`,
      ),
    );
    expect(message).toContain(`remove env ${name} from the exec block`);
    expect(message).not.toContain(value);
  });

  it.each([
    ['--profile', 'args: [eks, get-token, --cluster-name, prod, --profile, ops]', 'aws'],
    [
      '--endpoint-url',
      'args: [eks, get-token, --cluster-name, prod, --endpoint-url, "https://x"]',
      'aws',
    ],
    ['--external-id', 'args: [token, -i, prod, --external-id, x]', 'aws-iam-authenticator'],
    ['--region', 'args: [token, -i, prod, --region, eu-west-1]', 'aws-iam-authenticator'],
  ])('refuses the unknown flag %s, naming it', (flag, args, command) => {
    const text = capaUserKubeconfig('prod', [args, `command: ${command}`]);
    const { code, message } = refusal(translateSecretKey(eksSecret(text), 'value', eks));
    expect(code).toBe('exec-unsupported');
    expect(message).toContain(`is given ${flag}, which the EKS translation does not know`);
    expect(message).toContain(`remove ${flag} from the exec args`);
  });

  it.each([
    ['a missing cluster name', 'args: [token]', 'names no EKS cluster'],
    [
      'another subcommand',
      'args: [verify, -i, prod]',
      'is given the arguments "verify", not aws-iam-authenticator token',
    ],
    [
      'a malformed role',
      'args: [token, -i, prod, -r, admin]',
      'assumes role "admin", which is not an IAM role ARN',
    ],
    ['a flag without its value', 'args: [token, -i]', 'end with -i but give it no value'],
  ])('refuses %s', (_, args, expected) => {
    const text = capaUserKubeconfig('prod', [args, 'command: aws-iam-authenticator']);
    expect(refusal(translateSecretKey(eksSecret(text), 'value', eks)).message).toContain(expected);
  });

  it('refuses a kubelogin plugin, pointing at capz-aks', () => {
    const { code, message } = refusal(
      translateSecretKey(eksSecret(capzUserKubeconfig()), 'value', eks),
    );
    expect(code).toBe('exec-unsupported');
    expect(message).toContain(
      'runs "kubelogin", which provider capa-eks does not translate (it translates aws-iam-authenticator token and aws eks get-token); use the capz-aks provider for it',
    );
  });

  it('refuses a command given by path and an exec field it does not know', () => {
    const byPath = capaUserKubeconfig('prod', [
      'args: [token, -i, prod]',
      'command: /usr/local/bin/aws-iam-authenticator',
    ]);
    expect(refusal(translateSecretKey(eksSecret(byPath), 'value', eks)).message).toContain(
      'runs "/usr/local/bin/aws-iam-authenticator", which provider capa-eks does not translate',
    );
    const extra = capaUserKubeconfig('prod', [
      'args: [token, -i, prod]',
      'command: aws-iam-authenticator',
      'config: {a: b}',
    ]);
    expect(refusal(translateSecretKey(eksSecret(extra), 'value', eks)).message).toContain(
      'sets "config", which the translation does not know; remove "config" from the exec block',
    );
  });

  it('refuses an exec plugin next to a token, which kubectl would use instead', () => {
    const text = capaUserKubeconfig().replace('    exec:', '    token: abc\n    exec:');
    expect(refusal(translateSecretKey(eksSecret(text), 'value', eks))).toEqual({
      code: 'exec-unsupported',
      message:
        'namespace team-a, Secret prod-user-kubeconfig key value: user "team-a_prod-control-plane-user" has an exec plugin and also a client certificate, token or password, which kubectl would use instead; keep one of them',
    });
  });
});

describe('capz-aks', () => {
  const aks = provider('capz-aks');

  it("translates AKS's kubelogin get-token into argocd-k8s-auth azure with the server id and environment", () => {
    const result = translateSecretKey(aksSecret(), 'value', aks);
    expect(result.ok && result.translation.server).toBe(AKS_SERVER);
    expect(configJson(result)).toBe(
      JSON.stringify({
        tlsClientConfig: { insecure: false, caData: CA_DATA },
        execProviderConfig: {
          command: 'argocd-k8s-auth',
          args: ['azure'],
          env: {
            AAD_ENVIRONMENT_NAME: 'AzurePublicCloud',
            AAD_SERVER_APPLICATION_ID: AKS_SERVER_ID,
          },
          apiVersion: 'client.authentication.k8s.io/v1beta1',
        },
      }),
    );
  });

  it('leaves the kubeconfig user’s own sign-in (--login, --client-id, --tenant-id) out', () => {
    const result = translateSecretKey(aksSecret(), 'value', aks);
    const json = configJson(result);
    for (const left of [
      'devicecode',
      '80faf920',
      '72f988bf',
      'AZURE_CLIENT_ID',
      'AZURE_TENANT_ID',
      'AAD_LOGIN_METHOD',
    ])
      expect(json).not.toContain(left);
  });

  it.each(['--client-secret', '--federated-token-file', '--username'])(
    'refuses %s, which carries or selects an identity',
    (flag) => {
      const text = capzUserKubeconfig([
        `args: [get-token, --server-id, ${AKS_SERVER_ID}, ${flag}, x]`,
        'command: kubelogin',
      ]);
      const { code, message } = refusal(translateSecretKey(aksSecret(text), 'value', aks));
      expect(code).toBe('exec-unsupported');
      expect(message).toMatch(/^namespace team-b, Secret prod-aks-kubeconfig-user key value: /);
      expect(message).toContain(`is given ${flag}, which carries or selects an Azure identity`);
      expect(message).toContain(`remove ${flag} from the exec args`);
    },
  );

  it('refuses env AZURE_CLIENT_SECRET, naming it but not its value', () => {
    const text = capzUserKubeconfig([
      `args: [get-token, --server-id, ${AKS_SERVER_ID}]`,
      'command: kubelogin',
      'env: [{name: AZURE_CLIENT_SECRET, value: s3cr3t}]',
    ]);
    const { message } = refusal(translateSecretKey(aksSecret(text), 'value', aks));
    expect(message).toContain(
      'sets env AZURE_CLIENT_SECRET, which would change the Azure identity',
    );
    expect(message).not.toContain('s3cr3t');
  });

  it.each([
    [
      '--pop-enabled',
      'args: [get-token, --pop-enabled]',
      'is given --pop-enabled, which the AKS translation does not know',
    ],
    [
      'an unknown environment',
      'args: [get-token, -e, AzureStackCloud]',
      'is given --environment "AzureStackCloud"',
    ],
    [
      'a server id that is no GUID',
      'args: [get-token, --server-id, "spn:abc"]',
      'is given --server-id "spn:abc", which is not an application id',
    ],
    [
      'an unknown login',
      'args: [get-token, -l, magic]',
      'uses login "magic", which kubelogin does not know',
    ],
    [
      'convert-kubeconfig',
      'args: [convert-kubeconfig]',
      'is given the arguments "convert-kubeconfig", not kubelogin get-token',
    ],
  ])('refuses %s', (_, args, expected) => {
    const text = capzUserKubeconfig([args, 'command: kubelogin']);
    expect(refusal(translateSecretKey(aksSecret(text), 'value', aks)).message).toContain(expected);
  });
});

describe('gke', () => {
  const gke = provider('gke');

  it('translates gke-gcloud-auth-plugin into argocd-k8s-auth gcp', () => {
    const result = translateSecretKey(gkeSecret(), 'value', gke);
    expect(result.ok && result.translation.server).toBe(GKE_SERVER);
    expect(configJson(result)).toBe(
      `{"tlsClientConfig":{"insecure":false,"caData":"${CA_DATA}"},"execProviderConfig":{"command":"argocd-k8s-auth","args":["gcp"],"apiVersion":"client.authentication.k8s.io/v1beta1"}}`,
    );
  });

  it('accepts --use_application_default_credentials, what argocd-k8s-auth gcp always uses', () => {
    const text = gkeUserKubeconfig([
      'args: [--use_application_default_credentials]',
      'command: gke-gcloud-auth-plugin',
    ]);
    expect(JSON.parse(configJson(translateSecretKey(gkeSecret(text), 'value', gke)))).toMatchObject(
      {
        execProviderConfig: { args: ['gcp'] },
      },
    );
  });

  it('refuses other args and any env, naming them', () => {
    const args = gkeUserKubeconfig([
      'args: [--impersonate_service_account, x]',
      'command: gke-gcloud-auth-plugin',
    ]);
    expect(refusal(translateSecretKey(gkeSecret(args), 'value', gke)).message).toContain(
      'is given --impersonate_service_account, which the GKE translation does not know',
    );
    const env = gkeUserKubeconfig([
      'command: gke-gcloud-auth-plugin',
      'env: [{name: CLOUDSDK_CORE_ACCOUNT, value: x}]',
    ]);
    expect(refusal(translateSecretKey(gkeSecret(env), 'value', gke)).message).toContain(
      'sets env CLOUDSDK_CORE_ACCOUNT, which could change the Google identity',
    );
  });
});

describe('custom providers with ;exec', () => {
  it('translate the plugin of each cloud, picked by its command', () => {
    const custom = provider('custom:prod-*=value;exec');
    for (const secret of [eksSecret(), aksSecret(), gkeSecret()]) {
      const result = translateSecretKey(secret, 'value', custom);
      expect(result.ok, secret.name).toBe(true);
    }
  });
});
