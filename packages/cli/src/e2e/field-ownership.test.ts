// A registration is shared with other tools: what they add to it must survive our writes.
// Another actor adds a finalizer, an ownerReference, a label and an annotation to the
// registration Secret; a credential rotation and namespace label changes then rewrite it,
// and all four are still there (a full replace would strip every one of them).

import { describe, expect, it } from 'vitest';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import {
  PREFIX,
  applyOnce,
  clusterConfig,
  createSourceNamespace,
  useWorld,
  kubeconfigYaml,
  putK3kKubeconfig,
  registration,
} from '../test-support/e2e.js';

const { world } = useWorld();

const FINALIZER = 'example.com/keep-until-backed-up';
const FOREIGN_LABEL = ['team.example.com/owner', 'blue'] as const;
const FOREIGN_ANNOTATION = ['backup.example.com/last', '2026-11-30T10:00:00Z'] as const;

describe('writes change only what the registrar owns', () => {
  it('keeps finalizers, ownerReferences and foreign labels and annotations across a rotation and label changes', async () => {
    const ns = await createSourceNamespace(world, { cluster: 'shared' });
    const namespace = ns.metadata?.name ?? '';
    await putK3kKubeconfig(world, namespace, kubeconfigYaml(world.child, { user: { token: 'a' } }));
    await applyOnce(world);
    const created = await registration(world, 'shared');
    expect(clusterConfig(created).bearerToken).toBe('a');

    // Another actor (a backup tool, say) marks the Secret as its own business too.
    await world.hostApi.patchNamespacedSecret(
      {
        name: 'cluster-shared',
        namespace: world.target,
        body: {
          metadata: {
            finalizers: [FINALIZER],
            ownerReferences: [
              {
                apiVersion: 'v1',
                kind: 'ConfigMap',
                name: 'registry',
                uid: '00000000-0000-4000-8000-000000000001',
              },
            ],
            labels: { [FOREIGN_LABEL[0]]: FOREIGN_LABEL[1] },
            annotations: { [FOREIGN_ANNOTATION[0]]: FOREIGN_ANNOTATION[1] },
          },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );

    const expectForeignKept = async () => {
      const secret = await registration(world, 'shared');
      expect(secret?.metadata?.finalizers).toEqual([FINALIZER]);
      expect(secret?.metadata?.ownerReferences?.map((o) => o.name)).toEqual(['registry']);
      expect(secret?.metadata?.labels?.[FOREIGN_LABEL[0]]).toBe(FOREIGN_LABEL[1]);
      expect(secret?.metadata?.annotations?.[FOREIGN_ANNOTATION[0]]).toBe(FOREIGN_ANNOTATION[1]);
      return secret;
    };

    // A namespace label change the registration copies, together with a rotated credential.
    await world.hostApi.patchNamespace(
      { name: namespace, body: { metadata: { labels: { [`${PREFIX}env`]: 'prod' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await putK3kKubeconfig(world, namespace, kubeconfigYaml(world.child, { user: { token: 'b' } }));
    await applyOnce(world);
    const rotated = await expectForeignKept();
    expect(clusterConfig(rotated).bearerToken).toBe('b');
    expect(rotated?.metadata?.labels?.[`${PREFIX}env`]).toBe('prod');
    expect(rotated?.metadata?.uid).toBe(created?.metadata?.uid);

    // The label is removed from the namespace: our copy goes, the foreign keys stay.
    await world.hostApi.patchNamespace(
      { name: namespace, body: { metadata: { labels: { [`${PREFIX}env`]: null } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await applyOnce(world);
    const relabelled = await expectForeignKept();
    expect(relabelled?.metadata?.labels?.[`${PREFIX}env`]).toBeUndefined();
    expect(clusterConfig(relabelled).bearerToken).toBe('b');

    // Let the Secret go when the world is torn down.
    await world.hostApi.patchNamespacedSecret(
      { name: 'cluster-shared', namespace: world.target, body: { metadata: { finalizers: null } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  });
});
