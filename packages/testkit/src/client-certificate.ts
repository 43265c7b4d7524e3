// A new client certificate for a plane, signed by its CA with openssl, as a rotation or a
// second identity: the API server authenticates it as the subject's CN (user) and O (groups).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ControlPlane } from './control-plane.js';

/** `subject` e.g. `/O=system:masters/CN=alice`; PEMs. */
export function mintClientCertificate(
  plane: Pick<ControlPlane, 'kubeconfigPath'>,
  subject: string,
): { readonly certPem: string; readonly keyPem: string } {
  const pki = join(dirname(plane.kubeconfigPath), 'pki');
  const work = mkdtempSync(join(tmpdir(), 'acr-client-cert-'));
  const at = (name: string): string => join(work, name);
  const openssl = (args: readonly string[]): void => {
    execFileSync('openssl', args, { stdio: 'ignore' });
  };
  try {
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', at('client.key')]);
    openssl(['req', '-new', '-key', at('client.key'), '-subj', subject, '-out', at('client.csr')]);
    writeFileSync(
      at('client.ext'),
      [
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature,keyEncipherment',
        'extendedKeyUsage=clientAuth',
        '',
      ].join('\n'),
    );
    openssl([
      'x509',
      '-req',
      '-in',
      at('client.csr'),
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
      at('client.ext'),
      '-out',
      at('client.crt'),
    ]);
    return {
      certPem: readFileSync(at('client.crt'), 'utf8'),
      keyPem: readFileSync(at('client.key'), 'utf8'),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
