// The plan on stdout, as text or JSON, with the write results when the pass applied it, or
// the API server's verdict on each write when it was a dry run.

import { planToJson, renderPlanText } from '@argocd-cluster-registrar/core';
import type { Action, DryRunNote, Plan } from '@argocd-cluster-registrar/core';
import { dryRunVerdict } from '@argocd-cluster-registrar/k8s-adapter';
import type { ActionResult } from '@argocd-cluster-registrar/k8s-adapter';
import type { CliOptions } from './flags.js';
import { colorFor } from './io.js';
import type { Io } from './io.js';

export function printPlan(
  io: Io,
  options: CliOptions,
  planned: Plan,
  results: readonly ActionResult[] | undefined,
  /** A dry run's results: what the API server said of each write it validated. */
  previewed: readonly ActionResult[] = [],
  /** Further top-level fields of the JSON document (a run's rounds). */
  extra: Readonly<Record<string, unknown>> = {},
): void {
  if (options.output === 'json') {
    const document = planToJson(planned);
    // One entry per action written or validated. Added fields keep formatVersion "1".
    const outcomes =
      results?.map((r) => ({
        kind: r.action.kind,
        cluster: r.action.cluster,
        status: r.status,
        ...(r.failure !== undefined ? { error: r.failure.message } : {}),
      })) ??
      (previewed.length === 0
        ? undefined
        : previewed.map((r) => {
            const verdict = dryRunVerdict(r);
            return {
              kind: r.action.kind,
              cluster: r.action.cluster,
              status: r.status,
              verdict: verdict.verdict,
              ...(verdict.verdict === 'accepted' ? {} : { error: verdict.reason }),
            };
          }));
    // Always present, empty when nothing was written or validated: one shape for every run.
    io.stdout(`${JSON.stringify({ ...document, results: outcomes ?? [], ...extra }, null, 2)}\n`);
    return;
  }
  // After an apply the headers say what was done ("was created"), not what will be.
  const resultOf = (action: Action): 'applied' | 'failed' | undefined => {
    const result = results?.find((r) => r.action === action);
    return result === undefined ? undefined : result.status === 'applied' ? 'applied' : 'failed';
  };
  const notes = new Map<Action, DryRunNote>();
  for (const result of previewed) {
    const verdict = dryRunVerdict(result);
    if (verdict.verdict === 'rejected') notes.set(result.action, { rejected: verdict.reason });
    if (verdict.verdict === 'not-validated')
      notes.set(result.action, { notValidated: verdict.reason });
  }
  io.stdout(
    renderPlanText(planned, {
      color: colorFor(io, io.stdoutIsTty),
      dryRun: options.dryRun,
      ...(results !== undefined ? { results: resultOf } : {}),
      ...(notes.size > 0 ? { verdicts: (action: Action) => notes.get(action) } : {}),
    }),
  );
}

/** Whether a dry run's API server would reject any of the writes it validated. */
export function anyRejected(previewed: readonly ActionResult[]): boolean {
  return previewed.some((result) => dryRunVerdict(result).verdict === 'rejected');
}
