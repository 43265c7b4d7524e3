import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchGlob, validateGlob } from './glob.js';

describe('matchGlob (Go path.Match semantics)', () => {
  // Cases from Go's path/match_test.go, plus the provider presets.
  it.each([
    ['abc', 'abc', true],
    ['*', 'abc', true],
    ['*c', 'abc', true],
    ['a*', 'a', true],
    ['a*', 'abc', true],
    ['a*', 'ab/c', false],
    ['a*/b', 'abc/b', true],
    ['a*/b', 'a/c/b', false],
    ['a*b*c*d*e*/f', 'axbxcxdxe/f', true],
    ['a*b*c*d*e*/f', 'axbxcxdxexxx/f', true],
    ['a*b*c*d*e*/f', 'axbxcxdxe/xxx/f', false],
    ['a*b*c*d*e*/f', 'axbxcxdxexxx/fff', false],
    ['a*b?c*x', 'abxbbxdbxebxczzx', true],
    ['a*b?c*x', 'abxbbxdbxebxczzy', false],
    ['ab[c]', 'abc', true],
    ['ab[b-d]', 'abc', true],
    ['ab[e-g]', 'abc', false],
    ['ab[^c]', 'abc', false],
    ['ab[^b-d]', 'abc', false],
    ['ab[^e-g]', 'abc', true],
    ['a\\*b', 'a*b', true],
    ['a\\*b', 'ab', false],
    ['a?b', 'a☺b', true],
    ['a[^a]b', 'a☺b', true],
    ['a???b', 'a☺b', false],
    ['a[^a][^a][^a]b', 'a☺b', false],
    ['[a-ζ]*', 'α', true],
    ['*[a-ζ]', 'A', false],
    ['a?b', 'a/b', false],
    ['a*b', 'a/b', false],
    ['[\\]a]', ']', true],
    ['[\\-]', '-', true],
    ['[x\\-]', 'x', true],
    ['[x\\-]', '-', true],
    ['[x\\-]', 'z', false],
    ['[\\-x]', 'x', true],
    ['[\\-x]', '-', true],
    ['[\\-x]', 'a', false],
    ['*x', 'xxx', true],
    ['', '', true],
    ['', 'a', false],
    ['a', '', false],
    ['*', '', true],
    ['?', '', false],
    ['[a]', '', false],
    ['[z-a]', 'm', false],
    ['a]b', 'a]b', true],
    ['a-b^c', 'a-b^c', true],
    ['k3k-*-kubeconfig', 'k3k-a-kubeconfig', true],
    ['k3k-*-kubeconfig', 'k3k--kubeconfig', true],
    ['k3k-*-kubeconfig', 'k3k-kubeconfig', false],
    ['k3k-*-kubeconfig', 'k3k-a-kubeconfig-old', false],
    ['vc-*', 'vc-config-mycluster', true],
    ['*-admin-kubeconfig', 'tenant-admin-kubeconfig', true],
    ['*-kubeconfig', 'tenant-admin-kubeconfig', true],
  ])('%j vs %j → %s', (pattern, name, expected) => {
    expect(matchGlob(pattern, name)).toBe(expected);
    expect(validateGlob(pattern)).toBeUndefined();
  });

  it.each([
    ['[', 'a'],
    ['[^', 'a'],
    ['[^bc', 'a'],
    ['a[', 'a'],
    ['a[', 'ab'],
    ['a[', 'x'],
    ['a/[', 'a/b'],
    ['*x[', 'xxx'],
    ['[]a]', ']'],
    ['[-]', '-'],
    ['[x-]', 'x'],
    ['[x-]', '-'],
    ['[-x]', 'x'],
    ['[a-b-c]', 'a'],
    ['[^]', 'a'],
    ['\\', 'a'],
    ['a\\', 'a'],
    ['[\\', 'a'],
    ['[a\\', 'a'],
    ['[a-\\', 'a'],
  ])('malformed %j matches nothing (%j) and is reported', (pattern, name) => {
    expect(matchGlob(pattern, name)).toBe(false);
    expect(validateGlob(pattern)).toEqual(expect.any(String));
  });

  it('reports readable reasons', () => {
    expect(validateGlob('k3k-[')).toBe('unterminated character class: add the closing "]"');
    expect(validateGlob('a[]')).toBe('empty character class "[]"');
    expect(validateGlob('x\\')).toBe('a trailing "\\" escapes nothing');
    expect(validateGlob('[a-]')).toBe('"]" must be escaped inside a character class');
  });

  it('a star-free literal pattern matches only itself', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9.-]{0,20}$/),
        fc.stringMatching(/^[a-z0-9.-]{0,20}$/),
        (pattern, name) => {
          expect(matchGlob(pattern, name)).toBe(pattern === name);
        },
      ),
    );
  });

  it('agrees with an equivalent regular expression on DNS names', () => {
    const toRegExp = (pattern: string): RegExp =>
      new RegExp(
        `^${pattern
          .replace(/[.+^${}()|\\]/g, '\\$&')
          .replace(/\*/g, '[^/]*')
          .replace(/\?/g, '[^/]')}$`,
        'u',
      );
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-c*?.-]{0,8}$/),
        fc.stringMatching(/^[a-c.-]{0,10}$/),
        (pattern, name) => {
          expect(matchGlob(pattern, name)).toBe(toRegExp(pattern).test(name));
        },
      ),
    );
  });

  it('never throws on arbitrary patterns', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (pattern, name) => {
        const matched = matchGlob(pattern, name);
        if (validateGlob(pattern) !== undefined) expect(matched).toBe(false);
      }),
    );
  });
});
