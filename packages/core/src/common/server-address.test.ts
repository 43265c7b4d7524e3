import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyServer, normaliseServer, proxyUrlProblem, redactUrl } from './server-address.js';

describe('normaliseServer', () => {
  it.each([
    ['https://Example.COM', 'https://example.com'],
    ['HTTPS://example.com:443/', 'https://example.com'],
    ['http://example.com:80', 'http://example.com'],
    ['https://example.com:80', 'https://example.com:80'],
    ['http://example.com:443', 'http://example.com:443'],
    ['https://example.com:6443/', 'https://example.com:6443'],
    ['https://example.com./', 'https://example.com'],
    ['https://example.com/k8s/clusters/c-1/', 'https://example.com/k8s/clusters/c-1'],
    ['https://example.com/Path', 'https://example.com/Path'],
    ['https://[::1]:443', 'https://[::1]'],
    ['https://[FE80::1]:6443', 'https://[fe80::1]:6443'],
    ['https://example.com//', 'https://example.com'],
    ['  https://example.com  ', 'https://example.com'],
    ['not a url/', 'not a url'],
  ])('%j → %j', (input, expected) => {
    expect(normaliseServer(input)).toBe(expected);
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.webUrl(), (url) => {
        expect(normaliseServer(normaliseServer(url))).toBe(normaliseServer(url));
      }),
    );
  });

  it('makes spellings of one server equal', () => {
    const spellings = [
      'https://k.example.com',
      'https://K.example.com:443',
      'HTTPS://k.example.com/',
      'https://k.example.com.:443/',
    ];
    expect(new Set(spellings.map(normaliseServer)).size).toBe(1);
  });
});

describe('classifyServer', () => {
  it.each([
    ['https://example.com', 'example.com'],
    ['https://example.com:6443', 'example.com'],
    ['http://example.com', 'example.com'],
    ['https://Example.com.', 'example.com'],
    ['https://10.0.0.1:6443', '10.0.0.1'],
    ['https://k3k-a-service.k3k-a', 'k3k-a-service.k3k-a'],
    ['https://k3k-a-service.k3k-a.svc.cluster.local:443', 'k3k-a-service.k3k-a.svc.cluster.local'],
    ['https://my-vcluster.team-a', 'my-vcluster.team-a'],
    ['https://rancher.example.com/k8s/clusters/c-abc', 'rancher.example.com'],
    ['https://[2001:db8::1]:6443', '2001:db8::1'],
    ['https://kubernetes.example.com', 'kubernetes.example.com'],
    ['https://kubernetes.default.example.com', 'kubernetes.default.example.com'],
    ['https://kubernetes-default.svc', 'kubernetes-default.svc'],
    ['https://localhost.example.com', 'localhost.example.com'],
    ['https://128.0.0.1', '128.0.0.1'],
    ['https://1.2.3.4', '1.2.3.4'],
    ['https://[::2]', '::2'],
    ['https://[::ffff:10.0.0.1]', '::ffff:10.0.0.1'],
  ])('%j is ok', (url, host) => {
    expect(classifyServer(url)).toEqual({ kind: 'ok', host });
  });

  it.each([
    'https://kubernetes',
    'https://kubernetes.default',
    'https://kubernetes.default.svc',
    'https://kubernetes.default.svc.cluster.local',
    'https://kubernetes.default.svc.cluster.local.',
    'https://KUBERNETES.Default.SVC:443',
    'https://kubernetes.default.svc:6443/',
    'http://kubernetes.default.svc.my-domain.example',
    'https://kubernetes.default.svc.cluster.local:443/api',
  ])('%j is in-cluster', (url) => {
    expect(classifyServer(url).kind).toBe('in-cluster');
  });

  it.each([
    'https://localhost',
    'https://localhost:8443',
    'https://LOCALHOST.',
    'https://vcluster.localhost',
    'https://127.0.0.1',
    'https://127.0.0.1:6443',
    'https://127.255.255.254',
    'https://127.1',
    'https://2130706433',
    'https://0x7f.0.0.1',
    'https://0177.0.0.1',
    'https://0.0.0.0',
    'https://0',
    'https://[::1]',
    'https://[::1]:6443',
    'https://[0:0:0:0:0:0:0:1]',
    'https://[0000:0000:0000:0000:0000:0000:0000:0001]',
    'https://[::0:1]',
    'https://[0::1]',
    'https://[::]',
    'https://[::ffff:127.0.0.1]',
    'https://[::ffff:7f00:1]',
    'https://[::127.0.0.1]',
    'https://[::ffff:0.0.0.0]',
  ])('%j is loopback', (url) => {
    expect(classifyServer(url).kind).toBe('loopback');
  });

  it.each([
    '',
    'example.com',
    'example.com:6443',
    '//example.com',
    'ftp://example.com',
    'unix:///var/run/k8s.sock',
    'https://',
    'https:///path',
    'https://:6443',
    'https://user@example.com',
    'https://user:pass@example.com',
    'https://example.com?x=1',
    'https://example.com/?',
    'https://example.com#frag',
    'https://example.com:abc',
    'https://example.com:',
    'https://example.com:0',
    'https://example.com:65536',
    'https://example.com:6443:1',
    'https://exa mple.com',
    ' https://example.com',
    'https://exämple.com',
    'https://example..com',
    'https://.',
    'https://[::1',
    'https://[1::2::3]',
    'https://[fe80::1%25eth0]',
    'https://[12345::1]',
    'https://[::1.2.3.256]',
    'https://[1:2:3:4:5:6:7:8:9]',
  ])('%j is invalid', (url) => {
    expect(classifyServer(url)).toEqual({ kind: 'invalid' });
  });

  it('never throws', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        classifyServer(text);
        classifyServer(`https://${text}`);
        normaliseServer(text);
      }),
    );
  });

  it('a valid class survives normalisation', () => {
    fc.assert(
      fc.property(fc.webUrl({ validSchemes: ['https', 'http'] }), (url) => {
        const kind = classifyServer(url).kind;
        if (kind !== 'invalid') expect(classifyServer(normaliseServer(url)).kind).toBe(kind);
      }),
    );
  });
});

describe('proxyUrlProblem', () => {
  it.each([
    'http://proxy:3128',
    'https://proxy.example.com',
    'socks5://10.0.0.1:1080',
    'SOCKS5://proxy/',
    'http://[fd00::1]:3128',
  ])('%j is usable', (url) => {
    expect(proxyUrlProblem(url)).toBeUndefined();
  });

  it.each([
    ['proxy:3128', 'is not a URL'],
    ['ftp://proxy', 'must use http://, https:// or socks5://'],
    ['socks4://proxy', 'must use http://, https:// or socks5://'],
    ['http://user:pass@proxy:3128', 'must not carry a user name or password'],
    ['http://user@proxy', 'must not carry a user name or password'],
    ['http://:3128', 'has no valid host'],
    ['http://pro xy', 'has no valid host'],
    ['http://proxy:99999', 'has an invalid port'],
    ['http://proxy/path', 'must be a bare scheme://host[:port]'],
    ['http://proxy?x=1', 'must be a bare scheme://host[:port]'],
  ])('%j %s', (url, problem) => {
    expect(proxyUrlProblem(url)).toBe(problem);
  });
});

describe('redactUrl', () => {
  it('masks user-info, query and fragment', () => {
    expect(redactUrl('https://user:secret@host:6443/p?token=abc#x')).toBe(
      'https://***@host:6443/p?***#***',
    );
    expect(redactUrl('https://host')).toBe('https://host');
  });
});
