// What translating one kubeconfig yields: ArgoCD's cluster config, or a typed Refusal, plus
// the warnings and certificate facts the plan reports.

import type { Timestamp } from './snapshot-types.js';
import type { ProviderName } from './config-types.js';

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
    /** ArgoCD passes `config` and the server's address and CA to the command (ArgoCD ≥ 3.5). */
    readonly provideClusterInfo?: boolean;
    /** Reaches the command as `ExecCredential.spec.cluster.config`: a secret reference. */
    readonly config?: SecretReference;
  };
  readonly proxyUrl?: string;
}

/**
 * `exec` forms have no expiry to report (ArgoCD fetches short-lived tokens itself), nor has
 * `secret-reference` (the registration holds no credential: the plugin reads the source's).
 */
export type CredentialKind =
  'client-certificate' | 'bearer-token' | 'basic-auth' | 'exec' | 'secret-reference';

/** Where the kubeconfig-secretreader plugin reads a kubeconfig: always the source's own Secret. */
export interface SecretReference {
  readonly name: string;
  readonly namespace: string;
  readonly key: string;
  readonly context?: string;
}

export type RefusalCode =
  | 'kubeconfig-unreadable'
  /** A Secret a provider reads holds a kubeconfig-named key, but none of the provider's. */
  | 'kubeconfig-key-missing'
  | 'kubeconfig-not-yaml'
  /** Over one of KUBECONFIG_LIMITS (size, depth, keys, aliases): refused before parsing. */
  | 'kubeconfig-over-limit'
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
  | 'exec-not-allowed'
  | 'auth-provider'
  | 'impersonation'
  | 'proxy-url-invalid'
  | 'no-candidate'
  | 'name-missing'
  | 'name-invalid'
  /** A name ArgoCD gives a meaning of its own (`in-cluster`). */
  | 'name-reserved'
  /** A managed namespace that also holds managed Clusters: which is meant is not guessed. */
  | 'source-conflict'
  | 'name-claimed'
  | 'name-foreign'
  | 'server-collision'
  | 'server-override-invalid'
  /** A server only this host resolves (loopback, `*.svc`, `*.cluster.local`), for a remote target. */
  | 'server-host-only'
  /** `<prefix>kubeconfig-secret` names no Secret of the source's own namespace. */
  | 'kubeconfig-secret-invalid'
  | 'target-foreign'
  /** Reference mode `on`, and the kubeconfig-secretreader plugin cannot read this kubeconfig. */
  | 'reference-unreadable';

/** An expected problem, as a value: machine-readable code, and a message that says the fix. */
export interface Refusal {
  readonly code: RefusalCode;
  readonly message: string;
  /** The Secret in the way, when another Secret is why: what `status` shows as the blocker. */
  readonly blocker?: SecretName;
  /**
   * What the source's Events say instead of a `message` that names another source: whoever
   * owns a source reads its Events, and one tenant must not learn another's.
   */
  readonly sourceMessage?: string;
}

export interface SecretName {
  readonly namespace: string;
  readonly name: string;
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
  | 'current-context-dangling'
  /** A Cluster's `<prefix>cluster` label, which `namespace-name` naming does not let choose. */
  | 'cluster-label-ignored'
  // Registered as asked, but what ArgoCD is told to do deserves a word (a tenant chose it).
  | 'server-plain-http'
  | 'tls-unverified'
  | 'proxy-url'
  /** A source's `<prefix>paused` says neither `true` nor `false`. */
  | 'paused-value-invalid'
  /** Reference mode `on-or-copy` copied credentials the plugin cannot read. */
  | 'reference-fallback';

export interface Warning {
  readonly code: WarningCode;
  readonly namespace?: string;
  readonly secret?: string;
  readonly message: string;
}

/** Facts about a client certificate, read portably from its DER. */
export interface CertificateFacts {
  /** The issuer Name's DER, base64: equal issuers compare equal (a Name is ~100 bytes). */
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
  /** Whether the secretreader plugin can read it: the context to tell it, or why not. */
  readonly secretReader?: SecretReaderFit;
}

export type SecretReaderFit =
  | { readonly ok: true; readonly context: string }
  | { readonly ok: false; readonly problem: string };

export type TranslationResult =
  | { readonly ok: true; readonly translation: Translation }
  | { readonly ok: false; readonly refusal: Refusal };

/** Where a kubeconfig came from: enough to name it in a message and to key a parse cache. */
export interface CandidateRef {
  readonly namespace: string;
  readonly secret: string;
  readonly key: string;
  readonly provider: ProviderName;
  /** On the chosen candidate: why it was chosen among the source's candidates. */
  readonly chosenBy?: string;
}
