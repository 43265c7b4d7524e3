// Child probes: GET /version with the registered credentials against a real child API
// server, a child nobody answers for, and the failure counting the planner reads.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { encodeBase64Text, type ObservedSecret } from '@argocd-cluster-registrar/core';
import { freePort, testChildPlane } from '@argocd-cluster-registrar/testkit';
import { knockOnChild, probeChild, type ProbeAnswer } from '../connection/child-probe.js';
import { testConfig } from '../test-support/host.js';
import { ChildProbes, PAUSED_EVERY, VERSION_EVERY } from './child-probes.js';

const PREFIX = 'argocd-cluster-registrar/';

function registration(
  source: string,
  server: string,
  config: Record<string, unknown>,
): ObservedSecret {
  return {
    namespace: 'argocd',
    name: `cluster-${source}`,
    uid: `uid-${source}`,
    resourceVersion: '1',
    type: 'Opaque',
    labels: {
      'argocd.argoproj.io/secret-type': 'cluster',
      [`${PREFIX}managed-by`]: 'cluster-registrar',
      [`${PREFIX}source-namespace`]: source,
    },
    annotations: {},
    data: {
      name: encodeBase64Text(source),
      server: encodeBase64Text(server),
      config: encodeBase64Text(JSON.stringify(config)),
    },
  };
}

/** The child plane's admin credentials, as a registration holds them. */
async function childRegistration(source: string): Promise<ObservedSecret> {
  const child = await testChildPlane();
  const kc = new KubeConfig();
  kc.loadFromString(child.kubeConfig);
  const user = kc.getCurrentUser();
  return registration(source, child.server, {
    tlsClientConfig: {
      insecure: false,
      caData: Buffer.from(child.caPem).toString('base64'),
      certData: user?.certData ?? '',
      keyData: user?.keyData ?? '',
    },
  });
}

describe('probeChild', () => {
  it('reads the version of a child that answers, with the registered credentials', async () => {
    const answer = await probeChild(await childRegistration('team-a'), 5000);
    expect(answer.kind).toBe('answered');
    if (answer.kind === 'answered') expect(answer.version).toMatch(/^v1\./);
  });

  it('fails on a child nobody answers for, naming the server and never a credential', async () => {
    const live = await childRegistration('team-a');
    const port = await freePort(); // nothing listens there
    const dead = {
      ...live,
      data: { ...live.data, server: encodeBase64Text(`https://127.0.0.1:${port}`) },
    };
    const answer = await probeChild(dead, 2000);
    expect(answer.kind).toBe('failed');
    if (answer.kind !== 'failed') return;
    expect(answer.error).toContain(`https://127.0.0.1:${port}/version`);
    expect(answer.error).not.toContain('BEGIN');
  });

  it('fails on a server whose certificate the registered CA does not sign', async () => {
    const live = await childRegistration('team-a');
    const wrongCa = registration('team-a', (await testChildPlane()).server, {
      tlsClientConfig: { insecure: false, caData: encodeBase64Text('not a CA') },
    });
    expect((await probeChild(wrongCa, 2000)).kind).toBe('failed');
    expect((await probeChild(live, 2000)).kind).toBe('answered');
  });

  it('does not probe an exec registration: ArgoCD mints its credentials', async () => {
    const exec = registration('team-a', 'https://example.invalid', {
      tlsClientConfig: { insecure: false },
      execProviderConfig: { command: 'argocd-k8s-auth', args: ['gcp'], apiVersion: 'v1' },
    });
    expect((await probeChild(exec, 2000)).kind).toBe('skipped');
  });
});

