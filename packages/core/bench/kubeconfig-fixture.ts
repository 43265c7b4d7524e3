// The kubeconfig the core benchmarks translate: one cluster, one user, an embedded CA, client
// certificate and key (the committed openssl fixtures), as k3k and clientcmd write them.

import { CA_CERT_PEM, CLIENT_CERT_PEM, CLIENT_KEY_PEM } from '../src/test-fixtures/certificates.js';

export const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

const CA = b64(CA_CERT_PEM);
const CERT = b64(CLIENT_CERT_PEM);
const KEY = b64(CLIENT_KEY_PEM);

export function kubeconfig(server: string): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: default
  cluster:
    server: ${server}
    certificate-authority-data: ${CA}
contexts:
- name: default
  context:
    cluster: default
    user: default
current-context: default
users:
- name: default
  user:
    client-certificate-data: ${CERT}
    client-key-data: ${KEY}
`;
}
