// The cache must key on everything that changes a translation: the exec gates and allow-lists
// included, or a provider that refuses an exec kubeconfig would hand its refusal to one that
// translates it (and the other way round).
import { describe, expect, it } from 'vitest';
import {
  EMPTY_EXEC_POLICY,
  PROVIDER_PRESETS,
  encodeBase64Text,
  translateSecretKey,
  type ObservedSecret,
} from '@argocd-cluster-registrar/core';
import { createTranslationCache } from './translation-cache.js';

const kubeconfig = [
  'apiVersion: v1',
  'kind: Config',
  'clusters: [{name: c, cluster: {server: "https://eks.example.com"}}]',
  'users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: aws-iam-authenticator, args: [token, -i, prod]}}}]',
  'contexts: [{name: x, context: {cluster: c, user: u}}]',
  'current-context: x',
  '',
].join('\n');

/** The operator allows the cluster name and the server. */
const ALLOWED = {
  ...EMPTY_EXEC_POLICY,
  allowedServers: ['eks.example.com'],
  eksClusterNames: ['prod'],
};

const secret: ObservedSecret = {
  namespace: 'team-a',
  name: 'prod-user-kubeconfig',
  uid: 'uid-1',
  resourceVersion: '1',
  type: 'cluster.x-k8s.io/secret',
  labels: {},
  annotations: {},
  data: { value: encodeBase64Text(kubeconfig) },
};

describe('createTranslationCache', () => {
  it('keeps apart providers that differ only in their exec gates', () => {
    const cache = createTranslationCache(translateSecretKey);
    const gated = PROVIDER_PRESETS['capa-eks'];
    const open = { ...gated, execCredentials: true, execPolicy: ALLOWED };
    expect(cache.translate(secret, 'value', gated).ok).toBe(false);
    expect(cache.translate(secret, 'value', open).ok).toBe(true);
    expect(cache.stats().translations).toBe(2);
  });

  it('keeps apart providers that differ only in their exec allow-lists', () => {
    const cache = createTranslationCache(translateSecretKey);
    const open = { ...PROVIDER_PRESETS['capa-eks'], execCredentials: true };
    expect(cache.translate(secret, 'value', { ...open, execPolicy: ALLOWED }).ok).toBe(true);
    expect(cache.translate(secret, 'value', { ...open, execPolicy: EMPTY_EXEC_POLICY }).ok).toBe(
      false,
    );
    expect(cache.stats().translations).toBe(2);
  });
});
