// The chart README's values table, derived from values.yaml (every key and its default) and
// values.schema.json (its description), so the table cannot drift from the chart: readme.test.ts
// compares the README with this, and rewrites it when REGISTRAR_UPDATE_CHART_README=1.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { YAML, chartDir } from './chart-support.js';

export const TABLE_START =
  '<!-- values table: generated from values.yaml and values.schema.json -->';
export const TABLE_END = '<!-- end of values table -->';

interface SchemaNode {
  readonly description?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
}

export interface ValueRow {
  readonly key: string;
  readonly default: unknown;
  readonly description: string;
}

/** Every leaf of values.yaml: scalars, lists and empty maps, by dotted path, in file order. */
export function valueRows(values: unknown, schema: SchemaNode): ValueRow[] {
  const rows: ValueRow[] = [];
  // A key inside a free-form map (resources.requests.cpu) takes the map's description.
  const visit = (
    value: unknown,
    node: SchemaNode | undefined,
    path: string,
    inherited: string,
  ): void => {
    const description = node?.description ?? inherited;
    const isMap = value !== null && typeof value === 'object' && !Array.isArray(value);
    if (isMap && Object.keys(value).length > 0) {
      for (const [key, child] of Object.entries(value as Record<string, unknown>))
        visit(child, node?.properties?.[key], path === '' ? key : `${path}.${key}`, description);
      return;
    }
    rows.push({ key: path, default: value, description });
  };
  visit(values, schema, '', '');
  return rows;
}

function cell(text: string): string {
  // Markdown would take <labelPrefix> for an HTML tag.
  return text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\n/g, ' ');
}

export function renderValuesTable(rows: readonly ValueRow[]): string {
  return [
    '| value | default | description |',
    '|---|---|---|',
    ...rows.map(
      (row) =>
        `| \`${row.key}\` | \`${cell(JSON.stringify(row.default))}\` | ${cell(row.description)} |`,
    ),
  ].join('\n');
}

export async function expectedValuesTable(): Promise<{ rows: ValueRow[]; table: string }> {
  const values = YAML.parse(await readFile(join(chartDir, 'values.yaml'), 'utf8'));
  const schema = JSON.parse(
    await readFile(join(chartDir, 'values.schema.json'), 'utf8'),
  ) as SchemaNode;
  const rows = valueRows(values, schema);
  return { rows, table: renderValuesTable(rows) };
}
