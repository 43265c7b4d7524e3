// The hostile-input table: what a tenant who can write a Secret in their namespace, or label
// and annotate that namespace, might feed the registrar, and what must come of it. The suite
// (e2e/hostile-inputs.test.ts) runs every case at once, beside healthy neighbours, through
// `--once` and the daemon on the real plane.
//
// Every kubeconfig here carries a canary token: none may ever reach an output, a log line, an
// Event or a registration.

import { randomBytes } from 'node:crypto';
import { kubeconfigText } from '@argocd-cluster-registrar/testkit';
import { childCredentials, childServer, PREFIX } from './e2e.js';
import type { World } from './e2e.js';

/** What one source must come to. */
export interface Expectation {
  readonly state: 'registered' | 'refused' | 'waiting';
  /** The refusal's code, where the suite pins it. */
  readonly code?: string;
}

export interface HostileSource {
  /** Namespace labels beyond managed-by (the cluster label defaults to the namespace name). */
  readonly cluster?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  /** Secrets of the namespace: name → data key → raw bytes. */
  readonly secrets: Readonly<Record<string, Readonly<Record<string, Buffer>>>>;
  /** A namespace name of the case's own (long names); default: unique per run. */
  readonly name?: string;
  readonly expect: Expectation;
}

export interface HostileCase {
  readonly id: string;
  /** What the tenant tries, in a few words. */
  readonly what: string;
  readonly sources: readonly HostileSource[];
}

/** Planted in every hostile kubeconfig; must never be printed. */
export const CANARY = `acr-canary-${randomBytes(6).toString('hex')}`;

/** A hand-made cluster Secret in the target namespace that the registrar does not own. */
export const FOREIGN = {
  // Not cluster-<name>: what refuses a claim of its name is ArgoCD's name, not a Secret in the way.
  secret: 'hand-made-by-ops',
  name: 'hand-made',
  server: 'https://hand-made.acr.test:6443',
} as const;

/**
 * Flags of every run of the suite: exec translation on, so its bounds are under test, with
 * the EKS cluster name of the exec cases allowed, so that what refuses them is what they vary.
 */
export const SUITE_FLAGS = [
  '--exec-credentials',
  '--exec-eks-cluster-names=team-a',
  ...['--provider', 'k3k', '--provider', 'capa-eks', '--provider', 'capz-aks'],
  // GKE user kubeconfigs share capa-eks's name pattern; their own here, so that capa-eks's
  // "not an EKS plugin" is not what refuses them.
  ...['--provider', 'custom:*-gke-kubeconfig=value;exec'],
] as const;

const text = (value: string): Buffer => Buffer.from(value, 'utf8');
const k3k = (kubeconfig: string | Buffer): HostileSource['secrets'] => ({
  'k3k-c-kubeconfig': {
    'kubeconfig.yaml': typeof kubeconfig === 'string' ? text(kubeconfig) : kubeconfig,
  },
});
const userKubeconfig = (kubeconfig: string): HostileSource['secrets'] => ({
  'c-user-kubeconfig': { value: text(kubeconfig) },
});
const gkeKubeconfig = (kubeconfig: string): HostileSource['secrets'] => ({
  'c-gke-kubeconfig': { value: text(kubeconfig) },
});
const refused = (code?: string): Expectation => ({
  state: 'refused',
  ...(code === undefined ? {} : { code }),
});
const registered: Expectation = { state: 'registered' };

/** A working kubeconfig for the child plane, with `server` and the user lines as given. */
function childKubeconfig(
  world: World,
  options: { server?: string; cluster?: readonly string[]; user?: readonly string[] } = {},
): string {
  const creds = childCredentials(world.child);
  return kubeconfigText({
    server: options.server ?? childServer(world.child),
    cluster: options.cluster ?? [
      `certificate-authority-data: ${creds.caData}`,
      'tls-server-name: localhost',
    ],
    user: options.user ?? [
      `client-certificate-data: ${creds.certData}`,
      `client-key-data: ${creds.keyData}`,
    ],
  });
}

/** Each case's own child address, so that no two cases contend for one server by accident. */
const serverOf = (id: string): string => `https://${id}.acr.test:6443`;

/** An exec user block: the command and its args, and nothing else that could refuse it. */
const execUser = (command: string, args: readonly string[]): readonly string[] => [
  'exec:',
  '  apiVersion: client.authentication.k8s.io/v1beta1',
  `  command: ${command}`,
  '  args:',
  ...args.map((arg) => `  - ${JSON.stringify(arg)}`),
];

