// How a run's plans are printed: each round's plan as it was made, marked as such, and the
// follow-ups the planner reported; the JSON stays one document. Whole strings, colour off.

import { describe, expect, it } from 'vitest';
import type { Action, FollowUp, Plan } from '@argocd-cluster-registrar/core';
import type { ActionResult } from '@argocd-cluster-registrar/k8s-adapter';
import { parseFlags } from './flags.js';
import type { CliOptions } from './flags.js';
import type { Io } from './io.js';
import { printRun } from './print-plan.js';
import type { PassReport } from './reconciler.js';

function options(argv: readonly string[]): CliOptions {
  const result = parseFlags(['--once', ...argv], {});
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.options;
}

function printed(argv: readonly string[], rounds: readonly PassReport[], converged = true) {
  let out = '';
  const io: Io = {
    argv: [],
    env: {},
    stdout: (text) => (out += text),
    stderr: () => undefined,
    stdoutIsTty: false,
    stderrIsTty: false,
  };
  printRun(io, options(argv), { rounds, converged, unconfirmed: false });
  return out;
}

function create(cluster: string, source: string): Action {
  return {
    kind: 'create',
    cluster,
    secret: {
      namespace: 'argocd',
      name: `cluster-${cluster}`,
      type: 'Opaque',
      labels: {},
      annotations: {},
      data: {},
    },
    reason: { code: 'new-registration', namespace: source },
  };
}

function renamed(source: string): FollowUp {
  return {
    kind: 'demote',
    cluster: 'alpha',
    secret: 'cluster-alpha',
    source,
    after: { kind: 'create', cluster: 'alpha-2', secret: 'cluster-alpha-2' },
  };
}

function round(plan: Plan, applied: boolean): PassReport {
  const results: ActionResult[] = applied
    ? plan.actions.map((action) => ({ action, status: 'applied' }))
    : [];
  return {
    scope: 'full',
    snapshot: { namespaces: [], candidateSecrets: [], clusterSecrets: [], sourceLookups: {} },
    plan,
    results,
    previewed: [],
    gatherFailures: [],
    applied,
    requests: 0,
    durationMs: 0,
  };
}

const EMPTY: Plan = { actions: [], outcomes: [], warnings: [] };

describe('printRun', () => {
  it('names what a second round would do after a dry run, by the kind of source renamed', () => {
    const plan: Plan = {
      ...EMPTY,
      actions: [create('alpha-2', 'team-a')],
      followUps: [renamed('team-a'), { ...renamed('fleet/alpha'), secret: 'cluster-beta' }],
    };
    const text = printed(['--dry-run'], [round(plan, false)], false);
    expect(text).not.toContain('Round 1');
    expect(text.slice(text.indexOf('A real run'))).toBe(
      [
        'A real run would need a second round for:',
        '  create alpha-2: once cluster-alpha-2 is observed, a second round demotes cluster-alpha (namespace team-a was renamed away from it)',
        '  create alpha-2: once cluster-alpha-2 is observed, a second round demotes cluster-beta (Cluster fleet/alpha was renamed away from it)',
        '',
      ].join('\n'),
    );
  });

  it('prints each round of a run as its own plan, in order, marked as such', () => {
    const first: Plan = {
      ...EMPTY,
      actions: [create('alpha-2', 'team-a')],
      followUps: [renamed('team-a')],
    };
    const second: Plan = { ...EMPTY, actions: [create('beta', 'team-b')] };
    const text = printed([], [round(first, true), round(second, true), round(EMPTY, true)]);
    const [before, one = '', two = ''] = text.split(/^Round \d of 2:\n/m);
    expect(before).toBe('');
    expect(one).toContain('argocd/cluster-alpha-2 was created');
    expect(one).toMatch(/Apply complete! .*\n\n$/);
    expect(two).toContain('argocd/cluster-beta was created');
    expect(text).not.toContain('No changes.');
  });

  it('does not print the closing round that only confirmed nothing is left to do', () => {
    const first: Plan = { ...EMPTY, actions: [create('alpha', 'team-a')] };
    const text = printed([], [round(first, true), round(EMPTY, true)]);
    expect(text).not.toContain('Round 1');
    expect(text).toMatch(/\nApply complete! Registrations: 1 created, .*\n$/);
  });

  it('keeps a run one JSON document: the first plan at the top, later ones in laterRounds', () => {
    const first: Plan = {
      ...EMPTY,
      actions: [create('alpha-2', 'team-a')],
      followUps: [renamed('team-a')],
    };
    const document = JSON.parse(
      printed(['--output', 'json'], [round(first, true), round(EMPTY, true)]),
    ) as Record<string, unknown>;
    expect(document).toMatchObject({
      formatVersion: '3',
      actions: [{ kind: 'create', cluster: 'alpha-2' }],
      followUps: [renamed('team-a')],
      results: [{ kind: 'create', cluster: 'alpha-2', status: 'applied' }],
      readFailures: 0,
      laterRounds: [{ round: 2, actions: [], results: [], readFailures: 0 }],
      converged: true,
    });
    expect(document.laterRounds).not.toHaveProperty([0, 'formatVersion']);
  });
});
