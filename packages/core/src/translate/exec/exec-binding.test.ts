// An exec registration makes ArgoCD mint a token with its own cloud identity and send it to
// the registration's server, so a tenant's kubeconfig may only name servers, clusters, roles
// and audiences the operator has bound it to: each refusal here names the Secret and the fix.

import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseConfig, type ConfigInput } from '../../config/config.js';
import { translateKubeconfig } from '../kubeconfig.js';
import { execPolicyWarning } from './gates.js';
import { plan } from '../../plan/index.js';
import { KEYS, NOW, outcomeOf, scenario } from '../../test-support/fixtures.js';
import { AKS_SERVER_ID } from '../../test-fixtures/cloud-kubeconfigs.js';
import type { Config, TranslationResult } from '../../common/types.js';

const EKS = 'https://0A1B2C3D4E5F60718293A4B5C6D7E8F9.gr7.eu-west-1.eks.amazonaws.com';
const EKS_CHINA = 'https://0A1B2C3D4E5F60718293A4B5C6D7E8F9.yl4.cn-north-1.eks.amazonaws.com.cn';
const EKS_DUAL_STACK = 'https://0A1B2C3D4E5F60718293A4B5C6D7E8F9.gr7.eu-west-1.api.aws';
const AKS = 'https://prod-aks-4f2a1c.hcp.westeurope.azmk8s.io:443';
const GKE = 'https://34.77.120.15';

type Plugin = 'eks' | 'eksRole' | 'aks' | 'aksOtherAudience' | 'gke';
const EXEC: Readonly<Record<Plugin, object>> = {
  eks: { command: 'aws-iam-authenticator', args: ['token', '-i', 'prod'] },
  eksRole: {
    command: 'aws',
    args: ['eks', 'get-token', '--cluster-name', 'prod', '--role-arn', ROLE('argocd')],
  },
  aks: { command: 'kubelogin', args: ['get-token', '--server-id', AKS_SERVER_ID] },
  aksOtherAudience: {
    command: 'kubelogin',
    args: ['get-token', '--server-id', '00000003-0000-0000-c000-000000000000'],
  },
  gke: { command: 'gke-gcloud-auth-plugin' },
};

function ROLE(name: string): string {
  return `arn:aws:iam::123456789012:role/${name}`;
}

function kubeconfig(plugin: Plugin, server: string, cluster: Record<string, unknown> = {}): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server, ...cluster } }],
    users: [
      {
        name: 'u',
        user: { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', ...EXEC[plugin] } },
      },
    ],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  });
}

/** Every exec-allowing preset, with both gates on and the given allow-lists. */
function config(allow: Partial<ConfigInput> = {}): Config {
  const result = parseConfig({
    providers: ['custom:*=value;exec'],
    execCredentials: true,
    ...allow,
  });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.config;
}

const NAMES = { execEksClusterNames: ['prod'] };

function translate(text: string, allow: Partial<ConfigInput> = NAMES): TranslationResult {
  const [provider] = config(allow).providers;
  if (provider === undefined) throw new Error('no provider');
  return translateKubeconfig(text, { namespace: 'team-a', secret: 's', key: 'value', provider });
}

function refused(result: TranslationResult): string {
  if (result.ok) throw new Error(`expected a refusal, registered ${result.translation.server}`);
  expect(result.refusal.code).toBe('exec-not-allowed');
  expect(result.refusal.message).toMatch(/^namespace team-a, Secret s key value: /);
  return result.refusal.message;
}

function registered(result: TranslationResult): string {
  if (!result.ok) throw new Error(result.refusal.message);
  return result.translation.server;
}

describe('every exec form', () => {
  it.each<[Plugin, string]>([
    ['eks', EKS],
    ['aks', AKS],
    ['gke', GKE],
  ])('%s: refuses http://, insecure-skip-tls-verify and proxy-url', (plugin, server) => {
    const allow = { ...NAMES, execAllowedServers: ['34.77.0.0/16'] };
    expect(registered(translate(kubeconfig(plugin, server), allow))).toBe(server);
    expect(
      refused(translate(kubeconfig(plugin, server.replace('https:', 'http:')), allow)),
    ).toContain('uses http://, so ArgoCD would send its own cloud token unencrypted');
    expect(
      refused(translate(kubeconfig(plugin, server, { 'insecure-skip-tls-verify': true }), allow)),
    ).toContain('sets insecure-skip-tls-verify');
    expect(
      refused(translate(kubeconfig(plugin, server, { 'proxy-url': 'http://proxy:3128' }), allow)),
    ).toContain('sets proxy-url');
  });
});

