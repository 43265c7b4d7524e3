// The gather's lookups of sources that owned registrations record, on the real host plane
// (which serves no Cluster API group). A 404 is proof of deletion only when it answers the
// question asked: a Cluster is never looked up as a namespace of its key.

import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '@argocd-cluster-registrar/testkit';
import { Pass } from './gather-failure.js';
import { SourceLookups } from './source-lookups.js';
import { createNamespace, host, testConfig } from '../test-support/host.js';
import type { Host } from '../test-support/host.js';

let h: Host;
beforeAll(async () => {
  h = await host();
});

describe('source lookups', () => {
  it('answers unknown for a Cluster while no served Cluster API group is known, and notFound only for a namespace that is gone', async () => {
    const lookups = new SourceLookups(h.access, testConfig({ capiClusters: true }));
    const present = uniqueName('src');
    await createNamespace(h.core, present);
    const gone = uniqueName('gone');
    const cluster = `${uniqueName('fleet')}/alpha`;
    const answers = await lookups.lookUp(new Pass(), [present, gone, cluster], {}, undefined, true);
    expect(answers[present]?.state).toBe('present');
    expect(answers[gone]).toEqual({ state: 'notFound' });
    expect(answers[cluster]?.state).toBe('unknown');
  });
});
