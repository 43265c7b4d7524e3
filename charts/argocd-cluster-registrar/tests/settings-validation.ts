// The generator of the chart's render-time validation of the registrar's settings: made from
// the checks the CLI runs at start-up (core's FormCheck lists, and the daemon's own
// RESYNC_PERIOD_FORM) and the settings table's chart values, so the chart refuses exactly what
// the CLI refuses, with the same message. Its output is the chart's
// templates/_settings-validation.tpl, the one place the chart checks a setting's form (the
// schema checks types, enums and unknown keys: helm can print a schema failure only as the
// raw pattern). A development tool, never shipped: settings-validation.test.ts keeps the
// template current.

import {
  EXEC_CAPABLE_PROVIDER,
  INTERVAL_FORM,
  LABEL_PREFIX_FORM,
  MANAGED_BY_FORM,
  PROVIDER_ENTRY_FORM,
  PROVIDER_LISTED_TWICE,
  SECRET_KEY_FORM,
  SECRETREADER_PATH_FORM,
  TARGET_NAMESPACE_FORM,
  durationForm,
  execCredentialsWarning,
  legacyCombinationProblem,
  secretNamePatternForm,
} from '@argocd-cluster-registrar/core';
import type { ConfigInput, FormCheck } from '@argocd-cluster-registrar/core';
import { RESYNC_PERIOD_FORM } from '../../../packages/cli/src/flags.js';
import { SETTINGS } from '../../../packages/cli/src/settings.js';

export const CHART_VALIDATION_FILE =
  'charts/argocd-cluster-registrar/templates/_settings-validation.tpl';

/**
 * Each setting's checks, by flag name (the template's name is its chart value's);
 * `optional`: an empty chart value means "not given".
 */
const FORMS: readonly {
  flag: string;
  checks: readonly FormCheck[];
  optional?: true;
  list?: true;
}[] = [
  { flag: 'target-namespace', checks: TARGET_NAMESPACE_FORM },
  { flag: 'label-prefix', checks: LABEL_PREFIX_FORM },
  { flag: 'managed-by', checks: MANAGED_BY_FORM },
  { flag: 'provider', checks: PROVIDER_ENTRY_FORM, list: true },
  { flag: 'secret-name-pattern', checks: secretNamePatternForm(), optional: true },
  { flag: 'secret-key', checks: SECRET_KEY_FORM, optional: true },
  { flag: 'interval', checks: INTERVAL_FORM },
  { flag: 'probe-interval', checks: INTERVAL_FORM },
  { flag: 'demoted-ttl', checks: durationForm() },
  { flag: 'credential-refresh-window', checks: durationForm() },
  { flag: 'resync-period', checks: RESYNC_PERIOD_FORM },
  { flag: 'secretreader-path', checks: SECRETREADER_PATH_FORM },
];

function topLevel(value: string | undefined, setting: string): string {
  if (value === undefined || value.includes('.'))
    throw new Error(`setting ${setting} has no top-level chart value`);
  return value;
}

function chartValueOfFlag(flag: string): string {
  return topLevel(SETTINGS.find((s) => s.name === flag)?.chart?.value, flag);
}

function chartValue(key: keyof ConfigInput): string {
  return topLevel(SETTINGS.find((s) => s.configKey === key)?.chart?.value, key);
}

// Go template literals: raw strings for patterns (they hold no backquote), JSON for the rest
// (its escapes are a subset of Go's).
function raw(pattern: string): string {
  if (pattern.includes('`')) throw new Error(`pattern ${pattern} holds a backquote`);
  return `\`${pattern}\``;
}

/** printf and its arguments for a message with {value}, {subject} and {raw}. */
function printf(message: string): string {
  const args: string[] = [];
  const format = message.replace(/%/g, '%%').replace(/\{(value|subject|raw)\}/g, (_, name) => {
    args.push(name === 'subject' ? '$subject' : '$value');
    return name === 'raw' ? '%s' : '%q';
  });
  return `printf ${JSON.stringify(format)}${args.map((a) => ` ${a}`).join('')}`;
}

