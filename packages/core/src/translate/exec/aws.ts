// EKS: `aws-iam-authenticator token -i <cluster> [-r <role>]` or `aws eks get-token
// --cluster-name <cluster> [--role-arn <arn>] [--region <region>]`, as CAPA writes them into
// `<cluster>-user-kubeconfig` (no role, region or env), become ArgoCD's own `argocd-k8s-auth
// aws`, run with ArgoCD's AWS identity.
//
// Verified against ArgoCD v3.6.1: awsAuthConfig (clusterName, roleARN, profile) becomes
// `argocd-k8s-auth aws --cluster-name <c> [--role-arn <r>] [--profile <p>]`. A profile names
// credentials inside ArgoCD's pod, so it is never emitted (a kubeconfig that selects one is
// refused). The region comes from ArgoCD's own environment, so a kubeconfig that names one
// gets the execProviderConfig form ArgoCD documents ("EKS"): the same command and arguments,
// with AWS_REGION in `env`. The region selects the STS endpoint; the identity stays ArgoCD's.

import { EXEC_API_VERSION, parseSubcommand } from './exec-block.js';
import type { ExecBlock, ExecForm } from './exec-block.js';
import { Problem } from '../kubeconfig-structure.js';
import { EXEC_POLICY_HINTS, ROLE_ARN } from '../../config/exec-policy.js';
import { matchGlob } from '../../config/glob.js';
import type { ExecPolicy } from '../../common/types.js';

/** Region variables the AWS CLI and aws-iam-authenticator read; carried as the region. */
const REGION_ENV = ['AWS_REGION', 'AWS_DEFAULT_REGION'];

// EKS cluster names: 1-100 characters, a letter or digit first (CreateCluster API).
const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

const FIX =
  'store the kubeconfig CAPA wrote, or a custom provider with a kubeconfig ArgoCD can use';

export function translateAws(
  block: ExecBlock,
  owner: string,
  policy: ExecPolicy,
): ExecForm | Problem {
  const unknownFlag = (flag: string): Problem =>
    new Problem(
      'exec-unsupported',
      `the exec plugin ${block.command} of ${owner} is given ${flag}, which the EKS translation does not know (it reads the cluster name, role and region only)`,
      `remove ${flag} from the exec args, or ${FIX}`,
    );
  // aws-iam-authenticator takes the region from the environment; aws's --region is a global
  // option, so it may come before the subcommand.
  const { subcommand, valued } =
    block.command === 'aws-iam-authenticator'
      ? { subcommand: 'token', valued: { cluster: ['-i', '--cluster-id'], role: ['-r', '--role'] } }
      : {
          subcommand: 'eks get-token',
          valued: { cluster: ['--cluster-name'], role: ['--role-arn'], region: ['--region'] },
        };
  const flags = parseSubcommand(
    block,
    owner,
    subcommand,
    { valued },
    unknownFlag,
    `use ${block.command} ${subcommand} in the exec block, or ${FIX}`,
  );
  if (flags instanceof Problem) return flags;
  const clusterName = flags.get('cluster');
  const role = flags.get('role');
  let region = flags.get('region');

  for (const { name, value } of block.env) {
    if (!REGION_ENV.includes(name)) {
      return new Problem(
        'exec-unsupported',
        `the exec plugin ${block.command} of ${owner} sets env ${name}, which ${name.startsWith('AWS_') ? 'would change the AWS identity or how it is found' : 'the EKS translation does not know'}; ArgoCD signs with its own AWS identity (IRSA or EKS Pod Identity)`,
        `remove env ${name} from the exec block; give ArgoCD's pod the identity instead, and a role with -r/--role-arn if it should assume one`,
      );
    }
    // The command-line flag wins over the environment, as in the AWS CLI.
    region ??= value;
  }

  if (clusterName === undefined || !CLUSTER_NAME.test(clusterName)) {
    return new Problem(
      'exec-unsupported',
      clusterName === undefined
        ? `the exec plugin ${block.command} of ${owner} names no EKS cluster`
        : `the exec plugin ${block.command} of ${owner} names EKS cluster ${JSON.stringify(clusterName)}, which is not an EKS cluster name`,
      `give it ${block.command === 'aws' ? '--cluster-name' : '-i'} <EKS cluster name>`,
    );
  }
  if (role !== undefined && !ROLE_ARN.test(role)) {
    return new Problem(
      'exec-unsupported',
      `the exec plugin ${block.command} of ${owner} assumes role ${JSON.stringify(role)}, which is not an IAM role ARN`,
      'give the role as arn:aws:iam::<account>:role/<name>, or remove it',
    );
  }
  if (region !== undefined && !REGION.test(region)) {
    return new Problem(
      'exec-unsupported',
      `the exec plugin ${block.command} of ${owner} names region ${JSON.stringify(region)}, which is not an AWS region`,
      'give a region such as eu-west-1, or remove it',
    );
  }

  // A token minted for cluster X opens X wherever it is presented, and the role decides what
  // it may do there: both are the operator's choice, never the kubeconfig's.
  if (!policy.eksClusterNames.some((pattern) => matchGlob(pattern, clusterName))) {
    return new Problem(
      'exec-not-allowed',
      `the exec plugin ${block.command} of ${owner} names EKS cluster ${JSON.stringify(clusterName)}, which ${EXEC_POLICY_HINTS.eksClusterNames} does not list; ArgoCD would mint a token for it with its own AWS identity`,
      `if ArgoCD should reach this cluster, add its name (or a glob) to ${EXEC_POLICY_HINTS.eksClusterNames}`,
    );
  }
  if (role !== undefined && !policy.eksRoleArns.includes(role)) {
    return new Problem(
      'exec-not-allowed',
      `the exec plugin ${block.command} of ${owner} assumes role ${role}, which ${EXEC_POLICY_HINTS.eksRoleArns} does not list; ArgoCD would assume it with its own AWS identity`,
      `remove ${block.command === 'aws' ? '--role-arn' : '-r/--role'} from the exec args, or add the role to ${EXEC_POLICY_HINTS.eksRoleArns}`,
    );
  }

  if (region === undefined) {
    return { awsAuthConfig: { clusterName, ...(role === undefined ? {} : { roleARN: role }) } };
  }
  return {
    execProviderConfig: {
      command: 'argocd-k8s-auth',
      args: [
        'aws',
        '--cluster-name',
        clusterName,
        ...(role === undefined ? [] : ['--role-arn', role]),
      ],
      env: { AWS_REGION: region },
      apiVersion: EXEC_API_VERSION,
    },
  };
}
