// The cluster inventory's own parts, for the tests: the kubeconfig-secretreader plugin and
// check-profiles (tools/inventory, built by tools/build.sh on first use) and the module's
// ClusterProfile CRD beside them. check-profiles reads ClusterProfiles the way consumers do
// (the module's pkg/access, running the plugin) and authenticates to each child.

import { join } from 'node:path';
import type { ControlPlane } from './control-plane.js';
import { BUILD_SCRIPT, lastLine, runChecked, runCommand } from './argocd-tools.js';
import { applyCrds } from './crds.js';

let inventoryDir: Promise<string> | undefined;

/** The directory holding `kubeconfig-secretreader`, `check-profiles` and `crds/`. */
export function inventoryToolsDir(): Promise<string> {
  inventoryDir ??= runChecked(BUILD_SCRIPT, ['inventory']).then(lastLine);
  return inventoryDir;
}

export const CLUSTER_PROFILE_CRD = 'clusterprofiles.multicluster.x-k8s.io';

/** Installs the module's ClusterProfile CRD and waits until it is Established. */
export async function installClusterProfileCrd(
  plane: Pick<ControlPlane, 'kubeconfigPath'>,
): Promise<void> {
  const dir = await inventoryToolsDir();
  await applyCrds(plane, 'the ClusterProfile CRD', [CLUSTER_PROFILE_CRD], {
    path: join(dir, 'crds', 'multicluster.x-k8s.io_clusterprofiles.yaml'),
  });
}

/** One line of check-profiles: never a credential. */
export interface ProfileCheck {
  readonly namespace: string;
  readonly profile: string;
  readonly clusterManager?: string;
  readonly server?: string;
  readonly authenticated: boolean;
  readonly username?: string;
  readonly groups?: readonly string[];
  readonly error?: string;
}

/**
 * Runs check-profiles over the profiles of `namespace` (or one) with a consumer's provider
 * file naming the plugin (`provideClusterInfo: true`). The plugin reads the Secrets with the
 * identity of its environment: `KUBECONFIG` is the plane's admin kubeconfig.
 */
export async function checkProfiles(
  plane: Pick<ControlPlane, 'kubeconfigPath'>,
  namespace: string,
  providerFile: string,
  name?: string,
): Promise<ProfileCheck[]> {
  const dir = await inventoryToolsDir();
  const args = [
    '--kubeconfig',
    plane.kubeconfigPath,
    '--namespace',
    namespace,
    '--provider-file',
    providerFile,
    ...(name === undefined ? [] : ['--name', name]),
  ];
  const result = await runCommand(join(dir, 'check-profiles'), args, {
    env: { ...process.env, KUBECONFIG: plane.kubeconfigPath },
  });
  if (result.code !== 0 && result.code !== 1)
    throw new Error(
      `check-profiles exited ${String(result.code)}: ${result.stdout}${result.stderr}`,
    );
  return result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ProfileCheck);
}

/** A consumer's provider file entry for the plugin, as the inventory's README gives it. */
export async function secretreaderProvider(): Promise<object> {
  const dir = await inventoryToolsDir();
  return {
    providers: [
      {
        name: 'kubeconfig-secretreader',
        execConfig: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: join(dir, 'kubeconfig-secretreader'),
          provideClusterInfo: true,
          interactiveMode: 'Never',
        },
      },
    ],
  };
}

/** Path of the built kubeconfig-secretreader plugin. */
export async function secretreaderPath(): Promise<string> {
  return join(await inventoryToolsDir(), 'kubeconfig-secretreader');
}
