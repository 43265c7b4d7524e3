// A hub for hub-and-spoke tests and benchmarks: a plane of its own holding ArgoCD's namespace,
// with the hub-side identity of each spoke exactly as the chart's hub mode renders it (helm
// template, applied as the hub's admin), its token Secrets filled by Kubernetes' own token
// controller (kube-controller-manager with that controller alone, as a cluster runs it), and
// the kubeconfig Secret each spoke applies exactly as scripts/hub-kubeconfig prints it. ArgoCD
// itself is started by the caller (startArgoCd) when a test needs it.
//
// Shared planes run no token controller: fillTokenSecret does what it does there, with a token
// the TokenRequest API binds to the Secret (valid while the Secret exists).

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanEnv, startManaged, waitReady } from './argocd-process.js';
import type { Managed } from './argocd-process.js';
import { coreApi } from './client.js';
import { startControlPlane } from './control-plane.js';
import type { ControlPlane } from './control-plane.js';
import { kubectl, runCommand, runChecked, toolsBinDir } from './argocd-tools.js';
import { uniqueName } from './names.js';

const CHART = fileURLToPath(new URL('../../../charts/argocd-cluster-registrar', import.meta.url));
const HUB_KUBECONFIG = fileURLToPath(new URL('../../../scripts/hub-kubeconfig', import.meta.url));

export interface Hub {
  readonly plane: ControlPlane;
  /** ArgoCD's namespace at the hub, where the spokes write. */
  readonly namespace: string;
  /** The hub release's namespace (the spokes' ServiceAccounts and token Secrets). */
  readonly releaseNamespace: string;
  readonly release: string;
  /**
   * The Secret manifest scripts/hub-kubeconfig prints for the spoke (it holds the spoke's
   * token: apply it, never log it). `server`: the hub's address as that spoke reaches it.
   */
  kubeconfigSecret(
    spoke: string,
    options?: { readonly server?: string; readonly secretName?: string; readonly key?: string },
  ): Promise<string>;
  /** The spoke's identity at the hub: system:serviceaccount:<namespace>:<name>. */
  username(spoke: string): string;
  stop(): Promise<void>;
}

export interface HubOptions {
  /** The plane's name (unique on the machine). */
  readonly name: string;
  readonly spokes: readonly string[];
  /** The chart's managedBy (the spokes' write policy requires it on their registrations). */
  readonly managedBy?: string;
}

/** What a token controller does for a kubernetes.io/service-account-token Secret. */
export async function fillTokenSecret(
  plane: ControlPlane,
  namespace: string,
  name: string,
  serviceAccount: string,
): Promise<void> {
  const api = coreApi(plane);
  const secret = await api.readNamespacedSecret({ namespace, name });
  const request = await api.createNamespacedServiceAccountToken({
    namespace,
    name: serviceAccount,
    body: {
      spec: {
        audiences: [],
        expirationSeconds: 24 * 3600,
        boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name, uid: secret.metadata?.uid ?? '' },
      },
    },
  });
  await api.replaceNamespacedSecret({
    namespace,
    name,
    body: {
      ...secret,
      data: {
        token: Buffer.from(request.status?.token ?? '').toString('base64'),
        'ca.crt': Buffer.from(plane.caPem).toString('base64'),
        namespace: Buffer.from(namespace).toString('base64'),
      },
    },
  });
}

/** Starts the hub's plane and installs the chart's hub mode for the spokes. */
export async function startHub(options: HubOptions): Promise<Hub> {
  const plane = await startControlPlane(options.name, { ownerPid: process.pid });
  let tokens: Managed | undefined;
  const stop = async (): Promise<void> => {
    await tokens?.stop();
    await plane.stop();
  };
  try {
    const release = uniqueName('hub');
    const namespace = uniqueName('argocd');
    const releaseNamespace = uniqueName('registrar-hub');
    const api = coreApi(plane);
    for (const name of [namespace, releaseNamespace])
      await api.createNamespace({ body: { metadata: { name } } });
    const bin = await toolsBinDir();
    const values = JSON.stringify({
      hub: {
        enabled: true,
        argocdNamespace: namespace,
        spokes: options.spokes.map((name) => ({ name })),
      },
      ...(options.managedBy === undefined ? {} : { managedBy: options.managedBy }),
    });
    const rendered = await runChecked(
      join(bin, 'helm'),
      ['template', release, CHART, '--namespace', releaseNamespace, '--values', '-'],
      { input: values },
    );
    await kubectl(plane, ['apply', '-f', '-'], rendered);
    const account = (spoke: string): string => `${release}-argocd-cluster-registrar-${spoke}`;
    const pki = join(dirname(plane.kubeconfigPath), 'pki');
    tokens = startManaged(
      'kube-controller-manager',
      join(bin, 'kube-controller-manager'),
      [
        `--kubeconfig=${plane.kubeconfigPath}`,
        '--controllers=serviceaccount-token',
        `--service-account-private-key-file=${join(pki, 'sa.key')}`,
        `--root-ca-file=${join(pki, 'ca.crt')}`,
        '--leader-elect=false',
        '--secure-port=0',
      ],
      cleanEnv({}),
    );
    const filled = async (): Promise<boolean> => {
      for (const spoke of options.spokes) {
        const secret = await api.readNamespacedSecret({
          namespace: releaseNamespace,
          name: `${account(spoke)}-token`,
        });
        if (secret.data?.['token'] === undefined) return false;
      }
      return true;
    };
    await waitReady(tokens, filled, 120_000);
    return {
      plane,
      namespace,
      releaseNamespace,
      release,
      username: (spoke) => `system:serviceaccount:${releaseNamespace}:${account(spoke)}`,
      kubeconfigSecret: async (spoke, secret = {}) => {
        const result = await runCommand(
          HUB_KUBECONFIG,
          [
            spoke,
            '--kubeconfig',
            plane.kubeconfigPath,
            '--namespace',
            releaseNamespace,
            '--release',
            release,
            ...(secret.server === undefined ? [] : ['--server', secret.server]),
            ...(secret.secretName === undefined ? [] : ['--secret-name', secret.secretName]),
            ...(secret.key === undefined ? [] : ['--key', secret.key]),
          ],
          { env: { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}` } },
        );
        // Its stderr never holds the token; its stdout does, and is not shown.
        if (result.code !== 0)
          throw new Error(`scripts/hub-kubeconfig ${spoke} failed:\n${result.stderr}`);
        return result.stdout;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
