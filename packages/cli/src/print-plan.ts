// The plan on stdout, as text or JSON, with the write results when the pass applied it.

import { planToJson, renderPlanText } from '@argocd-cluster-registrar/core';
import type { Action, Plan } from '@argocd-cluster-registrar/core';
import type { ActionResult } from '@argocd-cluster-registrar/k8s-adapter';
import type { CliOptions } from './flags.js';
import { colorFor } from './io.js';
import type { Io } from './io.js';

export function printPlan(
  io: Io,
  options: CliOptions,
  planned: Plan,
  results: readonly ActionResult[] | undefined,
): void {
  if (options.output === 'json') {
    const document = planToJson(planned);
    const outcomes = results?.map((r) => ({
      kind: r.action.kind,
      cluster: r.action.cluster,
      status: r.status,
      ...(r.failure !== undefined ? { error: r.failure.message } : {}),
    }));
    io.stdout(
      `${JSON.stringify(outcomes !== undefined ? { ...document, results: outcomes } : document, null, 2)}\n`,
    );
    return;
  }
  // After an apply the headers say what was done ("was created"), not what will be.
  const resultOf = (action: Action): 'applied' | 'failed' | undefined => {
    const result = results?.find((r) => r.action === action);
    return result === undefined ? undefined : result.status === 'applied' ? 'applied' : 'failed';
  };
  io.stdout(
    renderPlanText(planned, {
      color: colorFor(io, io.stdoutIsTty),
      dryRun: options.dryRun,
      ...(results !== undefined ? { results: resultOf } : {}),
    }),
  );
  if (results !== undefined && results.length > 0) {
    const failed = results.filter((r) => r.status !== 'applied');
    io.stdout(
      `\nApplied ${results.length - failed.length} of ${results.length} change(s).${failed.length > 0 ? ` ${failed.length} not applied; see the log.` : ''}\n`,
    );
  }
}
