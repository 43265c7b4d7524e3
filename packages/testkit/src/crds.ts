// Installing CustomResourceDefinitions on a plane: server-side apply (some CRDs are too large
// for the last-applied annotation of a client-side apply), then wait until every named one is
// Established, so that objects of their kinds can be created at once.

import type { ControlPlane } from './control-plane.js';
import { kubectl } from './argocd-tools.js';

type Plane = Pick<ControlPlane, 'kubeconfigPath'>;

interface Crd {
  status?: { conditions?: { type: string; status: string }[] | null };
}

/** `kubectl get` of several names answers a List; of one name, the object itself. */
type CrdList = { items: Crd[] } | (Crd & { items?: undefined });

/**
 * Applies `source` (a file or directory for `kubectl apply -f`, or `-` with `input`) and waits
 * until the CRDs `names` (`<plural>.<group>`) are Established.
 */
export async function applyCrds(
  plane: Plane,
  what: string,
  names: readonly string[],
  source: { readonly path: string } | { readonly input: string },
  timeoutMs = 60_000,
): Promise<void> {
  const args = ['apply', '--server-side', '--force-conflicts', '-f'];
  if ('path' in source) await kubectl(plane, [...args, source.path]);
  else await kubectl(plane, [...args, '-'], source.input);
  // Polled rather than `kubectl wait`, which fails while a new CRD has no conditions yet.
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = JSON.parse(
      await kubectl(plane, ['get', 'crd', ...names, '--output', 'json']),
    ) as CrdList;
    const established = (list.items ?? [list]).filter((crd) =>
      (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True'),
    );
    if (established.length === names.length) return;
    if (Date.now() > deadline)
      throw new Error(`${what} were not established in ${String(timeoutMs / 1000)}s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
