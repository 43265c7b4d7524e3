import { copyFileSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mintClientCertificate, testHostPlane } from '@argocd-cluster-registrar/testkit';
import type { ControlPlane } from '@argocd-cluster-registrar/testkit';
import { listNamespaces } from './kube-api.js';
import { loadKubeAccess } from './kube-access.js';
import { kubeRequest } from './kube-http.js';

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

  it('uses a rotated client certificate file on the next request, without a restart', async () => {
    const pki = join(dirname(plane.kubeconfigPath), 'pki');
    const sign = (name: string, subject: string): void => {
      const { certPem, keyPem } = mintClientCertificate(plane, subject);
      writeFileSync(join(dir, `${name}.crt`), certPem);
      writeFileSync(join(dir, `${name}.key`), keyPem);
    };
    sign('first', '/CN=acr-first-cert');
    sign('second', '/CN=acr-second-cert');
    copyFileSync(join(dir, 'first.crt'), join(dir, 'client.crt'));
    copyFileSync(join(dir, 'first.key'), join(dir, 'client.key'));
    const path = write(
      'rotating.yaml',
      [
        'apiVersion: v1',
        'current-context: r',
        `clusters: [{name: r, cluster: {server: "${plane.server}", certificate-authority: ${join(pki, 'ca.crt')}}}]`,
        'users: [{name: r, user: {client-certificate: client.crt, client-key: client.key}}]',
        'contexts: [{name: r, context: {cluster: r, user: r}}]',
      ].join('\n'),
    );
    const access = loadKubeAccess({ kubeconfig: path });
    const whoAmI = async (): Promise<string | undefined> => {
      const review = await kubeRequest<{ status?: { userInfo?: { username?: string } } }>(access, {
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
      return review.status?.userInfo?.username;
    };
    expect(await whoAmI()).toBe('acr-first-cert');
    // Replaced the way cert-manager or a kubelet does: a new file renamed over the old one.
    copyFileSync(join(dir, 'second.key'), join(dir, 'client.key.new'));
    copyFileSync(join(dir, 'second.crt'), join(dir, 'client.crt.new'));
    renameSync(join(dir, 'client.key.new'), join(dir, 'client.key'));
    renameSync(join(dir, 'client.crt.new'), join(dir, 'client.crt'));
    expect(await whoAmI()).toBe('acr-second-cert');
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
