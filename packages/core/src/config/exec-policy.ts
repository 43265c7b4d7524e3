// The operator's exec allow-lists. ArgoCD mints a token with its own cloud identity and sends it
// to the registration's server, and a token is good wherever it is presented (an EKS token for
// cluster X opens X from anywhere; an Entra token opens every API its audience names). So the
// kubeconfig, which a tenant wrote, may not choose the server, EKS cluster name, role or Entra
// audience: each comes from the cloud's own endpoint forms or from a list the operator wrote.

import type { ConfigInput, Fail } from './input.js';
import { validateGlob } from './glob.js';
import { DNS_LABEL } from './forms.js';
import { parseIpv6 } from '../common/server-address.js';
import type { ExecPolicy } from '../common/types.js';

export const EMPTY_EXEC_POLICY: ExecPolicy = {
  allowedServers: [],
  aksServerIds: [],
  eksClusterNames: [],
  eksRoleArns: [],
};

/** The flag and chart value of each list, for messages. */
export const EXEC_POLICY_HINTS = {
  allowedServers: '--exec-allowed-servers (chart value execAllowedServers)',
  aksServerIds: '--exec-aks-server-ids (chart value execAksServerIds)',
  eksClusterNames: '--exec-eks-cluster-names (chart value execEksClusterNames)',
  eksRoleArns: '--exec-eks-role-arns (chart value execEksRoleArns)',
} as const;

/** AKS's server application: the audience of every AKS-managed Entra ID cluster. */
export const AKS_SERVER_APPLICATION_ID = '6dae42f8-4368-4678-94ff-3960e28e3630';

export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const ROLE_ARN = /^arn:aws(-[a-z]+)*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;

const SERVER_FORM =
  'a CIDR or address (10.0.0.0/8, 34.77.120.15, 2600:1900::/28), a host name matched exactly (api.example.com) or a domain suffix with a leading dot, matched by its subdomains only (.example.com), without a scheme or port';

const LISTS = [
  ['execAllowedServers', 'allowedServers', serverEntryProblem],
  [
    'execAksServerIds',
    'aksServerIds',
    (entry: string) =>
      GUID.test(entry)
        ? undefined
        : 'must be an application id (a GUID such as 6dae42f8-4368-4678-94ff-3960e28e3630)',
  ],
  [
    'execEksClusterNames',
    'eksClusterNames',
    (entry: string) => {
      const problem = entry === '' ? 'is empty' : validateGlob(entry);
      return problem === undefined
        ? undefined
        : `must be an EKS cluster name or glob (prod, team-*): ${problem}`;
    },
  ],
  [
    'execEksRoleArns',
    'eksRoleArns',
    (entry: string) =>
      ROLE_ARN.test(entry)
        ? undefined
        : 'must be an IAM role ARN, arn:aws:iam::<account>:role/<name> (12-digit account)',
  ],
] as const satisfies readonly (readonly [
  keyof ConfigInput,
  keyof ExecPolicy,
  (entry: string) => string | undefined,
])[];

/** The four lists; `undefined` when an entry is bad (every problem is reported). */
export function execPolicySetting(input: ConfigInput, fail: Fail): ExecPolicy | undefined {
  const lists = LISTS.map(([setting, key, problemOf]): [keyof ExecPolicy, string[] | undefined] => {
    const entries: unknown = input[setting] ?? [];
    if (!Array.isArray(entries)) {
      fail(setting, entries, 'must be a list');
      return [key, undefined];
    }
    let valid = true;
    for (const entry of entries as unknown[]) {
      const problem = typeof entry === 'string' ? problemOf(entry) : 'must be a string';
      if (problem !== undefined) {
        fail(setting, entry, problem);
        valid = false;
      }
    }
    // Host names and GUIDs compare case-insensitively; cluster names and ARNs do not.
    const folded = key === 'allowedServers' || key === 'aksServerIds';
    const texts = entries as string[];
    return [key, valid ? texts.map((text) => (folded ? text.toLowerCase() : text)) : undefined];
  });
  return lists.every(([, list]) => list !== undefined)
    ? (Object.fromEntries(lists) as Record<keyof ExecPolicy, string[]>)
    : undefined;
}

// The last label starts with a letter, as every top-level domain does: a name entry can then
// never be read as an address (10.1, 0x0a.1.2.3), which only a CIDR entry may match.
const HOST_NAME = new RegExp(`^(?:${DNS_LABEL}\\.)*[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$`);
const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);

type AddressEntry = { readonly bytes: readonly number[]; readonly bits: number };

/** An address or CIDR entry as bytes and prefix length; `undefined` when it is neither. */
function addressEntry(entry: string): AddressEntry | undefined {
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const bytes = addressBytes(address);
  if (bytes === undefined) return undefined;
  if (slash < 0) return { bytes, bits: bytes.length * 8 };
  const bits = entry.slice(slash + 1);
  if (!/^(0|[1-9]\d{0,2})$/.test(bits) || Number(bits) > bytes.length * 8) return undefined;
  return { bytes, bits: Number(bits) };
}

/** The bytes of a dotted-quad IPv4 or an IPv6 address; other spellings are no address here. */
function addressBytes(text: string): number[] | undefined {
  const ipv4 = IPV4.exec(text);
  if (ipv4) return ipv4.slice(1).map(Number);
  return text.includes(':') ? parseIpv6(text.toLowerCase()) : undefined;
}

function serverEntryProblem(entry: string): string | undefined {
  const lower = entry.toLowerCase();
  if (/^[0-9.]+(\/.*)?$/.test(lower) || lower.includes(':')) {
    return addressEntry(lower) === undefined
      ? `must be ${SERVER_FORM}; this is not a valid address or CIDR`
      : undefined;
  }
  const name = lower.startsWith('.') ? lower.slice(1) : lower;
  if (name.length <= 253 && HOST_NAME.test(name)) return undefined;
  if (lower.startsWith('*.'))
    return `must be ${SERVER_FORM}; write ${lower.slice(1)} for the subdomains of ${lower.slice(2)}`;
  return `must be ${SERVER_FORM}`;
}

/**
 * Whether `host` (lower-case, as classifyServer gives it: no brackets, no trailing dot) is on
 * the list. An address matches only address and CIDR entries, and only when written as one
 * (dotted quad, or IPv6); a name matches an equal entry, or a `.suffix` entry it ends with.
 */
export function serverAllowed(host: string, allowed: readonly string[]): boolean {
  const bytes = addressBytes(host);
  for (const entry of allowed) {
    if (bytes !== undefined) {
      const range = addressEntry(entry);
      if (range !== undefined && inRange(bytes, range)) return true;
    } else if (entry.startsWith('.') ? host.endsWith(entry) : host === entry) {
      return true;
    }
  }
  return false;
}

function inRange(bytes: readonly number[], range: AddressEntry): boolean {
  if (bytes.length !== range.bytes.length) return false;
  for (let bit = 0; bit < range.bits; bit += 8) {
    const mask = range.bits - bit >= 8 ? 0xff : (0xff << (8 - (range.bits - bit))) & 0xff;
    const index = bit / 8;
    if (((bytes[index] ?? 0) & mask) !== ((range.bytes[index] ?? 0) & mask)) return false;
  }
  return true;
}