/** An exec kubeconfig whose own CA is real, so only its server or plugin decides. */
function execKubeconfig(
  world: World,
  server: string,
  command: string,
  args: readonly string[],
  cluster: readonly string[] = [],
): string {
  const creds = childCredentials(world.child);
  return childKubeconfig(world, {
    server,
    cluster: [`certificate-authority-data: ${creds.caData}`, ...cluster],
    user: execUser(command, args),
  });
}

const EKS_SERVER = 'https://0123456789ABCDEF0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com';
const AKS_SERVER = 'https://team-a-1a2b3c4d.hcp.westeurope.azmk8s.io:443';
const EKS_ARGS = ['eks', 'get-token', '--cluster-name', 'team-a'];

/** A kubeconfig that breaks YAML after it has said a token: the token must not be echoed. */
const brokenAfterToken = `apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: ${CANARY}\n    : : [unclosed\n`;

export function hostileCases(world: World): readonly HostileCase[] {
  const deepFlow = `a: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`;
  const deepBlock =
    Array.from({ length: 1_000 }, (_, depth) => `${' '.repeat(depth)}k${String(depth)}:`).join(
      '\n',
    ) + ' end\n';
  const manyKeys =
    `token: ${CANARY}\n` +
    Array.from({ length: 60_000 }, (_, i) => `k${String(i)}: v`).join('\n') +
    '\n';
  const aliasBomb = [
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    ...Array.from({ length: 9 }, (_, i) => {
      const from = String.fromCharCode(97 + i);
      const to = String.fromCharCode(98 + i);
      return `${to}: &${to} [${Array(9).fill(`*${from}`).join(',')}]`;
    }),
    `token: ${CANARY}`,
    '',
  ].join('\n');
  const padded = `${childKubeconfig(world)}# ${'x'.repeat(900_000)}\n`;
  const withNul = childKubeconfig(world).replace('kind: Config', 'kind: Con\u0000fig');
  const longName = `hostile-long-${randomBytes(25).toString('hex')}`.slice(0, 63);

  return [
    // Reaching beyond the tenant's own cluster.
    {
      id: 'exec-eks-foreign-server',
      what: "an EKS exec kubeconfig that sends ArgoCD's AWS token to a server of the tenant's choosing",
      sources: [
        {
          secrets: userKubeconfig(
            execKubeconfig(world, 'https://attacker.acr.test', 'aws', EKS_ARGS),
          ),
          expect: refused('exec-not-allowed'),
        },
      ],
    },
    {
      id: 'exec-gke-http',
      what: "a GKE exec kubeconfig that sends ArgoCD's Google token over plain http",
      sources: [
        {
          secrets: gkeKubeconfig(
            execKubeconfig(world, 'http://34.1.2.3', 'gke-gcloud-auth-plugin', []),
          ),
          expect: refused('exec-not-allowed'),
        },
      ],
    },
    {
      id: 'exec-gke-any-server',
      what: 'a GKE exec kubeconfig (bare IP) on a server no operator allowed',
      sources: [
        {
          secrets: gkeKubeconfig(
            execKubeconfig(world, 'https://34.1.2.3', 'gke-gcloud-auth-plugin', []),
          ),
          expect: refused('exec-not-allowed'),
        },
      ],
    },
    {
      id: 'exec-eks-insecure',
      what: 'an EKS exec kubeconfig that turns TLS verification off',
      sources: [
        {
          secrets: userKubeconfig(
            childKubeconfig(world, {
              server: EKS_SERVER,
              cluster: ['insecure-skip-tls-verify: true'],
              user: execUser('aws', EKS_ARGS),
            }),
          ),
          expect: refused('exec-not-allowed'),
        },
      ],
    },
    {
      id: 'exec-aks-audience',
      what: 'an AKS exec kubeconfig that asks for an Entra token of another audience',
      sources: [
        {
          secrets: {
            'c-kubeconfig-user': {
              value: text(
                execKubeconfig(world, AKS_SERVER, 'kubelogin', [
                  'get-token',
                  '--server-id',
                  '00000003-0000-0000-c000-000000000000',
                ]),
              ),
            },
          },
          expect: refused('exec-not-allowed'),
        },
      ],
    },
    {
      id: 'exec-eks-role',
      what: 'an EKS exec kubeconfig that makes ArgoCD assume a role of the tenant’s choosing',
      sources: [
        {
          secrets: userKubeconfig(
            execKubeconfig(world, EKS_SERVER, 'aws', [
              ...EKS_ARGS,
              '--role-arn',
              'arn:aws:iam::123456789012:role/admin',
            ]),
          ),
          expect: refused('exec-not-allowed'),
        },
      ],
    },
    {
      id: 'exec-server-override',
      what: 'a server annotation that redirects an EKS exec registration',
      sources: [
        {
          annotations: { [`${PREFIX}server`]: 'https://attacker.acr.test' },
          secrets: userKubeconfig(execKubeconfig(world, EKS_SERVER, 'aws', EKS_ARGS)),
          expect: refused('server-override-invalid'),
        },
      ],
    },
    {
      id: 'in-cluster-name',
      what: 'the cluster name in-cluster, which ArgoCD resolves to itself',
      sources: [
        {
          cluster: 'in-cluster',
          secrets: k3k(childKubeconfig(world, { server: serverOf('in-cluster-name') })),
          expect: refused('name-reserved'),
        },
      ],
    },
    {
      id: 'kubernetes-default',
      what: "a server that is the host's own API service",
      sources: [
        {
          secrets: k3k(childKubeconfig(world, { server: 'https://kubernetes.default.svc:443' })),
          expect: refused('server-in-cluster'),
        },
      ],
    },
    {
      id: 'override-in-cluster',
      what: "a server annotation naming the host's own API service",
      sources: [
        {
          annotations: { [`${PREFIX}server`]: 'https://KUBERNETES.default.' },
          secrets: k3k(childKubeconfig(world, { server: serverOf('override-in-cluster') })),
          expect: refused('server-override-invalid'),
        },
      ],
    },
    {
      id: 'file-reference',
      what: "a token file, which ArgoCD would read from its own pod (its service account's)",
      sources: [
        {
          secrets: k3k(
            childKubeconfig(world, {
              user: ['tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token'],
            }),
          ),
          expect: refused('file-reference'),
        },
      ],
    },
    {
      id: 'proxy-credentials',
      what: 'a proxy URL carrying a password',
      sources: [
        {
          secrets: k3k(
            childKubeconfig(world, {
              cluster: [`proxy-url: http://user:${CANARY}@proxy.acr.test:3128`],
              user: [`token: ${CANARY}`],
            }),
          ),
          expect: refused('proxy-url-invalid'),
        },
      ],
    },
    {
      id: 'name-foreign',
      what: "the name of a cluster Secret someone else made in ArgoCD's namespace",
      sources: [
        {
          cluster: FOREIGN.name,
          secrets: k3k(childKubeconfig(world, { server: serverOf('name-foreign') })),
          expect: refused('name-foreign'),
        },
      ],
    },
    {
      id: 'server-foreign',
      what: 'the server of a cluster Secret someone else made',
      sources: [
        {
          secrets: k3k(childKubeconfig(world, { server: FOREIGN.server })),
          expect: refused('server-collision'),
        },
      ],
    },
    {
      id: 'name-contested',
      what: 'two namespaces that claim one cluster name',
      sources: [
        {
          cluster: 'contested',
          secrets: k3k(childKubeconfig(world, { server: serverOf('name-contested') })),
          expect: registered,
        },
        {
          cluster: 'contested',
          secrets: k3k(childKubeconfig(world, { server: 'https://other.acr.test:6443' })),
          expect: refused('name-claimed'),
        },
      ],
    },
    // Stalling or crashing the process, which would stop every tenant's registrations.
    {
      id: 'quadratic-keys',
      what: '60,000 keys in one mapping (quadratic duplicate-key checks)',
      sources: [{ secrets: k3k(manyKeys), expect: refused('kubeconfig-over-limit') }],
    },
    {
      id: 'deep-flow',
      what: '20,000 nested flow sequences',
      sources: [{ secrets: k3k(deepFlow), expect: refused('kubeconfig-over-limit') }],
    },
    {
      id: 'deep-block',
      what: '1,000 nested block mappings',
      sources: [{ secrets: k3k(deepBlock), expect: refused('kubeconfig-over-limit') }],
    },
    {
      id: 'alias-bomb',
      what: 'a billion laughs',
      sources: [{ secrets: k3k(aliasBomb), expect: refused('kubeconfig-not-yaml') }],
    },
    {
      id: 'huge-kubeconfig',
      what: 'a 900 KB kubeconfig',
      sources: [{ secrets: k3k(padded), expect: refused('kubeconfig-over-limit') }],
    },
    {
      id: 'binary-garbage',
      what: 'random bytes',
      sources: [{ secrets: k3k(randomBytes(4096)), expect: refused() }],
    },
    {
      id: 'nul-bytes',
      what: 'a kubeconfig with a NUL byte',
      sources: [{ secrets: k3k(withNul), expect: refused('kubeconfig-not-yaml') }],
    },
    {
      id: 'malformed-base64',
      what: 'certificate data that is not base64',
      sources: [
        {
          secrets: k3k(
            childKubeconfig(world, {
              cluster: ['certificate-authority-data: "not base64!!"'],
              user: [`token: ${CANARY}`],
            }),
          ),
          expect: refused('ca-invalid'),
        },
      ],
    },
    {
      id: 'yaml-error-after-token',
      what: 'malformed YAML right after a token',
      sources: [{ secrets: k3k(brokenAfterToken), expect: refused('kubeconfig-not-yaml') }],
    },
    {
      id: 'yaml-tag-token',
      what: "a token carried in a YAML tag, which the parser's own error message would quote",
      sources: [
        {
          secrets: k3k(`users:\n- name: u\n  user:\n    token: !${CANARY} x\n`),
          expect: refused('kubeconfig-not-yaml'),
        },
      ],
    },
    // Legitimate, if unusual: registered, with limits applied.
    {
      id: 'huge-annotation',
      what: 'a 200 KB prefixed annotation on the namespace',
      sources: [
        {
          annotations: { [`${PREFIX}note`]: 'n'.repeat(200_000) },
          secrets: k3k(childKubeconfig(world, { server: serverOf('huge-annotation') })),
          expect: registered,
        },
      ],
    },
    ...(['server', 'tls-server-name'] as const).map((key): HostileCase => ({
      id: `${key}-override-escapes`,
      what: `a ${key} annotation of 10,000 characters with terminal escapes`,
      sources: [
        {
          annotations: {
            [`${PREFIX}${key}`]: `x\u001b]0;owned\u0007\u009b2J${'y'.repeat(10_000)}`,
          },
          secrets: k3k(childKubeconfig(world, { server: serverOf(`${key}-override-escapes`) })),
          expect: refused('server-override-invalid'),
        },
      ],
    })),
    pinnedElsewhere(world, 'elsewhere', 'kube-system/k3k-admin-kubeconfig'),
    pinnedElsewhere(world, 'path', '../../etc/kubernetes/admin.conf'),
    pinnedElsewhere(world, 'invalid', `${'A'.repeat(300)}\u001b[2J\u009b31m`),
    {
      id: 'kubeconfig-secret-not-candidate',
      what: 'a kubeconfig-secret annotation naming a Secret no provider reads',
      sources: [
        {
          annotations: { [`${PREFIX}kubeconfig-secret`]: 'db-credentials' },
          secrets: {
            ...k3k(childKubeconfig(world, { server: serverOf('kubeconfig-secret-not-candidate') })),
            // Listed for its key names only: no provider reads it, so its bytes reach nothing.
            'db-credentials': { password: text(CANARY), 'kubeconfig.yaml': text(CANARY) },
          },
          expect: refused('kubeconfig-secret-invalid'),
        },
      ],
    },
    {
      id: 'long-names',
      what: 'a 63-character namespace and cluster name',
      sources: [
        {
          name: longName,
          cluster: longName,
          secrets: k3k(childKubeconfig(world, { server: serverOf('long-names') })),
          expect: registered,
        },
      ],
    },
  ];
}

/** A source whose own kubeconfig is fine, but whose kubeconfig-secret names no Secret of its own. */
function pinnedElsewhere(world: World, id: string, value: string): HostileCase {
  return {
    id: `kubeconfig-secret-${id}`,
    what: 'a kubeconfig-secret annotation naming a Secret outside the namespace, or no Secret',
    sources: [
      {
        annotations: { [`${PREFIX}kubeconfig-secret`]: value },
        secrets: k3k(childKubeconfig(world, { server: serverOf(`kubeconfig-secret-${id}`) })),
        expect: refused('kubeconfig-secret-invalid'),
      },
    ],
  };
}

/** A healthy tenant's kubeconfig, whose registration nothing above may disturb. */
export function neighbourKubeconfig(world: World, neighbour: string): Buffer {
  return text(childKubeconfig(world, { server: serverOf(neighbour) }));
}
