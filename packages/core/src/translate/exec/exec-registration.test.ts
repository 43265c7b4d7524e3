// An exec kubeconfig through the planner: the registration carries ArgoCD's own form, is
// stable across passes (no credential churn), and its outcome has no certificate expiry, so
// metrics show none for it.

import { describe, expect, it } from 'vitest';
import { decodeBase64Text } from '../../common/base64.js';
import { parseConfig } from '../../config/config.js';
import { plan } from '../../plan/index.js';
import { planToJson } from '../../present/render-json.js';
import { renderPlanText } from '../../present/render-text.js';
import { registrationProblems } from '../../test-support/argo-check.js';
import { NOW, scenario, settle, DAY } from '../../test-support/fixtures.js';
import {
  capaUserKubeconfig,
  GKE_SERVER,
  gkeUserKubeconfig,
} from '../../test-fixtures/cloud-kubeconfigs.js';
import type { Config } from '../../common/types.js';

function config(execCredentials: boolean): Config {
  const result = parseConfig({
    providers: ['capa-eks', 'gke'],
    execCredentials,
    // What the operator allows: the EKS cluster, its role and the GKE endpoint.
    execEksClusterNames: ['prod'],
    execEksRoleArns: ['arn:aws:iam::123456789012:role/argocd'],
    execAllowedServers: [GKE_SERVER.replace('https://', '')],
  });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.config;
}

function world() {
  return scenario()
    .namespace('team-a', { cluster: 'prod-eks' })
    .kubeconfig('team-a', {
      name: 'prod-user-kubeconfig',
      key: 'value',
      type: 'cluster.x-k8s.io/secret',
      text: capaUserKubeconfig('prod'),
    })
    .namespace('team-c', { cluster: 'prod-gke' })
    .kubeconfig('team-c', {
      name: 'prod-gke-user-kubeconfig',
      key: 'value',
      type: 'cluster.x-k8s.io/secret',
      text: gkeUserKubeconfig(),
    })
    .build();
}

describe('exec registrations', () => {
  it('register ArgoCD’s own form, accepted by the ArgoCD checks', () => {
    const result = plan(world(), config(true), NOW);
    const creates = result.actions.filter((action) => action.kind === 'create');
    expect(creates.map((action) => action.cluster)).toEqual(['prod-eks', 'prod-gke']);
    for (const action of creates) {
      expect(registrationProblems(action.secret.data)).toEqual([]);
    }
    const eks = JSON.parse(
      decodeBase64Text(creates[0]?.secret.data['config'] ?? '') ?? '',
    ) as unknown;
    expect(eks).toMatchObject({ awsAuthConfig: { clusterName: 'prod' } });
    expect(creates[0]?.secret.labels['argocd-cluster-registrar/provider']).toBe('capa-eks');
    expect(creates[1]?.secret.labels['argocd-cluster-registrar/provider']).toBe('gke');
  });

  it('have no certificate expiry in their outcomes (metrics show none for them)', () => {
    for (const outcome of plan(world(), config(true), NOW).outcomes) {
      expect(outcome.state).toBe('registered');
      expect(outcome.credentialNotAfter).toBeUndefined();
    }
  });

  it('are stable: a later pass writes nothing', () => {
    const settled = settle(world(), config(true), NOW);
    expect(plan(settled, config(true), NOW + DAY).actions).toEqual([]);
  });

  it('write a changed role on the next pass, never deferred as credential churn', () => {
    const settled = settle(world(), config(true), NOW);
    const changed = scenario(settled)
      .kubeconfig('team-a', {
        name: 'prod-user-kubeconfig',
        key: 'value',
        type: 'cluster.x-k8s.io/secret',
        text: capaUserKubeconfig('prod', [
          'args: [token, -i, prod, -r, "arn:aws:iam::123456789012:role/argocd"]',
          'command: aws-iam-authenticator',
        ]),
      })
      .build();
    const [update] = plan(changed, config(true), NOW + 1000).actions;
    expect(update?.kind).toBe('update');
    // The planner does not count the exec forms among its credential fields, so a role
    // change reads as a metadata change; what matters is that it is written at once.
    expect(update?.kind === 'update' && update.reason.code).toBe('metadata-changed');
  });

  it('with the global gate off, the namespaces are refused as before, naming the gate', () => {
    const result = plan(world(), config(false), NOW);
    expect(result.actions).toEqual([]);
    for (const outcome of result.outcomes) {
      expect(outcome.state).toBe('refused');
      expect(outcome.rejected[0]?.refusal.code).toBe('exec-plugin');
      expect(outcome.rejected[0]?.refusal.message).toContain(
        '--exec-credentials (chart value execCredentials) is off',
      );
    }
  });
});

describe('the plan of an exec registration', () => {
  it('shows every field it writes: the exec form is no credential and is not concealed', () => {
    const result = plan(world(), config(true), NOW);
    const text = renderPlanText(result, { color: false, dryRun: true });
    expect(text).toMatch(/\+ config\.awsAuthConfig\.clusterName: +"prod"\n/);
    expect(text).toMatch(/\+ config\.execProviderConfig\.command: +"argocd-k8s-auth"\n/);
    expect(text).toMatch(/\+ config\.execProviderConfig\.args: +"\[\\"gcp\\"\]"\n/);
    // The only concealed fields are credentials: here, none but the CA's fingerprint.
    expect(text.match(/\(sensitive value\).*/g)?.every((line) => line.includes('sha256:'))).toBe(
      true,
    );

    const json = planToJson(result);
    const configs = json.actions.map((action) =>
      action.kind === 'delete' ? undefined : action.secret.data['config'],
    );
    expect(configs[0]).toMatchObject({ awsAuthConfig: { clusterName: 'prod' } });
    expect(configs[1]).toMatchObject({
      execProviderConfig: {
        command: 'argocd-k8s-auth',
        args: ['gcp'],
        apiVersion: 'client.authentication.k8s.io/v1beta1',
      },
    });
    expect(JSON.stringify(json.actions)).not.toContain('"(sensitive value)"');
  });
});
