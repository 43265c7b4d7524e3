// The two gates of exec translation, both off by default: `--exec-credentials` and a provider
// that allows it (capa-eks, capz-aks, gke, or custom with `;exec`). With either off, an exec
// kubeconfig is refused, and the message says which gate would let it through.

import type { Config, Provider } from '../../common/types.js';
import { Problem } from '../kubeconfig-structure.js';
import { CREDENTIAL_FIX } from '../kubeconfig-fields.js';
import { EXEC_POLICY_HINTS } from '../../config/exec-policy.js';

export const EXEC_FLAG_HINT = '--exec-credentials (chart value execCredentials)';
export const EXEC_PROVIDER_HINT =
  'capa-eks, capz-aks or gke, or a custom provider ending in ;exec (custom:<glob>=<key>;exec)';

export const allowsExec = (provider: Provider): boolean => (provider.execClouds ?? []).length > 0;

/** How a provider is written in `--provider`, for messages. */
export function providerLabel(provider: Provider): string {
  if (provider.name !== 'custom') return provider.name;
  return `custom:${provider.secretNamePattern}=${provider.keys.join(',')}${allowsExec(provider) ? ';exec' : ''}`;
}

/** Why an exec block may not be translated for `provider`; `undefined` when both gates are on. */
export function execGateProblem(
  provider: Provider,
  command: string | undefined,
): Problem | undefined {
  const global = provider.execCredentials === true;
  const own = allowsExec(provider);
  if (global && own) return undefined;
  const what = `the kubeconfig uses an exec plugin${command === undefined ? '' : ` (${JSON.stringify(command)})`}, which would run a command inside ArgoCD`;
  if (!global && !own) {
    return new Problem(
      'exec-plugin',
      what,
      `${CREDENTIAL_FIX}; or, for an EKS, AKS or GKE plugin, have it translated into ArgoCD's own form: turn on ${EXEC_FLAG_HINT} and use a provider that allows exec (${EXEC_PROVIDER_HINT})`,
    );
  }
  if (!global) {
    return new Problem(
      'exec-plugin',
      `${what}; provider ${providerLabel(provider)} allows exec translation, but ${EXEC_FLAG_HINT} is off`,
      `turn on ${EXEC_FLAG_HINT}, or ${CREDENTIAL_FIX}`,
    );
  }
  return new Problem(
    'exec-plugin',
    `${what}; ${EXEC_FLAG_HINT} is on, but provider ${providerLabel(provider)} does not allow exec translation`,
    `use a provider that allows it (${EXEC_PROVIDER_HINT}), or ${CREDENTIAL_FIX}`,
  );
}

/** The start-up warning when exactly one gate is on: exec kubeconfigs are still refused. */
export function execCredentialsWarning(
  config: Pick<Config, 'execCredentials' | 'providers'>,
): string | undefined {
  const allowing = config.providers.filter(allowsExec).map(providerLabel);
  if (config.execCredentials && allowing.length === 0) {
    return `${EXEC_FLAG_HINT} is on, but no provider allows exec translation, so exec kubeconfigs are still refused; add a provider that allows it (${EXEC_PROVIDER_HINT}) or turn the setting off`;
  }
  if (!config.execCredentials && allowing.length > 0) {
    return `provider${allowing.length === 1 ? '' : 's'} ${allowing.join(', ')} ${allowing.length === 1 ? 'allows' : 'allow'} exec translation, but ${EXEC_FLAG_HINT} is off, so exec kubeconfigs are refused; turn it on to translate them into ArgoCD's own forms`;
  }
  return undefined;
}

/**
 * The start-up warning when both gates are on but an allow-list a listed cloud needs (EKS:
 * cluster names, GKE: servers) is empty: refusing is secure, but saying so saves a hunt.
 */
export function execPolicyWarning(config: Pick<Config, 'providers'>): string | undefined {
  const needs: string[] = [];
  const open = config.providers.filter((provider) => provider.execCredentials === true);
  const clouds = new Set(open.flatMap((provider) => provider.execClouds ?? []));
  const policy = open[0]?.execPolicy;
  if (clouds.has('aws') && (policy?.eksClusterNames.length ?? 0) === 0)
    needs.push(
      `every EKS registration, until its cluster name is on ${EXEC_POLICY_HINTS.eksClusterNames}`,
    );
  if (clouds.has('gcp') && (policy?.allowedServers.length ?? 0) === 0)
    needs.push(
      `every GKE registration, until its server is on ${EXEC_POLICY_HINTS.allowedServers}`,
    );
  if (needs.length === 0) return undefined;
  return `exec translation is on, but its allow-lists are empty, so it refuses ${needs.join(', and ')}`;
}
