// The daemon as users run it: a child process against the real host plane, observed through
// the API, its probes, its metrics and its JSON logs. Full passes are set far apart (10m)
// so what happens within a test can only come from the watches (nothing is polled).

import { describe, expect, it } from 'vitest';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { adminKubeConfig } from '@argocd-cluster-registrar/testkit';
import {
  clusterConfig,
  createSourceNamespace,
  useWorld,
  deleteNamespace,
  eventually,
  httpGet,
  kubeconfigYaml,
  putK3kKubeconfig,
  registration,
  startReadyDaemon,
} from '../test-support/e2e.js';
import type { RunningDaemon } from '../test-support/e2e.js';

const { world, daemons } = useWorld();

async function startReady(
  extra: readonly string[] = [],
): Promise<{ daemon: RunningDaemon; port: number }> {
  const ready = await startReadyDaemon(world, ['--interval=10m', ...extra]);
  daemons.push(ready.daemon);
  return ready;
}

function logged(running: RunningDaemon, msg: string, namespace: string): boolean {
  return running.logs.some((line) => line['msg'] === msg && line['namespace'] === namespace);
}

/** The Lease identity a daemon logged when it became the leader. */
function leaderIdentity(d: RunningDaemon): string | undefined {
  const line = d.logs.find((l) => l['msg'] === 'became the leader');
  return typeof line?.['identity'] === 'string' ? line['identity'] : undefined;
}