describe('server binding', () => {
  it('accepts the EKS endpoint forms (China partition and dual stack too) for EKS only', () => {
    for (const server of [EKS, EKS_CHINA, EKS_DUAL_STACK, `${EKS}:443`]) {
      expect(registered(translate(kubeconfig('eks', server)))).toBe(server);
    }
    expect(refused(translate(kubeconfig('aks', EKS)))).toContain(
      `server ${EKS}, which is not an AKS endpoint`,
    );
  });

  it('refuses an EKS registration of a server that is not an EKS endpoint, naming the setting', () => {
    for (const server of [
      'https://attacker.example',
      'https://0A1B2C3D4E5F60718293A4B5C6D7E8F9.gr7.eu-west-1.eks.amazonaws.com.attacker.example',
      'https://eks.amazonaws.com',
      'https://abc.execute-api.eu-west-1.amazonaws.com',
    ]) {
      const message = refused(translate(kubeconfig('eks', server)));
      expect(message).toContain(`server ${server}, which is not an EKS endpoint`);
      expect(message).toContain('--exec-allowed-servers');
    }
  });

  it('accepts the AKS endpoint forms: public, privatelink and the sovereign clouds', () => {
    for (const server of [
      AKS,
      'https://prod-aks-4f2a1c.privatelink.westeurope.azmk8s.io',
      'https://prod-aks-4f2a1c.hcp.usgovvirginia.cx.aks.containerservice.azure.us',
      'https://prod-aks-4f2a1c.hcp.chinaeast2.cx.prod.service.azk8s.cn',
    ]) {
      expect(registered(translate(kubeconfig('aks', server)))).toBe(server);
    }
    expect(refused(translate(kubeconfig('aks', 'https://azmk8s.io.attacker.example')))).toContain(
      'which is not an AKS endpoint',
    );
  });

  it('accepts GKE only on the allow-list', () => {
    const message = refused(translate(kubeconfig('gke', GKE)));
    expect(message).toContain(`server ${GKE}`);
    expect(message).toContain('--exec-allowed-servers');
    expect(
      registered(translate(kubeconfig('gke', GKE), { execAllowedServers: ['34.77.120.15'] })),
    ).toBe(GKE);
    expect(refused(translate(kubeconfig('gke', GKE), { execAllowedServers: ['34.78.0.0/16'] })));
    const v6 = 'https://[2600:1900:4000::1]:443';
    expect(
      registered(translate(kubeconfig('gke', v6), { execAllowedServers: ['2600:1900::/28'] })),
    ).toBe(v6);
  });

  it('matches a leading-dot suffix on subdomains only and a name exactly, whatever the port', () => {
    const allow = { ...NAMES, execAllowedServers: ['.corp.example', 'api.example.com'] };
    for (const server of [
      'https://api.corp.example',
      'https://a.b.corp.example:6443',
      'https://API.Example.com:8443',
      'https://api.example.com.',
    ]) {
      expect(registered(translate(kubeconfig('gke', server), allow))).toBe(server);
      expect(registered(translate(kubeconfig('eks', server), allow))).toBe(server);
    }
    for (const server of [
      'https://corp.example',
      'https://evilcorp.example',
      'https://x.api.example.com',
      'https://api.example.com.attacker.example',
    ]) {
      refused(translate(kubeconfig('gke', server), allow));
    }
  });

  it('does not match an IP address written another way against a CIDR', () => {
    const allow = { execAllowedServers: ['10.0.0.0/8'] };
    expect(registered(translate(kubeconfig('gke', 'https://10.1.2.3:6443'), allow))).toBe(
      'https://10.1.2.3:6443',
    );
    for (const server of ['https://10.1', 'https://0x0a.1.2.3', 'https://010.1.2.3'])
      refused(translate(kubeconfig('gke', server), allow));
  });
});

describe('AKS --server-id', () => {
  it('refuses another audience than the AKS server application by default', () => {
    const message = refused(translate(kubeconfig('aksOtherAudience', AKS)));
    expect(message).toContain(
      '--server-id 00000003-0000-0000-c000-000000000000, not the AKS server application 6dae42f8-4368-4678-94ff-3960e28e3630',
    );
    expect(message).toContain('--exec-aks-server-ids');
    expect(
      registered(
        translate(kubeconfig('aksOtherAudience', AKS), {
          execAksServerIds: ['00000003-0000-0000-C000-000000000000'],
        }),
      ),
    ).toBe(AKS);
  });
});

