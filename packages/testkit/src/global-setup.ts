import type { TestProject } from 'vitest/node';
import { startControlPlane } from './control-plane.js';
import type { ControlPlane } from './control-plane.js';
import type {} from './provided.js';

/**
 * vitest globalSetup of the `integration` project: one `test-host` and one `test-child` plane
 * per run, stopped at teardown. Names carry the runner's pid so concurrent runs on one
 * machine never share (or stop) each other's planes. REGISTRAR_KEEP_PLANES=1 uses the bare names
 * and leaves the planes running, so the next run reuses them (quick local iteration).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const keep = process.env['REGISTRAR_KEEP_PLANES'] === '1';
  const suffix = keep ? '' : `-${String(process.pid)}`;
  const options = keep ? { progress: true } : { progress: true, ownerPid: process.pid };
  const started = await Promise.allSettled([
    startControlPlane(`test-host${suffix}`, options),
    startControlPlane(`test-child${suffix}`, options),
  ]);
  const planes = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const stopAll = async (): Promise<void> => {
    if (!keep) await Promise.allSettled(planes.map((p: ControlPlane) => p.stop()));
  };
  const [host, child] = started;
  if (host.status !== 'fulfilled' || child.status !== 'fulfilled') {
    await stopAll();
    const reasons = started.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
    throw new Error(`could not start the test control planes:\n${reasons.join('\n')}`);
  }
  project.provide('acrTestHost', {
    name: host.value.name,
    kubeconfigPath: host.value.kubeconfigPath,
  });
  project.provide('acrTestChild', {
    name: child.value.name,
    kubeconfigPath: child.value.kubeconfigPath,
  });
  return stopAll;
}
