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
    expect(validateGlob('[a-]')).toBe(
      '"-" and "]" must be escaped inside a character class (\\- and \\])',
    );
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
        // '.' and '..' are no Secret's name, and minimatch's `*` never matches them (see the
        // differences below).
        fc.stringMatching(/^[a-c.-]{0,10}$/).filter((name) => name !== '.' && name !== '..'),
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

describe('matchGlob: the patterns the docs and presets promise', () => {
  it.each([
    // k3k
    ['k3k-*-kubeconfig', 'k3k-team-a-kubeconfig', true],
    ['k3k-*-kubeconfig', 'k3k-team.a-kubeconfig', true],
    ['k3k-*-kubeconfig', 'k3k-kubeconfig', false],
    ['k3k-*-kubeconfig', 'my-k3k-a-kubeconfig', false],
    // vcluster: the glob matches vc-config-<name> too; what keeps that Secret out is that it
    // carries none of the provider's keys (providers.test.ts, "a Secret without any of the keys").
    ['vc-*', 'vc-my-vcluster', true],
    ['vc-*', 'vc-config-my-vcluster', true],
    ['vc-*', 'vcluster-x', false],
    // kamaji and capi
    ['*-admin-kubeconfig', 'tenant-00-admin-kubeconfig', true],
    ['*-admin-kubeconfig', 'tenant-00-kubeconfig', false],
    ['*-kubeconfig', 'cluster-a-kubeconfig', true],
    ['*-kubeconfig', 'cluster-a-kubeconfig-old', false],
    // custom globs
    ['tenant-?-kubeconfig', 'tenant-a-kubeconfig', true],
    ['tenant-?-kubeconfig', 'tenant-ab-kubeconfig', false],
    ['tenant-[0-9][0-9]-kubeconfig', 'tenant-07-kubeconfig', true],
    ['tenant-[0-9][0-9]-kubeconfig', 'tenant-7a-kubeconfig', false],
    ['tenant-[^x]-kubeconfig', 'tenant-y-kubeconfig', true],
    ['tenant-[^x]-kubeconfig', 'tenant-x-kubeconfig', false],
    ['[ab]*.kubeconfig', 'a.b.kubeconfig', true],
    // what minimatch would do with these is switched off: they are literal characters
    ['{a,b}-kubeconfig', 'a-kubeconfig', false],
    ['{a,b}-kubeconfig', '{a,b}-kubeconfig', true],
    ['+(a)-kubeconfig', 'a-kubeconfig', false],
    ['+(a)-kubeconfig', '+(a)-kubeconfig', true],
    ['!a-kubeconfig', 'b-kubeconfig', false],
    ['!a-kubeconfig', '!a-kubeconfig', true],
    ['#a', '#a', true],
    ['**', 'a', true],
    ['**', 'a/b', false],
    // `*` matches a leading dot
    ['*', '.a', true],
  ])('%j vs %j → %s', (pattern, name, expected) => {
    expect(validateGlob(pattern)).toBeUndefined();
    expect(matchGlob(pattern, name)).toBe(expected);
  });
});

describe('matchGlob: where minimatch differs from the Go predecessor (docs/migrating.md)', () => {
  // [pattern, name, this registrar, Go's path.Match]; none of the names is a valid Secret name.
  it.each([
    ['[!a]', 'b', true, false],
    ['[!a]', 'a', false, true],
    ['[[:digit:]]', '7', true, false],
    ['*', '.', false, true],
    ['*', '..', false, true],
    ['?', '😀', false, true],
  ])('%j vs %j → %s (Go: %s)', (pattern, name, expected) => {
    expect(validateGlob(pattern)).toBeUndefined();
    expect(matchGlob(pattern, name)).toBe(expected);
  });
});
