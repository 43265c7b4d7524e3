// Hostile kubeconfig text: whoever can write a Secret in a source namespace chooses it. Each
// input must be refused by name, cheaply, and without its text in the refusal.
import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { translateKubeconfig, type TranslateContext } from './kubeconfig.js';
import { KUBECONFIG_LIMITS, scanYamlShape } from './kubeconfig-limits.js';
import { parseYaml } from './kubeconfig-structure.js';
import { translateSecretKey } from './providers.js';
import { PROVIDER_PRESETS } from '../config/provider-presets.js';
import type { ObservedSecret, TranslationResult } from '../common/types.js';

const CONTEXT: TranslateContext = {
  namespace: 'tenant',
  secret: 'k3k-a-kubeconfig',
  key: 'kubeconfig.yaml',
  provider: PROVIDER_PRESETS.k3k,
};
const WHERE = 'namespace tenant, Secret k3k-a-kubeconfig key kubeconfig.yaml: ';
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXRva2VuLWJvZHk.SiGnAtUrE';

/** A usable kubeconfig, with `extra` appended at the root. */
const usable = (extra = ''): string =>
  [
    'clusters:',
    '- name: c',
    '  cluster: {server: "https://child.example:6443"}',
    'users:',
    '- name: u',
    `  user: {token: "${TOKEN}"}`,
    extra,
  ].join('\n');

function refusal(result: TranslationResult): { code: string; message: string } {
  if (result.ok) throw new Error('expected a refusal, got a translation');
  return result.refusal;
}

/** The refusal names the Secret and key, and carries nothing of the text but plain ASCII. */
function expectRefusedByName(result: TranslationResult, code: string): string {
  const { code: actual, message } = refusal(result);
  expect(actual).toBe(code);
  expect(message.startsWith(WHERE)).toBe(true);
  expect(message).toMatch(/^[\x20-\x7e]*$/);
  for (let i = 0; i + 8 <= TOKEN.length; i++) expect(message).not.toContain(TOKEN.slice(i, i + 8));
  return message;
}

const nested = (open: string, inner: string, close: string, depth: number): string =>
  open.repeat(depth) + inner + close.repeat(depth);

