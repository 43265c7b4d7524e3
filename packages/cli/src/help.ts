// The --help text, off the settings table: settings grouped, each with its default and
// environment variable.

import { GROUPS, SETTINGS } from './settings.js';
import type { Setting } from './settings.js';

export function renderHelp(version: string): string {
  const lines: string[] = [
    `argocd-cluster-registrar ${version}`,
    '',
    'Registers k3k, vcluster, Kamaji and Cluster API child clusters with ArgoCD, and removes',
    'the registrations once their source namespaces are provably gone.',
    '',
    'Usage:',
    '  argocd-cluster-registrar [flags]                 run as a daemon',
    '  argocd-cluster-registrar --once [--dry-run]      one pass (preview with --dry-run)',
    '  argocd-cluster-registrar status [-o json]        what is registered, what is not, and why',
    '                                                   (read-only: no lease, no writes, no Events)',
    '',
    'Every flag can also be set through the environment variable shown; a flag wins over its',
    'variable. Booleans accept --flag, --flag=true or --flag=false (variables: true or false).',
    'An unknown flag or ACR_* variable is an error.',
  ];
  for (const group of GROUPS) {
    lines.push('', `${group}:`);
    for (const setting of SETTINGS.filter((s) => s.group === group)) {
      lines.push(`  ${heading(setting)}`);
      lines.push(...wrap(setting.help, 72).map((l) => `      ${l}`));
      const facts = [
        ...(setting.defaultText !== undefined
          ? [`default ${setting.defaultText === '' ? "''" : setting.defaultText}`]
          : []),
        `env ${setting.env}`,
      ];
      lines.push(`      (${facts.join('; ')})`);
    }
  }
  lines.push(
    '',
    'Other:',
    '  -h, --help      show this help',
    '  --version       print the version',
    '',
    'Exit codes: 0 success; 1 error (invalid flags, unreachable API server, failed pass);',
    '2 with --once --detailed-exitcode when the pass found changes; 2 from status when a',
    'managed namespace is refused or stale; 3 with --once --dry-run when the API server',
    'would reject a change (shown beside it in the plan).',
    '',
  );
  return lines.join('\n');
}

function heading(setting: Setting): string {
  if (setting.envOnly === true) return `${setting.env}=true (environment only)`;
  const value =
    setting.kind === 'bool'
      ? ''
      : setting.kind === 'enum'
        ? ` ${(setting.values ?? []).join('|')}`
        : ` <${setting.placeholder ?? 'value'}>`;
  return `${setting.short === undefined ? '' : `-${setting.short}, `}--${setting.name}${value}`;
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') out.push(line);
  return out;
}
