// The checker is ArgoCD's own code: it accepts what ArgoCD can use and refuses, with ArgoCD's
// reason, what it cannot. Secrets are handed over as `kubectl get -o json` would print them.

import { describe, expect, it } from 'vitest';
import { argoVerdicts } from './argocd-check.js';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

function clusterSecret(name: string, server: string, config: object): object {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: 'argocd',
      labels: { 'argocd.argoproj.io/secret-type': 'cluster' },
    },
    data: { name: b64(name), server: b64(server), config: b64(JSON.stringify(config)) },
  };
}

const list = (...items: object[]): string =>
  JSON.stringify({ apiVersion: 'v1', kind: 'List', items });

describe('argocd check-secrets', () => {
  it("accepts a bearer-token registration and refuses broken ones with ArgoCD's reason", async () => {
    const verdicts = await argoVerdicts(
      list(
        clusterSecret('good', 'https://good.example:6443', {
          bearerToken: 'x',
          tlsClientConfig: { insecure: true },
        }),
        clusterSecret('bad-ca', 'https://bad.example:6443', {
          bearerToken: 'x',
          tlsClientConfig: { insecure: false, caData: b64('not a certificate') },
        }),
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'bad-json', namespace: 'argocd' },
          data: { name: b64('x'), server: b64('https://x.example'), config: b64('{') },
        },
      ),
    );
    expect(verdicts.map((v) => [v.secret, v.accepted])).toEqual([
      ['good', true],
      ['bad-ca', false],
      ['bad-json', false],
    ]);
    expect(verdicts[0]).toMatchObject({ server: 'https://good.example:6443', name: 'good' });
    expect(verdicts[1]?.error).toMatch(/^TLSConfigFor: /);
    expect(verdicts[2]?.error).toMatch(/^SecretToCluster: /);
    // No credential is ever echoed.
    expect(JSON.stringify(verdicts)).not.toContain('bearerToken');
  });

  it('judges a single Secret too', async () => {
    const verdicts = await argoVerdicts(
      JSON.stringify(
        clusterSecret('one', 'https://one.example', { tlsClientConfig: { insecure: true } }),
      ),
    );
    expect(verdicts).toEqual([
      {
        namespace: 'argocd',
        secret: 'one',
        accepted: true,
        server: 'https://one.example',
        name: 'one',
      },
    ]);
  });

  it('prints the exec provider ArgoCD derives, from execProviderConfig and from awsAuthConfig', async () => {
    const tls = { insecure: true };
    const verdicts = await argoVerdicts(
      list(
        clusterSecret('azure', 'https://a.example', {
          tlsClientConfig: tls,
          execProviderConfig: {
            command: 'argocd-k8s-auth',
            args: ['azure'],
            env: { AAD_ENVIRONMENT_NAME: 'AzurePublicCloud' },
            apiVersion: 'client.authentication.k8s.io/v1beta1',
          },
        }),
        clusterSecret('eks', 'https://e.example', {
          tlsClientConfig: tls,
          awsAuthConfig: { clusterName: 'prod', roleARN: 'arn:aws:iam::1:role/r' },
        }),
      ),
    );
    expect(verdicts.map((v) => v.exec)).toEqual([
      {
        command: 'argocd-k8s-auth',
        args: ['azure'],
        env: { AAD_ENVIRONMENT_NAME: 'AzurePublicCloud' },
        apiVersion: 'client.authentication.k8s.io/v1beta1',
      },
      {
        command: 'argocd-k8s-auth',
        args: ['aws', '--cluster-name', 'prod', '--role-arn', 'arn:aws:iam::1:role/r'],
        env: {},
        apiVersion: 'client.authentication.k8s.io/v1beta1',
      },
    ]);
  });
});
