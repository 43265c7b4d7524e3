// The command line as tokens: which flags were given, with what values, and what was not a
// flag at all (unknown names get a "did you mean"). What the values mean is flags.ts's.

import { FLAGS, settingNamed } from './settings.js';
import type { Setting } from './settings.js';
import { closest } from './values.js';

export interface FlagError {
  readonly flag: string;
  readonly message: string;
}

export interface Tokens {
  readonly given: ReadonlyMap<string, readonly string[]>;
  readonly help: boolean;
  readonly version: boolean;
}

const FLAG_BY_NAME = new Map(FLAGS.map((s) => [s.name, s]));
const FLAG_BY_SHORT = new Map(
  FLAGS.flatMap((s) => (s.short === undefined ? [] : [[s.short, s] as const])),
);
/** The command words; anything else first is a flag (the daemon or --once). */
const COMMANDS = ['status'];

export function tokenize(
  argv: readonly string[],
  errors: FlagError[],
  commandSlot: boolean,
): Tokens {
  const given = new Map<string, string[]>();
  let help = false;
  let version = false;
  const positional = (arg: string, first: boolean): void => {
    const command = first ? closest(arg, COMMANDS, 2) : undefined;
    const flag = closest(
      arg,
      FLAGS.map((s) => s.name),
      1,
    );
    errors.push({
      flag: arg,
      message:
        command !== undefined
          ? `unknown command ${JSON.stringify(arg)} (did you mean ${command}?); the commands are ${COMMANDS.join(', ')}, and without one the registrar runs (as a daemon, or once with --once)`
          : `unexpected argument ${JSON.stringify(arg)}: this command takes flags only${flag === undefined ? '' : ` (did you mean --${flag}?)`}`,
    });
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    if (arg === '--') {
      const first = argv[i + 1];
      if (first !== undefined) positional(first, false);
      break;
    }
    if (arg === '-h' || arg === '--help' || arg === '-help') {
      help = true;
      continue;
    }
    if (arg === '--version' || arg === '-version') {
      version = true;
      continue;
    }
    // Go's flag package (the 0.1.x seed) accepts -name as well as --name.
    const match = /^--?([a-z][a-z0-9-]*)(?:=([\s\S]*))?$/.exec(arg);
    if (match === null) {
      positional(arg, commandSlot && i === 0);
      continue;
    }
    let name = match[1] ?? '';
    let inline = match[2];
    // kubectl's short forms: `-o json`, `-o=json`, `-ojson` (a single dash only).
    const short = arg.startsWith('--') ? undefined : FLAG_BY_SHORT.get(name.slice(0, 1));
    const glued = name.slice(1);
    if (
      short !== undefined &&
      inline === undefined &&
      (name.length === 1 || (!FLAG_BY_NAME.has(name) && short.values?.includes(glued) === true))
    ) {
      if (name.length > 1) inline = glued;
      name = short.name;
    } else if (short !== undefined && name.length === 1) {
      name = short.name;
    }
    const setting = FLAG_BY_NAME.get(name);
    if (setting === undefined) {
      errors.push({ flag: `--${name}`, message: `unknown flag --${name}${suggest(name)}` });
      // Its value, if it has one, is not a second problem worth reporting.
      const next = argv[i + 1];
      if (inline === undefined && next !== undefined && !next.startsWith('-')) i += 1;
      continue;
    }
    let value: string;
    if (inline !== undefined) {
      value = inline;
    } else if (setting.kind === 'bool') {
      value = 'true';
    } else {
      const next = argv[i + 1];
      if (next === undefined) {
        errors.push({
          flag: `--${name}`,
          message: `flag --${name} needs a value: ${flagForm(setting)}`,
        });
        continue;
      }
      value = next;
      i += 1;
    }
    given.set(name, [...(given.get(name) ?? []), value]);
  }
  return { given, help, version };
}

export function settingOf(name: string): Setting {
  const setting = settingNamed(name);
  if (setting === undefined) throw new Error(`no setting ${name} in the table`);
  return setting;
}

/** The accepted form of a flag, for messages. */
export function flagForm(setting: Setting): string {
  const name = setting.name;
  switch (setting.kind) {
    case 'bool':
      return `--${name}, --${name}=true or --${name}=false`;
    case 'enum':
      return `--${name}=<${(setting.values ?? []).join('|')}>`;
    case 'duration':
      return `--${name}=<duration> such as ${setting.examples ?? '500ms, 60s, 1m30s or 168h'}`;
    case 'addr':
      return `--${name}=[host]:port, or --${name}='' to disable`;
    case 'list':
    case 'string':
      return `--${name} <${setting.placeholder ?? 'value'}> or --${name}=<${setting.placeholder ?? 'value'}>`;
  }
}

function suggest(name: string): string {
  const best =
    closest(
      name,
      FLAGS.map((s) => s.name),
      2,
    ) ?? (name === 'namespace' ? 'target-namespace' : undefined);
  return best === undefined ? '' : ` (did you mean --${best}?)`;
}
