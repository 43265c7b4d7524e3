// Value syntax the settings share: provider lists, Go-style listen addresses, and the
// nearest known name for a did-you-mean.

import { PROVIDER_PRESET_NAMES } from '@argocd-cluster-registrar/core';

// Custom providers carry their own comma list of keys (`custom:<glob>=<a>,<b>`), so a
// fragment that does not start a new provider continues the previous custom entry (its
// `;exec` option included: `custom:<glob>=a,b;exec`).
const PRESETS: ReadonlySet<string> = new Set(PROVIDER_PRESET_NAMES);

export function splitProviderList(text: string): string[] {
  const presets = PRESETS;
  const entries: string[] = [];
  for (const fragment of text.split(',')) {
    const piece = fragment.trim();
    if (piece === '') continue;
    const previous = entries[entries.length - 1];
    const startsEntry = piece.startsWith('custom:') || presets.has(piece);
    if (!startsEntry && previous?.startsWith('custom:') === true) {
      entries[entries.length - 1] = `${previous},${piece}`;
    } else {
      entries.push(piece);
    }
  }
  return entries;
}

export interface ListenAddress {
  /** undefined: all interfaces. */
  readonly host?: string;
  readonly port: number;
}

/** Go-style listen address: `:8080`, `127.0.0.1:8080`, `[::1]:8080`, `localhost:0`. */
export function parseListenAddress(text: string): ListenAddress | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]*)):(\d{1,5})$/.exec(text);
  if (match === null) return undefined;
  const port = Number(match[3]);
  if (!Number.isInteger(port) || port > 65535) return undefined;
  const host = match[1] ?? match[2] ?? '';
  return host === '' ? { port } : { host, port };
}

/** The candidate closest to `name` by edit distance, if within `maxDistance`. */
export function closest(
  name: string,
  candidates: readonly string[],
  maxDistance: number,
): string | undefined {
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = row[j] ?? 0;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(above + 1, (row[j - 1] ?? 0) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return row[b.length] ?? 0;
}
