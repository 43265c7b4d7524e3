// AKS: `kubelogin get-token --server-id <id> [--environment <env>] --login <mode> ...`, the
// user kubeconfig AKS hands out for Entra ID clusters and CAPZ stores in
// `<cluster>-kubeconfig-user`, becomes ArgoCD's own `argocd-k8s-auth azure`.
//
// Verified against ArgoCD v3.6.1: the command takes no flags and reads kubelogin's options
// from the environment, of which ArgoCD documents AAD_SERVER_APPLICATION_ID and
// AAD_ENVIRONMENT_NAME ("AKS"). Those describe the cluster (token audience, cloud), so they are
// carried; what selects an identity (--login, --client-id, --tenant-id) is read and left out:
// ArgoCD signs in with its own. Flags as in kubelogin's pkg/internal/token/options.go.

import { EXEC_API_VERSION, parseSubcommand } from './exec-block.js';
import type { ExecBlock, ExecForm } from './exec-block.js';
import { Problem } from '../kubeconfig-structure.js';
import { AKS_SERVER_APPLICATION_ID, EXEC_POLICY_HINTS, GUID } from '../../config/exec-policy.js';
import type { ExecPolicy } from '../../common/types.js';

const LOGINS = new Set([
  'devicecode',
  'interactive',
  'spn',
  'ropc',
  'msi',
  'azurecli',
  'workloadidentity',
]);
const ENVIRONMENTS = new Map(
  ['AzurePublicCloud', 'AzureChinaCloud', 'AzureUSGovernmentCloud'].map((name) => [
    name.toLowerCase(),
    name,
  ]),
);

const FIX = 'store the user kubeconfig AKS (or CAPZ) wrote';

/** kubelogin flags that carry or pick credentials: refused, never dropped silently. */
const IDENTITY_FLAGS = new Set([
  '--client-secret',
  '--client-certificate',
  '--client-certificate-password',
  '--username',
  '--password',
  '--identity-resource-id',
  '--federated-token-file',
  '--authority-host',
  '--use-azurerm-env-vars',
]);

export function translateAzure(
  block: ExecBlock,
  owner: string,
  policy: ExecPolicy,
): ExecForm | Problem {
  const unknownFlag = (flag: string): Problem =>
    IDENTITY_FLAGS.has(flag)
      ? new Problem(
          'exec-unsupported',
          `the exec plugin kubelogin of ${owner} is given ${flag}, which carries or selects an Azure identity; ArgoCD signs in with its own (workload identity unless its pod sets AAD_LOGIN_METHOD)`,
          `remove ${flag} from the exec args and give ArgoCD's pod the identity instead`,
        )
      : new Problem(
          'exec-unsupported',
          `the exec plugin kubelogin of ${owner} is given ${flag}, which the AKS translation does not know (it reads --server-id and --environment, and drops --login, --client-id and --tenant-id)`,
          `remove ${flag} from the exec args`,
        );
  const valued = {
    login: ['--login', '-l'],
    clientId: ['--client-id'],
    tenantId: ['--tenant-id', '-t'],
    environment: ['--environment', '-e'],
    serverId: ['--server-id'],
  };
  const flags = parseSubcommand(block, owner, 'get-token', { valued }, unknownFlag, FIX);
  if (flags instanceof Problem) return flags;
  const [first] = block.env;
  if (first !== undefined) {
    return new Problem(
      'exec-unsupported',
      `the exec plugin kubelogin of ${owner} sets env ${first.name}, which ${first.name.startsWith('AZURE_') || first.name.startsWith('AAD_') ? 'would change the Azure identity or how it signs in' : 'the AKS translation does not know'}`,
      `remove env ${first.name} from the exec block; give ArgoCD's pod the identity instead`,
    );
  }
  const login = flags.get('login');
  if (login !== undefined && !LOGINS.has(login)) {
    return new Problem(
      'exec-unsupported',
      `the exec plugin kubelogin of ${owner} uses login ${JSON.stringify(login)}, which kubelogin does not know`,
      `use one of ${[...LOGINS].join(', ')}`,
    );
  }
  for (const flag of ['clientId', 'tenantId'] as const) {
    const value = flags.get(flag);
    if (value !== undefined && !GUID.test(value)) {
      return new Problem(
        'exec-unsupported',
        `the exec plugin kubelogin of ${owner} is given ${flag === 'clientId' ? '--client-id' : '--tenant-id'} ${JSON.stringify(value)}, which is not a GUID`,
        FIX,
      );
    }
  }
  const serverId = flags.get('serverId');
  if (serverId !== undefined && !GUID.test(serverId)) {
    return new Problem(
      'exec-unsupported',
      `the exec plugin kubelogin of ${owner} is given --server-id ${JSON.stringify(serverId)}, which is not an application id (a GUID)`,
      `give the AKS AAD server application id, ${AKS_SERVER_APPLICATION_ID} for AKS-managed Entra ID`,
    );
  }
  // The server id is the token's audience: any other would hand the kubeconfig's server an
  // Entra token of ArgoCD's identity for whatever API that application guards.
  if (
    serverId !== undefined &&
    serverId.toLowerCase() !== AKS_SERVER_APPLICATION_ID &&
    !policy.aksServerIds.includes(serverId.toLowerCase())
  ) {
    return new Problem(
      'exec-not-allowed',
      `the exec plugin kubelogin of ${owner} is given --server-id ${serverId}, not the AKS server application ${AKS_SERVER_APPLICATION_ID}; ArgoCD would request a token for that audience with its own Azure identity`,
      `remove --server-id (ArgoCD then asks for the AKS server application), or add the id to ${EXEC_POLICY_HINTS.aksServerIds}`,
    );
  }
  const environmentGiven = flags.get('environment');
  const environment =
    environmentGiven === undefined ? undefined : ENVIRONMENTS.get(environmentGiven.toLowerCase());
  if (environmentGiven !== undefined && environment === undefined) {
    return new Problem(
      'exec-unsupported',
      `the exec plugin kubelogin of ${owner} is given --environment ${JSON.stringify(environmentGiven)}, which the AKS translation does not know`,
      `use one of ${[...ENVIRONMENTS.values()].join(', ')}`,
    );
  }
  const env: Record<string, string> = {};
  if (environment !== undefined) env['AAD_ENVIRONMENT_NAME'] = environment;
  if (serverId !== undefined) env['AAD_SERVER_APPLICATION_ID'] = serverId;
  return {
    execProviderConfig: {
      command: 'argocd-k8s-auth',
      args: ['azure'],
      ...(Object.keys(env).length === 0 ? {} : { env }),
      apiVersion: EXEC_API_VERSION,
    },
  };
}
