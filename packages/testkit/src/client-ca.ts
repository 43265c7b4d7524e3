// A client CA of a test's own beside a plane's, for rotations that must make a client
// certificate invalid for real: the plane trusts its own CA plus the ones given (its
// --client-ca-file, rewritten), so a certificate of a CA dropped from that list is refused
// (401) once the API server has re-read the file (restartApiServer), while the plane's admin
// certificate keeps working.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ControlPlane } from './control-plane.js';

export interface ClientCa {
  readonly certPem: string;
  readonly keyPem: string;
}

function openssl(args: readonly string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore' });
}

/** A new self-signed CA (EC P-256, 30 days). */
export function newClientCa(commonName: string): ClientCa {
  const work = mkdtempSync(join(tmpdir(), 'acr-client-ca-'));
  const at = (name: string): string => join(work, name);
  try {
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', at('ca.key')]);
    openssl([
      'req',
      '-x509',
      '-new',
      '-key',
      at('ca.key'),
      '-subj',
      `/CN=${commonName}`,
      '-days',
      '30',
      '-sha256',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      at('ca.crt'),
    ]);
    return {
      certPem: readFileSync(at('ca.crt'), 'utf8'),
      keyPem: readFileSync(at('ca.key'), 'utf8'),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A client certificate signed by `ca`; `subject` e.g. `/O=system:masters/CN=alice`. Base64 of the PEMs. */
export function mintClientCertificateFrom(
  ca: ClientCa,
  subject: string,
): { readonly certData: string; readonly keyData: string } {
  const work = mkdtempSync(join(tmpdir(), 'acr-client-cert-'));
  const at = (name: string): string => join(work, name);
  try {
    writeFileSync(at('ca.crt'), ca.certPem);
    writeFileSync(at('ca.key'), ca.keyPem, { mode: 0o600 });
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', at('cert.key')]);
    openssl(['req', '-new', '-key', at('cert.key'), '-subj', subject, '-out', at('cert.csr')]);
    writeFileSync(
      at('cert.ext'),
      'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n',
    );
    openssl([
      'x509',
      '-req',
      '-in',
      at('cert.csr'),
      '-CA',
      at('ca.crt'),
      '-CAkey',
      at('ca.key'),
      '-CAcreateserial',
      '-CAserial',
      at('ca.srl'),
      '-sha256',
      '-days',
      '30',
      '-extfile',
      at('cert.ext'),
      '-out',
      at('cert.crt'),
    ]);
    return {
      certData: readFileSync(at('cert.crt')).toString('base64'),
      keyData: readFileSync(at('cert.key')).toString('base64'),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Makes the plane trust client certificates of its own CA and of `cas` only, from its next
 * start (restartApiServer). Its own CA stays first: the plane's tools sign with the first
 * certificate of that file.
 */
export function trustClientCas(
  plane: Pick<ControlPlane, 'kubeconfigPath' | 'caPem'>,
  cas: readonly ClientCa[],
): void {
  const file = join(dirname(plane.kubeconfigPath), 'pki', 'ca.crt');
  writeFileSync(
    file,
    [plane.caPem, ...cas.map((ca) => ca.certPem)].map((pem) => pem.trimEnd()).join('\n') + '\n',
  );
}
