// The settings' written forms (see form-checks.ts): what parseConfig checks first, and what
// the chart's generated template checks at render time.

import { CUSTOM_FORM, PROVIDER_FORM } from './input.js';
import { DURATION_FORM } from './duration.js';
import type { FormCheck } from './form-checks.js';
import { GLOB_FORM } from './glob.js';
import { PROVIDER_PRESETS, PROVIDER_PRESET_NAMES } from './provider-presets.js';

export const DNS_LABEL = '[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?';
export const DNS_SUBDOMAIN = `${DNS_LABEL}(?:\\.${DNS_LABEL})*`;

export const TARGET_NAMESPACE_FORM: readonly FormCheck[] = [
  {
    kind: 'require',
    pattern: `^${DNS_LABEL}$`,
    message:
      'must be a namespace name: a DNS-1123 label (lower-case letters, digits and "-", starting and ending with a letter or digit, at most 63 characters)',
  },
];

/** A non-empty Kubernetes label value (managedBy, and what a registration records in labels). */
export const LABEL_VALUE_FORM: readonly FormCheck[] = [
  {
    kind: 'require',
    pattern: '^[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$',
    message:
      'must be a non-empty label value: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit',
  },
];

export const MANAGED_BY_FORM = LABEL_VALUE_FORM;

const PREFIX_FORM =
  'expected a DNS subdomain followed by "/" (for example argocd-cluster-registrar/ or registrar.example.com/)';
export const LABEL_PREFIX_FORM: readonly FormCheck[] = [
  {
    kind: 'reject',
    pattern: `^${DNS_SUBDOMAIN}$`,
    message: `must end in "/" (did you mean {raw}/?); ${PREFIX_FORM}`,
  },
  { kind: 'require', pattern: '/$', message: `must end in "/"; ${PREFIX_FORM}` },
  // A subdomain is at most 253 characters, the "/" one more.
  {
    kind: 'reject',
    pattern: '^[\\s\\S]{255,}$',
    message: `is not a valid label-key prefix; ${PREFIX_FORM}`,
  },
  {
    kind: 'require',
    pattern: `^${DNS_SUBDOMAIN}/$`,
    message: `is not a valid label-key prefix; ${PREFIX_FORM}`,
  },
  // Prefixed labels are copied onto registrations and read off sources: in ArgoCD's or
  // Kubernetes' own key namespaces they would collide with keys those interpret.
  {
    kind: 'reject',
    pattern: '(?:^|\\.)(?:argoproj\\.io|kubernetes\\.io|k8s\\.io|x-k8s\\.io)/$',
    message: `is reserved: argoproj.io, kubernetes.io, k8s.io, x-k8s.io and their subdomains hold ArgoCD's, Kubernetes' and Cluster API's own label keys; ${PREFIX_FORM}`,
  },
];

const SECRET_KEY = '[-._a-zA-Z0-9]{1,253}';
const SECRET_KEY_MESSAGE =
  'is not a Secret data key: expected 1-253 letters, digits, "-", "_" or "." (for example kubeconfig.yaml)';
export const SECRET_KEY_FORM: readonly FormCheck[] = [
  { kind: 'require', pattern: `^${SECRET_KEY}$`, message: `{value} ${SECRET_KEY_MESSAGE}` },
];

export const INTERVAL_EXAMPLES = 'such as 30s, 60s, 1m30s or 5m';
const DURATION = '^(?:0|(?:(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:ns|us|µs|μs|ms|s|m|h))+)$';

/** A Go duration; a sign is the one mistake worth naming ("-5s" looks like a duration). */
export function durationForm(expected: string = DURATION_FORM): readonly FormCheck[] {
  return [
    { kind: 'reject', pattern: '^-\\d', message: `must not be negative; expected ${expected}` },
    { kind: 'require', pattern: DURATION, message: `must be ${DURATION_FORM}` },
    // Go's limit (int64 nanoseconds, about 292 years) keeps absurd values out of timers.
    { kind: 'maximum', seconds: 9223372036, message: `must be ${DURATION_FORM}, at most 2562047h` },
  ];
}

