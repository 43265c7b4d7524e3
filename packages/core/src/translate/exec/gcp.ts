// GKE: `gke-gcloud-auth-plugin`, as `gcloud container clusters get-credentials` writes it
// (no args, provideClusterInfo: true), becomes ArgoCD's own `argocd-k8s-auth gcp`.
//
// Verified against ArgoCD v3.6.1, cmd/argocd-k8s-auth/commands/gcp.go: no flags, no
// environment of its own; it uses Google's application default credentials
// (google.FindDefaultCredentials: Workload Identity in ArgoCD's pod) with the cloud-platform
// and userinfo.email scopes. ArgoCD documents it as execProviderConfig
// `{"command": "argocd-k8s-auth", "args": ["gcp"], "apiVersion": "client.authentication.k8s.io/v1beta1"}`
// (docs/operator-manual/declarative-setup.md, "GKE").

import { EXEC_API_VERSION, parseCommandLine } from './exec-block.js';
import type { ExecBlock, ExecForm } from './exec-block.js';
import { Problem } from '../kubeconfig-structure.js';

// The policy binds a GKE registration through its server only (execConnectionProblem).
export function translateGcp(block: ExecBlock, owner: string): ExecForm | Problem {
  const parsed = parseCommandLine(
    block,
    owner,
    // Application default credentials are what argocd-k8s-auth gcp always uses.
    { valued: {}, switches: ['--use_application_default_credentials'] },
    (flag) =>
      new Problem(
        'exec-unsupported',
        `the exec plugin gke-gcloud-auth-plugin of ${owner} is given ${flag}, which the GKE translation does not know`,
        `remove ${flag} from the exec args`,
      ),
  );
  if (parsed instanceof Problem) return parsed;
  if (parsed.positionals.length > 0) {
    // Not echoed: an argument could be a credential.
    return new Problem(
      'exec-unsupported',
      `the exec plugin gke-gcloud-auth-plugin of ${owner} is given positional arguments, which the GKE translation does not know`,
      'remove them from the exec args',
    );
  }
  const [first] = block.env;
  if (first !== undefined) {
    return new Problem(
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
