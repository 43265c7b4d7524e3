// The rule a write is judged by in the chaos runs: only a Lease valid for another holder when
// the proxy received the write counts against its sender.

import { describe, expect, it } from 'vitest';
import { otherValidHolderAt } from './lease-history.js';
import type { LeaseVersion } from './lease-history.js';

const version = (holder: string, renewedAt: number, seconds = 15): LeaseVersion => ({
  resourceVersion: `${holder}-${String(renewedAt)}`,
  holder,
  renewedAt,
  validUntil: renewedAt + seconds * 1000,
});
const isA = (holder: string) => holder === 'host_1';

describe('otherValidHolderAt', () => {
  const history = [
    version('host_2', 0),
    version('host_2', 5_000),
    // host_1 takes over after host_2's Lease ran out (5 s + 15 s).
    version('host_1', 21_000),
  ];

  it('counts a write sent while another holder renewed within its lease', () => {
    expect(otherValidHolderAt(history, 12_000, isA)).toBe('host_2');
  });

  it('does not count a write sent right after a correct takeover', () => {
    expect(otherValidHolderAt(history, 21_001, isA)).toBeUndefined();
  });

  it('does not count a write sent while nobody held a valid Lease, or after a release', () => {
    expect(otherValidHolderAt(history, 20_500, isA)).toBeUndefined();
    expect(
      otherValidHolderAt([version('host_2', 0), version('', 1000, 1)], 1500, isA),
    ).toBeUndefined();
  });

  it('does not count a write of the holder itself, nor one before any Lease', () => {
    expect(otherValidHolderAt(history, 25_000, isA)).toBeUndefined();
    expect(otherValidHolderAt(history, -1, isA)).toBeUndefined();
  });
});
