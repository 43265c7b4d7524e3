// Pause instead of harm (pause.ts): a paused or unreachable child gets ArgoCD's skip-reconcile
// annotation on its registration, removed when it wakes; a skip-reconcile someone else set is
// never removed, and nothing else of the registration changes.

import { describe, expect, it } from 'vitest';
import { plan } from './index.js';
import { createSettledRepeat } from '../repeat/settled-repeat.js';
import {
  clusterSecretOf,
  KEYS,
  kubeconfigSecret,
  NOW,
  outcomeOf,
  registeredAlpha,
  scenario,
  serverOf,
  settle,
  testConfig,
} from '../test-support/fixtures.js';
import { PROVIDER_PRESETS } from '../config/provider-presets.js';
import type { ChildProbe, Config, ProvisionerObject, Snapshot } from '../common/types.js';

const SKIP = 'argocd.argoproj.io/skip-reconcile';
const PROBING = testConfig({ probeChildren: true, probeFailures: 3 });

function probed(snapshot: Snapshot, probe: ChildProbe | undefined): Snapshot {
  return { ...snapshot, children: probe === undefined ? {} : { 'team-a': probe } };
}

const DOWN: ChildProbe = {
  failures: 3,
  error: 'connect ECONNREFUSED',
  failingSince: '2026-11-30T12:00:00Z',
};
const UP: ChildProbe = { failures: 0, version: 'v1.31.2' };

function annotationsAfter(snapshot: Snapshot, config: Config) {
  return clusterSecretOf(settle(snapshot, config), 'cluster-alpha').annotations;
}

