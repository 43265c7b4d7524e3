// The chart README (shown by `helm show readme`) carries the values table and the 0.1.x
// migration text. The table is derived from values.yaml and values.schema.json
// (values-table.ts): a value added, removed or re-described without the README fails here.
// REGISTRAR_UPDATE_CHART_README=1 rewrites the table in place.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { chartDir } from './chart-support.js';
import { TABLE_END, TABLE_START, expectedValuesTable } from './values-table.js';

const README = join(chartDir, 'README.md');

describe('chart README', () => {
  test('the values table lists every value of values.yaml with its default and description', async () => {
    let readme = await readFile(README, 'utf8');
    const { rows, table } = await expectedValuesTable();
    if (process.env['REGISTRAR_UPDATE_CHART_README'] === '1') {
      const [before = '', rest = ''] = readme.split(TABLE_START);
      readme = `${before}${TABLE_START}\n\n${table}\n\n${TABLE_END}${rest.split(TABLE_END)[1] ?? ''}`;
      await writeFile(README, readme);
    }
    const start = readme.indexOf(TABLE_START);
    const end = readme.indexOf(TABLE_END);
    expect(start, 'the README marks where the values table starts').toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    const current = readme.slice(start + TABLE_START.length, end).trim();
    expect(current, 'run with REGISTRAR_UPDATE_CHART_README=1 to regenerate').toBe(table);
    // Belt and braces: each value by name, and every one described by the schema.
    for (const row of rows) expect(current).toContain(`| \`${row.key}\` |`);
    expect(rows.filter((row) => row.description === '').map((row) => row.key)).toEqual([]);
    expect(rows.length).toBeGreaterThan(40);
  });

  test('the README is shipped in the chart package (no .helmignore drops it)', async () => {
    const ignore = await readFile(join(chartDir, '.helmignore'), 'utf8').catch(() => '');
    expect(ignore).not.toMatch(/README/);
  });
});
