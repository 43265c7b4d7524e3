// The point of a registration: ArgoCD can use it. These tests take the credentials out of the
// registration Secret the CLI wrote and authenticate against the child plane's API server
// with plain Node https, as ArgoCD would with its ClusterConfig.

import { describe, expect, it } from 'vitest';
import { coreApi, mintToken, rbacApi, uniqueName } from '@argocd-cluster-registrar/testkit';
import {
  applyOnce,
  clusterConfig,
  createSourceNamespace,
  useWorld,
  decoded,
  kubeconfigYaml,
  putK3kKubeconfig,
  registration,
  whoAmI,
} from '../test-support/e2e.js';

const { world } = useWorld();

describe('registered credentials authenticate against the child API server', () => {
  it('client certificate variant', async () => {
    const ns = await createSourceNamespace(world, { cluster: 'cert' });
    await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfigYaml(world.child));
    await applyOnce(world);

    const secret = await registration(world, 'cert');
    const config = clusterConfig(secret);
    expect(config.bearerToken).toBeUndefined();
    expect(config.tlsClientConfig.certData).toBeDefined();
    expect(await whoAmI(decoded(secret, 'server') ?? '', config)).toEqual({
      status: 201,
      username: 'acr-admin',
    });

    // And the registration's CA is what makes the TLS handshake verify: without it, it fails.
    const withoutCa = {
      ...config,
      tlsClientConfig: {
        insecure: false,
        ...(config.tlsClientConfig.certData !== undefined
          ? { certData: config.tlsClientConfig.certData }
          : {}),
        ...(config.tlsClientConfig.keyData !== undefined
          ? { keyData: config.tlsClientConfig.keyData }
          : {}),
      },
    };
    await expect(whoAmI(decoded(secret, 'server') ?? '', withoutCa)).rejects.toThrow();
  });

  it('ServiceAccount token variant', async () => {
    // A ServiceAccount on the child, allowed to read namespaces, and a TokenRequest token for it.
    const saNamespace = uniqueName('argocd-manager');
    const child = coreApi(world.child);
    await child.createNamespace({ body: { metadata: { name: saNamespace } } });
    await child.createNamespacedServiceAccount({
      namespace: saNamespace,
      body: { metadata: { name: 'argocd-manager' } },
    });
    await rbacApi(world.child).createClusterRoleBinding({
      body: {
        metadata: { name: saNamespace },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'ServiceAccount', name: 'argocd-manager', namespace: saNamespace }],
      },
    });
    const token = await mintToken(world.child, saNamespace, 'argocd-manager');

    const ns = await createSourceNamespace(world, { cluster: 'token' });
    await putK3kKubeconfig(
      world,
      ns.metadata?.name ?? '',
      kubeconfigYaml(world.child, { user: { token } }),
    );
    await applyOnce(world);

    const secret = await registration(world, 'token');
    const config = clusterConfig(secret);
    expect(config.tlsClientConfig.certData).toBeUndefined();
    expect(config.bearerToken).toBe(token);
    expect(await whoAmI(decoded(secret, 'server') ?? '', config)).toEqual({
      status: 201,
      username: `system:serviceaccount:${saNamespace}:argocd-manager`,
    });
  });
});
