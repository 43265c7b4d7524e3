// The environment half of the settings: each setting's ACR_* variable, read off the
// table. An unknown ACR_* variable is an error with the closest known name, never ignored
// (a typo in a Deployment's env must fail loudly, like a typo in a flag).

import { SETTINGS } from './settings.js';
import type { Setting } from './settings.js';
import { closest } from './values.js';

export const ENV_PREFIX = 'ACR_';

export interface EnvProblem {
  readonly variable: string;
  readonly message: string;
}

export interface EnvReading {
  /** The value of each setting given through its variable, by setting name. */
  readonly values: ReadonlyMap<string, string>;
  readonly problems: readonly EnvProblem[];
}

const BY_ENV = new Map(SETTINGS.map((s) => [s.env, s]));
const KNOWN = SETTINGS.map((s) => s.env);

export function readEnv(env: Readonly<Record<string, string | undefined>>): EnvReading {
  const values = new Map<string, string>();
  const problems: EnvProblem[] = [];
  for (const [variable, value] of Object.entries(env)) {
    if (!variable.startsWith(ENV_PREFIX) || value === undefined) continue;
    const setting = BY_ENV.get(variable);
    if (setting === undefined) {
      const suggestion = closest(variable, KNOWN, Number.POSITIVE_INFINITY);
      problems.push({
        variable,
        message: `unknown environment variable ${variable}${suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`}`,
      });
      continue;
    }
    // An empty variable means "not set", except for addresses where '' disables the server.
    if (value === '' && setting.kind !== 'addr') continue;
    values.set(setting.name, value);
  }
  return { values, problems };
}

/** The accepted form of a setting's variable, for messages. */
export function envForm(setting: Setting): string {
  switch (setting.kind) {
    case 'bool':
      return `${setting.env}=true or ${setting.env}=false`;
    case 'enum':
      return `${setting.env}=<${(setting.values ?? []).join('|')}>`;
    case 'list':
      return `${setting.env}=<${setting.placeholder ?? 'value'}>[,<${setting.placeholder ?? 'value'}>...]`;
    case 'addr':
      return `${setting.env}=[host]:port, or ${setting.env}='' to disable`;
    case 'duration':
    case 'string':
      return `${setting.env}=<${setting.placeholder ?? 'value'}>`;
  }
}