describe('knockOnChild', () => {
  it('answers for a child that accepts connections, and fails where nothing listens', async () => {
    const live = await childRegistration('team-a');
    expect(await knockOnChild(live, 2000)).toEqual({ kind: 'answered', version: undefined });
    const port = await freePort(); // nothing listens there
    const dead = {
      ...live,
      data: { ...live.data, server: encodeBase64Text(`https://127.0.0.1:${port}`) },
    };
    const answer = await knockOnChild(dead, 2000);
    expect(answer).toMatchObject({ kind: 'failed' });
    if (answer.kind === 'failed') expect(answer.error).toContain(`connect 127.0.0.1:${port}:`);
  });

  it('connects to an IPv6 literal and to the scheme’s port when none is written', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '::1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const child = registration('team-a', `http://[::1]:${String(port)}`, {});
      expect((await knockOnChild(child, 2000)).kind).toBe('answered');
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    }
    // https://127.0.0.1 is port 443, where nothing listens here.
    const https = registration('team-a', 'https://127.0.0.1', {});
    const answer = await knockOnChild(https, 2000);
    if (answer.kind === 'failed') expect(answer.error).toContain('connect 127.0.0.1:');
    expect(answer.kind).toBe('failed');
  });

  it('does not knock on an exec registration, as it does not probe one', async () => {
    const exec = registration('team-a', 'https://example.invalid', {
      execProviderConfig: { command: 'argocd-k8s-auth', args: ['gcp'], apiVersion: 'v1' },
    });
    expect((await knockOnChild(exec, 2000)).kind).toBe('skipped');
  });
});

describe('probeChild on a server with a path', () => {
  it('asks for /version under that path, as a client of that server does', async () => {
    // e.g. a child reached through Rancher's proxy: https://rancher.example/k8s/clusters/c-1
    const paths: string[] = [];
    const server = createServer((request, response) => {
      paths.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ gitVersion: 'v1.31.2' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const child = registration('team-a', `http://127.0.0.1:${String(port)}/k8s/clusters/c-1`, {});
      expect(await probeChild(child, 2000)).toEqual({ kind: 'answered', version: 'v1.31.2' });
      expect(paths).toEqual(['/k8s/clusters/c-1/version']);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    }
  });
});

describe('probeChild against a hostile child', () => {
  // A child is whoever holds its registered server address: here a loopback server that
  // answers /version as an attacker would. Every answer is bounded in bytes and time, never
  // followed elsewhere, and nothing it says reaches status, Events or logs unless it is a
  // plain version string.
  async function hostile(
    handler: (request: IncomingMessage, response: ServerResponse) => void,
  ): Promise<{ registration: ObservedSecret; close: () => Promise<void> }> {
    const server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      registration: registration('team-a', `http://127.0.0.1:${String(port)}`, {}),
      close: () =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(() => {
            resolve();
          });
        }),
    };
  }

  it('stops reading a huge body at its bound: the child answered, its version unknown', async () => {
    const total = 64 * 1024 * 1024;
    let written = 0;
    let finished = false;
    const child = await hostile((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const more = (): void => {
        while (written < total) {
          written += chunk.length;
          if (!response.write(chunk)) {
            response.once('drain', more);
            return;
          }
        }
        finished = true;
        response.end();
      };
      more();
    });
    try {
      expect(await probeChild(child.registration, 5000)).toEqual({
        kind: 'answered',
        version: undefined,
      });
      // The connection was dropped long before the 64 MiB were sent.
      expect(finished).toBe(false);
      expect(written).toBeLessThan(total);
    } finally {
      await child.close();
    }
  });

  it('gives up on a slow drip within the probe time-out, saying only that', async () => {
    const child = await hostile((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"gitVersion":"v1.');
      const drip = setInterval(() => response.write('9'), 50);
      response.on('close', () => {
        clearInterval(drip);
      });
    });
    try {
      const answer = await probeChild(child.registration, 500);
      expect(answer.kind).toBe('failed');
      if (answer.kind === 'failed') expect(answer.error).not.toContain('gitVersion');
    } finally {
      await child.close();
    }
  });

  it('never follows a redirect', async () => {
    let followed = 0;
    const elsewhere = await hostile(() => {
      followed += 1;
    });
    const target = Buffer.from(elsewhere.registration.data['server'] ?? '', 'base64').toString();
    const child = await hostile((_request, response) => {
      response.writeHead(302, { location: `${target}/version` });
      response.end();
    });
    try {
      expect(await probeChild(child.registration, 2000)).toEqual({
        kind: 'answered',
        version: undefined,
      });
      expect(followed).toBe(0);
    } finally {
      await child.close();
      await elsewhere.close();
    }
  });

  it('takes a version only when it is a plain version string', async () => {
    const answers = [
      'not json at all',
      '["v1.31.0"]',
      JSON.stringify({ gitVersion: 'v1.31.0\u001b[2J\u001b]0;pwned\u0007' }),
      JSON.stringify({ gitVersion: 'v1.31.0\u009b31m' }),
      JSON.stringify({ gitVersion: `v1.${'9'.repeat(200)}` }),
      JSON.stringify({ gitVersion: 'v1.31.0\nlevel=error msg=forged' }),
      JSON.stringify({ gitVersion: 'v1.33.0+k3s1' }),
    ];
    const versions: (string | undefined)[] = [];
    for (const body of answers) {
      const child = await hostile((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(body);
      });
      try {
        const answer = await probeChild(child.registration, 2000);
        expect(answer.kind).toBe('answered');
        versions.push(answer.kind === 'answered' ? answer.version : 'not answered');
      } finally {
        await child.close();
      }
    }
    expect(versions).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      'v1.33.0+k3s1',
    ]);
  });
});

