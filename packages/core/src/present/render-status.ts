// `status` on a terminal (an aligned table, then why each row is what it is) and as JSON
// (versioned). Pure: rows in, text out; `now` only marks expired credentials and dates the
// JSON document.

import { formatTimestamp } from '../translate/registration.js';
import {
  FAILING_STATES,
  STATUS_FORMAT_VERSION,
  STATUS_STATES,
  type StatusRow,
  type StatusState,
  statusRowSource,
} from './status-rows.js';
import { describeSource } from '../config/sources.js';

export interface RenderStatusOptions {
  readonly color?: boolean;
  readonly now: number;
}

export interface StatusDocument {
  readonly formatVersion: string;
  readonly generatedAt: string;
  readonly targetNamespace: string;
  readonly rows: readonly StatusRow[];
  /** Rows by state: every state, zeros included (as the plan's summary counts every kind). */
  readonly summary: Readonly<Record<string, number>>;
  /** True when a managed namespace is refused or stale (the command exits 2). */
  readonly failing: boolean;
}

/** True when a managed namespace among `rows` is refused or stale. */
export function statusFailing(rows: readonly StatusRow[]): boolean {
  return rows.some((row) => row.kind === 'namespace' && FAILING_STATES.has(row.state));
}

export function statusToJson(
  rows: readonly StatusRow[],
  targetNamespace: string,
  now: number,
): StatusDocument {
  return {
    formatVersion: STATUS_FORMAT_VERSION,
    generatedAt: formatTimestamp(now),
    targetNamespace,
    rows,
    summary: Object.fromEntries(STATUS_STATES.map((state) => [state, inState(rows, state)])),
    failing: statusFailing(rows),
  };
}

const RED: ReadonlySet<StatusState> = new Set(['refused', 'stale', 'foreign']);
const YELLOW: ReadonlySet<StatusState> = new Set(['waiting', 'drained', 'demoted', 'pinned']);

/** A column: its header, its cell, and which rows call for it when not every table has it. */
type Column = readonly [
  header: string,
  cell: (row: StatusRow, now: number) => string,
  wanted?: (row: StatusRow) => boolean,
];

const COLUMNS: readonly Column[] = [
  [
    'NAMESPACE',
    (row) => (row.kind === 'foreign' ? `(${row.secret ?? ''})` : (row.namespace ?? '-')),
  ],
  // Namespaces alone need no SOURCE.
  ['SOURCE', sourceCell, (row) => row.sourceCluster !== undefined],
  ['CLUSTER', (row) => row.cluster ?? '-'],
  ['STATE', (row) => row.state],
  ['CHILD', childCell, (row) => row.probe !== undefined || row.paused !== undefined],
  ['PROFILE', profileCell, (row) => row.profile !== undefined],
  ['CREDENTIAL', (row) => row.credential ?? '-'],
  ['EXPIRES', expires],
  ['SERVER', (row) => row.server ?? '-'],
  ['LAST WRITE', (row) => row.lastWrite ?? '-'],
];

export function renderStatusText(rows: readonly StatusRow[], options: RenderStatusOptions): string {
  if (rows.length === 0) return 'No managed namespaces and no registrations.\n';
  const paint = (state: StatusState, text: string): string => {
    if (options.color !== true) return text;
    const code = RED.has(state)
      ? '31'
      : YELLOW.has(state)
        ? '33'
        : state === 'skipped' || state === 'source-gone'
          ? '2'
          : '32';
    return `\u001b[${code}m${text}\u001b[0m`;
  };
  const columns = COLUMNS.filter(([, , wanted]) => wanted === undefined || rows.some(wanted));
  const headers = columns.map(([header]) => header);
  const stateColumn = headers.indexOf('STATE');
  const cells = rows.map((row) => columns.map(([, cell]) => cell(row, options.now)));
  const widths = headers.map((header, i) =>
    Math.max(header.length, ...cells.map((line) => (line[i] ?? '').length)),
  );
  const line = (values: readonly string[], state?: StatusState): string =>
    values
      .map((value, i) => {
        const padded = i === values.length - 1 ? value : value.padEnd(widths[i] ?? 0);
        return i === stateColumn && state !== undefined ? paint(state, padded) : padded;
      })
      .join('  ')
      .trimEnd();
  const out = [line(headers), ...cells.map((values, i) => line(values, rows[i]?.state))];

  const explained = rows.filter(
    (row) =>
      row.reason !== undefined ||
      row.next !== undefined ||
      row.paused !== undefined ||
      row.profile?.why !== undefined,
  );
  if (explained.length > 0) {
    out.push('', 'Why:');
    for (const row of explained) {
      const source = statusRowSource(row);
      const who =
        row.kind === 'namespace'
          ? describeSource(source ?? '')
          : row.kind === 'registration'
            ? `${row.secret ?? ''} (registration${source === undefined ? '' : ` of ${row.sourceCluster === undefined ? source : describeSource(source)}`})`
            : `${row.secret ?? ''} (not ours)`;
      const reason = row.reason === undefined ? '' : ` (${row.reason.code}): ${row.reason.message}`;
      out.push(`  ${who}: ${row.state}${reason}`);
      if (row.paused !== undefined) out.push(`    paused in ArgoCD: ${pausedWhy(row)}`);
      if (row.next !== undefined) out.push(`    next pass: ${row.next}`);
      if (row.profile?.why !== undefined) out.push(`    not published: ${row.profile.why}`);
    }
  }
  out.push('', summaryLine(rows));
  return `${out.join('\n')}\n`;
}

