import type { Action } from '../common/types.js';

/** The Secret an action writes or removes: the desired one for a create, else the observed one. */
export function actionTarget(action: Action): {
  readonly namespace: string;
  readonly name: string;
} {
  return action.kind === 'create' ? action.secret : action.target;
}