function checkTemplate(check: FormCheck): string[] {
  if (check.kind === 'minimum' || check.kind === 'maximum') {
    const compare = check.kind === 'minimum' ? 'lt' : 'gt';
    return [
      `{{- if and (not $problem) (${compare} (include "acr.durationSeconds" $value | float64) ${check.seconds.toFixed(1)}) }}`,
      `{{- $problem = ${printf(check.message)} }}`,
      '{{- end }}',
    ];
  }
  if (check.kind === 'distinct') {
    return [
      `{{- if and (not $problem) (regexMatch ${raw(check.subject)} $value) }}`,
      `{{- $parts := splitList ${JSON.stringify(check.separator)} (regexReplaceAll ${raw(`(?:${check.subject})[\\s\\S]*$`)} $value "\${1}") }}`,
      `{{- if ne (len $parts) (len (uniq $parts)) }}{{ $problem = ${printf(check.message)} }}{{ end }}`,
      '{{- end }}',
    ];
  }
  const subjectKey = JSON.stringify(check.subject ?? '');
  const act =
    check.kind === 'accept'
      ? `{{- $_ := set $accepted ${subjectKey} true }}`
      : `{{- $problem = ${printf(check.message)} }}`;
  const test = check.kind === 'require' ? 'not (regexMatch' : '(regexMatch';
  const lines = [
    `{{- if and (not $problem) (not (hasKey $accepted ${subjectKey}))${check.subject === undefined ? '' : ` (regexMatch ${raw(check.subject)} $value)`} }}`,
  ];
  const on = check.subject === undefined ? '$value' : '$subject';
  if (check.subject !== undefined) {
    lines.push(
      `{{- $subject := regexReplaceAll ${raw(`(?:${check.subject})[\\s\\S]*$`)} $value "\${1}" }}`,
    );
  } else {
    lines.push('{{- $subject := $value }}');
  }
  lines.push(`{{- if ${test} ${raw(check.pattern)} ${on}) }}`, act, '{{- end }}', '{{- end }}');
  return lines;
}

function formTemplate(key: string, checks: readonly FormCheck[]): string {
  return [
    `{{- define "acr.form.${key}" -}}`,
    '{{- $value := . -}}',
    '{{- $problem := "" -}}',
    '{{- $accepted := dict -}}',
    ...checks.flatMap(checkTemplate),
    '{{- $problem -}}',
    '{{- end -}}',
  ].join('\n');
}

function settingCheck(form: (typeof FORMS)[number]): string {
  const name = chartValueOfFlag(form.flag);
  const check = (value: string): string[] => [
    `{{- $problem := include "acr.form.${name}" ${value} }}`,
    `{{- if $problem }}{{ fail (printf "values: ${name} %q: %s" ${value} $problem) }}{{ end }}`,
  ];
  if (form.list === true)
    return [
      '{{- $seen := dict }}',
      `{{- range $entry := .Values.${name} }}`,
      ...check('(toString $entry)'),
      `{{- if hasKey $seen (toString $entry) }}{{ fail (printf "values: ${name} %q: ${PROVIDER_LISTED_TWICE}" (toString $entry)) }}{{ end }}`,
      '{{- $_ := set $seen (toString $entry) true }}',
      '{{- end }}',
    ].join('\n');
  if (form.optional === true)
    return [`{{- with .Values.${name} }}`, ...check('(toString .)'), '{{- end }}'].join('\n');
  return check(`(toString .Values.${name})`).join('\n');
}

