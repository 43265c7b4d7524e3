// What kubectl decides or refuses about a kubeconfig's cluster and user before the first
// request, where client-node would only fail on the request, ignore the setting or decide
// otherwise. Messages name clusters, users and files, never what is inside them.
import { readFileSync } from 'node:fs';
import type { Cluster, User } from '@kubernetes/client-node';
import { codeOf } from './kube-credentials.js';
import type { UserExtras } from './kubeconfig-files.js';

/** Users client-node's authenticators know; any other would silently send no credential. */
const AUTH_PROVIDERS = new Set(['oidc', 'azure', 'gcp']);

/** What kubectl refuses before the first request, and client-node would only fail on (or ignore). */
export function checkCluster(entry: Cluster, where: string): void {
  if (entry.skipTLSVerify && (entry.caData || entry.caFile)) {
    throw new Error(
      `cluster ${entry.name} in ${where} sets insecure-skip-tls-verify together with a certificate authority; ` +
        'kubectl refuses this too: remove one of them',
    );
  }
  if (entry.caFile) readable(entry.caFile, 'certificate authority');
}

export function checkUser(user: User, extras: UserExtras, userName: string): void {
  const authProvider = user.authProvider as { readonly name?: unknown } | undefined;
  const provider = authProvider?.name;
  if (authProvider && !(typeof provider === 'string' && AUTH_PROVIDERS.has(provider))) {
    throw new Error(
      `user ${userName} in the kubeconfig uses the ${typeof provider === 'string' ? provider : 'unnamed'} auth-provider, which is not supported ` +
        `(supported: ${[...AUTH_PROVIDERS].join(', ')}); use an exec credential plugin instead (e.g. kubelogin)`,
    );
  }
  const hasCert = Boolean(user.certData || user.certFile);
  const hasKey = Boolean(user.keyData || user.keyFile);
  if (hasCert !== hasKey) {
    throw new Error(
      `user ${userName} in the kubeconfig has a client ${hasCert ? 'certificate' : 'key'} without its ${hasCert ? 'key' : 'certificate'}`,
    );
  }
  if (user.certFile) readable(user.certFile, 'client certificate');
  if (user.keyFile) readable(user.keyFile, 'client key');
  if (user.username && (user.token || extras.tokenFile !== undefined)) {
    throw new Error(
      `user ${userName} in the kubeconfig sets both a username/password and a bearer token; kubectl refuses this too: keep one`,
    );
  }
  const narrowing =
    extras.impersonateGroups !== undefined ||
    extras.impersonateUid !== undefined ||
    extras.impersonateExtra !== undefined;
  if (narrowing && !user.impersonateUser) {
    throw new Error(
      `user ${userName} in the kubeconfig sets as-groups, as-uid or as-user-extra without as; set as: to the user to act as`,
    );
  }
}

/** client-go's rule for a server without a scheme: https when TLS is configured, else http. */
export function serverUrl(entry: Cluster, user: User): string {
  const server = entry.server.replace(/\/+$/, '');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(server)) return server;
  const tls = Boolean(
    entry.caData || entry.caFile || user.certData || user.certFile || entry.skipTLSVerify,
  );
  return `${tls ? 'https' : 'http'}://${server}`;
}

function readable(path: string, what: string): void {
  try {
    readFileSync(path);
  } catch (err) {
    throw new Error(`cannot read ${what} file ${path} (${codeOf(err)})`, { cause: undefined });
  }
}
