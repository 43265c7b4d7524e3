// Kueue's manager (tools/kueue, `sigs.k8s.io/kueue`), run out of cluster against a plane as its
// admin, as a real consumer of ClusterProfiles: its MultiKueue connects a MultiKueueCluster to
// a worker cluster through the profile named by `spec.clusterSource.clusterProfileRef`, behind
// the `MultiKueueClusterProfile` feature gate, running the inventory's kubeconfig-secretreader
// plugin (with the manager's own environment: the plane's admin kubeconfig reads the Secret).
//
// What running it outside a cluster takes (read in its v0.17.0 source, tried here):
// - Its CRDs, five of them with the conversion webhook its kustomization adds: its certificate
//   rotator injects a CA into each of them (and into the two webhook configurations, created
//   empty so the API server never calls a webhook) and reports ready only then. No conversion
//   is ever asked for: every client reads the stored version.
// - An empty Secret for the webhook certificate, which the rotator fills; in a pod the kubelet
//   then projects it into `webhook.certDir`, and the manager waits for the files: here this
//   module writes them.
// - `VisibilityOnDemand` off: the visibility server needs in-cluster delegated authentication.
// - Leader election off, loopback health, metrics off, the webhook on a free loopback port.
//
// Kueue reads ClusterProfiles only in its own namespace (`KUEUE_NAMESPACE`).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ControlPlane } from './control-plane.js';
import { cleanEnv, startManaged, waitReady } from './argocd-process.js';
import type { Managed } from './argocd-process.js';
import { BUILD_SCRIPT, freePort, kubectl, lastLine, runChecked } from './argocd-tools.js';
import { applyCrds } from './crds.js';

type Plane = Pick<ControlPlane, 'kubeconfigPath'>;

export const KUEUE_NAMESPACE = 'kueue-system';
const WEBHOOK_SERVICE = 'kueue-webhook-service';
const WEBHOOK_SECRET = 'kueue-webhook-server-cert';
const CONVERTED = ['localqueues', 'clusterqueues', 'workloads', 'cohorts', 'multikueueclusters'];
const CRDS = [
  'admissionchecks',
  'clusterqueues',
  'cohorts',
  'localqueues',
  'multikueueclusters',
  'multikueueconfigs',
  'provisioningrequestconfigs',
  'resourceflavors',
  'topologies',
  'workloadpriorityclasses',
  'workloads',
].map((plural) => `${plural}.kueue.x-k8s.io`);

let kueueDir: Promise<string> | undefined;

/** tools/kueue's build: the manager and, in crds/, the module's CRDs (built on first use). */
export function kueueBinaryDir(): Promise<string> {
  kueueDir ??= runChecked(BUILD_SCRIPT, ['kueue']).then(lastLine);
  return kueueDir;
}

/** Kueue's CRDs as its module ships them: what a worker cluster needs. */
export async function installKueueCrds(plane: Plane): Promise<void> {
  const dir = await kueueBinaryDir();
  await applyCrds(plane, "Kueue's CRDs", CRDS, { path: join(dir, 'crds') });
}

export interface Kueue {
  /** Recent output of the manager, for failure messages. */
  logs(): string;
  /** Stops the manager; the CRDs and objects stay on the plane. */
  stop(): Promise<void>;
}

/**
 * Starts Kueue's manager against `plane` with MultiKueue reading ClusterProfiles through the
 * `kubeconfig-secretreader` plugin at `plugin`; resolves once it reports ready.
 */
