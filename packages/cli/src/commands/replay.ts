// `--from-snapshot`: plan from a snapshot saved by --save-snapshot. No cluster, no writes.

import { readFileSync } from 'node:fs';
import { configuredTranslator, plan, snapshotFromJson } from '@argocd-cluster-registrar/core';
import type { Config } from '@argocd-cluster-registrar/core';
import { EXIT_CHANGES, EXIT_OK, UsageError } from '../exit-codes.js';
import type { CliOptions } from '../flags.js';
import type { Io } from '../io.js';
import { printPlan } from '../print-plan.js';

export function replaySnapshot(io: Io, options: CliOptions, config: Config): number {
  const file = options.fromSnapshot ?? '';
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `cannot read the snapshot ${file}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const loaded = snapshotFromJson(text);
  if (!loaded.ok) {
    throw new UsageError(`${file} is not a snapshot saved by --save-snapshot: ${loaded.error}`);
  }
  const replayed = plan(loaded.snapshot, config, Date.now(), {
    translate: configuredTranslator(config),
  });
  printPlan(io, options, replayed);
  return options.detailedExitcode && replayed.actions.length > 0 ? EXIT_CHANGES : EXIT_OK;
}