/** `providers` with the legacy pair: core's message, the given values spliced in by printf. */
function legacyCombination(): string[] {
  const providers = chartValue('providers');
  const pattern = chartValue('secretNamePattern');
  const key = chartValue('secretKey');
  const variants: { when: string; input: Pick<ConfigInput, 'secretNamePattern' | 'secretKey'> }[] =
    [
      {
        when: `and .Values.${pattern} .Values.${key}`,
        input: { secretNamePattern: '<<pattern>>', secretKey: '<<key>>' },
      },
      { when: `.Values.${pattern}`, input: { secretNamePattern: '<<pattern>>' } },
      { when: `.Values.${key}`, input: { secretKey: '<<key>>' } },
    ];
  const lines = [`{{- if .Values.${providers} }}`];
  variants.forEach(({ when, input }, i) => {
    const args: string[] = [];
    const format = legacyCombinationProblem(input, chartValue)
      .replace(/%/g, '%%')
      .replace(/<<(pattern|key)>>/g, (_, sentinel: string) => {
        args.push(sentinel === 'pattern' ? `.Values.${pattern}` : `.Values.${key}`);
        return '%s';
      });
    lines.push(
      `{{- ${i === 0 ? 'if' : 'else if'} ${when} }}`,
      `{{- fail (printf ${JSON.stringify(`values: ${providers} %q: ${format}`)} (join " " .Values.${providers})${args.map((a) => ` ${a}`).join('')}) }}`,
    );
  });
  lines.push('{{- end }}', '{{- end }}');
  return lines;
}

/** A Go duration in seconds (the form is checked before this is used), as core's secondsOf. */
const DURATION_SECONDS = `{{- define "acr.durationSeconds" -}}
{{- $factors := dict "ns" 0.000000001 "us" 0.000001 "µs" 0.000001 "μs" 0.000001 "ms" 0.001 "s" 1.0 "m" 60.0 "h" 3600.0 -}}
{{- $total := 0.0 -}}
{{- range $part := regexFindAll "(\\\\d+(\\\\.\\\\d*)?|\\\\.\\\\d+)(ns|us|µs|μs|ms|s|m|h)" . -1 -}}
{{- $number := regexReplaceAll "[^0-9.]+$" $part "" -}}
{{- $unit := regexReplaceAll "^[0-9.]+" $part "" -}}
{{- $total = addf $total (mulf (float64 $number) (get $factors $unit)) -}}
{{- end -}}
{{- $total -}}
{{- end -}}`;

/** The generated template, byte for byte. */
export function renderChartValidation(): string {
  const exec = execCredentialsWarning({ execCredentials: true, providers: [] });
  if (exec === undefined) throw new Error('core no longer warns about a lone exec gate');
  const providers = chartValue('providers');
  return `${[
    '{{/*',
    'Generated by charts/argocd-cluster-registrar/tests/settings-validation.ts from the checks the',
    'CLI runs at start-up: do not edit. REGISTRAR_UPDATE_CHART_VALIDATION=1 pnpm vitest run',
    'charts/argocd-cluster-registrar/tests/settings-validation.test.ts rewrites it. The one place',
    'the chart checks the form of a setting (values.schema.json checks types, enums and unknown',
    'keys: helm prints a schema failure with the raw pattern, these name the value and its form).',
    'Each acr.form.<value> prints the problem with a value, or nothing.',
    '*/}}',
    '',
    ...FORMS.map((f) => `${formTemplate(chartValueOfFlag(f.flag), f.checks)}\n`),
    DURATION_SECONDS,
    '',
    '{{/* Every setting the CLI checks at start-up, with its message; called by acr.validate. */}}',
    '{{- define "acr.validateSettings" -}}',
    // First: with both given, the CLI checks neither the legacy pair's forms.
    ...legacyCombination(),
    ...FORMS.map(settingCheck),
    // The CLI warns and goes on; a values file is written once and read by nobody at start-up,
    // so the chart refuses what would be ignored.
    `{{- if .Values.${chartValue('execCredentials')} }}`,
    '{{- $capable := false }}',
    `{{- range $entry := .Values.${providers} }}`,
    `{{- if regexMatch ${raw(EXEC_CAPABLE_PROVIDER)} (toString $entry) }}{{ $capable = true }}{{ end }}`,
    '{{- end }}',
    `{{- if not $capable }}{{ fail ${JSON.stringify(`values: ${exec}`)} }}{{ end }}`,
    '{{- end }}',
    '{{- end -}}',
  ].join('\n')}\n`;
}
