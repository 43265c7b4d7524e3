// The outcome of a namespace without a usable kubeconfig (outcomes.ts).

import { describe, expect, it } from 'vitest';
import { NOW, outcomeOf, scenario, testConfig } from '../test-support/fixtures.js';
import { plan } from './index.js';

describe('waiting', () => {
  it('reports a namespace without a kubeconfig as waiting, not as an error', () => {
    const result = plan(scenario().namespace('team-a').build(), testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a')).toMatchObject({
      state: 'waiting',
      reason: { code: 'waiting-for-kubeconfig' },
    });
  });

  it('refuses a new namespace whose only kubeconfig is unusable, with the candidate reasons', () => {
    const result = plan(
      scenario()
        .namespace('team-a')
        .kubeconfig('team-a', { credentials: { exec: 'gke-gcloud-auth-plugin' } })
        .build(),
      testConfig(),
      NOW,
    );
    const outcome = outcomeOf(result, 'team-a');
    expect(outcome).toMatchObject({ state: 'refused', reason: { code: 'exec-plugin' } });
    expect(outcome.rejected).toHaveLength(1);
  });
});
