// Kubernetes Events on a source namespace, so `kubectl get events -n <ns>` tells its owner
// what the registrar did with it (or, while it terminates, on its registration Secret).
// Best effort: a failure is returned, never thrown.

import { hostname } from 'node:os';
import { CAPI_GROUP } from '@argocd-cluster-registrar/core';
import { classifyApiError } from './api-failure.js';
import type { ApiFailure } from './api-failure.js';
import type { KubeAccess } from './kube-access.js';
import { createEvent } from './kube-api.js';
import { requestBound } from './request-guard.js';
import { LeadershipLost, isLeadershipLost } from './write-fence.js';

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
 * finds it by kind, name and uid).
 */
export async function recordClusterEvent(
  access: KubeAccess,
  cluster: { namespace: string; name: string; uid: string },
  event: NamespaceEvent,
  component: string,
): Promise<ApiFailure | undefined> {
  return recordEvent(
    access,
    { apiVersion: `${CAPI_GROUP}/v1beta2`, kind: 'Cluster', ...cluster },
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
  const now = new Date();
  const stamp = now.toISOString();
  const fence = access.writeFence;
  try {
    // Events are writes too: a deposed leader must not report what it no longer decides.
    if (fence !== undefined && !fence.holds()) throw new LeadershipLost();
    await createEvent(
      access,
      involved.namespace,
      {
        apiVersion: 'v1',
        kind: 'Event',
        // client-go's naming: the object's name and a unique hex suffix.
        metadata: {
          name: `${involved.name}.${now.getTime().toString(16)}${Math.floor(Math.random() * 0xffff)
            .toString(16)
            .padStart(4, '0')}`,
          namespace: involved.namespace,
        },
        involvedObject: { apiVersion: 'v1', ...involved },
        type: event.type,
        reason: event.reason.slice(0, MAX_REASON),
        message:
          event.message.length > MAX_MESSAGE
            ? `${event.message.slice(0, MAX_MESSAGE - 1)}…`
            : event.message,
        source: { component },
        reportingComponent: component,
        reportingInstance: hostname(),
        firstTimestamp: stamp,
        lastTimestamp: stamp,
        count: 1,
      },
      {
        ...requestBound(access),
        beforeSend: () => {
          fence?.check();
        },
      },
    );
    return undefined;
  } catch (err) {
    if (isLeadershipLost(err)) {
      return { kind: 'transient', message: 'not sent: leadership was lost', retryable: true };
    }
    return classifyApiError(err);
  }
}
