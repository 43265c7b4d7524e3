// The daemons of several targets as one: each target has its own watches of its cluster
// Secrets, its own passes and its own schedule, so one that fails (slow, refusing, missing its
// namespace, partitioned) never holds up another. They share the host, its sources and, with
// leader election, one elector: a single Lease on this host fences every target's writes.

import type { LeaderElector } from '@argocd-cluster-registrar/k8s-adapter';
import type { Daemon } from './manager.js';
import type { ProbeResult } from './server.js';

export class TargetDaemons {
  constructor(
    private readonly runs: readonly { readonly name: string; readonly daemon: Daemon }[],
    private readonly elector: LeaderElector | undefined,
  ) {}

  start(): void {
    for (const run of this.runs) run.daemon.start();
    this.elector?.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.runs.map((run) => run.daemon.stop()));
    await this.elector?.stop();
  }

  /** Alive only while every target's loop is. */
  healthz(): ProbeResult {
    const wedged = this.runs
      .map((run) => ({ name: run.name, probe: run.daemon.healthz() }))
      .filter((run) => !run.probe.ok);
    return wedged.length === 0
      ? { ok: true, reason: 'loops alive' }
      : { ok: false, reason: wedged.map((run) => `${run.name}: ${run.probe.reason}`).join('; ') };
  }

  /** Ready while any target works: a hub that is away must not take the others out of service. */
  readyz(): ProbeResult {
    const probes = this.runs.map((run) => ({ name: run.name, probe: run.daemon.readyz() }));
    const ready = probes.filter((run) => run.probe.ok);
    if (ready.length > 0)
      return { ok: true, reason: `ready: ${ready.map((run) => run.name).join(', ')}` };
    return {
      ok: false,
      reason: probes.map((run) => `${run.name}: ${run.probe.reason}`).join('; '),
    };
  }
}
