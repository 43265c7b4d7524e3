// The plain reader must mean exactly what the YAML library means wherever it answers, and must
// answer for the kubeconfigs provisioners really write (or it saves nothing).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseWithLibrary } from './kubeconfig-structure.js';
import { readPlainYaml } from './plain-yaml.js';
import { kubeconfig } from '../../bench/kubeconfig-fixture.js';

/** The library's reading of a text the plain reader answered for: the same mapping. */
function agrees(text: string): boolean {
  const plain = readPlainYaml(text);
  if (plain === undefined) return false;
  expect(parseWithLibrary(text)).toStrictEqual({ ok: true, root: plain });
  return true;
}

// As Go's marshaller (clientcmd.Write through sigs.k8s.io/yaml) writes them: lists at their
// key's column, `preferences: {}`, quotes only where a string would read as something else.
const WRITTEN_BY_GO = [
  kubeconfig('https://k3k-a-service.tenant:6443'),
  [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    '    certificate-authority-data: TFMwdExTMUNSVWRKVGlCRFJWSlVTVVpKUTBGVVJTMHRMUzB0Q2sxSlNVSmtla05EUVZJeVowRjNTVUpCWjBsQ1FVUkJTMEpuWjNGb2EycFBVRkZSUkVGcVFXcE5VMFYzU0hkWlJGWlJVVVJFUW1oeVRUTk5kR015Vm5sa2JWWjVURmRPYUZGRVJUTk9WRmw1VFhwRk1VNVVhM2RJYUdOT1RXcFZkMDVVUlRKTlJGVjVUa1JWZUZkb1kwNU5lbFYzVGxSRmVrMUVWWGxPUkZWNFYycEJhazFUUlhkSWQxbEVWbEZSUkVSQ2FISk5NMDEwWXpKV2VXUnRWbmxNVjA1b1VVUkZNMDVVV1hsTlprVXhUbFJyZDFkVVFWUkNaMk54YUd0cVQxQlJTVUpDWjJkeGFHdHFUMUJSVFVKQ2QwNURRVUZTUjFoMVkyODBURGt3VFRCRlFWQnphMmg1Wkd0SVVEWk1iMlJrZDNsb2JVaHFNa2xoT0d0c1RXbFRNVTVOVWpCR2IzUm5lVXQ2VEZoRmRXNVpNWEJIVW1oT01GVTJSVUZYVjNCWmFrWkVRMVphVVhCd2JuUm1Va1JwYjBwbmJqQm5iV3hEZEd0QlprUm5kMkpSV1VSV1VqQlFRVkZJTDBKQlVVUkJaMHRyVFVFNFIwRXhWV1JGZDBWQ0wzZFJSazFCVFVKQlpqaDNTRkZaUkZaU01FOUNRbGxGUmtSUWNVaDFjVk5uVXpSNGEwWTRSbXRaTm1oWVVqSkRNMnhZZWpSTlFXOUhRME54UjFOTk5EbENRVTFEUVRCalFVMUZVVU5KUjAxVVNETlVSR2d3Vm1wTlExRTRla0ZKVjFKV1R6ZG5WV0puZFV0NWVtOVRiRGRYVTNWMlkyOU1PREJwUVdsQ1ZraE9aVVJVV1hkcGMyVnZjR2xKUW5OSE1WSkVPRzA1ZFVKRmRUVkxObTQxUWpoYVUyRndWa05uVDBFOVBRb3RMUzB0TFVWT1JDQkRSVkpVU1VaSlEwRlVSUzB0TFMwdENnPT0=',
    '    server: https://10.43.12.7:443',
    '  name: vcluster_my-vcluster_team-a_context',
    'contexts:',
    '- context:',
    '    cluster: vcluster_my-vcluster_team-a_context',
    '    namespace: default',
    '    user: vcluster_my-vcluster_team-a_context',
    '  name: vcluster_my-vcluster_team-a_context',
    'current-context: vcluster_my-vcluster_team-a_context',
    'kind: Config',
    'preferences: {}',
    'users:',
    '- name: vcluster_my-vcluster_team-a_context',
    '  user:',
    '    token: eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXRva2VuLWJvZHk.SiGnAtUrE',
    '',
  ].join('\n'),
  [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    '    insecure-skip-tls-verify: true',
    '    server: https://tcp-a.kamaji.example:6443',
    '    tls-server-name: "10.0.0.1"',
    '  name: tcp-a',
    'contexts:',
    '- context:',
    '    cluster: tcp-a',
    '    user: kubernetes-admin',
    '  name: kubernetes-admin@tcp-a',
    'current-context: kubernetes-admin@tcp-a',
    'kind: Config',
    'users:',
    '- name: kubernetes-admin',
    '  user:',
    '    exec:',
    '      apiVersion: client.authentication.k8s.io/v1',
    '      args:',
    '      - eks',
    '      - get-token',
    '      - --cluster-name',
    '      - "123"',
    '      command: aws',
    '      env:',
    '      - name: AWS_PROFILE',
    "        value: 'on'",
    '      interactiveMode: Never',
    '      provideClusterInfo: false',
  ].join('\n'),
];

// Indented lists, as kubectl and hand-written kubeconfigs have them.
const INDENTED = [
  'apiVersion: v1',
  'clusters:',
  '  - name: c',
  '    cluster:',
  '      server: https://child.example:6443',
  'users:',
  '  - name: u',
  '    user:',
  '      token: abc',
  '      as-groups:',
  '        - system:masters',
  '        - view',
  'extensions: []',
].join('\n');

