#!/usr/bin/env node
// Prints `N passed, N failed` from vitest's JSON report (CI reads this line). Type-check or
// lint failures (second argument non-zero) count as one failed check each run, so a red
// build can never print "0 failed".
import { readFileSync, existsSync } from 'node:fs';

const [reportPath = '.cache/vitest-report.json', checkStatus = '0'] = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(reportPath)) {
  const report = JSON.parse(readFileSync(reportPath, 'utf8'));
  passed = report.numPassedTests ?? 0;
  failed = report.numFailedTests ?? 0;
  // A file that failed to load or whose hooks failed has no failed test of its own: count it.
  for (const file of report.testResults ?? []) {
    const fileFailed = file.status === 'failed';
    const anyTestFailed = (file.assertionResults ?? []).some((t) => t.status === 'failed');
    if (fileFailed && !anyTestFailed) failed += 1;
  }
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
} else {
  failed = 1; // the runner never produced a report
}
if (checkStatus !== '0' && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed === 0 ? 0 : 1);
