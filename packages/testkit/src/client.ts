import { CoreV1Api, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { ControlPlane } from './control-plane.js';

type PlaneLike = Pick<ControlPlane, 'name' | 'kubeConfig'>;

/** A KubeConfig authenticated as the plane's admin (system:masters). */
export function adminKubeConfig(plane: PlaneLike): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(plane.kubeConfig);
  return kc;
}

/** A KubeConfig for the same server authenticated by a bearer token (e.g. from mintToken). */
export function tokenKubeConfig(
  plane: Pick<ControlPlane, 'name' | 'server' | 'caPem'>,
  token: string,
  user = 'token-user',
): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: plane.name,
        server: plane.server,
        caData: Buffer.from(plane.caPem).toString('base64'),
      },
    ],
    users: [{ name: user, token }],
    contexts: [{ name: `${plane.name}-${user}`, cluster: plane.name, user }],
    currentContext: `${plane.name}-${user}`,
  });
  return kc;
}

function asKubeConfig(target: PlaneLike | KubeConfig): KubeConfig {
  return target instanceof KubeConfig ? target : adminKubeConfig(target);
}

/** CoreV1Api for a plane (as admin) or for a given KubeConfig. */
export function coreApi(target: PlaneLike | KubeConfig): CoreV1Api {
  return asKubeConfig(target).makeApiClient(CoreV1Api);
}

/** RbacAuthorizationV1Api for a plane (as admin) or for a given KubeConfig. */
export function rbacApi(target: PlaneLike | KubeConfig): RbacAuthorizationV1Api {
  return asKubeConfig(target).makeApiClient(RbacAuthorizationV1Api);
}

/** HTTP status of a failed client-node call (ApiException.code), else undefined. */
export function statusOf(error: unknown): number | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    return typeof error.code === 'number' ? error.code : undefined;
  }
  return undefined;
}
