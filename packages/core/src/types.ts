// The planner's vocabulary: what it reads (a Snapshot), what it decides (a Plan) and the
// typed reasons in between. Everything here is readonly, plain data and JSON-serialisable,
// so a snapshot can be saved, a plan rendered, and both compared byte for byte.

export type Labels = Readonly<Record<string, string>>;

/** An RFC 3339 timestamp as the API server writes it (`2026-11-29T17:00:00Z`). */
export type Timestamp = string;

// ---------------------------------------------------------------------------------------
// Inputs

/** A namespace selected by `<prefix>managed-by: <managedBy>`. */
export interface SourceNamespace {
  readonly name: string;
  readonly uid: string;
  /**
   * As served. Optional: with it, a plan memo reuses what it derived from this namespace
   * until the namespace changes; without it, only while the very same object is passed.
   */
  readonly resourceVersion?: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly creationTimestamp: Timestamp;
  /** Set while the namespace is terminating. */
  readonly deletionTimestamp?: Timestamp;
}

/** A Secret as the API returns it. `data` values are base64, exactly as served. */
export interface ObservedSecret {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly type: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly data: Readonly<Record<string, string>>;
  readonly creationTimestamp?: Timestamp;
}

/**
 * The result of looking up, by name, the source namespace of an owned registration whose
 * namespace is not among the managed ones. Only `notFound` (or a different uid) is proof.
 */
export type SourceLookup =
  | {
      readonly state: 'present';
      readonly uid: string;
      readonly labels: Labels;
      readonly deletionTimestamp?: Timestamp;
    }
  | { readonly state: 'notFound' }
  | { readonly state: 'unknown'; readonly reason: string };

export interface Snapshot {
  /** Namespaces carrying `<prefix>managed-by: <managedBy>`. */
  readonly namespaces: readonly SourceNamespace[];
  /** Secrets in managed namespaces whose names match a provider glob (more is harmless). */
  readonly candidateSecrets: readonly ObservedSecret[];
  /**
   * Every Secret in the target namespace labelled `argocd.argoproj.io/secret-type: cluster`
   * (owned or not), plus owned Secrets carrying `<prefix>orphaned-secret-type` (demoted).
   */
  readonly clusterSecrets: readonly ObservedSecret[];
  /** Keyed by namespace name: lookups for owned registrations whose source is not managed. */
  readonly sourceLookups: Readonly<Record<string, SourceLookup>>;
  /**
   * Managed namespaces whose Secrets could not be listed: their candidates are unknown, not
   * absent. Absent (older snapshots) means every managed namespace was read.
   */
  readonly unreadNamespaces?: readonly UnreadNamespace[];
  /**
   * Why the cluster Secrets of the target namespace could not be listed completely; absent
   * when they were. `clusterSecrets` then holds what was read, which may be nothing.
   */
  readonly clusterSecretsUnread?: string;
  // -- near misses (messages only) ----------------------------------------------------
  /**
   * In managed namespaces without a candidate: Secrets that almost are one (see
   * near-misses.ts), so "no kubeconfig Secret" can name them. Optional: older snapshots and
   * fixtures have none, and the planner never decides anything from them.
   */
  readonly nearMisses?: readonly NearMissSecret[];
  // -- end near misses ------------------------------------------------------------------
}

/** A Secret that is almost a kubeconfig candidate: its name and key names, never values. */
export interface NearMissSecret {
  readonly namespace: string;
  readonly name: string;
  readonly keys: readonly string[];
}

/** A managed namespace whose Secret list failed, and why. */
export interface UnreadNamespace {
  readonly name: string;
  readonly reason: string;
}

// ---------------------------------------------------------------------------------------
// Configuration

export type ProviderName =
  'k3k' | 'vcluster' | 'kamaji' | 'capi' | 'capa-eks' | 'capz-aks' | 'gke' | 'custom';

/** The cloud exec plugins the registrar can translate into ArgoCD's own forms. */
export type ExecCloud = 'aws' | 'azure' | 'gcp';

export interface Provider {
  /** Preset name, or `custom` (legacy flags or a `custom:<glob>=<key>[,<key>]` entry). */
  readonly name: ProviderName;
  /** Glob over Secret names: `*` any run, `?` one character, `[...]` a class. */
  readonly secretNamePattern: string;
  /** Keys tried in order inside a matching Secret. */
  readonly keys: readonly string[];
  /** Secret type preferred among candidates of this provider (CAPI). */
  readonly preferredSecretType?: string;
  /** Loopback servers are rewritten to the provider's in-cluster Service (vcluster only). */
  readonly loopbackRewrite: boolean;
  /**
   * The provider's exec gate: the clouds whose exec plugins it may translate (capa-eks: aws,
   * capz-aks: azure, gke: gcp; a custom entry ending in `;exec`: all three). Absent: none.
   */
  readonly execClouds?: readonly ExecCloud[];
  /**
   * The global exec gate (`Config.execCredentials`), copied onto every provider by
   * parseConfig: a Translator sees only the provider, and both gates must be on.
   */
  readonly execCredentials?: boolean;
}

