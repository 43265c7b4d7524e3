import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type {
  Action,
  ArgoClusterConfig,
  DesiredSecret,
  FieldChange,
  FollowUp,
  Plan,
} from '../common/types.js';
import { encodeBase64, encodeBase64Text } from '../common/base64.js';
import { fingerprint } from './sha256.js';
import { PLAN_FORMAT_VERSION, planToJson, planToJsonWith, summarisePlan } from './render-json.js';
import { renderPlanText, renderPlanTextWith } from './render-text.js';

const ref = (name: string) => ({
  namespace: 'argocd',
  name,
  uid: `uid-${name}`,
  resourceVersion: '7',
});

function registration(
  name: string,
  config: ArgoClusterConfig,
  extra: Record<string, string> = {},
): DesiredSecret {
  const data: Record<string, string> = {
    name: encodeBase64Text(name),
    server: encodeBase64Text(`https://${name}.example:6443`),
    config: encodeBase64Text(JSON.stringify(config)),
  };
  for (const [key, value] of Object.entries(extra)) data[key] = encodeBase64Text(value);
  return {
    namespace: 'argocd',
    name: `cluster-${name}`,
    type: 'Opaque',
    labels: { 'z/last': '1', 'argocd.argoproj.io/secret-type': 'cluster' },
    annotations: { 'argocd-cluster-registrar/owner': 'ops' },
    data,
  };
}

