// The proof a demotion or deletion rests on, re-checked against the live world right before
// it is sent. A plan is made from a gather that may be seconds old (latency, a slow pass, a
// process paused mid-pass); in those seconds a rename can be reverted or a namespace
// re-created, and the plan's proof no longer holds. The Secret's own preconditions
// (uid + resourceVersion) cannot see that: the Secret did not change, its source did.
// Anything short of a fresh answer that still proves the point withholds the write.

import { labelKeys } from '@argocd-cluster-registrar/core';
import type { Action, ObservedSecret } from '@argocd-cluster-registrar/core';
import { classifyApiError } from '../connection/api-failure.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { readNamespace } from '../connection/kube-api.js';
import { requestBound } from '../connection/request-guard.js';

export type ProofCheck = { readonly holds: true } | { readonly holds: false; readonly why: string };

type SourceNow =
  | { readonly state: 'present'; readonly uid: string; readonly labels: Record<string, string> }
  | { readonly state: 'absent' }
  | { readonly state: 'unknown'; readonly why: string };

const HOLDS: ProofCheck = { holds: true };

/**
 * For a demote or delete: does its reason still hold in the live world? Creates and updates
 * rest on nothing that can turn a live registration into a lost one, and are not checked.
 */
export async function recheckProof(
  access: KubeAccess,
  action: Action,
  observed: ObservedSecret | undefined,
  labelPrefix: string,
): Promise<ProofCheck> {
  if (action.kind !== 'demote' && action.kind !== 'delete') return HOLDS;
  const keys = labelKeys(labelPrefix);
  const source = action.reason.namespace;
  const now = await readSource(access, source);
  if (now.state === 'unknown')
    return withheld(`namespace ${source} could not be read (${now.why})`);
  const recordedUid = observed?.labels[keys.sourceNamespaceUid];
  const claimsThis =
    now.state === 'present' &&
    (recordedUid === undefined || now.uid === recordedUid) &&
    now.labels[keys.cluster] === action.cluster;

  if (action.kind === 'demote') {
    // Rests on: the namespace still exists as recorded and now claims another cluster name.
    if (now.state === 'absent') return withheld(`namespace ${source} is gone; not a rename`);
    if (recordedUid !== undefined && now.uid !== recordedUid)
      return withheld(`namespace ${source} was re-created; not a rename`);
    if (now.labels[keys.cluster] === action.cluster)
      return withheld(`namespace ${source} claims ${action.cluster} again (rename reverted)`);
    return HOLDS;
  }

  switch (action.reason.code) {
    case 'source-namespace-not-found':
      return now.state === 'absent' ? HOLDS : withheld(`namespace ${source} exists again`);
    case 'source-namespace-replaced':
      // Gone, or still another namespace than the recorded one: the recorded one is gone.
      return now.state === 'absent' || now.uid !== action.reason.recordedUid
        ? HOLDS
        : withheld(`namespace ${source} has the recorded uid again`);
    case 'demotion-expired':
      // A demoted registration whose namespace claims it again is about to be restored.
      return claimsThis ? withheld(`namespace ${source} claims ${action.cluster} again`) : HOLDS;
  }
}

function withheld(why: string): ProofCheck {
  return { holds: false, why: `stale plan: ${why}` };
}

async function readSource(access: KubeAccess, name: string): Promise<SourceNow> {
  try {
    const namespace = await readNamespace(access, name, requestBound(access));
    return {
      state: 'present',
      uid: namespace.metadata?.uid ?? '',
      labels: { ...(namespace.metadata?.labels ?? {}) },
    };
  } catch (err) {
    const failure = classifyApiError(err);
    // Only a 404 proves absence; every other answer proves nothing.
    return failure.kind === 'not-found'
      ? { state: 'absent' }
      : { state: 'unknown', why: failure.message };
  }
}
