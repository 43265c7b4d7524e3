// Which Secret holds each server (server-ledger.ts): one registration per server.

import { describe, expect, it } from 'vitest';
import {
  KEYS,
  NOW,
  outcomeOf,
  registeredAlpha,
  scenario,
  serverOf,
  testConfig,
} from '../test-support/fixtures.js';
import { kinds } from '../test-support/plan-assertions.js';
import { plan } from './index.js';

describe('servers', () => {
  it('refuses a server a foreign Secret holds and says a 0.1.x leftover can be deleted', () => {
    const snapshot = scenario()
      .child('team-a', { cluster: 'alpha' })
      .foreign('vcluster-legacy', { server: serverOf('team-a') })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    const outcome = outcomeOf(result, 'team-a');
    expect(outcome).toMatchObject({ state: 'refused', reason: { code: 'server-collision' } });
    expect(outcome.reason?.message).toContain('vcluster-legacy');
    expect(outcome.reason?.message).toContain('0.1.x');
    expect(outcome.reason?.message).toContain('delete');
  });

  it('compares normalised addresses: case, default port and trailing slash do not matter', () => {
    const snapshot = scenario()
      .child('team-a', { cluster: 'alpha', server: 'https://API.Example.com:443/' })
      .foreign('by-hand', { server: 'https://api.example.com' })
      .build();
    expect(outcomeOf(plan(snapshot, testConfig(), NOW), 'team-a').reason?.code).toBe(
      'server-collision',
    );
  });

  it('keeps the server with the incumbent and refuses the newcomer', () => {
    const snapshot = scenario(registeredAlpha())
      .child('team-b', { cluster: 'beta', server: serverOf('team-a') })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(result.actions).toEqual([]);
    expect(outcomeOf(result, 'team-b')).toMatchObject({
      state: 'refused',
      reason: { code: 'server-collision' },
    });
    expect(outcomeOf(result, 'team-b').reason?.message).toContain('cluster-alpha');
  });

  it('refuses the younger of two newcomers with one server', () => {
    const snapshot = scenario()
      .child('old', { cluster: 'alpha', server: 'https://shared.example.com' })
      .child('young', {
        cluster: 'beta',
        server: 'https://shared.example.com',
        created: '2026-05-01T00:00:00Z',
      })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(kinds(result)).toEqual(['create alpha']);
    expect(outcomeOf(result, 'young').reason?.code).toBe('server-collision');
  });

  it('releases the server of an owned registration whose source is proven gone', () => {
    const snapshot = scenario(registeredAlpha())
      .removeNamespace('team-a', { state: 'notFound' })
      .child('team-b', { cluster: 'beta', server: serverOf('team-a') })
      .build();
    const result = plan(snapshot, testConfig(), NOW);
    expect(kinds(result)).toEqual(['create beta', 'delete alpha']);
  });

  it('tells the operator who holds the server and how to hand it over; the source’s own Events name neither', () => {
    const snapshot = scenario(registeredAlpha())
      .child('team-b', { cluster: 'beta', server: serverOf('team-a') })
      .build();
    const reason = outcomeOf(plan(snapshot, testConfig(), NOW), 'team-b').reason;
    expect(reason?.message).toBe(
      `server ${serverOf('team-a')} is already registered as cluster-alpha by namespace team-a; ArgoCD would pick one of the two at random, so the registration that holds a server keeps it. If namespace team-a should not have it, remove its ${KEYS.managedBy} label and delete argocd/cluster-alpha: namespace team-b registers on the next pass; otherwise point one of the namespaces at another server (${KEYS.server} annotation)`,
    );
    const event = reason !== undefined && 'sourceMessage' in reason ? reason.sourceMessage : '';
    expect(event).toBe(
      'the server this namespace’s kubeconfig names is already registered with ArgoCD by another source, which keeps it (ArgoCD would pick one of two registrations of one server at random); if the server is this namespace’s, ask the registrar’s operator to hand it over (argocd-cluster-registrar status names the holder)',
    );
  });
});