describe('planToJson', () => {
  it('is a versioned document: data decoded, certificates fingerprinted, keys concealed, the rest in clear', () => {
    const config: ArgoClusterConfig = {
      tlsClientConfig: {
        insecure: false,
        serverName: 'alpha.internal',
        caData: 'Q0EtREFUQQ==',
        certData: 'Q0VSVA==',
        keyData: 'S0VZ',
      },
      proxyUrl: 'socks5://proxy.example:1080',
    };
    const create: Action = {
      kind: 'create',
      cluster: 'alpha',
      secret: registration('alpha', config, {
        project: 'team-a',
        namespaces: 'a,b',
        clusterResources: 'true',
      }),
      reason: { code: 'new-registration', namespace: 'k3k-alpha' },
    };
    // Hand-written changes: the document's layout, whatever render-diff.ts computes.
    const createChanges: readonly FieldChange[] = [
      { field: 'server', after: 'https://alpha.example:6443', sensitive: false },
      { field: 'certData', after: 'sha256:111111111111', sensitive: true },
    ];
    const stated = (action: Action): readonly FieldChange[] =>
      action === create ? createChanges : [];
    const remove: Action = {
      kind: 'delete',
      cluster: 'gone',
      target: ref('cluster-gone'),
      reason: { code: 'source-namespace-not-found', namespace: 'k3k-gone' },
    };
    const plan: Plan = {
      actions: [create, remove],
      outcomes: [{ namespace: 'k3k-alpha', cluster: 'alpha', state: 'registered', rejected: [] }],
      warnings: [{ code: 'prune-disabled', namespace: 'k3k-gone', message: 'pruning is disabled' }],
    };

    const document = planToJsonWith(plan, stated);
    expect(document).toEqual({
      formatVersion: '3',
      actions: [
        {
          kind: 'create',
          cluster: 'alpha',
          reason: { code: 'new-registration', namespace: 'k3k-alpha' },
          secret: {
            namespace: 'argocd',
            name: 'cluster-alpha',
            type: 'Opaque',
            labels: { 'argocd.argoproj.io/secret-type': 'cluster', 'z/last': '1' },
            annotations: { 'argocd-cluster-registrar/owner': 'ops' },
            data: {
              clusterResources: 'true',
              config: {
                tlsClientConfig: {
                  insecure: false,
                  serverName: 'alpha.internal',
                  caData: fingerprint('Q0EtREFUQQ=='),
                  certData: fingerprint('Q0VSVA=='),
                  keyData: '(sensitive value)',
                },
                proxyUrl: 'socks5://proxy.example:1080',
              },
              name: 'alpha',
              namespaces: 'a,b',
              project: 'team-a',
              server: 'https://alpha.example:6443',
            },
          },
          changes: [
            { field: 'server', after: 'https://alpha.example:6443', sensitive: false },
            { field: 'certData', after: 'sha256:111111111111', sensitive: true },
          ],
        },
        {
          kind: 'delete',
          cluster: 'gone',
          reason: { code: 'source-namespace-not-found', namespace: 'k3k-gone' },
          target: {
            namespace: 'argocd',
            name: 'cluster-gone',
            uid: 'uid-cluster-gone',
            resourceVersion: '7',
          },
        },
      ],
      outcomes: plan.outcomes,
      warnings: plan.warnings,
      summary: {
        create: 1,
        update: 0,
        demote: 0,
        delete: 1,
        registered: 1,
        unchanged: 0,
        waiting: 0,
        refused: 0,
        stale: 0,
        skipped: 0,
        drained: 0,
        warnings: 1,
        withheld: 0,
      },
    });
    expect(PLAN_FORMAT_VERSION).toBe('2');
    // Stable bytes: label keys sorted, data keys sorted.
    expect(JSON.stringify(document)).toBe(JSON.stringify(planToJsonWith(plan, stated)));
    expect(Object.keys(document.actions[0] ?? {})).toEqual([
      'kind',
      'cluster',
      'reason',
      'secret',
      'changes',
    ]);
  });

  it('conceals data it cannot decode and data keys it does not know, with no hash of them', () => {
    const secret: DesiredSecret = {
      ...registration('beta', { bearerToken: 'tok', tlsClientConfig: { insecure: true } }),
      data: {
        name: 'not base64!',
        token: encodeBase64Text('raw'),
        config: encodeBase64Text('{not json'),
      },
    };
    const action: Action = {
      kind: 'create',
      cluster: 'beta',
      secret,
      reason: { code: 'new-registration', namespace: 'n' },
    };
    const [shown] = planToJson({ actions: [action], outcomes: [], warnings: [] }).actions;
    expect(shown?.kind === 'create' ? shown.secret.data : undefined).toEqual({
      config: '(sensitive value)',
      name: '(sensitive value)',
      token: '(sensitive value)',
    });
  });

  it('carries the follow-ups a further round takes, and nothing when there are none', () => {
    const followUp: FollowUp = {
      kind: 'demote',
      cluster: 'alpha',
      secret: 'cluster-alpha',
      source: 'team-a',
      after: { kind: 'create', cluster: 'bravo', secret: 'cluster-bravo' },
    };
    const empty: Plan = { actions: [], outcomes: [], warnings: [] };
    expect(planToJson({ ...empty, followUps: [followUp] }).followUps).toEqual([followUp]);
    expect(planToJson(empty)).not.toHaveProperty('followUps');
  });

  it('summarises counts of actions, outcome states and warnings', () => {
    expect(summarisePlan({ actions: [], outcomes: [], warnings: [] })).toEqual({
      create: 0,
      update: 0,
      demote: 0,
      delete: 0,
      registered: 0,
      unchanged: 0,
      waiting: 0,
      refused: 0,
      stale: 0,
      skipped: 0,
      drained: 0,
      warnings: 0,
      withheld: 0,
    });
  });

  it('counts what incomplete input withheld: verdicts and removals', () => {
    const reason = { code: 'input-incomplete', message: 'could not be listed' } as const;
    const summary = summarisePlan({
      actions: [],
      outcomes: [
        { namespace: 'a', state: 'unchanged', rejected: [], reason },
        { namespace: 'b', state: 'unchanged', rejected: [] },
      ],
      warnings: [{ code: 'input-incomplete', message: 'cluster-c would be deleted, but …' }],
    });
    expect(summary).toMatchObject({ unchanged: 2, warnings: 1, withheld: 2 });
  });
});

