// `helm install` against the real host plane: a targetNamespace that does not exist is refused
// before anything is sent, with a message naming the value, and leaves no release behind.
// (Without the check the cluster-wide objects were created, the Role was refused, and a failed
// release remained.)

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testHostPlane, uniqueName } from '@argocd-cluster-registrar/testkit';
import type { ControlPlane } from '@argocd-cluster-registrar/testkit';
import { chartDir, helm } from './chart-support.js';

let host: ControlPlane;
const releases: string[] = [];

beforeAll(async () => {
  host = await testHostPlane();
});

afterAll(async () => {
  // Only if a test failed half-way: an install that should have been refused went through.
  for (const release of releases) {
    await helm(['uninstall', release, '--kubeconfig', host.kubeconfigPath, '-n', 'default']);
  }
});

function install(release: string, targetNamespace: string, extra: readonly string[] = []) {
  releases.push(release);
  return helm([
    'install',
    release,
    chartDir,
    '--kubeconfig',
    host.kubeconfigPath,
    '--namespace',
    'default',
    '--set',
    `targetNamespace=${targetNamespace}`,
    ...extra,
  ]);
}

describe('helm install checks targetNamespace up front', () => {
  test('a missing targetNamespace fails at once, naming the value, and leaves no release', async () => {
    const missing = uniqueName('no-argocd');
    const release = uniqueName('acr');
    const result = await install(release, missing);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      `values: targetNamespace "${missing}" does not exist in this cluster.`,
    );
    expect(result.stderr).toContain(`kubectl create namespace ${missing}`);
    // Refused while rendering: once, and before any object or release record was written.
    expect(result.stderr.match(/does not exist/g)).toHaveLength(1);
    const list = await helm([
      'list',
      '--all',
      '--kubeconfig',
      host.kubeconfigPath,
      '-n',
      'default',
      '--filter',
      `^${release}$`,
      '--short',
    ]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.trim()).toBe('');
  });

  test('an existing targetNamespace passes the check (server dry run)', async () => {
    const result = await install(uniqueName('acr'), 'default', ['--dry-run=server']);
    expect(result.code, result.stderr).toBe(0);
  });

  test('without a cluster (helm template) the check cannot run and does not fail', async () => {
    const result = await helm([
      'template',
      'acr',
      chartDir,
      '--set',
      `targetNamespace=${uniqueName('anything')}`,
    ]);
    expect(result.code, result.stderr).toBe(0);
  });
});
