// The few Kubernetes object shapes the adapter reads and writes, as the API server's JSON
// has them: timestamps stay RFC 3339 strings, Secret data stays base64. Only the fields we
// use are named; the API server may send (and keeps) the rest.

export interface ObjectMeta {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly creationTimestamp?: string;
  readonly deletionTimestamp?: string;
  readonly ownerReferences?: readonly {
    readonly apiVersion?: string;
    readonly kind?: string;
    readonly name?: string;
    readonly uid?: string;
    readonly controller?: boolean;
  }[];
}

export interface KubeSecret {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
  readonly type?: string;
  readonly data?: Readonly<Record<string, string>>;
}

export interface KubeNamespace {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
}

/** Any object read as metadata only (`as=PartialObjectMetadata`), as Cluster API Clusters are. */
export interface PartialObjectMetadata {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
}

export interface KubeList<T> {
  readonly items?: readonly T[];
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
}

/** coordination.k8s.io/v1; times are MicroTime strings (microseconds, `...123456Z`). */
export interface KubeLease {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    readonly holderIdentity?: string;
    readonly leaseDurationSeconds?: number;
    readonly acquireTime?: string;
    readonly renewTime?: string;
    readonly leaseTransitions?: number;
  };
}

export interface KubeEvent {
  readonly apiVersion: 'v1';
  readonly kind: 'Event';
  readonly metadata: ObjectMeta;
  readonly involvedObject: {
    readonly apiVersion: string;
    readonly kind: string;
    readonly name: string;
    readonly namespace: string;
    readonly uid: string;
  };
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly source: { readonly component: string };
  readonly reportingComponent: string;
  readonly reportingInstance: string;
  readonly firstTimestamp: string;
  readonly lastTimestamp: string;
  readonly count: number;
}

/** A Lease time as MicroTime: RFC 3339 with six fractional digits. */
export function microTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/Z$/, '000Z');
}
