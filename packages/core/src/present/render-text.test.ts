import { describe, expect, it } from 'vitest';
import type {
  Action,
  DesiredSecret,
  FieldChange,
  NamespaceOutcome,
  Plan,
} from '../common/types.js';
import { encodeBase64Text } from '../common/base64.js';
import { renderPlanText, renderPlanTextWith, summaryLine } from './render-text.js';
import type { RenderTextOptions } from './render-text.js';
import { describeChanges } from './render-diff.js';
import { planToJson } from './render-json.js';
import { sha256Hex } from './sha256.js';
import { plan } from '../plan/index.js';
import { DAY, NOW, scenario, serverOf, settle, testConfig } from '../test-support/fixtures.js';

// Hand-written plans: the renderer only consumes the Plan type, so its tests need no planner.
// Their actions' changes are hand-written too (the layout's tests state what they show);
// render-diff.ts computes the real ones, as the tests on planned plans below show.

const STATED = new Map<Action, readonly FieldChange[]>();

function described(action: Action, changes: readonly FieldChange[]): Action {
  STATED.set(action, changes);
  return action;
}

/** The text of a hand-written plan: its stated changes, or what render-diff.ts computes. */
const render = (plan: Plan, options?: RenderTextOptions): string =>
  renderPlanTextWith(plan, (action) => STATED.get(action) ?? describeChanges(action), options);

const P = 'argocd-cluster-registrar/';

function secret(name: string, extra: Partial<DesiredSecret> = {}): DesiredSecret {
  return {
    namespace: 'argocd',
    name: `cluster-${name}`,
    type: 'Opaque',
    labels: { 'argocd.argoproj.io/secret-type': 'cluster', [`${P}cluster`]: name },
    annotations: {},
    data: {
      name: encodeBase64Text(name),
      server: encodeBase64Text(`https://${name}.example:6443`),
      config: encodeBase64Text('{"tlsClientConfig":{"insecure":false,"certData":"c2VjcmV0"}}'),
    },
    ...extra,
  };
}

const ref = (name: string) => ({
  namespace: 'argocd',
  name,
  uid: `uid-${name}`,
  resourceVersion: '7',
});

const create = described(
  {
    kind: 'create',
    cluster: 'alpha',
    secret: secret('alpha'),
    reason: { code: 'new-registration', namespace: 'k3k-alpha' },
  },
  [
    { field: 'name', after: 'alpha', sensitive: false },
    { field: 'server', after: 'https://alpha.example:6443', sensitive: false },
    { field: `labels.${P}team`, after: 'platform', sensitive: false },
    { field: 'caData', after: 'sha256:0a1b2c3d4e5f', sensitive: true },
    { field: 'certData', after: 'sha256:111111111111', sensitive: true },
    { field: 'keyData', after: '(sensitive value)', sensitive: true },
  ],
);

const update = described(
  {
    kind: 'update',
    cluster: 'beta',
    target: ref('cluster-beta'),
    before: { ...secret('beta'), ...ref('cluster-beta') },
    secret: secret('beta'),
    reason: { code: 'credentials-changed', namespace: 'k3k-beta' },
  },
  [
    {
      field: 'certData',
      before: 'sha256:ab12ab12ab12',
      after: 'sha256:cd34cd34cd34',
      sensitive: true,
    },
    {
      field: 'keyData',
      before: '(sensitive value)',
      after: '(sensitive value)',
      sensitive: true,
    },
    { field: `labels.${P}team`, before: 'a', after: 'b', sensitive: false },
    { field: `annotations.${P}owner`, before: 'ops@example.com', sensitive: false },
  ],
);

const demote = described(
  {
    kind: 'demote',
    cluster: 'old',
    target: ref('cluster-old'),
    before: { ...secret('old'), ...ref('cluster-old') },
    secret: secret('old'),
    reason: { code: 'renamed', namespace: 'k3k-gamma', supersededBy: 'cluster-gamma' },
  },
  [
    { field: 'labels.argocd.argoproj.io/secret-type', before: 'cluster', sensitive: false },
    { field: `labels.${P}orphaned-secret-type`, after: 'cluster', sensitive: false },
    { field: `labels.${P}superseded-by`, after: 'cluster-gamma', sensitive: false },
  ],
);

const remove: Action = {
  kind: 'delete',
  cluster: 'gone',
  target: ref('cluster-gone'),
  reason: { code: 'source-namespace-not-found', namespace: 'k3k-gone' },
};

