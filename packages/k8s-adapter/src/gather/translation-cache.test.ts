// The cache must key on everything that changes a translation: the exec gates included, or
// a provider that refuses an exec kubeconfig would hand its refusal to one that translates it.
import { describe, expect, it } from 'vitest';
import {
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
    const open = { ...gated, execCredentials: true };
    expect(cache.translate(secret, 'value', gated).ok).toBe(false);
    expect(cache.translate(secret, 'value', open).ok).toBe(true);
    expect(cache.stats().misses).toBe(2);
  });
});
