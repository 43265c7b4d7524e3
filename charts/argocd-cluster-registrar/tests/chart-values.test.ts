// The chart's values against the CLI's settings table (packages/cli/src/settings.ts): every
// setting the table says the chart sets is passed as its flag, and the chart passes no flag
// the CLI does not know. A setting added to the table with a chart value, or a flag added
// to the chart, fails here until both sides agree.

import { describe, expect, test } from 'vitest';
import { FLAGS, SETTINGS } from '../../../packages/cli/src/settings.js';
import { containerOf, render } from './chart-support.js';

/** `{ a: { b: v } }` for the dotted path `a.b`. */
function valuesAt(path: string, value: unknown): Record<string, unknown> {
  return path.split('.').reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<
    string,
    unknown
  >;
}

function flagNames(args: readonly string[]): string[] {
  return args.map((arg) => /^--([a-z-]+)=/.exec(arg)?.[1] ?? arg);
}

// Values some examples need beside them: execCredentials alone is refused (no provider of the
// default list allows exec translation).
const ALONGSIDE: Readonly<Record<string, Record<string, unknown>>> = {
  execCredentials: { providers: ['capa-eks'] },
};

const charted = SETTINGS.flatMap((setting) =>
  setting.chart === undefined ? [] : [{ name: setting.name, chart: setting.chart }],
);

describe('chart values and the settings table', () => {
  test.each(charted)('$chart.value is passed as --$name', async ({ name, chart }) => {
    const values = { ...ALONGSIDE[chart.value], ...valuesAt(chart.value, chart.example) };
    const args = containerOf(await render(values)).args;
    expect(args).toContain(`--${name}=${chart.passes}`);
  });

  test('the chart passes only flags the CLI knows, each once', async () => {
    const known = new Set(FLAGS.map((s) => s.name));
    const passed = flagNames(containerOf(await render()).args);
    expect(passed.filter((name) => !known.has(name))).toEqual([]);
    expect(new Set(passed).size).toBe(passed.length);
  });
});
