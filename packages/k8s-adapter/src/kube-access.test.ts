import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { testHostPlane } from '@argocd-cluster-registrar/testkit';
import type { ControlPlane } from '@argocd-cluster-registrar/testkit';
import { listNamespaces } from './kube-api.js';
import { loadKubeAccess } from './kube-access.js';

let plane: ControlPlane;
let dir: string;
beforeAll(async () => {
  plane = await testHostPlane();
  dir = mkdtempSync(join(tmpdir(), 'acr-kube-access-'));
  // The run must not look in-cluster, or every case below would load the service account.
  vi.stubEnv('KUBERNETES_SERVICE_HOST', '');
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.stubEnv('KUBERNETES_SERVICE_HOST', '');
});

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('loadKubeAccess', () => {
  it('loads --kubeconfig, names file and context, and reaches the API server', async () => {
    const access = loadKubeAccess({ kubeconfig: plane.kubeconfigPath });
    expect(access.source).toMatch(
      new RegExp(
        `^${plane.kubeconfigPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(context .+\\)$`,
      ),
    );
    const namespaces = await listNamespaces(access, { limit: 5 });
    expect(namespaces.items?.length).toBeGreaterThan(0);
  });

  it('falls back to $KUBECONFIG, merging a list with the first file winning', () => {
    const extra = write(
      'extra.yaml',
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: other',
        'clusters: [{name: other, cluster: {server: "https://other.example"}}]',
        'users: [{name: other, user: {token: abc}}]',
        'contexts: [{name: other, context: {cluster: other, user: other}}]',
      ].join('\n'),
    );
    vi.stubEnv('KUBECONFIG', [plane.kubeconfigPath, extra].join(delimiter));
    const access = loadKubeAccess({});
    expect(access.cluster.server).toBe(plane.server);
    expect(loadKubeAccess({ context: 'other' }).cluster.server).toBe('https://other.example');
  });

  it('honours an explicit --kubeconfig or --context over the in-cluster service account', () => {
    const pod = { serviceHost: '10.0.0.1', tokenPath: write('token', 'not-a-real-token') };
    // Without either, the service account wins (the pod's normal case)...
    expect(loadKubeAccess({}, pod).source).toBe('in-cluster');
    // ...but asked for, a kubeconfig or context is used, never silently ignored.
    expect(loadKubeAccess({ kubeconfig: plane.kubeconfigPath }, pod).source).toMatch(
      /\(context .+\)$/,
    );
    vi.stubEnv('KUBECONFIG', plane.kubeconfigPath);
    const source = loadKubeAccess({}, { serviceHost: '', tokenPath: '/nonexistent' }).source;
    const context = /\(context (.+)\)$/.exec(source)?.[1] ?? '';
    expect(loadKubeAccess({ context }, pod).cluster.server).toBe(plane.server);
  });

  it('refuses an unknown context by name', () => {
    expect(() => loadKubeAccess({ kubeconfig: plane.kubeconfigPath, context: 'nope' })).toThrow(
      /context nope not found/,
    );
  });

  it('names a missing file', () => {
    const missing = join(dir, 'missing.yaml');
    expect(() => loadKubeAccess({ kubeconfig: missing })).toThrow(
      `no kubeconfig found (tried ${missing})`,
    );
  });

  it('never quotes the content of an unreadable file', () => {
    const garbage = write(
      'garbage.yaml',
      'users:\n  - name: x\n    user: {token: s3cr3t-token\n  : : [',
    );
    let message = '';
    try {
      loadKubeAccess({ kubeconfig: garbage });
    } catch (err) {
      message = err instanceof Error ? err.message : String(err);
    }
    expect(message).toContain(garbage);
    expect(message).not.toContain('s3cr3t');
  });
});
