// Where an exec registration may send ArgoCD's token: TLS verified, directly, to the cloud's
// own endpoint or a server the operator listed (the lists are settings: config/exec-policy.ts).

import { classifyServer } from '../../common/server-address.js';
import { EXEC_POLICY_HINTS, serverAllowed } from '../../config/exec-policy.js';
import { Problem } from '../kubeconfig-structure.js';
import type { ExecCloud, ExecPolicy } from '../../common/types.js';

// EKS: https://<32 hex>.<zone>.<region>.eks.amazonaws.com (China: .com.cn; dual-stack: .api.aws,
// .api.amazonwebservices.com.cn). The whole shape is checked, not a suffix: other services
// under amazonaws.com serve what their customers choose.
const EKS_ENDPOINT =
  /^[0-9a-f]{32}\.[a-z0-9]{2,4}\.[a-z]{2}(?:-[a-z]+)+-\d{1,2}\.(?:eks\.amazonaws\.com(?:\.cn)?|api\.aws|api\.amazonwebservices\.com\.cn)$/;

// AKS: <name>.hcp.<region>.azmk8s.io (private: .privatelink.), Azure Government and 21Vianet
// under their own domains. Nothing but AKS API servers lives under these.
const AKS_SUFFIXES = [
  '.azmk8s.io',
  '.cx.aks.containerservice.azure.us',
  '.cx.prod.service.azk8s.cn',
];

/** Each cloud's own endpoints, as a phrase and a test of the host. */
const CLOUD_ENDPOINTS: Readonly<
  Record<ExecCloud, { readonly form: string; readonly test: (host: string) => boolean } | undefined>
> = {
  aws: {
    form: 'an EKS endpoint (https://<id>.<zone>.<region>.eks.amazonaws.com, .eks.amazonaws.com.cn, .api.aws or .api.amazonwebservices.com.cn)',
    test: (host) => EKS_ENDPOINT.test(host),
  },
  azure: {
    form: 'an AKS endpoint (*.azmk8s.io, *.cx.aks.containerservice.azure.us or *.cx.prod.service.azk8s.cn)',
    test: (host) => AKS_SUFFIXES.some((suffix) => host.endsWith(suffix)),
  },
  // GKE endpoints are bare addresses that anyone's VM could hold as well.
  gcp: undefined,
};

/** Why ArgoCD's token may not go where `connection` (its server as registered) says. */
export function execConnectionProblem(
  cloud: ExecCloud,
  connection: {
    readonly server: string;
    readonly insecure: boolean;
    readonly proxyUrl: string | undefined;
  },
  policy: ExecPolicy,
  clusterOwner: string,
): Problem | undefined {
  const { server } = connection;
  if (/^http:/i.test(server)) {
    return new Problem(
      'exec-not-allowed',
      `${clusterOwner} has server ${server}, which uses http://, so ArgoCD would send its own cloud token unencrypted`,
      "use the cluster's https:// endpoint",
    );
  }
  if (connection.insecure) {
    return new Problem(
      'exec-not-allowed',
      `${clusterOwner} sets insecure-skip-tls-verify, so ArgoCD would send its own cloud token to whichever server answers`,
      'remove it, and give certificate-authority-data unless the endpoint has a publicly trusted certificate',
    );
  }
  if (connection.proxyUrl !== undefined) {
    return new Problem(
      'exec-not-allowed',
      `${clusterOwner} sets proxy-url, so ArgoCD would send its own cloud token through a proxy the kubeconfig chose`,
      'remove proxy-url: an exec registration connects to its endpoint directly',
    );
  }
  const host = classifyServer(server).host ?? '';
  const endpoints = CLOUD_ENDPOINTS[cloud];
  if (endpoints?.test(host) === true || serverAllowed(host, policy.allowedServers))
    return undefined;
  const form = endpoints?.form;
  return new Problem(
    'exec-not-allowed',
    form === undefined
      ? `${clusterOwner} has server ${server}, which ${EXEC_POLICY_HINTS.allowedServers} does not list (GKE endpoints are bare addresses, so each must be listed there), and ArgoCD would send it a token of its own Google identity`
      : `${clusterOwner} has server ${server}, which is not ${form} and not on ${EXEC_POLICY_HINTS.allowedServers}, and ArgoCD would send it a token of its own cloud identity`,
    `${form === undefined ? '' : "use the cluster's own endpoint; or, "}if the operator runs this server, add it (or its network or domain) to ${EXEC_POLICY_HINTS.allowedServers}`,
  );
}