export async function startKueue(plane: Plane, plugin: string): Promise<Kueue> {
  const dir = await kueueBinaryDir();
  await installKueueCrds(plane);
  const conversion = {
    spec: {
      conversion: {
        strategy: 'Webhook',
        webhook: {
          clientConfig: {
            service: { namespace: KUEUE_NAMESPACE, name: WEBHOOK_SERVICE, path: '/convert' },
          },
          conversionReviewVersions: ['v1'],
        },
      },
    },
  };
  for (const plural of CONVERTED)
    await kubectl(plane, [
      'patch',
      'crd',
      `${plural}.kueue.x-k8s.io`,
      '--type=merge',
      '--patch',
      JSON.stringify(conversion),
    ]);
  const empty = (kind: string, name: string): object => ({
    apiVersion: kind.endsWith('Configuration') ? 'admissionregistration.k8s.io/v1' : 'v1',
    kind,
    metadata: { name, ...(kind === 'Secret' ? { namespace: KUEUE_NAMESPACE } : {}) },
  });
  await kubectl(
    plane,
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: KUEUE_NAMESPACE } },
        empty('ValidatingWebhookConfiguration', 'kueue-validating-webhook-configuration'),
        empty('MutatingWebhookConfiguration', 'kueue-mutating-webhook-configuration'),
        empty('Secret', WEBHOOK_SECRET),
      ],
    }),
  );

  const home = mkdtempSync(join(tmpdir(), 'registrar-kueue-'));
  const certDir = join(home, 'certs');
  const [health, webhook] = [await freePort(), await freePort()];
  const configPath = join(home, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      apiVersion: 'config.kueue.x-k8s.io/v1beta2',
      kind: 'Configuration',
      namespace: KUEUE_NAMESPACE,
      health: { healthProbeBindAddress: `127.0.0.1:${String(health)}` },
      metrics: { bindAddress: '0' },
      webhook: { port: webhook, host: '127.0.0.1', certDir },
      leaderElection: { leaderElect: false },
      internalCertManagement: {
        enable: true,
        webhookServiceName: WEBHOOK_SERVICE,
        webhookSecretName: WEBHOOK_SECRET,
      },
      integrations: { frameworks: ['batch/job'] },
      featureGates: { MultiKueueClusterProfile: true, VisibilityOnDemand: false },
      multiKueue: {
        clusterProfile: {
          credentialsProviders: [
            {
              name: 'kubeconfig-secretreader',
              execConfig: {
                apiVersion: 'client.authentication.k8s.io/v1',
                command: plugin,
                provideClusterInfo: true,
                interactiveMode: 'Never',
              },
            },
          ],
        },
      },
    }),
  );
  const manager = startManaged(
    'kueue',
    join(dir, 'kueue'),
    [`--config=${configPath}`],
    cleanEnv({ KUBECONFIG: plane.kubeconfigPath, HOME: home }),
  );
  const stop = async (): Promise<void> => {
    await manager.stop();
    rmSync(home, { recursive: true, force: true });
  };
  try {
    await projectWebhookCertificate(plane, manager, certDir);
    await waitReady(manager, () => httpOk(`http://127.0.0.1:${String(health)}/readyz`), 180_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { logs: () => manager.tail(), stop };
}

/** What the kubelet does in a pod: the rotator's Secret, as files in the certificate dir. */
async function projectWebhookCertificate(
  plane: Plane,
  manager: Managed,
  certDir: string,
): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (manager.exited()) throw new Error(`kueue exited during start:\n${manager.tail()}`);
    const secret = JSON.parse(
      await kubectl(plane, ['get', 'secret', WEBHOOK_SECRET, '-n', KUEUE_NAMESPACE, '-o', 'json']),
    ) as { data?: Record<string, string> };
    const crt = secret.data?.['tls.crt'];
    const key = secret.data?.['tls.key'];
    if (crt !== undefined && key !== undefined) {
      mkdirSync(certDir, { recursive: true });
      writeFileSync(join(certDir, 'tls.crt'), Buffer.from(crt, 'base64'), { mode: 0o600 });
      writeFileSync(join(certDir, 'tls.key'), Buffer.from(key, 'base64'), { mode: 0o600 });
      return;
    }
    if (Date.now() > deadline)
      throw new Error(`kueue wrote no webhook certificate in time:\n${manager.tail()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function httpOk(url: string): Promise<boolean> {
  const response = await fetch(url);
  await response.text();
  return response.ok;
}