const outcome = (
  namespace: string,
  state: NamespaceOutcome['state'],
  extra: Partial<NamespaceOutcome> = {},
): NamespaceOutcome => ({
  namespace,
  state,
  rejected: [],
  ...extra,
});

const outcomes: NamespaceOutcome[] = [
  outcome('k3k-alpha', 'registered', { cluster: 'alpha' }),
  outcome('k3k-beta', 'registered', { cluster: 'beta' }),
  outcome('k3k-delta', 'unchanged', { cluster: 'delta' }),
  outcome('k3k-new', 'waiting', {
    cluster: 'new',
    reason: {
      code: 'waiting-for-kubeconfig',
      message: 'no Secret matching k3k-*-kubeconfig with key kubeconfig.yaml yet',
    },
  }),
  outcome('k3k-bad', 'refused', {
    cluster: 'bad',
    reason: {
      code: 'server-loopback',
      message:
        'the kubeconfig points at https://127.0.0.1:6443, which ArgoCD cannot reach; expose the API server and set its address',
    },
    rejected: [
      {
        candidate: {
          namespace: 'k3k-bad',
          secret: 'k3k-bad-kubeconfig',
          key: 'kubeconfig.yaml',
          provider: 'k3k',
        },
        refusal: {
          code: 'server-loopback',
          message: 'server https://127.0.0.1:6443 is a loopback address',
        },
      },
    ],
  }),
  outcome('k3k-rot', 'stale', {
    cluster: 'rot',
    reason: {
      code: 'kubeconfig-not-yaml',
      message: 'the kubeconfig is not YAML; the last good registration is kept',
    },
  }),
  outcome('k3k-nolabel', 'skipped', {
    reason: { code: 'cluster-label-missing', message: 'no cluster label' },
  }),
];

const fullPlan: Plan = {
  actions: [create, update, demote, remove],
  outcomes,
  warnings: [
    {
      code: 'cluster-label-missing',
      namespace: 'k3k-nolabel',
      message: `namespace has ${P}managed-by but no ${P}cluster label; add it to register`,
    },
    {
      code: 'insecure-drops-ca',
      namespace: 'k3k-alpha',
      secret: 'k3k-alpha-kubeconfig',
      message: 'insecure-skip-tls-verify is set, so the CA is dropped',
    },
  ],
};

const ESC = String.fromCharCode(27);