export interface Config {
  readonly targetNamespace: string;
  /** Ends in `/` or is a bare DNS prefix; labels are `${labelPrefix}managed-by`. */
  readonly labelPrefix: string;
  readonly managedBy: string;
  readonly providers: readonly Provider[];
  /** Milliseconds between full passes. Also the minimum gap between credential-only writes. */
  readonly intervalMs: number;
  /** Demoted registrations older than this are deleted. */
  readonly demotedTtlMs: number;
  /**
   * Credential-only changes are deferred while the registered client certificate stays
   * valid for longer than this. 0 disables deferral (write at most once per interval).
   */
  readonly credentialRefreshWindowMs: number;
  /**
   * The global exec gate (`--exec-credentials`): exec kubeconfigs of providers that allow it
   * are translated into ArgoCD's own forms. Off by default.
   */
  readonly execCredentials: boolean;
  /**
   * Drain before deregistration (`--drain-on-terminate`): a terminating source namespace's
   * registration loses the labels it copied from the namespace (what ApplicationSet
   * generators select on) and is deleted once the namespace is gone. Off by default.
   */
  readonly drainOnTerminate: boolean;
}

// ---------------------------------------------------------------------------------------
// Translation

/** ArgoCD's `ClusterConfig`, the JSON stored under `data.config` of a cluster Secret. */
export interface ArgoClusterConfig {
  readonly username?: string;
  readonly password?: string;
  readonly bearerToken?: string;
  readonly tlsClientConfig: {
    readonly insecure: boolean;
    readonly serverName?: string;
    readonly caData?: string;
    readonly certData?: string;
    readonly keyData?: string;
  };
  /** ArgoCD runs `argocd-k8s-auth aws --cluster-name <clusterName> [--role-arn <roleARN>]`. */
  readonly awsAuthConfig?: {
    readonly clusterName: string;
    readonly roleARN?: string;
  };
  /** ArgoCD runs `command args...` with `env` added to its own environment. */
  readonly execProviderConfig?: {
    readonly command: string;
    readonly args: readonly string[];
    readonly env?: Readonly<Record<string, string>>;
    readonly apiVersion: string;
  };
  readonly proxyUrl?: string;
}

/** The credential form a registration carries; `exec` forms have no expiry to report. */
export type CredentialKind = 'client-certificate' | 'bearer-token' | 'basic-auth' | 'exec';

export type RefusalCode =
  | 'kubeconfig-unreadable'
  | 'kubeconfig-not-yaml'
  | 'kubeconfig-no-context'
  | 'kubeconfig-context-dangling'
  | 'server-missing'
  | 'server-invalid'
  | 'server-in-cluster'
  | 'server-loopback'
  | 'ca-invalid'
  | 'client-cert-invalid'
  | 'client-cert-incomplete'
  | 'credentials-missing'
  | 'file-reference'
  | 'exec-plugin'
  | 'exec-unsupported'
  | 'auth-provider'
  | 'impersonation'
  | 'proxy-url-invalid'
  | 'no-candidate'
  | 'name-missing'
  | 'name-invalid'
  | 'name-claimed'
  | 'name-foreign'
  | 'server-collision'
  | 'server-override-invalid'
  | 'target-foreign';

/** An expected problem, as a value: machine-readable code, and a message that says the fix. */
export interface Refusal {
  readonly code: RefusalCode;
  readonly message: string;
}

export type WarningCode =
  | 'insecure-drops-ca'
  | 'cluster-label-missing'
  | 'annotation-too-large'
  | 'annotations-over-limit'
  | 'candidate-rejected'
  | 'source-unknown'
  | 'prune-disabled'
  | 'loopback-rewritten'
  /** A demotion or deletion withheld because the input it would rest on was not read. */
  | 'input-incomplete'
  /** A kubeconfig's only cluster and user were used although its current-context dangles. */
  | 'current-context-dangling';

export interface Warning {
  readonly code: WarningCode;
  readonly namespace?: string;
  readonly secret?: string;
  readonly message: string;
}

/** Facts about a client certificate, read portably from its DER. */
export interface CertificateFacts {
  /** Hex SHA-256 of the issuer Name's DER: equal issuers compare equal. */
  readonly issuer: string;
  readonly notAfter: Timestamp;
}

/** A kubeconfig that translated cleanly. */
export interface Translation {
  readonly server: string;
  readonly config: ArgoClusterConfig;
  readonly warnings: readonly Warning[];
  readonly credential: CredentialKind;
  readonly clientCertificate?: CertificateFacts;
}

