// The kubeconfig fields that carry trust: PEM data, file references, impersonation, the TLS
// settings and the one credential form ArgoCD will get, each read or refused by name.

import type { CertificateFacts, CredentialKind, Warning } from '../common/types.js';
import { decodeBase64, decodeBase64Text } from '../common/base64.js';
import { readCertificateDer, readPemBlocks, type PemBlock } from './x509.js';
import { isMap, Problem, readBoolean, readStrings, type YamlMap } from './kubeconfig-structure.js';

/**
 * A `*-data` field as ArgoCD gets it and its PEM blocks; `undefined` when it is not padded
 * standard base64. client-go decodes it with Go's StdEncoding, which skips CR and LF; without
 * them the field is canonical (strict decoding admits nothing else).
 */
function readPemData(
  value: string,
): { readonly base64: string; readonly blocks: readonly PemBlock[] } | undefined {
  const base64 = value.replace(/[\r\n]/g, '');
  if (base64 === '') return undefined;
  const text = decodeBase64Text(base64);
  if (text !== undefined) return { base64, blocks: readPemBlocks(text) };
  return decodeBase64(base64) === undefined ? undefined : { base64, blocks: [] };
}

const NOT_BASE64 = 'is not padded standard base64';

const isPrivateKeyLabel = (label: string): boolean =>
  label === 'PRIVATE KEY' || (label.endsWith(' PRIVATE KEY') && label !== 'ENCRYPTED PRIVATE KEY');

const FILE_FIELDS: readonly (readonly ['cluster' | 'user', string, string])[] = [
  ['cluster', 'certificate-authority', 'certificate-authority-data'],
  ['user', 'client-certificate', 'client-certificate-data'],
  ['user', 'client-key', 'client-key-data'],
  ['user', 'tokenFile', 'token'],
];

export const IMPERSONATION_FIELDS = ['as', 'as-uid', 'as-groups', 'as-user-extra'];

export const present = (value: unknown): boolean =>
  value !== undefined &&
  value !== null &&
  value !== '' &&
  !(Array.isArray(value) && value.length === 0) &&
  !(isMap(value) && Object.keys(value).length === 0);

/** Every file reference at once, so one edit fixes them all; `owners` name the sections. */
export function fileReferences(
  sections: Readonly<Record<'cluster' | 'user', YamlMap>>,
  owners: Readonly<Record<'cluster' | 'user', string>>,
): Problem | undefined {
  const found = FILE_FIELDS.filter(([section, field]) => present(sections[section][field]));
  if (found.length === 0) return undefined;
  const quoted = (fields: readonly string[]): string =>
    fields.map((field) => JSON.stringify(field)).join(', ');
  const referrers = (['cluster', 'user'] as const).flatMap((section) => {
    const fields = found.filter(([owner]) => owner === section).map(([, field]) => field);
    if (fields.length === 0) return [];
    return [
      `${owners[section]} refers to ${fields.length === 1 ? 'a file' : 'files'} (${quoted(fields)})`,
    ];
  });
  const single = found.length === 1;
  return new Problem(
    'file-reference',
    `${referrers.join(' and ')}, which would name ${single ? 'a file' : 'files'} inside the ArgoCD pod`,
    `embed the ${single ? 'content' : 'contents'} as ${quoted(found.map(([, , inline]) => inline))} (\`kubectl config view --raw --flatten\`)`,
  );
}

export const CREDENTIAL_FIX = 'use a kubeconfig with a client certificate or token';

export type Warn = (code: Warning['code'], message: string) => void;

interface TlsFields {
  readonly insecure: boolean;
  readonly serverName?: string;
  readonly caData?: string;
}

/** The cluster's TLS settings; a CA bundle is dropped (with a warning) when TLS is skipped. */
export function readTls(cluster: YamlMap, clusterOwner: string, warn: Warn): TlsFields | Problem {
  const insecure = readBoolean(cluster, 'insecure-skip-tls-verify', clusterOwner);
  if (insecure instanceof Problem) return insecure;
  const fields = readStrings(
    cluster,
    ['tls-server-name', 'certificate-authority-data'],
    clusterOwner,
  );
  if (fields instanceof Problem) return fields;
  const { 'tls-server-name': serverName, 'certificate-authority-data': caField } = fields;
  const tls = { insecure, ...(serverName === undefined ? {} : { serverName }) };
  if (insecure) {
    const unverified = `${clusterOwner} sets insecure-skip-tls-verify: ArgoCD will not verify the server's certificate, so anyone on the network path can pose as the server and receive the credentials`;
    if (caField === undefined) warn('tls-unverified', unverified);
    else
      warn(
        'insecure-drops-ca',
        `${unverified}; its certificate-authority-data is not registered (ArgoCD rejects both together)`,
      );
    return tls;
  }
  if (caField === undefined) return tls;
  const ca = readPemData(caField);
  const certificates = ca?.blocks.filter((block) => block.label === 'CERTIFICATE') ?? [];
  if (
    ca === undefined ||
    certificates.length === 0 ||
    certificates.some(
      (block) => block.der === undefined || readCertificateDer(block.der) === undefined,
    )
  ) {
    return new Problem(
      'ca-invalid',
      `certificate-authority-data of ${clusterOwner} ${ca === undefined ? NOT_BASE64 : 'does not hold PEM CERTIFICATE blocks that parse'}`,
      'set it to the base64 of the PEM CA bundle, or remove it',
    );
  }
  return { ...tls, caData: ca.base64 };
}