describe('pause', () => {
  it('pauses a registration whose source is labelled <prefix>paused=true, and only that changes', () => {
    const before = registeredAlpha();
    const existing = clusterSecretOf(before, 'cluster-alpha');
    const paused = scenario(before).label('team-a', KEYS.paused, 'true').build();
    const result = plan(paused, testConfig(), NOW + 60_000);
    expect(result.actions).toHaveLength(1);
    const [update] = result.actions;
    if (update?.kind !== 'update') throw new Error(`expected an update, got ${update?.kind}`);
    expect(update.secret.annotations).toEqual({
      ...existing.annotations,
      [SKIP]: 'true',
      [KEYS.pauseReason]: 'paused',
    });
    expect(update.secret.labels).toEqual(existing.labels);
    expect(update.secret.data).toEqual(existing.data);
    expect(outcomeOf(result, 'team-a').paused).toBe('paused');
  });

  it('honours the annotation as the label, and un-pauses when it goes', () => {
    const paused = settle(
      scenario(registeredAlpha()).annotate('team-a', KEYS.paused, 'true').build(),
    );
    expect(clusterSecretOf(paused, 'cluster-alpha').annotations[SKIP]).toBe('true');
    const awake = scenario(paused).annotate('team-a', KEYS.paused, null).build();
    const annotations = annotationsAfter(awake, testConfig());
    expect(annotations[SKIP]).toBeUndefined();
    expect(annotations[KEYS.pauseReason]).toBeUndefined();
  });

  it('warns about a paused value that is neither true nor false, and does not pause', () => {
    const odd = scenario(registeredAlpha()).label('team-a', KEYS.paused, 'yes').build();
    const result = plan(odd, testConfig(), NOW + 60_000);
    expect(result.actions).toEqual([]);
    expect(result.warnings).toContainEqual(
      expect.objectContaining({ code: 'paused-value-invalid', namespace: 'team-a' }),
    );
  });

  it('quotes a hostile paused annotation escaped and cut in its warning', () => {
    const value = `yes${'!'.repeat(300)}\u001b[2J\u009b31m`;
    const odd = scenario(registeredAlpha()).annotate('team-a', KEYS.paused, value).build();
    const warning = plan(odd, testConfig(), NOW + 60_000).warnings.find(
      (w) => w.code === 'paused-value-invalid',
    );
    const message = warning?.message ?? '';
    expect(message).toContain(`annotation ${KEYS.paused}="yes!!!`);
    expect(message.length).toBeLessThan(400);
    const controls = [...message].filter((c) => c < ' ' || (c >= '\u007f' && c <= '\u009f'));
    expect(controls).toEqual([]);
  });

  it('never removes a skip-reconcile someone else set, nor records it as ours', () => {
    const theirs = scenario(registeredAlpha())
      .editClusterSecret('cluster-alpha', (secret) => ({
        ...secret,
        annotations: { ...secret.annotations, [SKIP]: 'true' },
      }))
      .build();
    // Paused and woken again: their annotation stands throughout.
    const paused = settle(scenario(theirs).label('team-a', KEYS.paused, 'true').build());
    expect(clusterSecretOf(paused, 'cluster-alpha').annotations[SKIP]).toBe('true');
    expect(clusterSecretOf(paused, 'cluster-alpha').annotations[KEYS.pauseReason]).toBeUndefined();
    const awake = scenario(paused).label('team-a', KEYS.paused, null).build();
    expect(annotationsAfter(awake, testConfig())[SKIP]).toBe('true');
  });

  it("leaves ArgoCD's own labels and annotations on a paused and resumed registration", () => {
    const argo = scenario(registeredAlpha())
      .labelSecret('cluster-alpha', 'argocd.argoproj.io/kubernetes-version', '1.31')
      .editClusterSecret('cluster-alpha', (secret) => ({
        ...secret,
        annotations: {
          ...secret.annotations,
          'argocd.argoproj.io/refresh': '2026-11-30T12:00:00Z',
        },
      }))
      .build();
    const paused = settle(scenario(argo).label('team-a', KEYS.paused, 'true').build());
    const awake = settle(scenario(paused).label('team-a', KEYS.paused, null).build());
    for (const world of [paused, awake]) {
      const secret = clusterSecretOf(world, 'cluster-alpha');
      expect(secret.labels['argocd.argoproj.io/kubernetes-version']).toBe('1.31');
      expect(secret.annotations['argocd.argoproj.io/refresh']).toBe('2026-11-30T12:00:00Z');
    }
  });

  describe('with probing on', () => {
    it('pauses only after probeFailures consecutive failures', () => {
      const before = registeredAlpha();
      const twice = probed(before, { ...DOWN, failures: 2 });
      expect(plan(twice, PROBING, NOW + 60_000).actions).toEqual([]);
      const result = plan(probed(before, DOWN), PROBING, NOW + 60_000);
      const [update] = result.actions;
      if (update?.kind !== 'update') throw new Error(`expected an update, got ${update?.kind}`);
      expect(update.secret.annotations).toMatchObject({
        [SKIP]: 'true',
        [KEYS.pauseReason]: 'unreachable',
      });
      expect(outcomeOf(result, 'team-a')).toMatchObject({ paused: 'unreachable', probe: DOWN });
    });

    it('keeps an unreachable child paused until a probe succeeds, then un-pauses it at once', () => {
      const paused = settle(probed(registeredAlpha(), DOWN), PROBING);
      // Not probed yet (a restarted registrar), or failing again below the threshold: kept.
      for (const probe of [undefined, { ...DOWN, failures: 1 }]) {
        expect(plan(probed(paused, probe), PROBING, NOW + 60_000).actions).toEqual([]);
      }
      const awake = annotationsAfter(probed(paused, UP), PROBING);
      expect(awake[SKIP]).toBeUndefined();
      expect(awake[KEYS.pauseReason]).toBeUndefined();
    });

    it('un-pauses a probe pause once probing is turned off, but never a label pause', () => {
      const paused = settle(probed(registeredAlpha(), DOWN), PROBING);
      expect(annotationsAfter(probed(paused, undefined), testConfig())[SKIP]).toBeUndefined();
      const both = settle(scenario(paused).label('team-a', KEYS.paused, 'true').build(), PROBING);
      expect(clusterSecretOf(both, 'cluster-alpha').annotations[KEYS.pauseReason]).toBe('paused');
      expect(annotationsAfter(probed(both, UP), PROBING)[SKIP]).toBe('true');
    });

    it('reports what the probe found on a registered child', () => {
      const result = plan(probed(registeredAlpha(), UP), PROBING, NOW + 60_000);
      expect(result.actions).toEqual([]);
      const outcome = outcomeOf(result, 'team-a');
      expect(outcome.probe).toEqual(UP);
      expect(outcome.paused).toBeUndefined();
    });

    it('is the same plan repeated as planned afresh, as the probe changes', () => {
      const repeat = createSettledRepeat();
      const registered = registeredAlpha();
      for (const [step, probe] of [UP, DOWN, UP].entries()) {
        const world = probed(registered, probe);
        const now = NOW + (step + 1) * 60_000;
        expect(plan(world, PROBING, now, { repeat })).toEqual(plan(world, PROBING, now));
      }
    });
  });

  describe("with a provisioner's sleep signal on", () => {
    const KAMAJI = testConfig({ providers: [PROVIDER_PRESETS.kamaji], kamajiSleep: true });
    const VCLUSTER = testConfig({ providers: [PROVIDER_PRESETS.vcluster], vclusterSleep: true });

    /** team-a registered as alpha from Kamaji's admin kubeconfig of TenantControlPlane tcp-a. */
    function kamajiAlpha(): Snapshot {
      const secret = kubeconfigSecret('team-a', {
        name: 'tcp-a-admin-kubeconfig',
        key: 'admin.conf',
        server: serverOf('team-a'),
      });
      const labelled = {
        ...secret,
        labels: {
          'kamaji.clastix.io/component': 'admin-kubeconfig',
          'kamaji.clastix.io/name': 'tcp-a',
        },
      };
      const world = scenario().namespace('team-a', { cluster: 'alpha' }).secret(labelled).build();
      return settle(world, KAMAJI);
    }

    /** team-a registered as alpha from vcluster my-vc's additional kubeconfig (any name). */
    function vclusterAlpha(): Snapshot {
      const secret = kubeconfigSecret('team-a', {
        name: 'argocd-access',
        key: 'config',
        server: serverOf('team-a'),
      });
      const labelled = { ...secret, labels: { app: 'vcluster', 'vcluster-name': 'my-vc' } };
      const world = scenario().namespace('team-a', { cluster: 'alpha' }).secret(labelled).build();
      return settle(world, VCLUSTER);
    }

    function tcp(name: string, versionStatus: string | undefined): ProvisionerObject {
      return {
        kind: 'TenantControlPlane',
        namespace: 'team-a',
        name,
        labels: {},
        annotations: {},
        ...(versionStatus === undefined ? {} : { versionStatus }),
      };
    }

    function workload(release: string, marks: Partial<ProvisionerObject>): ProvisionerObject {
      return {
        kind: 'StatefulSet',
        namespace: 'team-a',
        name: release,
        labels: { app: 'vcluster', release },
        annotations: {},
        ...marks,
      };
    }

    function read(snapshot: Snapshot, provisioners: Snapshot['provisioners']): Snapshot {
      return { ...snapshot, ...(provisioners === undefined ? {} : { provisioners }) };
    }

    it('pauses a child whose TenantControlPlane says Sleeping, naming the signal, and wakes it', () => {
      const registered = kamajiAlpha();
      const result = plan(read(registered, { kamaji: [tcp('tcp-a', 'Sleeping')] }), KAMAJI, NOW);
      const [update] = result.actions;
      if (update?.kind !== 'update') throw new Error(`expected an update, got ${update?.kind}`);
      expect(update.secret.annotations).toMatchObject({
        [SKIP]: 'true',
        [KEYS.pauseReason]: 'kamaji-sleeping',
      });
      expect(outcomeOf(result, 'team-a').paused).toBe('kamaji-sleeping');
      const asleep = settle(read(registered, { kamaji: [tcp('tcp-a', 'Sleeping')] }), KAMAJI);
      const awake = annotationsAfter(read(asleep, { kamaji: [tcp('tcp-a', 'Ready')] }), KAMAJI);
      expect(awake[SKIP]).toBeUndefined();
      expect(awake[KEYS.pauseReason]).toBeUndefined();
    });

    it('reads only its own TenantControlPlane, and nothing while the signal is off', () => {
      const registered = kamajiAlpha();
      const other = read(registered, { kamaji: [tcp('tcp-b', 'Sleeping'), tcp('tcp-a', 'Ready')] });
      expect(plan(other, KAMAJI, NOW).actions).toEqual([]);
      const off = testConfig({ providers: [PROVIDER_PRESETS.kamaji] });
      const asleep = read(registered, { kamaji: [tcp('tcp-a', 'Sleeping')] });
      expect(plan(asleep, off, NOW).actions).toEqual([]);
    });

    it('keeps a sleep pause while the TenantControlPlanes could not be read, and drops it when none exist', () => {
      const asleep = settle(read(kamajiAlpha(), { kamaji: [tcp('tcp-a', 'Sleeping')] }), KAMAJI);
      expect(plan(read(asleep, undefined), KAMAJI, NOW).actions).toEqual([]);
      // An empty list is an answer: no TenantControlPlane (the CRD removed, say) sleeps.
      expect(annotationsAfter(read(asleep, { kamaji: [] }), KAMAJI)[SKIP]).toBeUndefined();
    });

    it('pauses a vcluster whose workload is marked paused or in sleep mode, and wakes it', () => {
      const registered = vclusterAlpha();
      for (const marks of [
        { annotations: { 'loft.sh/paused': 'true' } },
        { labels: { app: 'vcluster', release: 'my-vc', 'loft.sh/sleep-mode': 'true' } },
      ]) {
        const asleep = read(registered, { vcluster: [workload('my-vc', marks)] });
        const result = plan(asleep, VCLUSTER, NOW);
        expect(outcomeOf(result, 'team-a').paused).toBe('vcluster-sleeping');
        const paused = settle(asleep, VCLUSTER);
        expect(clusterSecretOf(paused, 'cluster-alpha').annotations[SKIP]).toBe('true');
        const awake = read(paused, { vcluster: [workload('my-vc', {})] });
        expect(annotationsAfter(awake, VCLUSTER)[SKIP]).toBeUndefined();
      }
      const another = read(registered, {
        vcluster: [workload('other-vc', { annotations: { 'loft.sh/paused': 'true' } })],
      });
      expect(plan(another, VCLUSTER, NOW).actions).toEqual([]);
    });

    it('lets the source’s own paused mark win over the provisioner’s', () => {
      const asleep = read(kamajiAlpha(), { kamaji: [tcp('tcp-a', 'Sleeping')] });
      const both = scenario(asleep).label('team-a', KEYS.paused, 'true').build();
      const result = plan(read(both, asleep.provisioners), KAMAJI, NOW);
      expect(outcomeOf(result, 'team-a').paused).toBe('paused');
    });
  });

  describe('of a stale registration (no usable kubeconfig left, its credentials kept)', () => {
    function stale(): Snapshot {
      return scenario(registeredAlpha()).removeKubeconfig('team-a').build();
    }

    it('pauses and resumes it by the source’s mark, changing nothing else', () => {
      const before = clusterSecretOf(stale(), 'cluster-alpha');
      const marked = scenario(stale()).label('team-a', KEYS.paused, 'true').build();
      const result = plan(marked, testConfig(), NOW + 60_000);
      const [update] = result.actions;
      if (update?.kind !== 'update') throw new Error(`expected an update, got ${update?.kind}`);
      expect(update.secret.annotations).toEqual({
        ...before.annotations,
        [SKIP]: 'true',
        [KEYS.pauseReason]: 'paused',
      });
      expect(update.secret.labels).toEqual(before.labels);
      expect(update.secret.data).toEqual(before.data);
      expect(outcomeOf(result, 'team-a')).toMatchObject({ state: 'stale', paused: 'paused' });
      const paused = settle(marked);
      const awake = scenario(paused).label('team-a', KEYS.paused, null).build();
      const annotations = annotationsAfter(awake, testConfig());
      expect(annotations[SKIP]).toBeUndefined();
      expect(annotations[KEYS.pauseReason]).toBeUndefined();
    });

    it('pauses it when its registered credentials stop reaching the child, and resumes it', () => {
      const down = probed(stale(), DOWN);
      expect(outcomeOf(plan(down, PROBING, NOW + 60_000), 'team-a')).toMatchObject({
        state: 'stale',
        paused: 'unreachable',
      });
      const paused = settle(down, PROBING);
      expect(clusterSecretOf(paused, 'cluster-alpha').annotations[SKIP]).toBe('true');
      expect(annotationsAfter(probed(paused, UP), PROBING)[SKIP]).toBeUndefined();
    });

    it('keeps a stale registration paused as it was while nothing says otherwise', () => {
      const paused = settle(
        scenario(registeredAlpha()).label('team-a', KEYS.paused, 'true').build(),
      );
      const broken = scenario(paused).removeKubeconfig('team-a').build();
      expect(plan(broken, testConfig(), NOW + 60_000).actions).toEqual([]);
    });
  });
});
