// The profile step repeats a profile plan that had nothing to write while the registrations'
// plan is the same settled one and the profiles did not change; anything else plans again,
// and a repeated plan is what a fresh one would be.

import { describe, expect, it } from 'vitest';
import { parseConfig, plan as makePlan } from '@argocd-cluster-registrar/core';
import type { ProfileSnapshot, Snapshot } from '@argocd-cluster-registrar/core';
import type { ProfileReader } from '@argocd-cluster-registrar/k8s-adapter';
import { silentLogger } from './logging.js';
import { RegistrarMetrics } from './metrics.js';
import { runProfilePass } from './profile-pass.js';
import type { ProfilePassReport, ProfileStage } from './profile-pass.js';

const parsed = parseConfig({ targetNamespace: 'argocd', clusterProfiles: true });
if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
const config = parsed.config;
const snapshot: Snapshot = {
  namespaces: [],
  candidateSecrets: [],
  clusterSecrets: [],
  sourceLookups: {},
};
const profiles: ProfileSnapshot = { apiVersion: 'v1alpha1', profiles: [] };

/** A reader of a fixed set of profiles whose change count the test moves. */
function readerOf(): { reader: ProfileReader; move: () => void } {
  let changes = 0;
  return {
    reader: {
      read: () => Promise.resolve({ state: 'read', snapshot: profiles }),
      requests: () => 0,
      changes: () => changes,
      stop: () => undefined,
    },
    move: () => {
      changes += 1;
    },
  };
}

async function pass(stage: ProfileStage, plan = makePlan(snapshot, config, 0)) {
  const report: ProfilePassReport = await runProfilePass(stage, {
    snapshot,
    plan,
    config,
    now: 0,
    writeWith: undefined,
    logger: silentLogger,
    metrics: new RegistrarMetrics(),
  });
  if (report.state !== 'planned') throw new Error(report.why);
  return report.plan;
}

describe('runProfilePass', () => {
  it('repeats a settled profile plan only for the same plan and unchanged profiles', async () => {
    const { reader, move } = readerOf();
    const stage: ProfileStage = { reader };
    const registrations = makePlan(snapshot, config, 0);
    const first = await pass(stage, registrations);
    expect(await pass(stage, registrations)).toBe(first);
    // Another plan object (a pass planned in full), or profiles that changed: planned again,
    // and the same as the repeat would have been.
    const fresh = await pass(stage, makePlan(snapshot, config, 0));
    expect(fresh).not.toBe(first);
    expect(fresh).toEqual(first);
    const again = await pass(stage);
    move();
    const moved = await pass(stage);
    expect(moved).not.toBe(again);
    expect(moved).toEqual(first);
  });
});
