// Cluster API's own controllers against a test plane, run out of cluster as the plane's admin:
// the core manager and the kubeadm control plane (KCP) manager from tools/capi, and Kubernetes'
// garbage collector and namespace controller (kube-controller-manager), which a plane does not
// run otherwise and without which nothing CAPI's objects own would ever go (KCP's Secrets are
// removed by ownerReference, as in a real cluster).
//
// The garbage collector acts on the whole plane: it deletes every object whose owner is gone.
// Use a plane of its own (startControlPlane), never the shared test host plane, whose tests
// create Secrets with made-up owners.
//
// Webhooks: each manager starts its webhook server (on a self-signed certificate, on a free
// port), but no webhook configuration is registered with the API server, so it is never
// called. Objects are therefore neither defaulted nor validated by CAPI's webhooks; the
// helpers in capi-cluster.ts write complete objects.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { ControlPlane } from './control-plane.js';
import { cleanEnv, startManaged, waitReady } from './argocd-process.js';
import type { Managed } from './argocd-process.js';
import {
  BUILD_SCRIPT,
  freePort,
  kubectl,
  lastLine,
  runChecked,
  toolsBinDir,
} from './argocd-tools.js';
import { applyCrds } from './crds.js';
import { TEST_INFRASTRUCTURE_CRDS } from './capi-infrastructure.js';

/** A plane with Cluster API's controllers running against it. */
export interface Capi {
  readonly plane: Pick<ControlPlane, 'kubeconfigPath'>;
  /** Recent output of every controller, for failure messages. */
  logs(): string;
  /** Stops the controllers (the CRDs and objects stay on the plane). */
  stop(): Promise<void>;
}

let capiDir: Promise<string> | undefined;

/** tools/capi's build: the managers and, in crds/, the module's CRDs (built on first use). */
export function capiBinaryDir(): Promise<string> {
  capiDir ??= runChecked(BUILD_SCRIPT, ['capi']).then(lastLine);
  return capiDir;
}

// The contract label CAPI's release manifests put on the provider CRDs (their kustomizations
// add it; the module's bases do not carry it). Without it the core controller cannot tell which
// version of a referenced kind implements contract v1beta2 ("cannot find any versions matching
// contract versions").
const CONTRACT_LABELS = ['cluster.x-k8s.io/v1beta1=v1beta1', 'cluster.x-k8s.io/v1beta2=v1beta2'];
const LABELLED_GROUPS = ['bootstrap.cluster.x-k8s.io', 'controlplane.cluster.x-k8s.io'];

/**
 * Applies Cluster API's CRDs (core, kubeadm control plane, kubeadm bootstrap) with the contract
 * labels its releases carry, and the test's own infrastructure kinds (capi-infrastructure.ts).
 */
export async function installCapiCrds(plane: Pick<ControlPlane, 'kubeconfigPath'>): Promise<void> {
  const dir = join(await capiBinaryDir(), 'crds');
  // <group>_<plural>.yaml, as controller-gen names them.
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => {
      const [group = '', plural = ''] = basename(f, '.yaml').split('_');
      return `${plural}.${group}`;
    });
  await applyCrds(plane, "Cluster API's CRDs", names, { path: dir });
  const labelled = names.filter((n) => LABELLED_GROUPS.some((g) => n.endsWith(`.${g}`)));
  await kubectl(plane, ['label', '--overwrite', 'crd', ...labelled, ...CONTRACT_LABELS]);
  await applyCrds(
    plane,
    "the tests' infrastructure CRDs",
    TEST_INFRASTRUCTURE_CRDS.map((c) => c.metadata.name),
    { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: TEST_INFRASTRUCTURE_CRDS }) },
  );
}

/** A self-signed serving certificate for a webhook server nobody calls. */
function webhookCertDir(parent: string, name: string): string {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-keyout',
      join(dir, 'tls.key'),
      '-out',
      join(dir, 'tls.crt'),
    ],
    { stdio: 'ignore' },
  );
  return dir;
}

async function httpOk(url: string): Promise<boolean> {
  const response = await fetch(url);
  await response.text();
  return response.ok;
}

/** A CAPI manager with its own webhook, health and diagnostics ports, ready once /readyz is. */
async function startManager(
  name: string,
  binary: string,
  home: string,
  env: NodeJS.ProcessEnv,
): Promise<Managed> {
  const [webhook, health, diagnostics] = [await freePort(), await freePort(), await freePort()];
  const manager = startManaged(
    name,
    binary,
    [
      `--webhook-cert-dir=${webhookCertDir(home, name)}`,
      `--webhook-port=${String(webhook)}`,
      `--health-addr=127.0.0.1:${String(health)}`,
      `--diagnostics-address=127.0.0.1:${String(diagnostics)}`,
      '--insecure-diagnostics',
      '--leader-elect=false',
    ],
    env,
  );
  try {
    await waitReady(manager, () => httpOk(`http://127.0.0.1:${String(health)}/readyz`), 120_000);
  } catch (err) {
    await manager.stop();
    throw err;
  }
  return manager;
}

/**
 * Installs the CRDs and starts Kubernetes' garbage collector and namespace controller, CAPI's
 * core manager and its KCP manager against `plane` (a plane of its own: see the file's
 * comment). stop() ends them all; their output is in logs() for failure messages.
 */
export async function startCapi(plane: Pick<ControlPlane, 'kubeconfigPath'>): Promise<Capi> {
  const [dir, kubeBin] = await Promise.all([capiBinaryDir(), toolsBinDir()]);
  await installCapiCrds(plane);
  const home = mkdtempSync(join(tmpdir(), 'registrar-capi-'));
  const env = cleanEnv({ KUBECONFIG: plane.kubeconfigPath, HOME: home });
  const started: Managed[] = [];
  const stop = async (): Promise<void> => {
    await Promise.allSettled(started.map((m) => m.stop()));
    rmSync(home, { recursive: true, force: true });
  };
  try {
    const gc = startManaged(
      'kube-controller-manager',
      join(kubeBin, 'kube-controller-manager'),
      [
        `--kubeconfig=${plane.kubeconfigPath}`,
        '--controllers=garbagecollector,namespace',
        '--leader-elect=false',
        // Nothing to serve: no probe or metrics listener.
        '--secure-port=0',
      ],
      env,
    );
    started.push(gc);
    await waitReady(
      gc,
      () => Promise.resolve(gc.tail().includes('Proceeding to collect garbage')),
      120_000,
    );
    // One after the other: two cold starts at once would only compete for the machine's CPUs.
    started.push(await startManager('capi-core', join(dir, 'capi-core'), home, env));
    started.push(await startManager('capi-kcp', join(dir, 'capi-kcp'), home, env));
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    plane,
    logs: () => started.map((m) => `--- ${m.name}\n${m.tail()}`).join('\n'),
    stop,
  };
}
