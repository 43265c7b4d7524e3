// HTTPS_PROXY / HTTP_PROXY / NO_PROXY, as kubectl reads them (Go's
// golang.org/x/net/http/httpproxy): a cluster without `proxy-url` goes through the proxy the
// environment names for its scheme, unless NO_PROXY matches its host or the host is
// loopback. client-node reads no proxy from the environment; the proxy chosen here is handed
// to client-node's proxy agents like a `proxy-url`, so both take the same path.
import { isIP } from 'node:net';

export type ProxyEnv = Readonly<Record<string, string | undefined>>;

/** The proxy URL for requests to `server`, or undefined for a direct connection. */
export function proxyFromEnvironment(server: URL, env: ProxyEnv = process.env): string | undefined {
  const pick = (name: string): string | undefined => {
    const value = env[name.toUpperCase()] || env[name.toLowerCase()];
    return value === undefined || value === '' ? undefined : value;
  };
  const proxy = server.protocol === 'https:' ? pick('https_proxy') : pick('http_proxy');
  if (proxy === undefined || !useProxy(server, pick('no_proxy') ?? '')) return undefined;
  // Go takes a proxy without a scheme as http://.
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

function useProxy(server: URL, noProxy: string): boolean {
  const host = server.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = server.port || (server.protocol === 'https:' ? '443' : '80');
  if (host === 'localhost' || isLoopback(host)) return false;
  for (const raw of noProxy.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return false;
    if (entry.includes('/')) {
      if (inCidr(host, entry)) return false;
      continue;
    }
    const [name, entryPort] = splitPort(entry);
    if (entryPort !== undefined && entryPort !== port) continue;
    if (isIP(name) !== 0) {
      if (name === host) return false;
      continue;
    }
    // "example.com", ".example.com" and "*.example.com" all match example.com's subdomains;
    // only the first also matches example.com itself.
    const suffix = name.replace(/^\*?\./, '');
    if (
      host.endsWith(`.${suffix}`) ||
      (!name.startsWith('.') && !name.startsWith('*') && host === suffix)
    )
      return false;
  }
  return true;
}

function splitPort(entry: string): [string, string | undefined] {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return [bracketed[1] ?? '', bracketed[2]];
  const colon = entry.lastIndexOf(':');
  if (colon > 0 && entry.indexOf(':') === colon && /^\d+$/.test(entry.slice(colon + 1)))
    return [entry.slice(0, colon), entry.slice(colon + 1)];
  return [entry, undefined];
}

function isLoopback(host: string): boolean {
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return ipv6Bits(host) === 1n;
  return false;
}

function inCidr(host: string, cidr: string): boolean {
  const [network = '', bitsText = ''] = cidr.split('/');
  const family = isIP(network);
  if (family === 0 || isIP(host) !== family || !/^\d+$/.test(bitsText)) return false;
  const width = family === 4 ? 32 : 128;
  const bits = Number(bitsText);
  if (bits > width) return false;
  const value = family === 4 ? ipv4Bits : ipv6Bits;
  const shift = BigInt(width - bits);
  return value(host) >> shift === value(network) >> shift;
}

function ipv4Bits(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function ipv6Bits(ip: string): bigint {
  const [head = '', tail] = ip.split('::');
  const groups = (text: string): string[] => (text === '' ? [] : text.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const missing = 8 - left.length - right.length;
  const all = [...left, ...Array<string>(Math.max(0, missing)).fill('0'), ...right];
  return all.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16) || 0), 0n);
}