export const INTERVAL_FORM: readonly FormCheck[] = [
  ...durationForm(`a Go duration of at least 1s, ${INTERVAL_EXAMPLES}`),
  { kind: 'minimum', seconds: 1, message: `must be at least 1s, ${INTERVAL_EXAMPLES}` },
];

const GLOB_EXPECTED =
  'expected a glob over Secret names: * any run, ? one character, [...] a class (for example k3k-*-kubeconfig)';

/** The glob checks as a setting's (or a custom provider's glob part, `subject`). */
export function secretNamePatternForm(subject?: string): readonly FormCheck[] {
  const at = subject === undefined ? {} : { subject };
  const quoted = subject === undefined ? '{value}' : '{subject}';
  return [
    {
      kind: 'require',
      pattern: '^[\\s\\S]',
      ...at,
      message: `the Secret-name glob is empty; ${GLOB_EXPECTED}`,
    },
    ...GLOB_FORM.map((check): FormCheck => {
      if (check.kind === 'minimum' || check.kind === 'accept') return { ...check, ...at };
      return {
        ...check,
        ...at,
        message: `the Secret-name glob ${quoted} is malformed (${check.message}); ${GLOB_EXPECTED}`,
      };
    }),
  ];
}

const GLOB_PART = '^custom:([^=]*)=';
const KEYS = '^custom:[^=]*=';

/** One `--provider` entry (a list's duplicates are checked apart: they need the whole list). */
export const PROVIDER_ENTRY_FORM: readonly FormCheck[] = [
  { kind: 'accept', pattern: `^(?:${PROVIDER_PRESET_NAMES.join('|')})$`, message: '' },
  { kind: 'require', pattern: '^custom:', message: `unknown provider; expected ${PROVIDER_FORM}` },
  {
    kind: 'require',
    pattern: '^custom:[^=]*=',
    message: `a custom provider needs "=" between the Secret-name glob and its keys; expected ${CUSTOM_FORM}`,
  },
  ...secretNamePatternForm(GLOB_PART),
  // Options follow the keys after ";" (a character no Secret key or name may hold).
  {
    kind: 'require',
    subject: `${KEYS}[^;]*(?:;exec)*;([^;]*)`,
    pattern: '^exec$',
    message: `{subject} is not a custom provider option; the only one is ;exec (allow exec translation); expected ${CUSTOM_FORM}`,
  },
  {
    kind: 'reject',
    pattern: `${KEYS}[^;]*;exec;`,
    message: `lists ;exec twice; expected ${CUSTOM_FORM}`,
  },
  {
    kind: 'require',
    subject: `${KEYS}(?:${SECRET_KEY},)*([^,;]*)`,
    pattern: `^${SECRET_KEY}$`,
    message: `{subject} ${SECRET_KEY_MESSAGE}`,
  },
  {
    kind: 'distinct',
    subject: `${KEYS}([^;]*)`,
    separator: ',',
    message: `lists a key twice; expected ${CUSTOM_FORM} with distinct keys`,
  },
];

/** A provider list naming one entry twice (the second could never win). */
export const PROVIDER_LISTED_TWICE = 'is listed twice; list each provider once';

/** A provider list entry that allows exec translation (a well-formed one: see above). */
export const EXEC_CAPABLE_PROVIDER = `^(?:${PROVIDER_PRESET_NAMES.filter(
  (name) => (PROVIDER_PRESETS[name].execClouds ?? []).length > 0,
).join('|')}|custom:[^=]*=[^;]*;exec)$`;

/**
 * An absolute path or a bare name on the PATH of ArgoCD's controller: client-go runs it without
 * a shell, and a relative path would depend on ArgoCD's working directory.
 */
export const SECRETREADER_PATH_FORM: readonly FormCheck[] = [
  {
    kind: 'require',
    pattern: '^(?:/[A-Za-z0-9._+-]+)+$|^[A-Za-z0-9_+-][A-Za-z0-9._+-]*$',
    message:
      'must be an absolute path (/usr/local/bin/kubeconfig-secretreader) or a command name on the PATH of ArgoCD\'s application controller: letters, digits, ".", "_", "+", "-" and "/" only',
  },
  { kind: 'reject', pattern: '^[\\s\\S]{1025,}$', message: 'must be at most 1024 characters' },
];
