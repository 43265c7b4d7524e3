// The human preview of a plan, in the manner of `terraform plan`: one block per action with
// its symbol, its reason and a field-level diff (render-diff.ts); then the namespaces that need
// attention, the warnings and a summary line. Credentials appear only as `(sensitive value)`:
// certificates with their fingerprint, so a rotation is visible; others with no hash at all.

import type {
  Action,
  ActionKind,
  FieldChange,
  NamespaceOutcome,
  OutcomeState,
  Plan,
  Warning,
} from '../common/types.js';
import { redactChange, summarisePlan } from './render-json.js';
import { CONCEALED } from './sensitive-display.js';
import { actionTarget } from '../plan/action-target.js';
import { assertNever } from '../common/assert-never.js';
import { describeSource, sourceEnding, sourceNoun } from '../config/sources.js';
import { describeChanges, type ChangeDescriber } from './render-diff.js';

export interface RenderTextOptions {
  /** ANSI colours (default off: logs and tests get plain text). */
  readonly color?: boolean;
  /** Say that nothing will be written. */
  readonly dryRun?: boolean;
  /** After an apply: each action's result (`undefined`: not attempted), said as done. */
  readonly results?: (action: Action) => ApplyResult;
  /** The API server's dry-run verdict on a write: why it would reject or could not validate it. */
  readonly verdicts?: (action: Action) => DryRunNote | undefined;
}

type ApplyResult = 'applied' | 'failed' | undefined;

/** What the API server's own dry run said of one write, when it did not simply accept it. */
export type DryRunNote = { readonly rejected: string } | { readonly notValidated: string };

/** Symbol, past tense and colour per action kind. `»`: a demotion moves aside, removing nothing. */
const ACTIONS: Readonly<Record<ActionKind, { symbol: string; verb: string; colour: string }>> = {
  create: { symbol: '+', verb: 'created', colour: '32' },
  update: { symbol: '~', verb: 'updated', colour: '33' },
  demote: { symbol: '»', verb: 'demoted', colour: '36' },
  delete: { symbol: '-', verb: 'deleted', colour: '31' },
};

export const LEGEND = 'Symbols: + create, ~ update, » demote (kept aside for a revert), - delete';

// Outcomes worth a line of their own; registered/unchanged are covered by the actions and
// the summary, skipped namespaces by their warning.
const ATTENTION_STATES: ReadonlySet<OutcomeState> = new Set(['waiting', 'refused', 'stale']);

export function renderPlanText(plan: Plan, options: RenderTextOptions = {}): string {
  return renderPlanTextWith(plan, describeChanges, options);
}

/** {@link renderPlanText} with each action's changes given: the layout alone. */
export function renderPlanTextWith(
  plan: Plan,
  describe: ChangeDescriber,
  options: RenderTextOptions = {},
): string {
  const paint = painter(options.color === true);
  const lines: string[] = [];

  if (options.dryRun === true) {
    lines.push(paint.bold('Dry run: this is what would change; nothing will be written.'), '');
  }

  let rejectedCount = 0;
  if (plan.actions.length > 0) lines.push(LEGEND, '');
  for (const action of plan.actions) {
    const note = options.verdicts?.(action);
    const rejected = note !== undefined && 'rejected' in note;
    if (rejected) rejectedCount += 1;
    const result = rejected ? undefined : options.results?.(action);
    lines.push(...renderAction(action, describe(action), paint, result, note), '');
  }

  // A verdict withheld for incomplete input is `unchanged`, but it is not up to date: shown.
  const attention = plan.outcomes.filter(
    (outcome) => ATTENTION_STATES.has(outcome.state) || outcome.reason?.code === 'input-incomplete',
  );
  if (attention.length > 0) {
    // Namespaces alone keep the heading they always had; with a Cluster among them it says
    // what both kinds are.
    const clusters = attention.some((outcome) => sourceNoun(outcome.namespace) === 'Cluster');
    lines.push(paint.bold(`${clusters ? 'Sources' : 'Namespaces'} needing attention:`));
    const width = Math.max(...attention.map((outcome) => outcome.state.length));
    for (const outcome of attention) lines.push(...renderOutcome(outcome, width, paint));
    lines.push('');
  }

  if (plan.warnings.length > 0) {
    lines.push(paint.bold('Warnings:'));
    for (const warning of plan.warnings) lines.push(renderWarning(warning, paint));
    lines.push('');
  }

  if (rejectedCount > 0) {
    lines.push(
      paint.red(
        `${rejectedCount} of ${plan.actions.length} ${plan.actions.length === 1 ? 'change' : 'changes'} would be rejected by the API server (see above): applying this plan would fail.`,
      ),
    );
  }
  const results = options.results;
  const afterApply = results !== undefined && plan.actions.length > 0;
  lines.push(paint.bold(afterApply ? applySummaryLine(plan, results) : summaryLine(plan)));
  return `${lines.join('\n')}\n`;
}