describe('the plain reader', () => {
  it('reads what provisioners write, as the library does', () => {
    for (const text of [...WRITTEN_BY_GO, INDENTED]) expect(agrees(text)).toBe(true);
  });

  it('leaves to the library whatever it might read differently', () => {
    const outside = [
      // Words the YAML 1.1 schema reads as null, numbers, keys it turns into booleans.
      'a: null',
      'a: ~',
      'a: 12',
      'a: 0x1f',
      'a: 1:20',
      'a: .inf',
      'yes: a',
      'on: a',
      // Comments, blank lines, trailing spaces, escapes, more than one space.
      'a: b # c',
      '# c\na: b',
      'a: b\n\nc: d',
      'a: b ',
      'a: "b\\n"',
      "a: 'it''s'",
      'a:  b',
      // Multi-line values, anchors and aliases, tags, flow collections with content.
      'a: b\n  c',
      'a: &x b\nc: *x',
      'a: !!str b',
      'a: {b: c}',
      'a: [b]',
      'a: |\n  b',
      // Duplicate keys, a null by omission, a document marker, a list at the root, tabs.
      'a: b\na: c',
      'a:\nb: c',
      '---\na: b',
      '- a',
      'a:\n\t- b',
      // Non-ASCII, a carriage return.
      'a: é',
      'a: b\r\nc: d',
    ];
    for (const text of outside) expect(readPlainYaml(text), text).toBeUndefined();
  });

  it('means what the library means wherever it answers', () => {
    // Mostly what the reader answers for, with now and then something it must leave alone.
    const mostly = (usual: string[], rare: string[]): fc.Arbitrary<string> =>
      fc.oneof(
        { weight: 40, arbitrary: fc.constantFrom(...usual) },
        { weight: 1, arbitrary: fc.constantFrom(...rare) },
      );
    const words = mostly(
      ['a', 'b', 'name', 'server', 'x.y-z_1', 'Yesterday', 'nullable'],
      ['yes', 'Y', 'off', 'Null', 'true', 'False', '1', '-a', 'a b'],
    );
    const values = mostly(
      [
        'v',
        'true',
        'y',
        'NO',
        'On',
        '"q"',
        "'s'",
        '"1.0"',
        "''",
        '{}',
        '[]',
        'https://h.example:6443',
        'system:masters',
        'u@c',
        '--region',
        '-v',
        'a%x',
        'a,b',
        'a:b',
        'LS0tLS1CRUdJTi==',
      ],
      [
        'null',
        '~',
        '1',
        '0x1',
        '1:20',
        '-1',
        '-.inf',
        '"a\\b"',
        '{a: 1}',
        'a b',
        'a #c',
        'a:',
        '- a',
        '@x',
        '%x',
        '&x a',
        '*x',
        '!!str a',
        '|',
      ],
    );
    type Tree = string | { readonly [key: string]: Tree } | readonly Tree[];
    const { tree } = fc.letrec<{ tree: Tree; map: Tree; list: Tree }>((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        values,
        tie('map'),
        tie('list'),
      ),
      map: fc.dictionary(words, tie('tree'), { minKeys: 1, maxKeys: 4 }),
      list: fc.array(fc.oneof(values, tie('map')), { minLength: 1, maxLength: 3 }),
    }));
    // Lists at their key's column (Go) or two columns in (kubectl).
    const write = (value: Tree, indent: number, inset: boolean): string[] => {
      const pad = ' '.repeat(indent);
      if (typeof value === 'string') return [`${pad}${value}`];
      if (Array.isArray(value))
        return value.flatMap((item: Tree) => {
          const [first = '', ...rest] = write(item, indent + 2, inset);
          return [`${pad}- ${first.trimStart()}`, ...rest];
        });
      return Object.entries(value).flatMap(([key, item]) =>
        typeof item === 'string'
          ? [`${pad}${key}: ${item}`]
          : [
              `${pad}${key}:`,
              ...write(item, Array.isArray(item) && !inset ? indent : indent + 2, inset),
            ],
      );
    };
    const mutations = fc.option(
      fc.record({
        at: fc.nat(),
        how: fc.constantFrom('indent', 'outdent', 'comment', 'twice', 'drop', 'blank'),
      }),
      { nil: undefined, freq: 2 },
    );
    const documents = fc
      .tuple(fc.dictionary(words, tree, { minKeys: 1, maxKeys: 5 }), fc.boolean(), mutations)
      .map(([root, inset, mutation]) => {
        const lines = write(root, 0, inset);
        if (mutation !== undefined) {
          const at = mutation.at % lines.length;
          const line = lines[at] ?? '';
          const changed = {
            indent: [` ${line}`],
            outdent: [line.replace(/^ {2}/, '')],
            comment: [`${line} #c`],
            twice: [line, line],
            drop: [],
            blank: [line, ''],
          }[mutation.how];
          lines.splice(at, 1, ...changed);
        }
        return lines.join('\n');
      });
    let answered = 0;
    fc.assert(
      fc.property(documents, (text) => {
        if (agrees(text)) answered += 1;
      }),
      { numRuns: 3000 },
    );
    // Enough of the generated texts are read here for the agreement to mean something.
    expect(answered).toBeGreaterThan(600);
  });
});
