// A target's scope: which sources its selector admits, and the addresses a target in another
// cluster can never reach (refused there, registered locally as before).

import { describe, expect, it } from 'vitest';
import { plan } from './index.js';
import { parseLabelSelector } from '../config/label-selector.js';
import { KEYS, NOW, outcomeOf, scenario, settle, testConfig } from '../test-support/fixtures.js';
import type { Config, LabelSelector, Plan } from '../common/types.js';

function selector(text: string): LabelSelector {
  const parsed = parseLabelSelector(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.selector;
}

const remote = (overrides: Partial<Config> = {}): Config =>
  testConfig({ target: { name: 'hub', remote: true }, ...overrides });

function created(result: Plan): string[] {
  return result.actions.flatMap((action) => (action.kind === 'create' ? [action.cluster] : []));
}

describe('target scope', () => {
  it('plans only the sources a target’s selector admits', () => {
    const world = scenario()
      .child('team-a', { cluster: 'alpha', labels: { [`${KEYS.prefix}env`]: 'prod' } })
      .child('team-b', { cluster: 'bravo', labels: { [`${KEYS.prefix}env`]: 'dev' } })
      .child('team-c', { cluster: 'charlie' })
      .build();
    const prod = testConfig({
      target: { name: 'prod', remote: false, selector: selector(`${KEYS.prefix}env=prod`) },
    });
    const notDev = testConfig({
      target: { name: 'rest', remote: false, selector: selector(`${KEYS.prefix}env!=dev`) },
    });
    expect(created(plan(world, prod, NOW))).toEqual(['alpha']);
    expect(created(plan(world, notDev, NOW))).toEqual(['alpha', 'charlie']);
    expect(plan(world, prod, NOW).outcomes.map((outcome) => outcome.namespace)).toEqual(['team-a']);
  });

  it('keeps a registration whose source the selector no longer admits: a selector is no proof', () => {
    const prod = testConfig({
      target: { name: 'prod', remote: false, selector: selector(`${KEYS.prefix}env=prod`) },
    });
    const registered = settle(
      scenario()
        .child('team-a', { cluster: 'alpha', labels: { [`${KEYS.prefix}env`]: 'prod' } })
        .build(),
      prod,
    );
    const relabelled = scenario(registered)
      .label('team-a', `${KEYS.prefix}env`, 'dev')
      .lookup('team-a', { state: 'present', uid: 'uid-team-a', labels: {} })
      .build();
    expect(plan(relabelled, prod, NOW).actions).toEqual([]);
  });

  it.each([
    ['https://127.0.0.1:6443', 'a loopback address'],
    ['https://api.team-a.svc:443', 'a Service name of the host'],
    ['https://api.team-a.svc.cluster.local', 'a Service name of the host'],
  ])('refuses %s for a remote target (%s), and registers it in a local one', (server, why) => {
    const world = scenario().child('team-a', { cluster: 'alpha', server }).build();
    const result = plan(world, remote(), NOW);
    expect(result.actions).toEqual([]);
    const reason = outcomeOf(result, 'team-a').reason;
    expect(reason?.code).toBe(server.includes('127.') ? 'server-loopback' : 'server-host-only');
    if (reason?.code === 'server-host-only') {
      expect(reason.message).toBe(
        `server ${server} of namespace team-a resolves only inside this host (${why}), and target "hub" is an ArgoCD in another cluster, which cannot reach it; make the provisioner export an address that cluster reaches (vcluster: exportKubeConfig.server; Kamaji: the TenantControlPlane's external address; Cluster API: the control plane endpoint), or set the ${KEYS.server} annotation on the namespace team-a to one`,
      );
      expect(created(plan(world, testConfig(), NOW))).toEqual(['alpha']);
    }
  });

  it('refuses the vcluster loopback rewrite for a remote target; the server annotation is the way out', () => {
    const vcluster = testConfig({
      providers: [
        { name: 'vcluster', secretNamePattern: 'vc-*', keys: ['config'], loopbackRewrite: true },
      ],
    });
    const world = scenario()
      .namespace('team-a', { cluster: 'alpha' })
      .kubeconfig('team-a', { name: 'vc-alpha', key: 'config', server: 'https://localhost:8443' })
      .build();
    expect(created(plan(world, vcluster, NOW))).toEqual(['alpha']);
    const refused = plan(world, { ...vcluster, target: { name: 'hub', remote: true } }, NOW);
    expect(outcomeOf(refused, 'team-a').reason).toMatchObject({
      code: 'server-host-only',
      message: expect.stringContaining(
        'resolves only inside this host (the vcluster Service name its loopback address was rewritten to)',
      ) as string,
    });
    const annotated = scenario(world)
      .annotate('team-a', KEYS.server, 'https://alpha.example.com')
      .build();
    expect(
      created(plan(annotated, { ...vcluster, target: { name: 'hub', remote: true } }, NOW)),
    ).toEqual(['alpha']);
  });
});
