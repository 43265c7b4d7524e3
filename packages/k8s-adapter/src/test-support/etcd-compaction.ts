// Compacts the test plane's etcd up to its current revision, as kube-apiserver does on its own
// every 5 minutes: after it, a watch served from etcd (not from the API server's watch cache,
// e.g. core/v1 Events) that resumes from an older resourceVersion is answered 410 Gone.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ControlPlane } from '@argocd-cluster-registrar/testkit';

async function etcdPost(plane: ControlPlane, path: string, body: unknown): Promise<unknown> {
  // scripts/control-plane keeps the plane's state beside its kubeconfig.
  const port = readFileSync(join(dirname(plane.kubeconfigPath), 'etcd.port'), 'utf8').trim();
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`etcd ${path}: HTTP ${response.status}`);
  return response.json();
}

export async function compactEtcd(plane: ControlPlane): Promise<void> {
  const range = (await etcdPost(plane, '/v3/kv/range', { key: 'AA==' })) as {
    header?: { revision?: string };
  };
  const revision = range.header?.revision;
  if (revision === undefined) throw new Error('etcd gave no revision');
  await etcdPost(plane, '/v3/kv/compaction', { revision, physical: true });
}