describe('limits before parsing', () => {
  it('refuses 30,000 keys by their count (uniqueness checks were quadratic)', () => {
    // Short keys, so that the text is well under the size limit.
    const keys = Array.from({ length: 30_000 }, (_, i) => `${i.toString(36)}: 1`).join('\n');
    expect(keys.length).toBeLessThan(KUBECONFIG_LIMITS.maxLength);
    const message = expectRefusedByName(
      translateKubeconfig(usable(keys), CONTEXT),
      'kubeconfig-over-limit',
    );
    expect(message).toContain(`more than ${KUBECONFIG_LIMITS.maxNodes} keys and list entries`);
  });

  it.each([
    ['flow sequences', `extra: ${nested('[', 'x', ']', 5_000)}`],
    ['flow mappings', `extra: ${nested('{a: ', '1', '}', 5_000)}`],
    ['unclosed flow sequences', `extra: ${'['.repeat(5_000)}`],
    ['compact block sequences', `extra:\n  ${'- '.repeat(5_000)}x\nmore: 1`],
    [
      'indented block mappings',
      `extra:\n${Array.from({ length: 200 }, (_, i) => `${' '.repeat(i + 1)}k:`).join('\n')}\nmore: 1`,
    ],
    ['block sequences of mappings', `extra:\n  ${'- a: '.repeat(3_000)}x\nmore: 1`],
  ])('refuses deeply nested %s by their depth', (_what, extra) => {
    const message = expectRefusedByName(
      translateKubeconfig(usable(extra), CONTEXT),
      'kubeconfig-over-limit',
    );
    expect(message).toContain(`nested more than ${KUBECONFIG_LIMITS.maxDepth} levels deep`);
  });

  it.each([
    ['empty strings', '""'],
    ['blank lines', '\n'],
    ['anchors', '&a '],
    ['tags', '!!str '],
  ])('refuses a text of nothing but %s by its tokens', (_what, unit) => {
    const text = unit.repeat(Math.floor((KUBECONFIG_LIMITS.maxLength - 1024) / unit.length));
    const message = expectRefusedByName(
      translateKubeconfig(usable(text), CONTEXT),
      'kubeconfig-over-limit',
    );
    expect(message).toContain(`more than ${KUBECONFIG_LIMITS.maxTokens} YAML tokens`);
  });

  it('refuses an alias bomb by its aliases', () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++)
      lines.push(`a${i}: &a${i} [${`*a${i - 1}, `.repeat(9)}*a${i - 1}]`);
    const message = expectRefusedByName(
      translateKubeconfig(usable(lines.join('\n')), CONTEXT),
      'kubeconfig-over-limit',
    );
    expect(message).toContain(`more than ${KUBECONFIG_LIMITS.maxAliases} aliases`);
  });

  it('refuses text over the size limit, however simple', () => {
    const message = expectRefusedByName(
      translateKubeconfig(usable(`padding: ${'x'.repeat(KUBECONFIG_LIMITS.maxLength)}`), CONTEXT),
      'kubeconfig-over-limit',
    );
    expect(message).toContain(`larger than ${KUBECONFIG_LIMITS.maxLength / 1024} KiB`);
  });

  it('refuses an oversized Secret value before decoding it', () => {
    const secret: ObservedSecret = {
      namespace: 'tenant',
      name: 'k3k-a-kubeconfig',
      uid: 'u',
      resourceVersion: '1',
      type: 'Opaque',
      labels: {},
      annotations: {},
      // Not base64 at all: a decoder would refuse it as such, the size check comes first.
      data: { 'kubeconfig.yaml': '!'.repeat(KUBECONFIG_LIMITS.maxLength * 2) },
    };
    expectRefusedByName(
      translateSecretKey(secret, 'kubeconfig.yaml', PROVIDER_PRESETS.k3k),
      'kubeconfig-over-limit',
    );
  });

  it('translates kubeconfigs at the limits', () => {
    const ca = Buffer.from('x'.repeat(300 * 1024)).toString('base64');
    const atSize = usable(`ca-bundle: ${ca}`.slice(0, KUBECONFIG_LIMITS.maxLength - 400));
    expect(atSize.length).toBeLessThanOrEqual(KUBECONFIG_LIMITS.maxLength);
    expect(translateKubeconfig(atSize, CONTEXT).ok).toBe(true);
    const keys = Array.from({ length: KUBECONFIG_LIMITS.maxNodes - 20 }, (_, i) => `k${i}: v`);
    expect(translateKubeconfig(usable(keys.join('\n')), CONTEXT).ok).toBe(true);
    const deep = `extra: ${nested('[', 'x', ']', KUBECONFIG_LIMITS.maxDepth - 1)}`;
    expect(translateKubeconfig(usable(deep), CONTEXT).ok).toBe(true);
    const aliases = `shared: &s {a: 1}\n${Array.from({ length: 10 }, (_, i) => `k${i}: *s`).join('\n')}`;
    expect(translateKubeconfig(usable(aliases), CONTEXT).ok).toBe(true);
  });
});

