// New certificates for a plane, signed by its CA with openssl: a client certificate, as a
// rotation or a second identity (the API server authenticates it as the subject's CN (user)
// and O (groups)), or a serving certificate for something that must pass for one of the
// plane's children (a child's registration carries the plane's CA).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ControlPlane } from './control-plane.js';

type Pems = { readonly certPem: string; readonly keyPem: string };

/** `subject` e.g. `/O=system:masters/CN=alice`; PEMs. */
export function mintClientCertificate(
  plane: Pick<ControlPlane, 'kubeconfigPath'>,
  subject: string,
): Pems {
  return mint(plane, subject, ['extendedKeyUsage=clientAuth']);
}

/** A serving certificate for the given IP addresses; PEMs. */
export function mintServingCertificate(
  plane: Pick<ControlPlane, 'kubeconfigPath'>,
  ips: readonly string[],
): Pems {
  return mint(plane, '/CN=acr-child', [
    'extendedKeyUsage=serverAuth',
    `subjectAltName=${ips.map((ip) => `IP:${ip}`).join(',')}`,
  ]);
}

function mint(
  plane: Pick<ControlPlane, 'kubeconfigPath'>,
  subject: string,
  extensions: readonly string[],
): Pems {
  const pki = join(dirname(plane.kubeconfigPath), 'pki');
  const work = mkdtempSync(join(tmpdir(), 'acr-cert-'));
  const at = (name: string): string => join(work, name);
  const openssl = (args: readonly string[]): void => {
    execFileSync('openssl', args, { stdio: 'ignore' });
  };
  try {
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', at('cert.key')]);
    openssl(['req', '-new', '-key', at('cert.key'), '-subj', subject, '-out', at('cert.csr')]);
    writeFileSync(
      at('cert.ext'),
      [
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature,keyEncipherment',
        ...extensions,
        '',
      ].join('\n'),
    );
    openssl([
      'x509',
      '-req',
      '-in',
      at('cert.csr'),
      '-CA',
      join(pki, 'ca.crt'),
      '-CAkey',
      join(pki, 'ca.key'),
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
      certPem: readFileSync(at('cert.crt'), 'utf8'),
      keyPem: readFileSync(at('cert.key'), 'utf8'),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