export type TranslationResult =
  | { readonly ok: true; readonly translation: Translation }
  | { readonly ok: false; readonly refusal: Refusal };

/** Where a kubeconfig came from: enough to name it in a message and to key a parse cache. */
export interface CandidateRef {
  readonly namespace: string;
  readonly secret: string;
  readonly key: string;
  readonly provider: ProviderName;
}

// ---------------------------------------------------------------------------------------
// Output

/** The registration Secret we want to exist. `data` values are base64. */
export interface DesiredSecret {
  readonly namespace: string;
  readonly name: string;
  readonly type: 'Opaque';
  readonly labels: Labels;
  readonly annotations: Labels;
  readonly data: Readonly<Record<string, string>>;
}

/** Identifies the exact object an update, demotion or deletion was planned against. */
export interface ObservedRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
}

/** One changed field of a registration, for the preview. Sensitive values are fingerprints. */
export interface FieldChange {
  readonly field: string;
  readonly before?: string;
  readonly after?: string;
  readonly sensitive: boolean;
}

export type CreateReason =
  | { readonly code: 'new-registration'; readonly namespace: string }
  | { readonly code: 'restored'; readonly namespace: string };

export type UpdateReason =
  | { readonly code: 'credentials-changed'; readonly namespace: string }
  | { readonly code: 'server-changed'; readonly namespace: string }
  | { readonly code: 'ca-changed'; readonly namespace: string }
  | { readonly code: 'metadata-changed'; readonly namespace: string }
  | { readonly code: 'restored-from-demotion'; readonly namespace: string }
  /** A claimant takes over a registration its previous namespace gave up (renamed, gone, demoted). */
  | { readonly code: 'taken-over'; readonly namespace: string; readonly previousNamespace: string }
  /** Its namespace is terminating: the copied labels go, so generators drop its Applications. */
  | { readonly code: 'drained'; readonly namespace: string; readonly labels: readonly string[] };

export type DemoteReason = {
  readonly code: 'renamed';
  readonly namespace: string;
  readonly supersededBy: string;
};

export type DeleteReason =
  | { readonly code: 'source-namespace-not-found'; readonly namespace: string }
  | {
      readonly code: 'source-namespace-replaced';
      readonly namespace: string;
      readonly recordedUid: string;
      readonly observedUid: string;
    }
  | {
      readonly code: 'demotion-expired';
      readonly namespace: string;
      readonly staleSince: Timestamp;
    };

export type Action =
  | {
      readonly kind: 'create';
      readonly cluster: string;
      readonly secret: DesiredSecret;
      readonly changes: readonly FieldChange[];
      readonly reason: CreateReason;
    }
  | {
      readonly kind: 'update';
      readonly cluster: string;
      readonly target: ObservedRef;
      readonly secret: DesiredSecret;
      readonly changes: readonly FieldChange[];
      readonly reason: UpdateReason;
    }
  | {
      readonly kind: 'demote';
      readonly cluster: string;
      readonly target: ObservedRef;
      readonly secret: DesiredSecret;
      readonly changes: readonly FieldChange[];
      readonly reason: DemoteReason;
    }
  | {
      readonly kind: 'delete';
      readonly cluster: string;
      readonly target: ObservedRef;
      readonly reason: DeleteReason;
    };

export type ActionKind = Action['kind'];

export type OutcomeState =
  | 'registered'
  | 'unchanged'
  | 'waiting'
  | 'refused'
  | 'stale'
  | 'skipped'
  /** Terminating, with drain on: registered without its copied labels until it is gone. */
  | 'drained';

export interface NamespaceOutcome {
  readonly namespace: string;
  /** The cluster name the namespace claims, when it claims one. */
  readonly cluster?: string;
  readonly state: OutcomeState;
  /** Why: absent for a plain `registered`/`unchanged`. */
  readonly reason?:
    | Refusal
    | {
        readonly code:
          | 'waiting-for-kubeconfig'
          | 'credential-refresh-deferred'
          | 'terminating'
          | 'drained'
          | 'cluster-label-missing'
          /** Part of the input this namespace's verdict rests on could not be read. */
          | 'input-incomplete';
        readonly message: string;
      };
  /** The kubeconfig in use, when one translated. */
  readonly source?: CandidateRef;
  /** Candidates that were tried and failed, with why. */
  readonly rejected: readonly { readonly candidate: CandidateRef; readonly refusal: Refusal }[];
  /** Client certificate expiry of the registered credential, when known. */
  readonly credentialNotAfter?: Timestamp;
  /**
   * The registered credential's form, when a kubeconfig translated (`exec` forms never have
   * a `credentialNotAfter`: ArgoCD fetches short-lived tokens itself).
   */
  readonly credential?: CredentialKind;
}

export interface Plan {
  readonly actions: readonly Action[];
  readonly outcomes: readonly NamespaceOutcome[];
  readonly warnings: readonly Warning[];
}
