// The facts a demotion or deletion rests on, looked up again right before it is sent. Which
// facts prove which reason is core's decision (core's write-proof.ts); this module only
// reads the source once more (a namespace, or a Cluster API Cluster) and reports what core
// says of it. The Secret's own uid and resourceVersion travel with the write as
// preconditions; a source that cannot be read proves nothing and withholds the write.

import { isClusterKey, proofSource, writeProof } from '@argocd-cluster-registrar/core';
import type { Config, ObservedSecret, ProvenAction } from '@argocd-cluster-registrar/core';
import { discoverClusterApi } from '../connection/cluster-api.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { lookUpSource } from '../connection/source-lookup.js';
import type { SecretWriter, WriteOutcome } from './secret-writer.js';

/** What the proof re-check needs of the configuration. */
export type ProofConfig = Pick<
  Config,
  'labelPrefix' | 'capiClusterNames' | 'capiClusterNameLabel' | 'target'
>;

/**
 * Every demotion and deletion behind a fresh look at its source: sent only while core's
 * rule for its reason still holds, otherwise reported `withheld` with why. Creates and
 * updates pass straight through.
 */
export function provenSecrets(
  writer: SecretWriter,
  access: KubeAccess,
  config: ProofConfig,
): SecretWriter {
  const proven = async (
    action: ProvenAction,
    before: ObservedSecret | undefined,
    send: () => Promise<WriteOutcome>,
  ): Promise<WriteOutcome> => {
    const source = proofSource(action);
    if (source === undefined) return send();
    // Discovery first, as the gatherers do: a Cluster's 404 proves absence only while its
    // group is served.
    const api = isClusterKey(source) ? await discoverClusterApi(access) : undefined;
    const { lookup } = await lookUpSource(access, source, api);
    const proof = writeProof(action, before, lookup, config);
    if (proof.holds) return send();
    return {
      status: 'withheld',
      failure: { kind: 'conflict', message: proof.why, retryable: true },
    };
  };
  return {
    create: (action, options) => writer.create(action, options),
    patch: (action, patch, before, options) =>
      action.kind === 'demote'
        ? proven(action, before, () => writer.patch(action, patch, before, options))
        : writer.patch(action, patch, before, options),
    delete: (action, before, options) =>
      proven(action, before, () => writer.delete(action, before, options)),
  };
}
