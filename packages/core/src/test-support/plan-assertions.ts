// Reading a plan in a test: the one action of a kind (failing with the plan's actions when
// there is not exactly one), and the actions as `kind cluster` lines.

import { expect } from 'vitest';
import type { Action, Plan } from '../common/types.js';

export function only<K extends Action['kind']>(
  result: Plan,
  kind: K,
): Extract<Action, { kind: K }> {
  const actions = result.actions.filter(
    (action): action is Extract<Action, { kind: K }> => action.kind === kind,
  );
  expect(
    actions,
    `exactly one ${kind} in ${JSON.stringify(result.actions.map((a) => `${a.kind} ${a.cluster}`))}`,
  ).toHaveLength(1);
  return actions[0] as Extract<Action, { kind: K }>;
}

export function kinds(result: Plan): string[] {
  return result.actions.map((action) => `${action.kind} ${action.cluster}`);
}