describe('renderPlanText', () => {
  it('renders every kind of action, the namespaces needing attention, warnings and the summary', () => {
    expect(render(fullPlan)).toBe(
      `Symbols: + create, ~ update, » demote (kept aside for a revert), - delete

+ argocd/cluster-alpha will be created (cluster "alpha")
    reason: namespace k3k-alpha is not registered yet
    + name:                                 "alpha"
    + server:                               "https://alpha.example:6443"
    + labels.argocd-cluster-registrar/team: "platform"
    + caData:                               (sensitive value) sha256:0a1b2c3d4e5f
    + certData:                             (sensitive value) sha256:111111111111
    + keyData:                              (sensitive value)

~ argocd/cluster-beta will be updated (cluster "beta")
    reason: the credentials in the kubeconfig of namespace k3k-beta changed
    ~ certData:                                   (sensitive value) sha256:ab12ab12ab12 → sha256:cd34cd34cd34
    ~ keyData:                                    (sensitive value) changed
    ~ labels.argocd-cluster-registrar/team:       "a" → "b"
    - annotations.argocd-cluster-registrar/owner: "ops@example.com"

» argocd/cluster-old will be demoted (cluster "old")
    reason: namespace k3k-gamma now registers as cluster-gamma; this one is kept aside until the demoted TTL expires, so reverting the label restores it
    - labels.argocd.argoproj.io/secret-type:                "cluster"
    + labels.argocd-cluster-registrar/orphaned-secret-type: "cluster"
    + labels.argocd-cluster-registrar/superseded-by:        "cluster-gamma"

- argocd/cluster-gone will be deleted (cluster "gone")
    reason: source namespace k3k-gone no longer exists

Namespaces needing attention:
  waiting  k3k-new (cluster "new"): no Secret matching k3k-*-kubeconfig with key kubeconfig.yaml yet [waiting-for-kubeconfig]
  refused  k3k-bad (cluster "bad"): the kubeconfig points at https://127.0.0.1:6443, which ArgoCD cannot reach; expose the API server and set its address [server-loopback]
             candidate k3k-bad-kubeconfig[kubeconfig.yaml] (k3k): server https://127.0.0.1:6443 is a loopback address [server-loopback]
  stale    k3k-rot (cluster "rot"): the kubeconfig is not YAML; the last good registration is kept [kubeconfig-not-yaml]

Warnings:
  ! k3k-nolabel: namespace has argocd-cluster-registrar/managed-by but no argocd-cluster-registrar/cluster label; add it to register [cluster-label-missing]
  ! k3k-alpha/k3k-alpha-kubeconfig: insecure-skip-tls-verify is set, so the CA is dropped [insecure-drops-ca]

Plan: 1 to create, 1 to update, 1 to demote, 1 to delete.
`,
    );
  });

  it('says there is nothing to do, with the number of registrations up to date', () => {
    const plan: Plan = {
      actions: [],
      outcomes: [outcome('a', 'unchanged'), outcome('b', 'unchanged'), outcome('c', 'skipped')],
      warnings: [],
    };
    expect(render(plan)).toBe('No changes. 2 registrations up to date.\n');
    expect(render({ actions: [], outcomes: [outcome('a', 'unchanged')], warnings: [] })).toBe(
      'No changes. 1 registration up to date.\n',
    );
    expect(render({ actions: [], outcomes: [], warnings: [] })).toBe(
      'No changes. 0 registrations up to date.\n',
    );
  });

  it('after an apply, says what was done and what failed instead of what will be', () => {
    const text = render(
      { actions: [create, remove], outcomes: [], warnings: [] },
      { results: (action) => (action === create ? 'applied' : 'failed') },
    );
    expect(text).toContain('+ argocd/cluster-alpha was created (cluster "alpha")\n');
    expect(text).toContain(
      '- argocd/cluster-gone was not deleted: the write failed, see the log (cluster "gone")\n',
    );
    expect(text).not.toContain('will be');
    // It ends with what was done, as Terraform's apply does, not with the plan's summary.
    expect(text).toMatch(
      /\nApply incomplete: 1 of 2 changes not applied \(see above and the log\)\. Registrations: 1 created, 0 updated, 0 demoted, 0 deleted\.\n$/,
    );
    expect(text).not.toContain('Plan: ');
    expect(
      render(
        { actions: [create, remove], outcomes: [], warnings: [] },
        { results: () => 'applied' },
      ),
    ).toMatch(/\nApply complete! Registrations: 1 created, 0 updated, 0 demoted, 1 deleted\.\n$/);
    // Without results (a preview) the future tense stays.
    expect(render({ actions: [create], outcomes: [], warnings: [] })).toContain(
      '+ argocd/cluster-alpha will be created (cluster "alpha")\n',
    );
  });

  it('in a dry run, shows what the API server would reject beside the action and before the summary', () => {
    const text = render(
      { actions: [create, remove], outcomes: [], warnings: [] },
      {
        dryRun: true,
        verdicts: (action) =>
          action === create
            ? { rejected: 'namespaces "argocd" not found' }
            : { notValidated: 'forbidden: secrets is forbidden' },
      },
    );
    expect(text).toContain(
      '+ argocd/cluster-alpha would be rejected by the API server: namespaces "argocd" not found (cluster "alpha")\n',
    );
    // Not validated (these credentials may not write) is said, but is not a rejection.
    expect(text).toContain(
      '- argocd/cluster-gone will be deleted (cluster "gone")\n    reason: source namespace k3k-gone no longer exists\n    note: the API server could not validate this write: forbidden: secrets is forbidden\n',
    );
    expect(text).toContain(
      '\n1 of 2 changes would be rejected by the API server (see above): applying this plan would fail.\nPlan: 1 to create, 0 to update, 0 to demote, 1 to delete.\n',
    );
  });

  it('prints a stale refusal once: the reason already quotes the lone candidate', () => {
    const refusal = {
      code: 'kubeconfig-not-yaml' as const,
      message: 'namespace k3k-rot, Secret k3k-rot-kubeconfig key kubeconfig.yaml: it is broken',
    };
    const text = render({
      actions: [],
      outcomes: [
        outcome('k3k-rot', 'stale', {
          cluster: 'rot',
          reason: {
            code: 'kubeconfig-not-yaml',
            message: `its kubeconfig is unusable: ${refusal.message}; cluster-rot keeps its last registered credentials until this is fixed`,
          },
          rejected: [
            {
              candidate: {
                namespace: 'k3k-rot',
                secret: 'k3k-rot-kubeconfig',
                key: 'kubeconfig.yaml',
                provider: 'k3k',
              },
              refusal,
            },
          ],
        }),
      ],
      warnings: [],
    });
    expect(text.split(refusal.message)).toHaveLength(2);
    expect(text).not.toContain('candidate k3k-rot-kubeconfig');
  });

  it('announces a dry run', () => {
    expect(render({ actions: [remove], outcomes: [], warnings: [] }, { dryRun: true })).toBe(
      `Dry run: this is what would change; nothing will be written.

Symbols: + create, ~ update, » demote (kept aside for a revert), - delete

- argocd/cluster-gone will be deleted (cluster "gone")
    reason: source namespace k3k-gone no longer exists

Plan: 0 to create, 0 to update, 0 to demote, 1 to delete.
`,
    );
  });

  it('words every reason', () => {
    const lines = (action: Action): string =>
      render({ actions: [action], outcomes: [], warnings: [] }).split('\n')[3] ?? '';
    expect(
      lines({
        ...(create as Extract<Action, { kind: 'create' }>),
        reason: { code: 'restored', namespace: 'n' },
      }),
    ).toBe('    reason: the registration of namespace n is missing and is restored');
    const updateWith = (reason: Extract<Action, { kind: 'update' }>['reason']): Action =>
      described({ ...(update as Extract<Action, { kind: 'update' }>), reason }, []);
    expect(lines(updateWith({ code: 'server-changed', namespace: 'n' }))).toBe(
      '    reason: the server address of namespace n changed',
    );
    expect(lines(updateWith({ code: 'ca-changed', namespace: 'n' }))).toBe(
      '    reason: the certificate authority of namespace n changed',
    );
    expect(lines(updateWith({ code: 'metadata-changed', namespace: 'n' }))).toBe(
      '    reason: the labels or annotations of namespace n changed',
    );
    expect(lines(updateWith({ code: 'restored-from-demotion', namespace: 'n' }))).toBe(
      '    reason: namespace n claims this cluster again: the demoted registration is restored',
    );
    expect(
      lines(updateWith({ code: 'taken-over', namespace: 'n', previousNamespace: 'old' })),
    ).toBe('    reason: namespace n takes over the registration that namespace old gave up');
    expect(
      lines({
        ...remove,
        reason: {
          code: 'source-namespace-replaced',
          namespace: 'n',
          recordedUid: 'u1',
          observedUid: 'u2',
        },
      }),
    ).toBe('    reason: source namespace n was re-created (recorded uid u1, now u2)');
    expect(
      lines({
        ...remove,
        reason: { code: 'demotion-expired', namespace: 'n', staleSince: '2026-11-01T00:00:00Z' },
      }),
    ).toBe(
      '    reason: demoted since 2026-11-01T00:00:00Z (namespace n), longer than the demoted TTL',
    );
  });

  it('does not repeat a lone candidate refusal that the reason already quotes', () => {
    const refusal = {
      code: 'file-reference',
      message: 'namespace n, Secret k3k-n-kubeconfig key kubeconfig.yaml: uses a file',
    } as const;
    const plan: Plan = {
      actions: [],
      warnings: [],
      outcomes: [
        {
          namespace: 'n',
          cluster: 'n',
          state: 'refused',
          reason: refusal,
          rejected: [
            {
              candidate: {
                namespace: 'n',
                secret: 'k3k-n-kubeconfig',
                key: 'kubeconfig.yaml',
                provider: 'k3k',
              },
              refusal,
            },
          ],
        },
      ],
    };
    expect(render(plan)).toBe(
      `Namespaces needing attention:
  refused  n (cluster "n"): namespace n, Secret k3k-n-kubeconfig key kubeconfig.yaml: uses a file [file-reference]

No changes. 0 registrations up to date.
`,
    );
  });

  it('conceals a token that reached it in clear, with no hash of it, rather than print it', () => {
    const leaky = described({ ...update }, [
      { field: 'bearerToken', before: 'hunter2', after: 'sha256:cd34cd34cd34', sensitive: true },
    ]);
    const text = render({ actions: [leaky], outcomes: [], warnings: [] });
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain(sha256Hex('hunter2').slice(0, 8));
    expect(text).not.toContain('sha256:');
    expect(text).toContain('~ bearerToken: (sensitive value) changed');
  });

  it('shows no hash of a token or password the planner diffed, in the preview or the JSON plan', () => {
    // A short unkeyed hash of a password lets anyone with the preview guess it offline.
    const token = 'not-a-real-token-0123456789';
    const password = 'hunter2';
    const world = scenario()
      .child('team-a', { credentials: { token } })
      .child('team-b', { credentials: { username: 'admin', password } })
      .build();
    const created = plan(world, testConfig(), NOW);
    const settled = settle(world, testConfig(), NOW);
    const rotated = scenario(settled)
      .kubeconfig('team-a', {
        server: serverOf('team-a'),
        credentials: { token: `${token}-2` },
        resourceVersion: '2',
      })
      .kubeconfig('team-b', {
        server: serverOf('team-b'),
        credentials: { username: 'admin', password: `${password}-2` },
        resourceVersion: '2',
      })
      .build();
    const updated = plan(rotated, testConfig(), NOW + DAY);
    expect(updated.actions.map((action) => action.kind)).toEqual(['update', 'update']);
    for (const result of [created, updated]) {
      const shown = [renderPlanText(result), JSON.stringify(planToJson(result))];
      for (const text of shown) {
        for (const secret of [token, `${token}-2`, password, `${password}-2`]) {
          const hex = sha256Hex(secret);
          expect(text).not.toContain(secret);
          expect(text).not.toContain(hex.slice(0, 8));
          expect(text).not.toContain(sha256Hex(encodeBase64Text(secret)).slice(0, 8));
        }
      }
    }
    expect(renderPlanText(updated)).toMatch(
      /~ config\.bearerToken: +\(sensitive value\) changed\n/,
    );
    expect(renderPlanText(updated)).toMatch(/~ config\.password: +\(sensitive value\) changed\n/);
  });

  it('quotes values, so control characters in a label cannot reach the terminal', () => {
    const action = described({ ...update }, [
      { field: 'labels.x', after: 'a\u001b[2Jb', sensitive: false },
    ]);
    expect(render({ actions: [action], outcomes: [], warnings: [] })).toContain(
      '+ labels.x: "a\\u001b[2Jb"',
    );
  });

  it('colours symbols and headings only when asked', () => {
    const coloured = render(fullPlan, { color: true });
    expect(coloured).toContain('\u001b[32m+\u001b[0m \u001b[1margocd/cluster-alpha\u001b[0m');
    expect(coloured).toContain('\u001b[31m-\u001b[0m \u001b[1margocd/cluster-gone\u001b[0m');
    expect(coloured.replace(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '')).toBe(render(fullPlan));
    expect(render(fullPlan)).not.toContain('\u001b');
  });
});

