// A target's source selector, in kubectl's written form (`env=prod,team in (a,b),!legacy`). The
// grammar is `metav1.ParseToLabelSelector`'s: what works with `kubectl get -l` works here, and
// what it refuses is refused.

import type { LabelRequirement, LabelSelector, Labels } from '../common/types.js';
import { formProblem } from './form-checks.js';
import { DNS_SUBDOMAIN, LABEL_VALUE_FORM } from './forms.js';

export type SelectorResult =
  | { readonly ok: true; readonly selector: LabelSelector }
  | { readonly ok: false; readonly message: string };

const KEY_NAME = '[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?';
const LABEL_KEY = new RegExp(`^(?:${DNS_SUBDOMAIN}/)?${KEY_NAME}$`);

const FORM =
  'expected comma-separated requirements as kubectl -l takes them: key=value, key!=value, key in (a,b), key notin (a,b), key, !key';

/** Parses a selector; the empty string selects everything. */
export function parseLabelSelector(text: string): SelectorResult {
  const requirements: LabelRequirement[] = [];
  for (const part of splitRequirements(text)) {
    const requirement = parseRequirement(part.trim());
    if (typeof requirement === 'string') return { ok: false, message: requirement };
    requirements.push(requirement);
  }
  return { ok: true, selector: requirements };
}

/** Whether labels satisfy every requirement of the selector. */
export function selectorMatches(selector: LabelSelector, labels: Labels): boolean {
  return selector.every(({ key, operator, values }) => {
    const value = labels[key];
    switch (operator) {
      case 'exists':
        return value !== undefined;
      case 'doesnotexist':
        return value === undefined;
      case 'in':
        return value !== undefined && values.includes(value);
      case 'notin':
        return value === undefined || !values.includes(value);
    }
  });
}

/** Splits on the commas outside parentheses. */
function splitRequirements(text: string): string[] {
  if (text.trim() === '') return [];
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth += 1;
    else if (c === ')') depth -= 1;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function parseRequirement(part: string): LabelRequirement | string {
  if (part === '') return `has an empty requirement; ${FORM}`;
  const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
  if (set !== null) {
    const [, key = '', operator = 'in', list = ''] = set;
    const values = list.trim() === '' ? [] : list.split(',').map((value) => value.trim());
    return requirement(key, operator === 'in' ? 'in' : 'notin', values);
  }
  const equality = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
  if (equality !== null) {
    const [, key = '', operator = '=', value = ''] = equality;
    return requirement(key, operator === '!=' ? 'notin' : 'in', [value.trim()]);
  }
  if (/[\s()]/.test(part.replace(/^!\s*/, '')))
    return `has ${JSON.stringify(part)}, which is not a requirement; ${FORM}`;
  if (part.startsWith('!')) return requirement(part.slice(1).trim(), 'doesnotexist', []);
  return requirement(part, 'exists', []);
}

function requirement(
  key: string,
  operator: LabelRequirement['operator'],
  values: readonly string[],
): LabelRequirement | string {
  if (!LABEL_KEY.test(key) || key.length > 317)
    return `has ${JSON.stringify(key)}, which is not a label key; ${FORM}`;
  for (const value of values) {
    // An empty value is a valid label value (it matches a label set to "").
    if (value !== '' && formProblem(LABEL_VALUE_FORM, value) !== undefined)
      return `has ${JSON.stringify(value)} for ${key}, which is not a label value (at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit)`;
  }
  if ((operator === 'in' || operator === 'notin') && values.length === 0)
    return `lists no value for ${key}; ${FORM}`;
  return { key, operator, values: [...values].sort() };
}
