// Kubernetes API server addresses: parsing, normalising (to detect two registrations of one
// server) and classifying (to refuse addresses that would point ArgoCD at itself or at its
// own pod). Core has no URL global (no DOM or Node types), so this is a small strict parser.

interface ParsedServer {
  readonly scheme: string;
  readonly userInfo: string | undefined;
  /** Lower-case; IPv6 keeps its brackets. */
  readonly host: string;
  readonly port: string | undefined;
  readonly path: string;
  readonly query: string | undefined;
  readonly fragment: string | undefined;
}

const URL_SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/;
const AUTHORITY = /^(?:([^@]*)@)?(\[[^\]]*\]|[^:]*)(?::([^:]*))?$/;

function parseServer(url: string): ParsedServer | undefined {
  const shape = URL_SHAPE.exec(url);
  if (!shape) return undefined;
  const authority = AUTHORITY.exec(shape[2] ?? '');
  if (!authority) return undefined;
  return {
    scheme: (shape[1] ?? '').toLowerCase(),
    userInfo: authority[1],
    host: (authority[2] ?? '').toLowerCase(),
    port: authority[3],
    path: shape[3] ?? '',
    query: shape[4],
    fragment: shape[5],
  };
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { https: '443', http: '80' };

/**
 * The form in which two addresses of one server compare equal: lower-case scheme and host,
 * host's trailing dot and the scheme's default port removed, trailing `/` removed.
 */
export function normaliseServer(url: string): string {
  const parsed = parseServer(url.trim());
  if (parsed === undefined) return url.trim().replace(/\/+$/, '');
  let host = parsed.host;
  if (host.endsWith('.') && host.length > 1) host = host.slice(0, -1);
  const port =
    parsed.port === undefined || parsed.port === DEFAULT_PORTS[parsed.scheme]
      ? ''
      : `:${parsed.port}`;
  const userInfo = parsed.userInfo === undefined ? '' : `${parsed.userInfo}@`;
  let tail = parsed.path;
  if (parsed.query !== undefined) tail += `?${parsed.query}`;
  if (parsed.fragment !== undefined) tail += `#${parsed.fragment}`;
  return `${parsed.scheme}://${userInfo}${host}${port}${tail}`.replace(/\/+$/, '');
}

function validPort(port: string | undefined): boolean {
  return (
    port === undefined || (/^\d{1,5}$/.test(port) && Number(port) > 0 && Number(port) <= 65535)
  );
}

export type ServerKind = 'ok' | 'in-cluster' | 'loopback' | 'invalid';

const REG_NAME = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?$/;
const IPV6 = /^\[([0-9a-f:.]+)\]$/;

/** The 16 bytes of an IPv6 literal (with optional trailing dotted IPv4), or undefined. */
export function parseIpv6(text: string): number[] | undefined {
  let head = text;
  let ipv4: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const dotted = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text.slice(lastColon + 1));
    if (!dotted) return undefined;
    ipv4 = dotted.slice(1).map(Number);
    if (ipv4.some((octet) => octet > 255)) return undefined;
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    const values = part === '' ? [] : part.split(':');
    if (!values.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
    return values.map((group) => parseInt(group, 16));
  };
  const left = groups(halves[0] ?? '');
  const right = halves.length === 2 ? groups(halves[1] ?? '') : [];
  if (left === undefined || right === undefined) return undefined;
  const missing = 8 - left.length - right.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const words = [...left, ...new Array<number>(missing).fill(0), ...right];
  const bytes = words.flatMap((word) => [word >> 8, word & 0xff]);
  if (ipv4.length === 4) bytes.splice(12, 4, ...ipv4);
  return bytes;
}

/**
 * The 32-bit value of an IPv4 host in any form a C resolver accepts (`127.0.0.1`, `127.1`,
 * `2130706433`, `0x7f.1`, octal parts), or undefined when the host is not numeric. Lenient on
 * purpose: a shorthand loopback must not slip past the loopback check.
 */
