// The inventory's news: an Event on each profile a pass created, changed or deleted (none for a
// status write, a failed or dry-run write), and a notice logged as a warning and recorded on
// its source once while it lasts, not every pass.

import { describe, expect, it } from 'vitest';
import type { ProfileAction, ProfileNotice, ProfilePlan } from '@argocd-cluster-registrar/core';
import type { ProfileResult } from '@argocd-cluster-registrar/k8s-adapter';
import { createLogger } from './logging.js';
import { ProfileNews } from './profile-events.js';
import type { ProfilePassReport } from './profile-pass.js';

const desired = {
  namespace: 'inventory',
  name: 'alpha',
  labels: {},
  spec: { displayName: 'alpha', clusterManager: { name: 'registrar' } },
  status: {},
};
const target = { namespace: 'inventory', name: 'alpha', uid: 'uid-alpha', resourceVersion: '7' };
const CREATE: ProfileAction = {
  kind: 'create',
  cluster: 'alpha',
  source: 'team-a',
  profile: desired,
};
const STATUS: ProfileAction = {
  kind: 'status',
  cluster: 'alpha',
  source: 'team-a',
  target,
  profile: desired,
};
const DELETE: ProfileAction = {
  kind: 'delete',
  cluster: 'old',
  target: { ...target, name: 'old', uid: 'uid-old' },
  reason: { code: 'source-gone', source: 'fleet/old', proof: 'not found' },
};
const FOREIGN: ProfileNotice = {
  cluster: 'beta',
  source: 'team-b',
  code: 'profile-name-foreign',
  message: 'ClusterProfile inventory/beta belongs to someone, not to registrar',
};

function planned(
  results: readonly ProfileResult[],
  notices: readonly ProfileNotice[] = [],
): ProfilePassReport {
  const plan: ProfilePlan = {
    namespace: 'inventory',
    apiVersion: 'v1alpha1',
    actions: results.map((r) => r.action),
    published: 1,
    deferred: 0,
    notices,
  };
  return { state: 'planned', plan, results };
}

function capture(): {
  lines: { level: string; msg: string }[];
  logger: ReturnType<typeof createLogger>;
} {
  const lines: { level: string; msg: string }[] = [];
  const logger = createLogger({
    format: 'json',
    level: 'debug',
    write: (line) => {
      const { level, msg } = JSON.parse(line) as { level: string; msg: string };
      lines.push({ level, msg });
    },
  });
  return { lines, logger };
}

describe('ProfileNews', () => {
  it('records an Event on each profile created or deleted, by uid, and none for a status write', () => {
    const { logger } = capture();
    const events = new ProfileNews().report(
      planned([
        { action: CREATE, status: 'applied', uid: 'uid-alpha' },
        { action: STATUS, status: 'applied', uid: 'uid-alpha' },
        { action: DELETE, status: 'applied', uid: 'uid-old' },
      ]),
      logger,
    );
    expect(events).toEqual([
      {
        on: { kind: 'profile', name: 'alpha', uid: 'uid-alpha', source: 'team-a' },
        type: 'Normal',
        reason: 'Published',
        message: 'Published ClusterProfile inventory/alpha for namespace team-a',
      },
      {
        on: { kind: 'profile', name: 'old', uid: 'uid-old' },
        type: 'Normal',
        reason: 'Withdrawn',
        message: 'Deleted ClusterProfile inventory/old: Cluster fleet/old is gone (not found)',
      },
    ]);
  });

  it('reports no write that did not land', () => {
    const { logger } = capture();
    const news = new ProfileNews();
    expect(news.report(planned([{ action: CREATE, status: 'conflict' }]), logger)).toEqual([]);
    expect(news.report(planned([{ action: CREATE, status: 'dry-run' }]), logger)).toEqual([]);
  });

  it('warns of a notice and records it on its source once while it lasts, and again when it returns', () => {
    const { lines, logger } = capture();
    const news = new ProfileNews();
    const first = news.report(planned([], [FOREIGN]), logger);
    expect(first).toEqual([
      {
        on: { kind: 'source', source: 'team-b' },
        type: 'Warning',
        reason: 'ProfileNotPublished',
        message: FOREIGN.message,
      },
    ]);
    expect(news.report(planned([], [FOREIGN]), logger)).toEqual([]);
    // A pass that could not read the profiles leaves the notice standing.
    expect(news.report({ state: 'unknown', why: 'timeout' }, logger)).toEqual([]);
    expect(news.report(planned([], [FOREIGN]), logger)).toEqual([]);
    expect(lines.map((l) => l.level)).toEqual(['warn', 'debug', 'debug']);
    expect(news.report(planned([]), logger)).toEqual([]);
    expect(news.report(planned([], [FOREIGN]), logger)).toHaveLength(1);
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(2);
  });
});
