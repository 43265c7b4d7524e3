// ArgoCD's own verdict on cluster Secrets: `argocd check-secrets` (tools/argocd) runs ArgoCD's
// db.SecretToCluster and Cluster.RawRestConfig, then client-go's TLS and HTTP client setup,
// which is what the application controller does with a Secret before it connects.

import type { ControlPlane } from './control-plane.js';
import { argocdBinaryPath, kubectl, runCommand } from './argocd-tools.js';

/**
 * The exec provider of the rest.Config ArgoCD derives from a registration (from
 * execProviderConfig, or awsAuthConfig which ArgoCD turns into one): what the application
 * controller would run. Commands and arguments only, never a credential.
 */
export interface ArgoExecVerdict {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly apiVersion: string;
}

/** One Secret's verdict. Never holds a credential. */
export interface ArgoVerdict {
  readonly namespace: string;
  readonly secret: string;
  readonly accepted: boolean;
  readonly server?: string;
  readonly name?: string;
  readonly error?: string;
  /** Absent when the derived rest.Config runs no exec provider. */
  readonly exec?: ArgoExecVerdict;
}

/** Runs the checker over a Secret list (as `kubectl get secrets -o json` prints it). */
export async function argoVerdicts(secretListJson: string): Promise<ArgoVerdict[]> {
  const result = await runCommand(await argocdBinaryPath(), ['check-secrets'], {
    input: secretListJson,
  });
  if (result.code !== 0 && result.code !== 1)
    throw new Error(`argocd check-secrets exited ${String(result.code)}:\n${result.stdout}`);
  return result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ArgoVerdict);
}

/**
 * ArgoCD's verdict on every cluster Secret (argocd.argoproj.io/secret-type=cluster) in the
 * namespaces, optionally only those also carrying the given labels.
 */
export async function checkClusterSecrets(
  plane: Pick<ControlPlane, 'kubeconfigPath'>,
  namespaces: readonly string[],
  labels: Record<string, string> = {},
): Promise<ArgoVerdict[]> {
  const selector = Object.entries({ 'argocd.argoproj.io/secret-type': 'cluster', ...labels })
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const verdicts: ArgoVerdict[] = [];
  for (const namespace of namespaces) {
    const list = await kubectl(plane, [
      'get',
      'secrets',
      '--namespace',
      namespace,
      '--selector',
      selector,
      '--output',
      'json',
    ]);
    verdicts.push(...(await argoVerdicts(list)));
  }
  return verdicts;
}
