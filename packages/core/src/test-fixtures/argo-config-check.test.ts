// The checker itself: it must reject what ArgoCD (or client-go under it) would reject or
// silently ignore in the exec forms, or the properties that lean on it prove nothing.

import { describe, expect, it } from 'vitest';
import type { ArgoClusterConfig } from '../common/types.js';
import { argoConfigProblems } from './argo-config-check.js';

const SERVER = 'https://api.example.com';
const TLS = { insecure: false } as const;
const EXEC = {
  command: 'argocd-k8s-auth',
  args: ['gcp'],
  apiVersion: 'client.authentication.k8s.io/v1beta1',
} as const;

const problems = (config: unknown): string[] =>
  argoConfigProblems(SERVER, config as ArgoClusterConfig);

describe('argoConfigProblems, exec forms', () => {
  it('accepts each form alone', () => {
    expect(problems({ tlsClientConfig: TLS, awsAuthConfig: { clusterName: 'prod' } })).toEqual([]);
    expect(problems({ tlsClientConfig: TLS, execProviderConfig: EXEC })).toEqual([]);
  });

  it.each([
    [
      'both forms (ArgoCD ignores execProviderConfig)',
      { awsAuthConfig: { clusterName: 'p' }, execProviderConfig: EXEC },
      'awsAuthConfig together with execProviderConfig (ArgoCD ignores the latter)',
    ],
    [
      'an exec form next to a token',
      { bearerToken: 't', execProviderConfig: EXEC },
      '2 credential forms',
    ],
    [
      'an empty cluster name',
      { awsAuthConfig: { clusterName: '' } },
      'awsAuthConfig.clusterName is empty or not a string',
    ],
    [
      'an unknown aws key',
      { awsAuthConfig: { clusterName: 'p', region: 'x' } },
      'unknown awsAuthConfig key region',
    ],
    [
      'a removed apiVersion',
      { execProviderConfig: { ...EXEC, apiVersion: 'client.authentication.k8s.io/v1alpha1' } },
      'execProviderConfig.apiVersion client.authentication.k8s.io/v1alpha1 is not one client-go accepts',
    ],
    [
      'env as a list',
      { execProviderConfig: { ...EXEC, env: [{ name: 'A', value: 'b' }] } },
      'execProviderConfig.env is not a map of strings',
    ],
    [
      'no command',
      { execProviderConfig: { ...EXEC, command: '' } },
      'execProviderConfig.command is empty or not a string',
    ],
  ])('rejects %s', (_, fields, expected) => {
    expect(problems({ tlsClientConfig: TLS, ...fields })).toContain(expected);
  });
});