/**
 * After an apply, what was done, as Terraform ends one: `Apply complete! Registrations: 1
 * created, 0 updated, 0 demoted, 0 deleted.`, or `Apply incomplete: …` naming how many
 * changes were not applied.
 */
export function applySummaryLine(plan: Plan, results: (action: Action) => ApplyResult): string {
  const applied = plan.actions.filter((action) => results(action) === 'applied');
  const done = summarisePlan({ ...plan, actions: applied });
  const notApplied = plan.actions.length - applied.length;
  const counts = `${done.create} created, ${done.update} updated, ${done.demote} demoted, ${done.delete} deleted`;
  if (notApplied === 0) return `Apply complete! Registrations: ${counts}.`;
  return `Apply incomplete: ${notApplied} of ${plan.actions.length} ${plan.actions.length === 1 ? 'change' : 'changes'} not applied (see above and the log). Registrations: ${counts}.`;
}

/** `Plan: 1 to create, 2 to update, 0 to demote, 1 to delete.` or `No changes. …`. */
export function summaryLine(plan: Plan): string {
  const summary = summarisePlan(plan);
  const withheld =
    summary.withheld === 0
      ? ''
      : ` ${summary.withheld} withheld: part of the input could not be read.`;
  if (plan.actions.length === 0) {
    const pending = plan.outcomes.filter(
      (outcome) => outcome.state === 'unchanged' && outcome.reason?.code === 'input-incomplete',
    ).length;
    const upToDate = summary.unchanged + summary.registered - pending;
    return `No changes. ${upToDate} ${upToDate === 1 ? 'registration' : 'registrations'} up to date.${withheld}`;
  }
  return `Plan: ${summary.create} to create, ${summary.update} to update, ${summary.demote} to demote, ${summary.delete} to delete.${withheld}`;
}

/** The one-line reason for an action, in words. */
export function describeReason(action: Action): string {
  const reason = action.reason;
  const source = describeSource(reason.namespace);
  switch (reason.code) {
    case 'new-registration':
      return `${source} is not registered yet`;
    case 'restored':
      return `the registration of ${source} is missing and is restored`;
    case 'credentials-changed':
      return `the credentials in the kubeconfig of ${source} changed`;
    case 'server-changed':
      return `the server address of ${source} changed`;
    case 'ca-changed':
      return `the certificate authority of ${source} changed`;
    case 'metadata-changed':
      return `the labels or annotations of ${source} changed`;
    case 'restored-from-demotion':
      return `${source} claims this cluster again: the demoted registration is restored`;
    case 'taken-over':
      return `${source} takes over the registration that ${describeSource(reason.previousNamespace)} gave up`;
    case 'drained':
      return `${source} ${sourceEnding(reason.namespace)}: the copied labels (${reason.labels.join(', ')}) are removed so ApplicationSet generators drop its Applications while ArgoCD can still reach the cluster; the registration is deleted once the ${sourceNoun(reason.namespace)} is gone`;
    case 'renamed':
      return `${source} now registers as ${reason.supersededBy}; this one is kept aside until the demoted TTL expires, so reverting the label restores it`;
    case 'source-namespace-not-found':
    case 'source-cluster-not-found':
      return `source ${source} no longer exists`;
    case 'source-namespace-replaced':
    case 'source-cluster-replaced':
      return `source ${source} was re-created (recorded uid ${reason.recordedUid}, now ${reason.observedUid})`;
    case 'demotion-expired':
      return `demoted since ${reason.staleSince} (${source}), longer than the demoted TTL`;
    default:
      return assertNever(reason, 'reason');
  }
}

// ---------------------------------------------------------------------------------------

type Painter = ReturnType<typeof painter>;

