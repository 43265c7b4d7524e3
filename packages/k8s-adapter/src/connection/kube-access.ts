// Which cluster we talk to, and how that was decided. The `source` names a file and a
// context, never anything read from inside it.
import { loadKubeCluster } from './kube-config.js';
import type { InClusterProbe, KubeCluster, KubeconfigChoice } from './kube-config.js';
import type { WriteFence } from './write-fence.js';

export type { InClusterProbe, KubeCluster } from './kube-config.js';

export interface KubeAccess {
  readonly cluster: KubeCluster;
  /** 'in-cluster' or '<path> (context <ctx>)'. */
  readonly source: string;
  /** Bound on each request, headers to last byte; default REQUEST_TIMEOUT_MS (request-guard.ts). */
  readonly requestTimeoutMs?: number;
  /**
   * Checked right before each Secret write and Event is sent (write-fence.ts); a daemon with
   * leader election sets its elector here. Absent: writes are not fenced.
   */
  readonly writeFence?: WriteFence;
}

export type KubeAccessOptions = KubeconfigChoice;

/**
 * An explicit `opts.kubeconfig` or `opts.context` first: asked for, it is never silently
 * replaced by the pod's service account. Otherwise the in-cluster service account
 * (KUBERNETES_SERVICE_HOST + token file), then `$KUBECONFIG`, `~/.kube/config`. Throws
 * with a message that names the file and the problem when none is usable: there is nothing
 * sensible to do without one.
 */
export function loadKubeAccess(opts: KubeAccessOptions, inCluster?: InClusterProbe): KubeAccess {
  return loadKubeCluster(opts, inCluster);
}