interface CredentialFields {
  readonly kind: Exclude<CredentialKind, 'secret-reference'>;
  /** ArgoCD's fields for a token or basic auth. */
  readonly credentials?: { username: string; password: string } | { bearerToken: string };
  readonly clientCertificate?: CertificateFacts;
  readonly tls?: { readonly certData: string; readonly keyData: string };
}

/**
 * The user's credential: client certificate, else token, else basic auth; exactly one is
 * emitted. With an exec plugin (`hasExec`) none may be present, and none is returned.
 */
export function readCredentials(
  user: YamlMap,
  userOwner: string,
  hasExec: boolean,
): CredentialFields | Problem {
  const fields = readStrings(
    user,
    ['client-certificate-data', 'client-key-data', 'token', 'username', 'password'],
    userOwner,
  );
  if (fields instanceof Problem) return fields;
  const { token, username, password } = fields;
  const certField = fields['client-certificate-data'];
  const keyField = fields['client-key-data'];

  if (hasExec) {
    // client-go ignores an exec plugin when the user also has a certificate, token or
    // password, so a kubeconfig with both means something other than what it would register.
    if (Object.keys(fields).length > 0) {
      return new Problem(
        'exec-unsupported',
        `${userOwner} has an exec plugin and also a client certificate, token or password, which kubectl would use instead`,
        'keep one of them',
      );
    }
    return { kind: 'exec' };
  } else if (certField !== undefined || keyField !== undefined) {
    if (certField === undefined || keyField === undefined) {
      return new Problem(
        'client-cert-incomplete',
        `${userOwner} has ${certField === undefined ? 'client-key-data but no client-certificate-data' : 'client-certificate-data but no client-key-data'}`,
        'store both, or use a kubeconfig with a token',
      );
    }
    const cert = readPemData(certField);
    const certBlock = cert?.blocks.find((block) => block.label === 'CERTIFICATE');
    const facts = certBlock?.der === undefined ? undefined : readCertificateDer(certBlock.der);
    if (cert === undefined || facts === undefined) {
      return new Problem(
        'client-cert-invalid',
        `client-certificate-data of ${userOwner} ${cert === undefined ? NOT_BASE64 : 'does not hold a PEM CERTIFICATE block that parses'}`,
        'set it to the base64 of the PEM client certificate',
      );
    }
    const key = readPemData(keyField);
    const keyBlock = key?.blocks.find(
      (block) => isPrivateKeyLabel(block.label) && block.der !== undefined,
    );
    if (key === undefined || keyBlock === undefined) {
      const encrypted = key?.blocks.some(
        (block) => block.label === 'ENCRYPTED PRIVATE KEY' || block.der === undefined,
      );
      const why =
        key === undefined
          ? NOT_BASE64
          : encrypted === true
            ? 'holds an encrypted private key'
            : 'does not hold a PEM PRIVATE KEY block';
      return new Problem(
        'client-cert-invalid',
        `client-key-data of ${userOwner} ${why}`,
        'set it to the base64 of the unencrypted PEM private key',
      );
    }
    return {
      kind: 'client-certificate',
      tls: { certData: cert.base64, keyData: key.base64 },
      clientCertificate: facts,
    };
  } else if (token !== undefined) {
    return { kind: 'bearer-token', credentials: { bearerToken: token } };
  } else if (username !== undefined && password !== undefined) {
    return { kind: 'basic-auth', credentials: { username, password } };
  } else {
    const partial =
      username !== undefined
        ? 'a username but no password'
        : password !== undefined
          ? 'a password but no username'
          : 'no client certificate, token or username and password';
    return new Problem('credentials-missing', `${userOwner} has ${partial}`, CREDENTIAL_FIX);
  }
}
