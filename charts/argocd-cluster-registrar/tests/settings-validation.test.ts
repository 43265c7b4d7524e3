// The chart's generated settings validation is what the generator makes of core's checks
// today (REGISTRAR_UPDATE_CHART_VALIDATION=1 rewrites it); that helm then refuses what the CLI
// refuses, in the same words, is proven in the chart's settings-parity.test.ts.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHART_VALIDATION_FILE, renderChartValidation } from './settings-validation.js';
import { repoRoot as REPO } from './chart-support.js';

describe('the chart validation template', () => {
  it('is current with the CLI checks it is generated from', async () => {
    const file = join(REPO, CHART_VALIDATION_FILE);
    const expected = renderChartValidation();
    if (process.env['REGISTRAR_UPDATE_CHART_VALIDATION'] === '1') await writeFile(file, expected);
    expect(
      await readFile(file, 'utf8'),
      `${CHART_VALIDATION_FILE} is stale: run REGISTRAR_UPDATE_CHART_VALIDATION=1 pnpm vitest run charts/argocd-cluster-registrar/tests/settings-validation.test.ts`,
    ).toBe(expected);
  });
});
