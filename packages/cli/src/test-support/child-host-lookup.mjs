// The registrar's DNS, for the tests (loaded with `node --import` before the daemon's own
// code): the child's host names (CHILD_HOST in e2e.ts and its subdomains) are this machine,
// as ArgoCD's DNS makes them for ArgoCD (testkit's argocd-dns-proxy.ts). Every other name
// resolves as usual. Probes then reach the child plane with the registered server, TLS
// verified against the registered CA and server name.

import dns from 'node:dns';

const CHILD_HOST = /(^|\.)child\.acr\.test$/i;
const resolve = dns.lookup;

dns.lookup = function lookup(hostname, options, callback) {
  if (typeof options === 'function') return lookup(hostname, {}, options);
  if (!CHILD_HOST.test(hostname)) return resolve(hostname, options, callback);
  const all = typeof options === 'object' && options.all === true;
  process.nextTick(() => {
    if (all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
  });
};