describe('daemon', () => {
  it('registers a kubeconfig that appears after the label within seconds', async () => {
    const { daemon: running } = await startReady();
    const ns = await createSourceNamespace(world, { cluster: 'late' });
    const name = ns.metadata?.name ?? '';
    // The watch brings the namespace in; without a kubeconfig it is waiting.
    await eventually(
      () =>
        Promise.resolve(logged(running, 'namespace waiting for a kubeconfig', name) || undefined),
      'the namespace to be waiting',
    );

    await putK3kKubeconfig(world, name, kubeconfigYaml(world.child));
    // The next full pass is 10 minutes away and nothing is polled: only the Secret watch
    // can register it.
    const secret = await eventually(() => registration(world, 'late'), 'the registration', 20_000);
    expect(secret.metadata?.labels?.['argocd-cluster-registrar/source-namespace']).toBe(name);
  });

  it('carries a kubeconfig rotated to a new CA to the registration without waiting for the interval', async () => {
    const ns = await createSourceNamespace(world, { cluster: 'rotated' });
    const name = ns.metadata?.name ?? '';
    const before = kubeconfigYaml(world.child);
    await putK3kKubeconfig(world, name, before);
    // Full passes are 10 minutes apart: only the Secret watch can bring the change in.
    await startReady();
    const first = await eventually(() => registration(world, 'rotated'), 'the registration');
    const oldCa = clusterConfig(first).tlsClientConfig.caData;

    // A new CA (the host plane's, a different one), as a provisioner rotating it would write.
    const newCa = Buffer.from(world.host.caPem).toString('base64');
    expect(newCa).not.toBe(oldCa);
    const rotated = before.replace(
      /certificate-authority-data: .*/,
      `certificate-authority-data: ${newCa}`,
    );
    await putK3kKubeconfig(world, name, rotated);
    await eventually(
      async () =>
        clusterConfig(await registration(world, 'rotated')).tlsClientConfig.caData === newCa
          ? true
          : undefined,
      'the registration to carry the new CA',
      20_000,
    );
  });

  it('removes the registration after the namespace is deleted and finalized', async () => {
    const ns = await createSourceNamespace(world, { cluster: 'short-lived' });
    const name = ns.metadata?.name ?? '';
    await putK3kKubeconfig(world, name, kubeconfigYaml(world.child));
    await startReady();
    await eventually(() => registration(world, 'short-lived'), 'the registration');

    await deleteNamespace(world, name);
    await eventually(
      async () => ((await registration(world, 'short-lived')) === undefined ? true : undefined),
      'the registration to be removed',
      20_000,
    );
  });

  it('serves probes and metrics', async () => {
    const ns = await createSourceNamespace(world, { cluster: 'observed' });
    await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfigYaml(world.child));
    const refused = await createSourceNamespace(world, { cluster: 'Not_Valid' });
    await putK3kKubeconfig(
      world,
      refused.metadata?.name ?? '',
      kubeconfigYaml(world.child, { server: 'https://other.example' }),
    );
    const { port } = await startReady();
    await eventually(() => registration(world, 'observed'), 'the registration');

    expect((await httpGet(port, '/healthz')).status).toBe(200);
    expect((await httpGet(port, '/readyz')).body).toContain('ok');
    expect((await httpGet(port, '/nothing')).status).toBe(404);
    // Same address for both: one server answers /metrics too.
    const metrics = await eventually(async () => {
      const body = (await httpGet(port, '/metrics')).body;
      return body.includes(
        'argocd_cluster_registrar_actions_total{kind="create",status="applied"} 1',
      )
        ? body
        : undefined;
    }, 'metrics after the first write');
    expect(metrics).toMatch(
      /^argocd_cluster_registrar_registrations\{state="(registered|unchanged)"\} 1$/m,
    );
    expect(metrics).toContain('argocd_cluster_registrar_refusals{reason="name-invalid"} 1');
    expect(metrics).toMatch(
      /^argocd_cluster_registrar_credential_expiry_timestamp_seconds\{cluster="observed"\} \d+/m,
    );
    expect(metrics).toContain('argocd_cluster_registrar_pass_duration_seconds_count');
    expect(metrics).toContain('argocd_cluster_registrar_leader 1');
    expect(metrics).toContain('# TYPE argocd_cluster_registrar_api_errors_total counter');

    // The refusal, and why, is on the namespace for its owner to see.
    const events = await world.hostApi.listNamespacedEvent({
      namespace: refused.metadata?.name ?? '',
    });
    const refusal = events.items.find((e) => e.reason === 'Refused');
    expect(refusal?.type).toBe('Warning');
    expect(refusal?.message).toContain('Not_Valid');
  });

  it('holds the Lease with --leader-elect, and releases it and exits 0 on SIGTERM', async () => {
    const { daemon: running } = await startReady(['--leader-elect']);
    const leases = adminKubeConfig(world.host).makeApiClient(CoordinationV1Api);
    const leaseName = `argocd-cluster-registrar-${world.managedBy}`;
    const held = await eventually(async () => {
      try {
        const lease = await leases.readNamespacedLease({
          name: leaseName,
          namespace: world.target,
        });
        return (lease.spec?.holderIdentity ?? '') !== '' ? lease : undefined;
      } catch {
        return undefined;
      }
    }, 'the Lease to be held');
    const identity = await eventually(
      () => Promise.resolve(leaderIdentity(running)),
      'the leader to log its identity',
    );
    expect(held.spec?.holderIdentity).toBe(identity);

    const ns = await createSourceNamespace(world, { cluster: 'led' });
    await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfigYaml(world.child));
    await eventually(() => registration(world, 'led'), 'the leader to register');

    expect(await running.stop('SIGTERM')).toBe(0);
    const released = await leases.readNamespacedLease({ name: leaseName, namespace: world.target });
    expect(released.spec?.holderIdentity ?? '').toBe('');
    expect(running.logs.some((l) => l['msg'] === 'stopped')).toBe(true);
  });

  it('lets only the leader write; a ready standby takes over when the leader stops', async () => {
    const leases = adminKubeConfig(world.host).makeApiClient(CoordinationV1Api);
    const leaseName = `argocd-cluster-registrar-${world.managedBy}`;
    const holder = async (): Promise<string> => {
      try {
        const lease = await leases.readNamespacedLease({
          name: leaseName,
          namespace: world.target,
        });
        return lease.spec?.holderIdentity ?? '';
      } catch {
        return '';
      }
    };
    const first = await startReady(['--leader-elect']);
    await eventually(async () => {
      const identity = leaderIdentity(first.daemon);
      return identity !== undefined && (await holder()) === identity ? true : undefined;
    }, 'the first daemon to lead');
    // The standby is ready without holding the Lease.
    const second = await startReady(['--leader-elect']);

    const ns = await createSourceNamespace(world, { cluster: 'first' });
    await putK3kKubeconfig(world, ns.metadata?.name ?? '', kubeconfigYaml(world.child));
    await eventually(() => registration(world, 'first'), 'the leader to register');
    const writes = (d: RunningDaemon): number =>
      d.logs.filter(
        (l) =>
          String(l['msg']).endsWith(' registration') &&
          l['level'] === 'info' &&
          !String(l['msg']).includes('would'),
      ).length;
    expect(writes(second.daemon)).toBe(0);

    // The leader releases the Lease on SIGTERM, so the standby takes over without waiting
    // for it to expire, and writes from then on.
    expect(await first.daemon.stop('SIGTERM')).toBe(0);
    await eventually(async () => {
      const identity = leaderIdentity(second.daemon);
      return identity !== undefined && (await holder()) === identity ? true : undefined;
    }, 'the standby to take over');
    const next = await createSourceNamespace(world, { cluster: 'second' });
    await putK3kKubeconfig(
      world,
      next.metadata?.name ?? '',
      kubeconfigYaml(world.child, { server: 'https://second.example:6443' }),
    );
    await eventually(() => registration(world, 'second'), 'the new leader to register');
    expect(second.daemon.logs.some((l) => l['msg'] === 'became the leader')).toBe(true);
  });
});