function painter(color: boolean) {
  const sgr =
    (code: string) =>
    (text: string): string =>
      color ? `\u001b[${code}m${text}\u001b[0m` : text;
  const symbol = (of: ActionKind): string => sgr(ACTIONS[of].colour)(ACTIONS[of].symbol);
  return { bold: sgr('1'), dim: sgr('2'), red: sgr('31'), yellow: sgr('33'), symbol };
}

function renderAction(
  action: Action,
  fieldChanges: readonly FieldChange[],
  paint: Painter,
  result: ApplyResult,
  note: DryRunNote | undefined,
): string[] {
  const target = actionTarget(action);
  const verb = ACTIONS[action.kind].verb;
  const done =
    note !== undefined && 'rejected' in note
      ? paint.red(`would be rejected by the API server: ${note.rejected}`)
      : result === 'applied'
        ? `was ${verb}`
        : result === 'failed'
          ? paint.red(`was not ${verb}: the write failed, see the log`)
          : `will be ${verb}`;
  const lines = [
    `${paint.symbol(action.kind)} ${paint.bold(`${target.namespace}/${target.name}`)} ${done} (cluster ${JSON.stringify(action.cluster)})`,
    `    ${paint.dim('reason:')} ${describeReason(action)}`,
  ];
  if (note !== undefined && 'notValidated' in note) {
    lines.push(
      `    ${paint.dim('note:')} the API server could not validate this write: ${note.notValidated}`,
    );
  }
  const changes = fieldChanges.map(redactChange);
  const width = Math.max(0, ...changes.map((change) => change.field.length));
  for (const change of changes) lines.push(`    ${renderChange(change, width, paint)}`);
  return lines;
}

function renderChange(change: FieldChange, width: number, paint: Painter): string {
  const { before, after, sensitive } = change;
  // Neither side: a field the planner names without values (e.g. a redacted rotation).
  const values = [before, after].filter((value) => value !== undefined);
  const kind = values.length !== 1 ? 'update' : before === undefined ? 'create' : 'delete';
  // A sensitive value is shown as the prefix alone, with its fingerprint if it has one.
  const fingerprints = values.filter((value) => value !== CONCEALED);
  const shown = !sensitive
    ? values.map((value) => ` ${JSON.stringify(value)}`).join(' →')
    : values.length === 2 && fingerprints.length < 2
      ? ` ${CONCEALED} changed`
      : ` ${CONCEALED}${fingerprints.map((value) => ` ${value}`).join(' →')}`;
  const label = `${change.field}:`.padEnd(width + 1);
  return `${paint.symbol(kind)} ${label}${shown}`.trimEnd();
}

function renderOutcome(outcome: NamespaceOutcome, width: number, paint: Painter): string[] {
  const colour = outcome.state === 'refused' ? paint.red : paint.yellow;
  const state = colour(outcome.state.padEnd(width));
  const cluster =
    outcome.cluster === undefined ? '' : ` (cluster ${JSON.stringify(outcome.cluster)})`;
  const why =
    outcome.reason === undefined ? '' : `: ${outcome.reason.message} [${outcome.reason.code}]`;
  // A namespace by its bare name, as these lines always showed it; a Cluster named as one.
  const key = outcome.namespace;
  const source = sourceNoun(key) === 'Cluster' ? describeSource(key) : key;
  const lines = [`  ${state}  ${source}${cluster}${why}`];
  for (const { candidate, refusal } of outcome.rejected) {
    // The reason already quotes a lone candidate's refusal (a stale reason wraps it in what
    // is kept); saying it twice is noise.
    if (outcome.reason?.message.includes(refusal.message) === true) continue;
    lines.push(
      `  ${' '.repeat(width)}    ${paint.dim('candidate')} ${candidate.secret}[${candidate.key}] (${candidate.provider}): ${refusal.message} [${refusal.code}]`,
    );
  }
  return lines;
}

function renderWarning(warning: Warning, paint: Painter): string {
  const { namespace: source, secret } = warning;
  // `<namespace>/<registration>` for a namespace; a Cluster's key already holds a `/`, so
  // its registration is named in words.
  const where =
    source === undefined
      ? ''
      : sourceNoun(source) === 'Cluster'
        ? `${describeSource(source)}${secret === undefined ? '' : `, registration ${secret}`}: `
        : `${source}${secret === undefined ? '' : `/${secret}`}: `;
  return `  ${paint.yellow('!')} ${where}${warning.message} [${warning.code}]`;
}