function parseIpv4(host: string): number | undefined {
  const parts = host.split('.');
  if (parts.length > 4) return undefined;
  const values = parts.map((part) => {
    if (/^0x[0-9a-f]*$/.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    if (/^0[0-7]+$/.test(part)) return parseInt(part, 8);
    return /^\d+$/.test(part) ? parseInt(part, 10) : NaN;
  });
  if (values.some(Number.isNaN)) return undefined;
  const last = values.pop() ?? 0;
  if (values.some((value) => value > 255) || last >= 256 ** (4 - values.length)) return undefined;
  return values.reduce((sum, value, index) => sum + value * 256 ** (3 - index), 0) + last;
}

function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const ipv6 = IPV6.exec(host);
  if (ipv6) {
    const bytes = parseIpv6(ipv6[1] ?? '');
    if (bytes === undefined) return false;
    const zeros = bytes.slice(0, 15).every((byte) => byte === 0);
    // ::1, :: (unspecified: connects locally), and IPv4-mapped/compatible loopback.
    if (zeros && (bytes[15] === 1 || bytes[15] === 0)) return true;
    const mapped =
      bytes.slice(0, 10).every((byte) => byte === 0) &&
      ((bytes[10] === 0xff && bytes[11] === 0xff) || (bytes[10] === 0 && bytes[11] === 0));
    return mapped && (bytes[12] === 127 || bytes.slice(12).every((byte) => byte === 0));
  }
  const ipv4 = parseIpv4(host);
  // 127.0.0.0/8, and 0.0.0.0, which connects to the local host.
  return ipv4 !== undefined && (Math.floor(ipv4 / 2 ** 24) === 127 || ipv4 === 0);
}

/** `kubernetes`, `kubernetes.default`, `kubernetes.default.svc` and `….svc.<cluster domain>`. */
const IN_CLUSTER_HOST = /^kubernetes(?:\.default(?:\.svc(?:\..*)?)?)?$/s;

/**
 * `invalid`: not http(s), no usable host, a bad port, or user-info, query or fragment (none
 * of which a Kubernetes client sends). `in-cluster`: the API server's own Service, which
 * ArgoCD would reach with its own service account. `loopback`: ArgoCD's own pod.
 */
export function classifyServer(url: string): { kind: ServerKind; host?: string } {
  const parsed = parseServer(url);
  if (
    parsed === undefined ||
    (parsed.scheme !== 'https' && parsed.scheme !== 'http') ||
    parsed.userInfo !== undefined ||
    parsed.query !== undefined ||
    parsed.fragment !== undefined ||
    !validPort(parsed.port)
  )
    return { kind: 'invalid' };
  const ipv6 = IPV6.exec(parsed.host);
  if (ipv6) {
    const host = ipv6[1] ?? '';
    if (parseIpv6(host) === undefined) return { kind: 'invalid' };
    return { kind: isLoopbackHost(parsed.host) ? 'loopback' : 'ok', host };
  }
  if (!REG_NAME.test(parsed.host) || parsed.host === '.') return { kind: 'invalid' };
  const host = parsed.host.endsWith('.') ? parsed.host.slice(0, -1) : parsed.host;
  if (IN_CLUSTER_HOST.test(host)) return { kind: 'in-cluster', host };
  if (isLoopbackHost(host)) return { kind: 'loopback', host };
  return { kind: 'ok', host };
}

/**
 * Why ArgoCD (Go's http.ProxyURL) cannot use a kubeconfig `proxy-url`, or `undefined`. User-info
 * is refused: it would put a proxy password in clear text into the cluster Secret's config.
 */
export function proxyUrlProblem(url: string): string | undefined {
  const parsed = parseServer(url);
  if (parsed === undefined) return 'is not a URL';
  if (!['http', 'https', 'socks5'].includes(parsed.scheme))
    return 'must use http://, https:// or socks5://';
  if (parsed.userInfo !== undefined) return 'must not carry a user name or password';
  if (parsed.host === '' || (IPV6.exec(parsed.host) === null && !REG_NAME.test(parsed.host)))
    return 'has no valid host';
  if (!validPort(parsed.port)) return 'has an invalid port';
  if (
    (parsed.path !== '' && parsed.path !== '/') ||
    parsed.query !== undefined ||
    parsed.fragment !== undefined
  ) {
    return 'must be a bare scheme://host[:port]';
  }
  return undefined;
}

/** A URL safe to print: user-info, query and fragment (where tokens hide) are masked. */
export function redactUrl(url: string): string {
  const parsed = parseServer(url);
  if (parsed === undefined) return url.length > 200 ? `${url.slice(0, 200)}…` : url;
  const port = parsed.port === undefined ? '' : `:${parsed.port}`;
  const userInfo = parsed.userInfo === undefined ? '' : '***@';
  const query = parsed.query === undefined ? '' : '?***';
  const fragment = parsed.fragment === undefined ? '' : '#***';
  return `${parsed.scheme}://${userInfo}${parsed.host}${port}${parsed.path}${query}${fragment}`;
}

/** {@link redactUrl} of a URL; `undefined` for text that is no URL, which cannot be masked. */
export function maskedUrl(url: string): string | undefined {
  return parseServer(url) === undefined ? undefined : redactUrl(url);
}

/** The warning for a server that ArgoCD would reach without TLS, or `undefined`. */
export function plainHttpWarning(server: string): string | undefined {
  return /^http:\/\//i.test(server)
    ? `${redactUrl(server)}, plain HTTP: ArgoCD will send the credentials and everything it deploys unencrypted, readable and alterable on the way`
    : undefined;
}
