// GKE: `gke-gcloud-auth-plugin`, as `gcloud container clusters get-credentials` writes it
// (no args), becomes ArgoCD's own `argocd-k8s-auth gcp` (ArgoCD v3.6.1, documented as "GKE"):
// no flags, no environment, Google's application default credentials (Workload Identity in
// ArgoCD's pod).

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
