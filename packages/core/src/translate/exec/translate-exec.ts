// An exec block → one of ArgoCD's own forms, when both gates are on and the plugin is one
// the provider's cloud translates. Each cloud's rules live in its own module.

import type { ExecCloud, Provider } from '../../common/types.js';
import { translateAws } from './aws.js';
import { translateAzure } from './azure.js';
import { execCommandOf, readExecBlock, type ExecForm } from './exec-block.js';
import { EMPTY_EXEC_POLICY } from '../../config/exec-policy.js';
import { execGateProblem, providerLabel } from './gates.js';
import { translateGcp } from './gcp.js';
import { Problem } from '../kubeconfig-structure.js';

/** Each cloud's commands, what it translates (for messages), its preset and its rules. */
const CLOUDS = {
  aws: {
    commands: ['aws-iam-authenticator', 'aws'],
    plugins: 'aws-iam-authenticator token and aws eks get-token',
    preset: 'capa-eks',
    translate: translateAws,
  },
  azure: {
    commands: ['kubelogin'],
    plugins: 'kubelogin get-token',
    preset: 'capz-aks',
    translate: translateAzure,
  },
  gcp: {
    commands: ['gke-gcloud-auth-plugin'],
    plugins: 'gke-gcloud-auth-plugin',
    preset: 'gke',
    translate: translateGcp,
  },
} satisfies Record<ExecCloud, object>;

/** An exec block in ArgoCD's form, and the cloud whose endpoints its server must be. */
export interface TranslatedExec {
  readonly cloud: ExecCloud;
  readonly form: ExecForm;
}

export function translateExec(
  exec: unknown,
  owner: string,
  provider: Provider,
): TranslatedExec | Problem {
  const gate = execGateProblem(provider, execCommandOf(exec));
  if (gate !== undefined) return gate;
  const block = readExecBlock(exec, owner);
  if (block instanceof Problem) return block;
  const allowed = provider.execClouds ?? [];
  const cloud = (Object.keys(CLOUDS) as ExecCloud[]).find((candidate) =>
    CLOUDS[candidate].commands.includes(block.command),
  );
  if (cloud === undefined || !allowed.includes(cloud)) {
    const translates = allowed.map((each) => CLOUDS[each].plugins).join('; ');
    return new Problem(
      'exec-unsupported',
      `the exec plugin of ${owner} runs ${JSON.stringify(block.command)}, which provider ${providerLabel(provider)} does not translate (it translates ${translates})`,
      cloud === undefined
        ? 'use a kubeconfig with a client certificate or token: only EKS, AKS and GKE plugins have an ArgoCD form (commands by name, not by path)'
        : `use the ${CLOUDS[cloud].preset} provider for it`,
    );
  }
  const form = CLOUDS[cloud].translate(block, owner, provider.execPolicy ?? EMPTY_EXEC_POLICY);
  return form instanceof Problem ? form : { cloud, form };
}