describe('EKS cluster names and roles', () => {
  it('refuses every cluster name until the operator lists it, and matches globs', () => {
    const message = refused(translate(kubeconfig('eks', EKS), {}));
    expect(message).toContain(
      'names EKS cluster "prod", which --exec-eks-cluster-names (chart value execEksClusterNames) does not list',
    );
    expect(registered(translate(kubeconfig('eks', EKS), { execEksClusterNames: ['pr*'] }))).toBe(
      EKS,
    );
    refused(translate(kubeconfig('eks', EKS), { execEksClusterNames: ['production'] }));
  });

  it('refuses a role ARN unless it is listed exactly', () => {
    const message = refused(translate(kubeconfig('eksRole', EKS)));
    expect(message).toContain(
      `assumes role ${ROLE('argocd')}, which --exec-eks-role-arns (chart value execEksRoleArns) does not list`,
    );
    refused(translate(kubeconfig('eksRole', EKS), { ...NAMES, execEksRoleArns: [ROLE('other')] }));
    expect(
      registered(
        translate(kubeconfig('eksRole', EKS), { ...NAMES, execEksRoleArns: [ROLE('argocd')] }),
      ),
    ).toBe(EKS);
  });
});

describe('the server override', () => {
  const world = (annotations: Record<string, string>) =>
    scenario()
      .namespace('team-a', { cluster: 'prod', annotations })
      .kubeconfig('team-a', { name: 'prod-kubeconfig', key: 'value', text: kubeconfig('eks', EKS) })
      .namespace('team-b', { cluster: 'other' })
      .kubeconfig('team-b', {
        name: 'other-kubeconfig',
        key: 'value',
        text: kubeconfig('eks', EKS_CHINA),
      })
      .build();

  it.each([
    [KEYS.server, 'https://attacker.example'],
    [KEYS.server, EKS_DUAL_STACK],
    [KEYS.tlsServerName, 'attacker.example'],
  ])('never applies to an exec registration: %s is refused by name', (key, value) => {
    const result = plan(world({ [key]: value }), config(NAMES), NOW);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'refused',
      reason: { code: 'server-override-invalid' },
    });
    expect(outcomeOf(result, 'team-a').reason?.message).toContain(
      `annotation ${key} on namespace team-a`,
    );
    expect(outcomeOf(result, 'team-a').reason?.message).toContain('an exec registration');
    expect(result.actions.map((action) => action.cluster)).toEqual(['other']);
  });
});

describe('start-up validation', () => {
  it.each<[keyof ConfigInput, string, string]>([
    ['execAllowedServers', '10.0.0.0/33', 'a CIDR'],
    ['execAllowedServers', '300.1.1.0/24', 'a CIDR'],
    ['execAllowedServers', '*.example.com', '.example.com'],
    ['execAllowedServers', 'https://api.example.com', 'without a scheme'],
    ['execAllowedServers', '', 'a CIDR'],
    ['execAksServerIds', 'not-a-guid', 'GUID'],
    ['execEksClusterNames', 'prod-[', 'glob'],
    ['execEksRoleArns', 'arn:aws:iam::123:role/x', 'arn:aws:iam::<account>:role/<name>'],
  ])('rejects %s entry %j, naming the accepted form', (setting, entry, form) => {
    const result = parseConfig({ [setting]: [entry] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]?.setting).toBe(setting);
    expect(result.errors[0]?.value).toBe(entry);
    expect(result.errors[0]?.message).toContain(form);
  });

  it('defaults every allow-list to empty', () => {
    const result = parseConfig({});
    expect(result.ok && result.config.execPolicy).toEqual({
      allowedServers: [],
      aksServerIds: [],
      eksClusterNames: [],
      eksRoleArns: [],
    });
  });
});

describe('the start-up warning', () => {
  it('says which clouds the empty allow-lists refuse, and nothing once they are set', () => {
    expect(execPolicyWarning(config())).toBe(
      'exec translation is on, but its allow-lists are empty, so it refuses every EKS registration, until its cluster name is on --exec-eks-cluster-names (chart value execEksClusterNames), and every GKE registration, until its server is on --exec-allowed-servers (chart value execAllowedServers)',
    );
    expect(execPolicyWarning(config({ execAllowedServers: ['34.77.0.0/16'] }))).toContain(
      'refuses every EKS registration, until',
    );
    expect(
      execPolicyWarning(config({ ...NAMES, execAllowedServers: ['34.77.0.0/16'] })),
    ).toBeUndefined();
    const aksOnly = parseConfig({ providers: ['capz-aks'], execCredentials: true });
    expect(aksOnly.ok && execPolicyWarning(aksOnly.config)).toBeUndefined();
    const off = parseConfig({ providers: ['capa-eks'] });
    expect(off.ok && execPolicyWarning(off.config)).toBeUndefined();
  });
});