/** The child's version when it answers, `unreachable` (with how many failed probes) when not. */
function childCell(row: StatusRow): string {
  const probe = row.probe;
  const seen =
    probe === undefined
      ? '-'
      : probe.failures === 0
        ? (probe.version ?? 'reachable')
        : `unreachable (${probe.failures} failed)`;
  return row.paused === undefined ? seen : `${seen}, paused`;
}

function profileCell(row: StatusRow): string {
  const profile = row.profile;
  if (profile === undefined) return '-';
  if (profile.state === 'pending') return `pending (${profile.next ?? ''})`;
  return profile.state === 'published' ? 'published' : 'not published';
}

function pausedWhy(row: StatusRow): string {
  if (row.paused === 'paused') return 'its source is labelled or annotated paused';
  if (row.paused === 'kamaji-sleeping') return 'its Kamaji TenantControlPlane is Sleeping';
  if (row.paused === 'vcluster-sleeping') return 'its vcluster is paused or asleep';
  const probe = row.probe;
  if (probe === undefined || probe.failures === 0)
    return 'its child was unreachable; not probed since';
  const since = probe.failingSince === undefined ? '' : ` since ${probe.failingSince}`;
  return `its child is unreachable${since}: ${probe.error ?? 'no answer'}`;
}

/** `Namespace` or `Cluster/<name>`: which kind of object the row's source is. */
function sourceCell(row: StatusRow): string {
  if (row.kind === 'foreign' || row.namespace === undefined) return '-';
  return row.sourceCluster === undefined ? 'Namespace' : `Cluster/${row.sourceCluster}`;
}

function expires(row: StatusRow, now: number): string {
  if (row.credential === 'exec') return 'n/a (exec)';
  // ArgoCD reads the source's Secret at each use: its expiry is the provisioner's business.
  if (row.credential === 'secret-reference') return 'n/a (reference)';
  if (row.credentialNotAfter === undefined) return '-';
  const date = row.credentialNotAfter.slice(0, 10);
  return Date.parse(row.credentialNotAfter) <= now ? `EXPIRED ${date}` : date;
}

function summaryLine(rows: readonly StatusRow[]): string {
  const sources = rows.filter((row) => row.kind === 'namespace');
  const states = STATUS_STATES.filter((state) => inState(sources, state) > 0)
    .map((state) => `${inState(sources, state)} ${state}`)
    .join(', ');
  const managed = new Set(sources.map(statusRowSource));
  const registrations = rows.filter((row) => row.kind === 'registration');
  // A renamed source's demoted registration belongs to a managed source all the same.
  const earlier = registrations.filter((row) => managed.has(statusRowSource(row))).length;
  const others = registrations.length - earlier;
  const foreign = rows.filter((row) => row.kind === 'foreign').length;
  const clusters = sources.filter((row) => row.sourceCluster !== undefined).length;
  const namespaces = sources.length - clusters;
  const managedWhat =
    clusters === 0
      ? plural(namespaces, 'managed namespace')
      : namespaces === 0
        ? plural(clusters, 'managed Cluster')
        : `${plural(namespaces, 'managed namespace')} and ${plural(clusters, 'managed Cluster')}`;
  // Namespaces and Clusters are both sources: "namespace" alone is true only without Clusters.
  const noun = rows.some((row) => row.sourceCluster !== undefined) ? 'source' : 'namespace';
  const parts = [`${managedWhat}${states === '' ? '' : ` (${states})`}`];
  if (earlier > 0)
    parts.push(`${plural(earlier, 'earlier registration')} of a managed ${noun} (renamed away)`);
  if (others > 0) parts.push(`${plural(others, 'registration')} without a managed ${noun}`);
  if (foreign > 0) parts.push(`${plural(foreign, 'foreign Secret')} in the way`);
  return `${parts.join('; ')}.`;
}

/** How many of `rows` are in `state`; counted in STATUS_STATES order, which is sorted. */
function inState(rows: readonly StatusRow[], state: StatusState): number {
  return rows.filter((row) => row.state === state).length;
}

function plural(count: number, what: string): string {
  return `${count} ${what}${count === 1 ? '' : 's'}`;
}