describe('ChildProbes', () => {
  /** `answers` to `/version` calls and `knocks` to connects, in order; `calls` what was sent. */
  function scripted(
    answers: ProbeAnswer[],
    knocks: ProbeAnswer[] = [],
    timing: { intervalMs?: number; probeIntervalMs?: number } = {},
  ) {
    let clock = 0;
    const calls: ('version' | 'knock')[] = [];
    const probes = new ChildProbes(
      testConfig({
        probeChildren: true,
        probeFailures: 2,
        managedBy: 'cluster-registrar',
        ...timing,
      }),
      {
        mode: 'in-pass',
        now: () => clock,
        random: () => 0,
        probe: () => {
          calls.push('version');
          return Promise.resolve(answers.shift() ?? { kind: 'answered', version: 'v1.31.0' });
        },
        knock: () => {
          calls.push('knock');
          return Promise.resolve(knocks.shift() ?? { kind: 'answered', version: undefined });
        },
      },
    );
    const advance = (ms: number): void => {
      clock += ms;
    };
    /** Probes `count` times, each when the child is next due: the gaps between, in `unitMs`. */
    const gaps = async (count: number, unitMs: number): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < count; i += 1) {
        await probes.probeDue();
        times.push(clock);
        clock = probes.nextDueAt() ?? clock;
      }
      return times.slice(1).map((at, i) => (at - (times[i] ?? 0)) / unitMs);
    };
    return { probes, advance, calls, gaps };
  }
  const down: ProbeAnswer = { kind: 'failed', error: 'GET https://x/version: ECONNREFUSED' };

  it('counts consecutive failures, says when they matter, and resets at the first success', async () => {
    const { probes, advance, calls } = scripted([
      down,
      down,
      down,
      { kind: 'answered', version: 'v1.31.0' },
    ]);
    probes.track([registration('team-a', 'https://x', {})]);
    expect(await probes.probeDue()).toEqual(['team-a']); // first news: failing
    expect(probes.observed()['team-a']).toMatchObject({
      failures: 1,
      failingSince: '1970-01-01T00:00:00Z',
    });
    // At most one probe an interval.
    expect(await probes.probeDue()).toEqual([]);
    expect(probes.sent).toBe(1);
    advance(60_000);
    expect(await probes.probeDue()).toEqual(['team-a']); // reached probeFailures: paused
    // Paused: the next probe is two intervals later, not one.
    advance(60_000);
    expect(await probes.probeDue()).toEqual([]);
    expect(probes.sent).toBe(2);
    advance(60_000);
    expect(await probes.probeDue()).toEqual([]); // a third failure changes no decision
    // ... nor what the planner sees: the count stops at probeFailures.
    expect(probes.observed()['team-a']).toMatchObject({
      failures: 2,
      failingSince: '1970-01-01T00:00:00Z',
    });
    // Then four intervals.
    advance(3 * 60_000);
    expect(await probes.probeDue()).toEqual([]);
    advance(60_000);
    expect(await probes.probeDue()).toEqual(['team-a']);
    expect(probes.observed()['team-a']).toEqual({ failures: 0, version: 'v1.31.0' });
    // A failing child is knocked on before it is asked.
    expect(calls).toEqual(['version', 'knock', 'version', 'knock', 'version', 'knock', 'version']);
  });

  it('probes a paused child less often, down to once PAUSED_EVERY intervals', async () => {
    const { probes, gaps: probeGaps } = scripted(Array<ProbeAnswer>(20).fill(down));
    probes.track([registration('team-a', 'https://x', {})]);
    const gaps = await probeGaps(8, 60_000);
    // probeFailures is 2: one interval until then, then 2, 4 and PAUSED_EVERY.
    expect(gaps).toEqual([1, 2, 4, PAUSED_EVERY, PAUSED_EVERY, PAUSED_EVERY, PAUSED_EVERY]);
  });

  it('probes an answering child once a probe interval, and a failing one each interval', async () => {
    const knockFails: ProbeAnswer = { kind: 'failed', error: 'connect x:443: ECONNREFUSED' };
    const {
      probes,
      calls,
      gaps: probeGaps,
    } = scripted(
      [{ kind: 'answered', version: 'v1.31.0' }],
      [{ kind: 'answered', version: undefined }, ...Array<ProbeAnswer>(10).fill(knockFails)],
      { intervalMs: 60_000, probeIntervalMs: 180_000 },
    );
    probes.track([registration('team-a', 'https://x', {})]);
    const gaps = await probeGaps(7, 60_000);
    // Answering: a probe interval (3 minutes) apart. From the first failure (the third probe)
    // one interval until probeFailures (2) is reached, then 2, 4 and PAUSED_EVERY intervals.
    expect(gaps).toEqual([3, 3, 1, 2, 4, PAUSED_EVERY]);
    expect(calls).toEqual(['version', 'knock', 'knock', 'knock', 'knock', 'knock', 'knock']);
  });

  it('probes a failing child on the probe interval when that is the shorter', async () => {
    const { probes, gaps: probeGaps } = scripted(Array<ProbeAnswer>(20).fill(down), [], {
      intervalMs: 60_000,
      probeIntervalMs: 20_000,
    });
    probes.track([registration('team-a', 'https://x', {})]);
    const gaps = await probeGaps(5, 20_000);
    expect(gaps).toEqual([1, 2, 4, PAUSED_EVERY]);
  });

  it('knocks on an answering child between /version calls, and asks again every VERSION_EVERY intervals', async () => {
    const { probes, advance, calls } = scripted([
      { kind: 'answered', version: 'v1.31.0' },
      { kind: 'answered', version: 'v1.32.0' },
    ]);
    probes.track([registration('team-a', 'https://x', {})]);
    for (let i = 0; i <= VERSION_EVERY; i += 1) {
      await probes.probeDue();
      advance(60_000);
    }
    expect(calls).toEqual([
      'version',
      ...Array<string>(VERSION_EVERY - 1).fill('knock'),
      'version',
    ]);
    // The knocks keep what the last /version said; the next /version brings the new one.
    expect(probes.observed()['team-a']).toEqual({ failures: 0, version: 'v1.32.0' });
  });

  it('asks a failing child for /version only once something accepts its connection', async () => {
    const refused: ProbeAnswer = { kind: 'failed', error: 'connect x:443: ECONNREFUSED' };
    const { probes, advance, calls } = scripted(
      [down, { kind: 'answered', version: 'v1.31.0' }],
      [refused, refused],
    );
    probes.track([registration('team-a', 'https://x', {})]);
    let clock = 0;
    for (let i = 0; i < 4; i += 1) {
      await probes.probeDue();
      const next = probes.nextDueAt() ?? 0;
      advance(next - clock);
      clock = next;
    }
    expect(calls).toEqual(['version', 'knock', 'knock', 'knock', 'version']);
    // The refused knocks counted as failures; only the /version answer ended them.
    expect(probes.observed()['team-a']).toEqual({ failures: 0, version: 'v1.31.0' });
  });

  it('finds a child failing whose address still accepts connections, at its next /version call', async () => {
    // A load balancer in front of a stopped API server: every knock is answered.
    const { probes, advance, calls } = scripted([
      { kind: 'answered', version: 'v1.31.0' },
      down,
      down,
    ]);
    probes.track([registration('team-a', 'https://x', {})]);
    const changedAt: number[] = [];
    for (let i = 0; i <= VERSION_EVERY + 1; i += 1) {
      if ((await probes.probeDue()).length > 0) changedAt.push(i);
      advance(60_000);
    }
    expect(changedAt).toEqual([0, VERSION_EVERY, VERSION_EVERY + 1]);
    expect(calls.slice(VERSION_EVERY)).toEqual(['version', 'knock', 'version']);
    expect(probes.observed()['team-a']).toMatchObject({ failures: 2 });
  });

  it('hands out the same object while nothing changed, and forgets a registration that went', async () => {
    const { probes, advance } = scripted([]);
    probes.track([registration('team-a', 'https://x', {})]);
    await probes.probeDue();
    const first = probes.observed();
    advance(60_000);
    await probes.probeDue();
    expect(probes.observed()).toBe(first);
    probes.track([]);
    expect(probes.observed()).toEqual({});
  });

  it('hands out the same object while a paused child keeps failing the same way', async () => {
    // Each new object is a new world for the planner: a full pass over every source.
    const { probes, advance } = scripted(Array<ProbeAnswer>(10).fill(down));
    probes.track([registration('team-a', 'https://x', {})]);
    let clock = 0;
    const seen: Readonly<Record<string, unknown>>[] = [];
    for (let i = 0; i < 6; i += 1) {
      await probes.probeDue();
      seen.push(probes.observed());
      const next = probes.nextDueAt() ?? 0;
      advance(next - clock);
      clock = next;
    }
    // Failing, then paused (probeFailures is 2); from then on the same object.
    expect(new Set(seen).size).toBe(2);
    expect(seen[5]).toBe(seen[1]);
  });

  it('says the same of a child that takes connections and never answers, however long its knock took', async () => {
    // The knock before a /version call uses part of the probe's time-out. What the failure
    // says must not depend on how much, or each probe of a paused child is a new world.
    const held: Socket[] = [];
    const server = createTcpServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    let clock = 0;
    let knocks = 0;
    const probes = new ChildProbes(
      testConfig({ probeChildren: true, probeFailures: 2, managedBy: 'cluster-registrar' }),
      {
        mode: 'in-pass',
        now: () => clock,
        random: () => 0,
        timeoutMs: 200,
        knock: (child, timeoutMs) => {
          knocks += 1;
          clock += knocks * 7;
          return knockOnChild(child, timeoutMs);
        },
      },
    );
    try {
      probes.track([registration('team-a', `http://127.0.0.1:${String(port)}`, {})]);
      const seen: Readonly<Record<string, { readonly error?: string }>>[] = [];
      for (let i = 0; i < 4; i += 1) {
        await probes.probeDue();
        seen.push(probes.observed());
        clock = probes.nextDueAt() ?? clock;
      }
      expect(knocks).toBe(3);
      // Paused from the second probe on (probeFailures is 2), and the same object since.
      expect(seen[3]).toBe(seen[1]);
      expect(Object.values(seen[3] ?? {})[0]?.error).toMatch(/no answer within 200 ms$/);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('tracks only active registrations it owns', () => {
    const { probes } = scripted([]);
    const foreign = registration('team-b', 'https://y', {});
    const demoted = registration('team-c', 'https://z', {});
    probes.track([
      { ...foreign, labels: { ...foreign.labels, [`${PREFIX}managed-by`]: 'someone-else' } },
      {
        ...demoted,
        labels: {
          [`${PREFIX}managed-by`]: 'cluster-registrar',
          [`${PREFIX}source-namespace`]: 'team-c',
        },
      },
    ]);
    expect(probes.nextDueAt()).toBeUndefined();
  });
});

describe('ChildProbes in the background', () => {
  /** A clock and timers the test moves by hand: no test waits for real time. */
  function fakeTime() {
    let clock = 0;
    let order = 0;
    const timers: { at: number; order: number; fire: () => void }[] = [];
    const setTimer = (fire: () => void, ms: number): (() => void) => {
      const timer = { at: clock + ms, order: order++, fire };
      timers.push(timer);
      return () => {
        const index = timers.indexOf(timer);
        if (index >= 0) timers.splice(index, 1);
      };
    };
    /** Fires every timer due up to `until`, letting what each one started settle in between. */
    const advanceTo = async (until: number): Promise<void> => {
      for (;;) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        timers.sort((a, b) => a.at - b.at || a.order - b.order);
        const timer = timers[0];
        if (timer === undefined || timer.at > until) break;
        timers.shift();
        clock = timer.at;
        timer.fire();
      }
      clock = until;
    };
    return { now: () => clock, setTimer, advanceTo };
  }

  /** A deterministic stand-in for Math.random (a linear congruential generator). */
  function seeded(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      return state / 2 ** 31;
    };
  }

  it('probes every answering child once an interval while hundreds of others hang', async () => {
    const time = fakeTime();
    const intervalMs = 60_000;
    const timeoutMs = 5_000;
    const hanging = new Set<string>();
    const started = new Map<string, number[]>();
    let inFlight = 0;
    let mostInFlight = 0;
    const probes = new ChildProbes(
      testConfig({
        probeChildren: true,
        probeFailures: 3,
        managedBy: 'cluster-registrar',
        intervalMs,
      }),
      {
        mode: 'background',
        now: time.now,
        random: seeded(7),
        setTimer: time.setTimer,
        timeoutMs,
        // A knock and a /version call behave alike here: each is one probe of the child.
        knock: (registration) => probeOf(registration),
        probe: (registration) => probeOf(registration),
      },
    );
    function probeOf(registration: ObservedSecret): Promise<ProbeAnswer> {
      const source = registration.labels[`${PREFIX}source-namespace`] ?? '';
      started.set(source, [...(started.get(source) ?? []), time.now()]);
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      return new Promise<ProbeAnswer>((resolve) => {
        const answer = (value: ProbeAnswer): void => {
          inFlight -= 1;
          resolve(value);
        };
        if (hanging.has(source)) {
          // Black-holed: the probe's time-out is what ends it.
          time.setTimer(() => {
            answer({ kind: 'failed', error: `no answer within ${String(timeoutMs)} ms` });
          }, timeoutMs);
        } else {
          time.setTimer(() => {
            answer({ kind: 'answered', version: 'v1.36.3' });
          }, 20);
        }
      });
    }
    const registrations: ObservedSecret[] = [];
    for (let i = 0; i < 600; i += 1) {
      const source = `child-${String(i).padStart(3, '0')}`;
      if (i % 6 !== 0) hanging.add(source); // 500 hang, 100 answer
      registrations.push(registration(source, `https://10.0.0.${String(i % 250)}`, {}));
    }
    probes.track(registrations);
    const changed: string[] = [];
    const scheduler = probes.start((sources) => {
      changed.push(...sources);
    });
    const minutes = 15;
    await time.advanceTo(minutes * intervalMs);
    scheduler.stop();

    // Never more than the concurrency cap at once.
    expect(mostInFlight).toBeLessThanOrEqual(16);
    for (const [source, times] of started) {
      const gaps = times.slice(1).map((at, i) => at - (times[i] ?? 0));
      // At most one probe per child an interval, whether it answers or hangs.
      expect(Math.min(...gaps), source).toBeGreaterThanOrEqual(intervalMs);
      if (hanging.has(source)) continue;
      // An answering child is probed again an interval after its last answer, plus the
      // jitter (a tenth of the interval) and at most one hanging probe's time-out for a slot.
      expect(Math.max(...gaps), source).toBeLessThanOrEqual(intervalMs * 1.1 + timeoutMs + 20);
      // (Its first probe may wait for the first look at every child: 600 × 5 s / 16 at most.)
      expect(times.length, source).toBeGreaterThanOrEqual(minutes - 4);
    }
    // The hanging ones are probed too, as often as the slots the others leave allow.
    expect([...hanging].every((source) => (started.get(source)?.length ?? 0) >= 3)).toBe(true);
    expect(new Set(changed)).toEqual(new Set(started.keys()));
  });

  it('orders the due children at most once a second, however many probes end', async () => {
    const time = fakeTime();
    const probes = new ChildProbes(
      testConfig({ probeChildren: true, managedBy: 'cluster-registrar', intervalMs: 60_000 }),
      {
        mode: 'background',
        now: time.now,
        random: seeded(11),
        setTimer: time.setTimer,
        knock: () => Promise.resolve({ kind: 'answered', version: undefined }),
        probe: () => Promise.resolve({ kind: 'answered', version: 'v1.36.3' }),
      },
    );
    const registrations: ObservedSecret[] = [];
    for (let i = 0; i < 1000; i += 1)
      registrations.push(registration(`child-${String(i)}`, `https://10.0.${String(i)}.1`, {}));
    probes.track(registrations);
    const scheduler = probes.start(() => undefined);
    const minutes = 10;
    await time.advanceTo(minutes * 60_000);
    scheduler.stop();
    // Each child about once a minute, spread over it by the jitter.
    expect(probes.sent).toBeGreaterThan(minutes * 900);
    expect(probes.walks).toBeLessThanOrEqual(minutes * 60 + 1);
  });
});