describe('withheld verdicts', () => {
  it('lists a namespace whose verdict incomplete input withheld, and the removals that wait', () => {
    const plan: Plan = {
      actions: [],
      outcomes: [
        outcome('k3k-a', 'unchanged', { cluster: 'alpha' }),
        outcome('k3k-b', 'unchanged', {
          cluster: 'beta',
          reason: {
            code: 'input-incomplete',
            message:
              'the Secrets of namespace k3k-b could not be listed (forbidden); cluster-beta is kept as it is until they can be read',
          },
        }),
      ],
      warnings: [
        {
          code: 'input-incomplete',
          namespace: 'k3k-gone',
          secret: 'cluster-gone',
          message:
            'cluster-gone would be deleted (source-namespace-not-found), but the cluster Secrets of argocd could not be listed (timed out); it is kept until they can be read',
        },
      ],
    };
    expect(render(plan)).toBe(
      `Namespaces needing attention:
  unchanged  k3k-b (cluster "beta"): the Secrets of namespace k3k-b could not be listed (forbidden); cluster-beta is kept as it is until they can be read [input-incomplete]

Warnings:
  ! k3k-gone/cluster-gone: cluster-gone would be deleted (source-namespace-not-found), but the cluster Secrets of argocd could not be listed (timed out); it is kept until they can be read [input-incomplete]

No changes. 1 registration up to date. 2 withheld: part of the input could not be read.
`,
    );
  });
});

describe('summaryLine', () => {
  it('counts actions by kind', () => {
    expect(summaryLine(fullPlan)).toBe('Plan: 1 to create, 1 to update, 1 to demote, 1 to delete.');
  });
});
