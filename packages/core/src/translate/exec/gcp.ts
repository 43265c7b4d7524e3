// GKE: `gke-gcloud-auth-plugin`, as `gcloud container clusters get-credentials` writes it
// (no args, provideClusterInfo: true), becomes ArgoCD's own `argocd-k8s-auth gcp`.
//
// Verified against ArgoCD v3.6.1, cmd/argocd-k8s-auth/commands/gcp.go: no flags, no
// environment of its own; it uses Google's application default credentials
// (google.FindDefaultCredentials: Workload Identity in ArgoCD's pod) with the cloud-platform
// and userinfo.email scopes. ArgoCD documents it as execProviderConfig
// `{"command": "argocd-k8s-auth", "args": ["gcp"], "apiVersion": "client.authentication.k8s.io/v1beta1"}`
// (docs/operator-manual/declarative-setup.md, "GKE").

import { EXEC_API_VERSION, isExecProblem, parseCommandLine, problem } from './exec-block.js';
import type { ExecBlock, ExecForm, ExecProblem } from './exec-block.js';

export const GCP_COMMANDS = ['gke-gcloud-auth-plugin'] as const;

// The policy binds a GKE registration through its server only (execConnectionProblem).
export function translateGcp(block: ExecBlock, owner: string): ExecForm | ExecProblem {
  const parsed = parseCommandLine(
    block.args,
    // Application default credentials are what argocd-k8s-auth gcp always uses.
    { valued: {}, switches: { adc: ['--use_application_default_credentials'] } },
    (flag) =>
      problem(
        'exec-unsupported',
        `the exec plugin gke-gcloud-auth-plugin of ${owner} is given ${flag}, which the GKE translation does not know`,
        `remove ${flag} from the exec args`,
      ),
    owner,
  );
  if (isExecProblem(parsed)) return parsed;
  if (parsed.positionals.length > 0) {
    // Not echoed: an argument could be a credential.
    return problem(
      'exec-unsupported',
      `the exec plugin gke-gcloud-auth-plugin of ${owner} is given positional arguments, which the GKE translation does not know`,
      'remove them from the exec args',
    );
  }
  const [first] = block.env;
  if (first !== undefined) {
    return problem(
      'exec-unsupported',
      `the exec plugin gke-gcloud-auth-plugin of ${owner} sets env ${first.name}, which could change the Google identity or project it uses`,
      `remove env ${first.name} from the exec block; give ArgoCD's pod the identity instead (Workload Identity)`,
    );
  }
  return {
    execProviderConfig: {
      command: 'argocd-k8s-auth',
      args: ['gcp'],
      apiVersion: EXEC_API_VERSION,
    },
  };
}