// Credential material looks like base64 in practice; the second arbitrary covers anything else.
const base64Credential = fc.string({
  unit: fc.constantFrom(
    ...Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/='),
  ),
  minLength: 16,
  maxLength: 64,
});
const anyCredential = fc
  .string({ unit: 'binary', minLength: 20, maxLength: 40 })
  .filter((text) => new Set(text).size > 4);
const credential = fc.oneof(base64Credential, anyCredential);

describe('secrecy', () => {
  it('no credential in a registration or a sensitive change appears in the text preview or the JSON document', () => {
    fc.assert(
      fc.property(
        fc.record({
          caData: credential,
          certData: credential,
          keyData: credential,
          bearerToken: credential,
          password: credential,
          username: credential,
          other: credential,
        }),
        fc.constantFrom('create', 'update', 'demote'),
        (secrets, kind) => {
          const config: ArgoClusterConfig = {
            username: secrets.username,
            password: secrets.password,
            bearerToken: secrets.bearerToken,
            tlsClientConfig: {
              insecure: false,
              caData: secrets.caData,
              certData: secrets.certData,
              keyData: secrets.keyData,
            },
          };
          const secret = registration('alpha', config, { token: secrets.other });
          // Changes that reached the renderers in clear: they must still conceal them.
          const changes: readonly FieldChange[] = [
            {
              field: 'certData',
              before: secrets.certData,
              after: secrets.keyData,
              sensitive: true,
            },
            { field: 'bearerToken', after: secrets.bearerToken, sensitive: true },
          ];
          const reasonNamespace = 'k3k-alpha';
          const action: Action =
            kind === 'create'
              ? {
                  kind,
                  cluster: 'alpha',
                  secret,
                  reason: { code: 'new-registration', namespace: reasonNamespace },
                }
              : kind === 'update'
                ? {
                    kind,
                    cluster: 'alpha',
                    target: ref('cluster-alpha'),
                    before: { ...secret, ...ref('cluster-alpha') },
                    secret,
                    reason: { code: 'credentials-changed', namespace: reasonNamespace },
                  }
                : {
                    kind,
                    cluster: 'alpha',
                    target: ref('cluster-alpha'),
                    before: { ...secret, ...ref('cluster-alpha') },
                    secret,
                    reason: {
                      code: 'renamed',
                      namespace: reasonNamespace,
                      supersededBy: 'cluster-beta',
                    },
                  };
          const plan: Plan = { actions: [action], outcomes: [], warnings: [] };
          const outputs = [
            renderPlanTextWith(plan, () => changes),
            renderPlanTextWith(plan, () => changes, { color: true }),
            JSON.stringify(planToJsonWith(plan, () => changes)),
            JSON.stringify(
              planToJsonWith(plan, () => changes),
              null,
              2,
            ),
          ];
          const encodedConfig = secret.data['config'] ?? '';
          for (const output of outputs) {
            for (const value of Object.values(secrets)) {
              expect(output).not.toContain(value);
              expect(output).not.toContain(JSON.stringify(value).slice(1, -1));
              expect(output).not.toContain(encodeBase64Text(value));
            }
            expect(output).not.toContain(encodedConfig);
          }
        },
      ),
    );
  });

  it("an existing registration's proxy and server user-info and exec arguments appear in no output", () => {
    // A registration this registrar did not write (hand-edited, or another tool's) may carry
    // credentials where its own never do: in a URL's user-info or in an exec command line.
    const password = 'proxy-pass-0123456789';
    const serverPassword = 'server-pass-0123456789';
    const token = 'arg-token-0123456789';
    const envToken = 'env-token-0123456789';
    const before = {
      ...registration('alpha', {
        tlsClientConfig: { insecure: false },
        proxyUrl: `http://ops:${password}@proxy.example:3128`,
        execProviderConfig: {
          command: 'my-plugin',
          args: ['get-token', '--token', token, `--secret=${token}`],
          env: { MY_TOKEN: envToken, AWS_REGION: 'eu-west-1' },
          apiVersion: 'client.authentication.k8s.io/v1beta1',
        },
      }),
      ...ref('cluster-alpha'),
    };
    before.data = {
      ...before.data,
      server: encodeBase64Text(`https://ops:${serverPassword}@alpha.example:6443`),
    };
    const after = registration('alpha', {
      tlsClientConfig: { insecure: false },
      execProviderConfig: {
        command: 'argocd-k8s-auth',
        args: ['aws', '--cluster-name', 'prod', '--role-arn', 'arn:aws:iam::1:role/r'],
        env: { AWS_REGION: 'eu-west-1' },
        apiVersion: 'client.authentication.k8s.io/v1beta1',
      },
    });
    const update: Action = {
      kind: 'update',
      cluster: 'alpha',
      target: ref('cluster-alpha'),
      before,
      secret: after,
      reason: { code: 'credentials-changed', namespace: 'k3k-alpha' },
    };
    // A demotion writes the existing registration back, relabelled: its own data is shown.
    const demote: Action = {
      kind: 'demote',
      cluster: 'alpha',
      target: ref('cluster-alpha'),
      before,
      secret: before,
      reason: { code: 'renamed', namespace: 'k3k-alpha', supersededBy: 'cluster-beta' },
    };
    for (const action of [update, demote]) {
      const plan: Plan = { actions: [action], outcomes: [], warnings: [] };
      const outputs = [renderPlanText(plan), JSON.stringify(planToJson(plan))];
      for (const output of outputs) {
        for (const secret of [password, serverPassword, token, envToken]) {
          expect(output).not.toContain(secret);
        }
      }
    }
    const shown = JSON.stringify(
      planToJson({ actions: [demote], outcomes: [], warnings: [] }).actions[0],
    );
    // What is not a credential stays readable: the proxy's and server's hosts, the command.
    expect(shown).toContain('"proxyUrl":"http://***@proxy.example:3128"');
    expect(shown).toContain('"server":"https://***@alpha.example:6443"');
    expect(shown).toContain('"command":"my-plugin"');
    expect(shown).toContain(`"args":[${Array(4).fill('"(sensitive value)"').join(',')}]`);
    // The registrar's own exec form is public and shown whole.
    expect(
      JSON.stringify(planToJson({ actions: [update], outcomes: [], warnings: [] }).actions[0]),
    ).toContain('"args":["aws","--cluster-name","prod","--role-arn","arn:aws:iam::1:role/r"]');
  });

  it('an action of a kind no renderer knows fails naming its kind only, never its Secret', () => {
    // A broken invariant (a kind added to the planner but not to a renderer) is logged by the
    // daemon: the error must not carry the desired Secret's data.
    const token = 'tok-3f9a1c7e';
    const secret = registration('x', { bearerToken: token, tlsClientConfig: { insecure: false } });
    const plan = {
      actions: [{ kind: 'rotate', cluster: 'x', secret, reason: { code: 'r', namespace: 'n' } }],
      outcomes: [],
      warnings: [],
    } as unknown as Plan;
    const encoded = secret.data['config'] ?? '';
    for (const render of [() => planToJson(plan), () => renderPlanText(plan)]) {
      expect(render).toThrow('unhandled action kind rotate');
      let message = '';
      try {
        render();
      } catch (error) {
        message = String(error);
      }
      expect(message).not.toContain(token);
      expect(message).not.toContain(encoded);
      expect(message).not.toContain('cluster-x');
    }
  });

  it('no byte string stored under an unknown key appears either', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 12, maxLength: 48 }), (bytes) => {
        const encoded = encodeBase64(bytes);
        const secret: DesiredSecret = {
          ...registration('x', { tlsClientConfig: { insecure: true } }),
          data: { blob: encoded },
        };
        const plan: Plan = {
          actions: [
            {
              kind: 'create',
              cluster: 'x',
              secret,
              reason: { code: 'new-registration', namespace: 'n' },
            },
          ],
          outcomes: [],
          warnings: [],
        };
        const output = JSON.stringify(planToJson(plan));
        expect(output).not.toContain(encoded);
      }),
    );
  });
});