describe('unparseable text', () => {
  it.each([
    ['a tag', `users:\n- name: u\n  user:\n    token: !${TOKEN} x\n`],
    ['a directive', `%${TOKEN}\n---\na: 1\n`],
    ['an unterminated quote', `users:\n- name: u\n  user:\n    token: "${TOKEN}\n`],
    ['a stray bracket', `users:\n- name: u\n  user: {token: ${TOKEN}}}\n`],
    ['a bad escape', `users:\n- name: u\n  user:\n    token: "\\q${TOKEN}"\n`],
    ['NUL bytes', `apiVersion: v1\n\0\0${TOKEN}: [\0\n`],
    ['a mapping as a key', `{${TOKEN}: 1}: 2\n`],
  ])('refuses %s without echoing the text', (_what, text) => {
    const message = expectRefusedByName(translateKubeconfig(text, CONTEXT), 'kubeconfig-not-yaml');
    expect(message).toMatch(/is not valid YAML \([^)]* at line \d+\)/);
  });

  it.each([
    ['NUL', '\0'],
    ['BEL', '\x07'],
    ['DEL', '\x7f'],
    ['a C1 control', '\x9b'],
  ])(
    'refuses %s inside a value of an otherwise usable kubeconfig, as kubectl does',
    (_what, char) => {
      const text = usable().replace('name: u', `name: u${char}x`);
      const message = expectRefusedByName(
        translateKubeconfig(text, CONTEXT),
        'kubeconfig-not-yaml',
      );
      expect(message).toContain('control character');
      expect(message).toMatch(/at line 5\)/);
    },
  );

  it('refuses binary garbage without echoing it', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 4_000 }), (bytes) => {
        const text = `token: ${TOKEN}\n${String.fromCharCode(...bytes)}`;
        const result = translateKubeconfig(text, CONTEXT);
        if (!result.ok) {
          expect(result.refusal.message).toMatch(/^[\x20-\x7e]*$/);
          expect(result.refusal.message).not.toContain(TOKEN.slice(0, 12));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('refuses duplicate keys in any mapping, as kubectl does', () => {
    for (const text of [
      'a: 1\na: 2\n',
      'clusters:\n- name: c\n  name: d\n',
      'x: {a: 1, b: 2, a: 3}\n',
      'yes: 1\ntrue: 2\n',
    ]) {
      const message = expectRefusedByName(
        translateKubeconfig(text, CONTEXT),
        'kubeconfig-not-yaml',
      );
      expect(message).toContain('duplicate key at line');
    }
  });

  it('reads from the scan’s lexemes what the library reads from the text', () => {
    const options = {
      version: '1.1',
      schema: 'yaml-1.1',
      strict: true,
      uniqueKeys: false,
      prettyErrors: false,
    } as const;
    // Long base64 values in every context the units can make (quoted, block, flow, keys,
    // aliases), and the private-use characters.
    const long = `LS0t${'QUJD'.repeat(80)}Zg==`;
    const units = [
      ...'ab1 :-{},[]\n"\'&*#|>?'.split(''),
      '---\n',
      '...\n',
      '  ',
      'a: ',
      '- ',
      long,
      `${long}\n`,
      `b: ${long}\n`,
      '\uE000',
      '\uE0000\uE001',
    ];
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...units), maxLength: 60 }), (text) => {
        const library = parseDocument(text, options);
        const ours = parseYaml(text);
        const issue = library.errors[0] ?? library.warnings[0];
        if (issue !== undefined) {
          expect(ours.ok).toBe(false);
          if (!ours.ok) expect(ours.problem).toMatch(/^is not valid YAML \(.* at line \d+\)$/);
          const line = text.slice(0, issue.pos[0]).split('\n').length;
          if (!ours.ok) expect(ours.problem).toContain(`at line ${line})`);
          return;
        }
        if (ours.ok) expect(ours.root).toEqual(library.toJS({ maxAliasCount: 100 }));
        else
          expect(ours.problem).toMatch(
            /duplicate key|a key that is not a plain value|^is empty$|^is not a YAML mapping$|too many aliases/,
          );
      }),
      { numRuns: 3_000 },
    );
  });

  it('finds duplicate keys exactly where the library would', () => {
    const strict = { version: '1.1', schema: 'yaml-1.1', uniqueKeys: true } as const;
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'ab1 :-{},[]\n"\'&*y'.split('')), maxLength: 40 }),
        (text) => {
          const library = parseDocument(text, strict);
          const libraryDuplicate = library.errors.some((error) => error.code === 'DUPLICATE_KEY');
          const result = translateKubeconfig(text, CONTEXT);
          const ours = !result.ok && result.refusal.message.includes('duplicate key at line');
          // The library's other errors are reported first, so compare only documents it
          // otherwise accepts.
          if (
            library.errors.every((error) => error.code === 'DUPLICATE_KEY') &&
            scanYamlShape(text).ok
          )
            expect(ours).toBe(libraryDuplicate);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
