// Kubernetes Events on a source namespace, so `kubectl get events -n <ns>` tells its owner
// what the registrar did with it (or, while it terminates, on its registration Secret).
// Best effort: a failure is returned, never thrown.
//
// A repeated Event is aggregated as client-go's recorder does: the existing one gets its
// `count` raised and `lastTimestamp` moved instead of a new object. client-go finds the
// repeat in an in-process cache; here the Event's name is derived from what makes it the
// same Event (component, involved object's uid, type, reason, message), so a repeat is found
// across runs and restarts too: five `--once` runs that refuse a namespace leave one Event
// with count 5. Until the API server expires it (one hour by default), then a new one starts.

import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { CAPI_GROUP } from '@argocd-cluster-registrar/core';
import { classifyApiError } from '../connection/api-failure.js';
import type { ApiFailure } from '../connection/api-failure.js';
import type { KubeAccess } from '../connection/kube-access.js';
import { INVENTORY_GROUP } from '../connection/cluster-profile-api.js';
import { createEvent, patchEvent, readEvent } from '../connection/kube-api.js';
import { LeadershipLost, isLeadershipLost } from '../connection/write-fence.js';

export interface NamespaceEvent {
  readonly type: 'Normal' | 'Warning';
  /** UpperCamelCase, e.g. 'Registered', 'Refused'. */
  readonly reason: string;
  readonly message: string;
}

const MAX_MESSAGE = 1024;
const MAX_REASON = 128;

export async function recordNamespaceEvent(
  access: KubeAccess,
  namespace: { name: string; uid: string },
  event: NamespaceEvent,
  component: string,
): Promise<ApiFailure | undefined> {
  // A Namespace is cluster-scoped; the event lives inside it, which the API server
  // accepts only when involvedObject.namespace names the event's own namespace.
  return recordEvent(
    access,
    { kind: 'Namespace', name: namespace.name, uid: namespace.uid, namespace: namespace.name },
    event,
    component,
  );
}

/**
 * An Event on a Cluster API Cluster source, in its namespace (`kubectl describe cluster`
 * finds it by kind, name and uid). `version`: the one discovery found the group served at,
 * the version the Cluster was read at.
 */
export async function recordClusterEvent(
  access: KubeAccess,
  cluster: { namespace: string; name: string; uid: string; version: string },
  event: NamespaceEvent,
  component: string,
): Promise<ApiFailure | undefined> {
  const { version, ...ref } = cluster;
  return recordEvent(
    access,
    { apiVersion: `${CAPI_GROUP}/${version}`, kind: 'Cluster', ...ref },
    event,
    component,
  );
}

/**
 * An Event on a ClusterProfile of the inventory namespace, where its consumers look
 * (`kubectl describe clusterprofile`). `version`: the one the profile was written at.
 */
export async function recordProfileEvent(
  access: KubeAccess,
  profile: { namespace: string; name: string; uid: string; version: string },
  event: NamespaceEvent,
  component: string,
): Promise<ApiFailure | undefined> {
  const { version, ...ref } = profile;
  return recordEvent(
    access,
    { apiVersion: `${INVENTORY_GROUP}/${version}`, kind: 'ClusterProfile', ...ref },
    event,
    component,
  );
}

/**
 * An Event on a registration Secret in the target namespace: for news about a source
 * namespace that is terminating, where the API server refuses new objects (Events too).
 */
export async function recordSecretEvent(
  access: KubeAccess,
  secret: { namespace: string; name: string; uid: string },
  event: NamespaceEvent,
  component: string,
): Promise<ApiFailure | undefined> {
  return recordEvent(access, { kind: 'Secret', ...secret }, event, component);
}

async function recordEvent(
  access: KubeAccess,
  involved: { apiVersion?: string; kind: string; name: string; uid: string; namespace: string },
  event: NamespaceEvent,
  component: string,
): Promise<ApiFailure | undefined> {
  const stamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const fence = access.writeFence;
  const reason = event.reason.slice(0, MAX_REASON);
  const message =
    event.message.length > MAX_MESSAGE
      ? `${event.message.slice(0, MAX_MESSAGE - 1)}…`
      : event.message;
  const name = eventName(involved, event.type, reason, message, component);
  // Events are writes too: a deposed leader must not report what it no longer decides.
  const guard = {
    beforeSend: () => {
      fence?.check();
    },
  };
  try {
    if (fence !== undefined && !fence.holds()) throw new LeadershipLost();
    try {
      await createEvent(
        access,
        involved.namespace,
        {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name, namespace: involved.namespace },
          involvedObject: { apiVersion: 'v1', ...involved },
          type: event.type,
          reason,
          message,
          source: { component },
          reportingComponent: component,
          reportingInstance: hostname(),
          firstTimestamp: stamp,
          lastTimestamp: stamp,
          count: 1,
        },
        guard,
      );
      return undefined;
    } catch (err) {
      if (classifyApiError(err).kind !== 'already-exists') throw err;
    }
    // The same Event exists: count this one in it. The patch carries the resourceVersion it
    // read, so two recorders never count one repeat; a lost race is retried once.
    for (let attempt = 0; ; attempt++) {
      const existing = await readEvent(access, involved.namespace, name, guard);
      try {
        await patchEvent(
          access,
          involved.namespace,
          name,
          {
            metadata: { resourceVersion: existing.metadata?.resourceVersion },
            count: (existing.count ?? 1) + 1,
            lastTimestamp: stamp,
            reportingInstance: hostname(),
          },
          guard,
        );
        return undefined;
      } catch (err) {
        if (attempt > 0 || classifyApiError(err).kind !== 'conflict') throw err;
      }
    }
  } catch (err) {
    if (isLeadershipLost(err)) {
      return { kind: 'transient', message: 'not sent: leadership was lost', retryable: true };
    }
    return classifyApiError(err);
  }
}

/**
 * The name of an Event: the object's name (as client-go's recorder names them) and a digest
 * of what makes two Events the same, so a repeat has the name of the first.
 */
export function eventName(
  involved: { readonly name: string; readonly uid: string; readonly kind: string },
  type: string,
  reason: string,
  message: string,
  component: string,
): string {
  const digest = createHash('sha256')
    .update([component, involved.kind, involved.uid, type, reason, message].join('\0'))
    .digest('hex')
    .slice(0, 16);
  // An object name is at most 253 characters; the digest keeps it unique when cut.
  return `${involved.name.slice(0, 253 - 17)}.${digest}`;
}
