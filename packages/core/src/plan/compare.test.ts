// Whether an existing registration already says what its namespace asks for (compare.ts):
// then nothing is written.

import { describe, expect, it } from 'vitest';
import { encodeBase64Text } from '../common/base64.js';
import { describeChanges } from '../present/render-diff.js';
import {
  configOf,
  dataOf,
  HOUR,
  KEYS,
  NOW,
  outcomeOf,
  registeredAlpha,
  scenario,
  settle,
  testConfig,
} from '../test-support/fixtures.js';
import { only } from '../test-support/plan-assertions.js';
import { plan } from './index.js';

describe('no-op', () => {
  it('writes nothing when the registration already says what the namespace asks for', () => {
    const result = plan(registeredAlpha(), testConfig(), NOW + HOUR);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-a')).toEqual({
      namespace: 'team-a',
      cluster: 'alpha',
      state: 'unchanged',
      source: {
        namespace: 'team-a',
        secret: 'k3k-team-a-kubeconfig',
        key: 'kubeconfig.yaml',
        provider: 'k3k',
        chosenBy:
          'the first usable candidate of the k3k provider (its name matches k3k-*-kubeconfig)',
      },
      rejected: [],
      credentialNotAfter: '2027-11-29T17:57:37Z',
      credential: 'client-certificate',
    });
  });

  it('does not rewrite a config that only differs in key order', () => {
    const reordered = scenario(registeredAlpha())
      .editClusterSecret('cluster-alpha', (secret) => {
        const config = configOf(secret);
        const reversed = Object.fromEntries(Object.entries(config).reverse());
        return {
          ...secret,
          data: { ...secret.data, config: encodeBase64Text(JSON.stringify(reversed)) },
        };
      })
      .build();
    expect(plan(reordered, testConfig(), NOW).actions).toEqual([]);
  });

  it('removes a prefixed key the namespace dropped and keeps other owners keys', () => {
    const before = settle(
      scenario()
        .child('team-a', { labels: { [`${KEYS.prefix}team`]: 'payments' } })
        .build(),
    );
    const after = scenario(before)
      .label('team-a', `${KEYS.prefix}team`, null)
      .labelSecret('cluster-team-a', 'backup.example.com/tier', 'gold')
      .editClusterSecret('cluster-team-a', (secret) => ({
        ...secret,
        data: { ...secret.data, shard: encodeBase64Text('2') },
      }))
      .build();

    const update = only(plan(after, testConfig(), NOW), 'update');
    expect(update.reason.code).toBe('metadata-changed');
    expect(update.secret.labels).not.toHaveProperty([`${KEYS.prefix}team`]);
    expect(update.secret.labels['backup.example.com/tier']).toBe('gold');
    expect(dataOf(update.secret, 'shard')).toBe('2');
    expect(describeChanges(update)).toEqual([
      { field: `labels.${KEYS.prefix}team`, before: 'payments', sensitive: false },
    ]);
  });
});
