// An exec block → one of ArgoCD's own forms, when both gates are on and the plugin is one
// the provider's cloud translates. Each cloud's rules live in its own module.

import type { ExecCloud, ExecPolicy, Provider } from '../../common/types.js';
import { translateAws, AWS_COMMANDS } from './aws.js';
import { translateAzure, AZURE_COMMANDS } from './azure.js';
import {
  execCommandOf,
  isExecProblem,
  problem,
  readExecBlock,
  type ExecBlock,
  type ExecForm,
  type ExecProblem,
} from './exec-block.js';
import { EMPTY_EXEC_POLICY } from '../../config/exec-policy.js';
import { execGateProblem, providerLabel } from './gates.js';
import { translateGcp, GCP_COMMANDS } from './gcp.js';

interface CloudTranslation {
  readonly commands: readonly string[];
  /** What the cloud translates, for messages. */
  readonly plugins: string;
  readonly preset: string;
  readonly translate: (
    block: ExecBlock,
    owner: string,
    policy: ExecPolicy,
  ) => ExecForm | ExecProblem;
}

const CLOUDS: Readonly<Record<ExecCloud, CloudTranslation>> = {
  aws: {
    commands: AWS_COMMANDS,
    plugins: 'aws-iam-authenticator token and aws eks get-token',
    preset: 'capa-eks',
    translate: translateAws,
  },
  azure: {
    commands: AZURE_COMMANDS,
    plugins: 'kubelogin get-token',
    preset: 'capz-aks',
    translate: translateAzure,
  },
  gcp: {
    commands: GCP_COMMANDS,
    plugins: 'gke-gcloud-auth-plugin',
    preset: 'gke',
    translate: translateGcp,
  },
};

const CLOUD_ORDER: readonly ExecCloud[] = ['aws', 'azure', 'gcp'];

/** An exec block in ArgoCD's form, and the cloud whose endpoints its server must be. */
export interface TranslatedExec {
  readonly cloud: ExecCloud;
  readonly form: ExecForm;
}

export function translateExec(
  exec: unknown,
  owner: string,
  provider: Provider,
): TranslatedExec | ExecProblem {
  const gate = execGateProblem(provider, execCommandOf(exec));
  if (gate !== undefined) return gate;
  const block = readExecBlock(exec, owner);
  if (isExecProblem(block)) return block;
  const allowed = provider.execClouds ?? [];
  const cloud = CLOUD_ORDER.find((candidate) => CLOUDS[candidate].commands.includes(block.command));
  if (cloud === undefined || !allowed.includes(cloud)) {
    const translates = allowed.map((each) => CLOUDS[each].plugins).join('; ');
    return problem(
      'exec-unsupported',
      `the exec plugin of ${owner} runs ${JSON.stringify(block.command)}, which provider ${providerLabel(provider)} does not translate (it translates ${translates})`,
      cloud === undefined
        ? 'use a kubeconfig with a client certificate or token: only EKS, AKS and GKE plugins have an ArgoCD form (commands by name, not by path)'
        : `use the ${CLOUDS[cloud].preset} provider for it`,
    );
  }
  const form = CLOUDS[cloud].translate(block, owner, provider.execPolicy ?? EMPTY_EXEC_POLICY);
  return isExecProblem(form) ? form : { cloud, form };
}
