import { inject } from 'vitest';
import { attachControlPlane } from './control-plane.js';
import type { ControlPlane } from './control-plane.js';
import type { ProvidedPlane } from './provided.js';

async function attachShared(key: 'acrTestHost' | 'acrTestChild'): Promise<ControlPlane> {
  // Undefined at run time outside the integration project, whatever the declared type says.
  const provided = inject(key) as ProvidedPlane | undefined;
  if (provided === undefined) {
    throw new Error(
      `${key} is not provided: run this file in the vitest "integration" project (its globalSetup starts the planes)`,
    );
  }
  return attachControlPlane(provided.name, provided.kubeconfigPath, () =>
    Promise.reject(new Error(`plane ${provided.name} is shared; the global setup stops it`)),
  );
}

/** The run's shared host plane (where the registrar runs). stop() rejects: it is shared. */
export function testHostPlane(): Promise<ControlPlane> {
  return attachShared('acrTestHost');
}

/** The run's shared child plane (a "virtual cluster" whose credentials get registered). */
export function testChildPlane(): Promise<ControlPlane> {
  return attachShared('acrTestChild');
}
