// The targets file: what it accepts, and that each problem names the target and the fix.

import { describe, expect, it } from 'vitest';
import { testConfig } from '../test-support/fixtures.js';
import {
  applyNameTemplate,
  parseTargetsFile,
  targetConfig,
  targetSelectorWarning,
} from './targets.js';

function errorsOf(text: string): readonly string[] {
  const result = parseTargetsFile(text);
  if (result.ok) throw new Error('expected errors');
  return result.errors;
}

describe('targets file', () => {
  it('reads YAML and JSON alike, every key of the agreed form', () => {
    const json = JSON.stringify({
      targets: [
        {
          name: 'hub',
          namespace: 'argocd',
          kubeconfig: '/etc/hub/kubeconfig',
          context: 'hub',
          selector: 'env=prod,team in (b,a)',
          nameTemplate: 'host-a-{name}',
        },
        { name: 'local', namespace: 'gitops' },
      ],
    });
    const yaml = `targets:
  - name: hub
    namespace: argocd
    kubeconfig: /etc/hub/kubeconfig
    context: hub
    selector: "env=prod,team in (b,a)"
    nameTemplate: host-a-{name}
  - {name: local, namespace: gitops}
`;
    const fromJson = parseTargetsFile(json);
    expect(fromJson).toEqual(parseTargetsFile(yaml));
    expect(fromJson).toEqual({
      ok: true,
      targets: [
        {
          name: 'hub',
          namespace: 'argocd',
          kubeconfig: '/etc/hub/kubeconfig',
          context: 'hub',
          selectorText: 'env=prod,team in (b,a)',
          selector: [
            { key: 'env', operator: 'in', values: ['prod'] },
            { key: 'team', operator: 'in', values: ['a', 'b'] },
          ],
          nameTemplate: 'host-a-{name}',
        },
        { name: 'local', namespace: 'gitops' },
      ],
    });
  });

  it('names the target and the fix for every problem, all at once', () => {
    const errors = errorsOf(
      JSON.stringify({
        targets: [
          { name: 'a', namespace: 'argocd', kubeconfg: '/x' },
          { name: 'b', namespace: 'Argo CD' },
          { name: 'c', namespace: 'argocd', selector: 'team in (a' },
          { name: 'd', namespace: 'n1', nameTemplate: 'host-a' },
          { name: 'e', namespace: 'n2', nameTemplate: 'Host_{name}' },
          { name: 'f', namespace: 'n3', nameTemplate: '{name}-{name}' },
          { namespace: 'n4' },
          { name: 'g' },
          { name: 'h', namespace: 'n5', context: 'x' },
          { name: 'a', namespace: 'n6' },
        ],
        extra: true,
      }),
    );
    const text = errors.join('\n');
    expect(text).toContain('unknown key "extra" at the top');
    expect(text).toContain('target "a" has an unknown key "kubeconfg"');
    expect(text).toContain('target "b" namespace "Argo CD" must be a namespace name');
    expect(text).toContain('target "c" selector "team in (a"');
    expect(text).toContain('target "d" nameTemplate "host-a" must hold {name} exactly once');
    expect(text).toContain('target "e" nameTemplate "Host_{name}" gives names such as "Host_a"');
    expect(text).toContain('target "f" nameTemplate "{name}-{name}" must hold {name} exactly once');
    expect(text).toContain('targets[6] has no name');
    expect(text).toContain('target "g" has no namespace');
    expect(text).toContain('target "h" sets a context but no kubeconfig');
    expect(text).toContain('target "a" is listed twice');
  });

  it('refuses two targets writing one namespace of one cluster: each would take the other’s', () => {
    expect(
      errorsOf('targets: [{name: a, namespace: argocd}, {name: b, namespace: argocd}]'),
    ).toEqual([
      'targets "a" and "b" both write namespace argocd of this cluster; merge them into one target (one namespace, one target)',
    ]);
    // The same namespace of two clusters is two targets.
    expect(
      parseTargetsFile(
        'targets: [{name: a, namespace: argocd}, {name: b, namespace: argocd, kubeconfig: /hub}]',
      ).ok,
    ).toBe(true);
  });

  it('says what is wrong with text that is not a targets file, never quoting it', () => {
    expect(errorsOf('targets: [\n  {name: a')[0]).toMatch(
      /^is not valid YAML or JSON \(line \d+\)/,
    );
    expect(errorsOf('[]')[0]).toMatch(/^has no "targets" list/);
    expect(errorsOf('targets: []')).toEqual(['lists no target; list at least one']);
    expect(errorsOf('targets: [{name: a, namespace: argocd, kubeconfig: 5}]')).toEqual([
      'target "a" has kubeconfig 5; expected a non-empty string',
    ]);
  });

  it('makes a target’s configuration: its namespace, remote when it has a kubeconfig', () => {
    const parsed = parseTargetsFile(
      'targets: [{name: hub, namespace: gitops, kubeconfig: /hub, nameTemplate: "a-{name}"}]',
    );
    if (!parsed.ok) throw new Error(parsed.errors.join());
    const [target] = parsed.targets;
    if (target === undefined) throw new Error('no target');
    const config = targetConfig(testConfig(), target);
    expect(config.targetNamespace).toBe('gitops');
    expect(config.target).toEqual({ name: 'hub', remote: true, nameTemplate: 'a-{name}' });
    expect(applyNameTemplate('a-{name}', 'alpha')).toBe('a-alpha');
  });
});

describe('a target selector on labels tenants write', () => {
  const scoped = (selector: string): ReturnType<typeof testConfig> => {
    const parsed = parseTargetsFile(
      JSON.stringify({ targets: [{ name: 'hub', namespace: 'argocd', selector }] }),
    );
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    const [target] = parsed.targets;
    if (target === undefined) throw new Error('no target');
    return targetConfig(testConfig(), target);
  };

  it('is warned about, naming the target, each open key once, and the fix', () => {
    const config = scoped('team=a,team!=b,env in (prod)');
    const warning = targetSelectorWarning(config);
    expect(warning).toContain('target "hub" selects its sources on the labels team, env,');
    expect(warning).toContain(`Select on a key under ${config.labelPrefix} instead`);
  });

  it('is not warned about when every key is reserved: the prefix, or the name the API server writes', () => {
    const config = scoped(
      `${testConfig().labelPrefix}tier=gold,kubernetes.io/metadata.name in (a,b)`,
    );
    expect(targetSelectorWarning(config)).toBeUndefined();
    expect(targetSelectorWarning(testConfig())).toBeUndefined();
  });
});
