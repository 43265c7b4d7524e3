// The chart's render-time validation of the registrar's settings, generated from the checks
// core runs at start-up (its FormCheck lists) and the settings table's chart values, so the
// chart refuses exactly what the CLI refuses, with the same message. The output is the
// chart's templates/_settings-validation.tpl; chart-validation.test.ts keeps it current.

import {
  EXEC_CAPABLE_PROVIDER,
  INTERVAL_FORM,
  LABEL_PREFIX_FORM,
  MANAGED_BY_FORM,
  PROVIDER_ENTRY_FORM,
  PROVIDER_LISTED_TWICE,
  SECRET_KEY_FORM,
  TARGET_NAMESPACE_FORM,
  durationForm,
  execCredentialsWarning,
  legacyCombinationProblem,
  secretNamePatternForm,
} from '@argocd-cluster-registrar/core';
import type { ConfigInput, FormCheck } from '@argocd-cluster-registrar/core';
import { SETTINGS } from './settings.js';

export const CHART_VALIDATION_FILE =
  'charts/argocd-cluster-registrar/templates/_settings-validation.tpl';

/** Each core setting's checks; `optional`: an empty chart value means "not given". */
const FORMS: readonly {
  key: keyof ConfigInput;
  checks: readonly FormCheck[];
  optional?: true;
  list?: true;
}[] = [
  { key: 'targetNamespace', checks: TARGET_NAMESPACE_FORM },
  { key: 'labelPrefix', checks: LABEL_PREFIX_FORM },
  { key: 'managedBy', checks: MANAGED_BY_FORM },
  { key: 'providers', checks: PROVIDER_ENTRY_FORM, list: true },
  { key: 'secretNamePattern', checks: secretNamePatternForm(), optional: true },
  { key: 'secretKey', checks: SECRET_KEY_FORM, optional: true },
  { key: 'interval', checks: INTERVAL_FORM },
  { key: 'demotedTTL', checks: durationForm() },
  { key: 'credentialRefreshWindow', checks: durationForm() },
];

function chartValue(key: keyof ConfigInput): string {
  const value = SETTINGS.find((s) => s.configKey === key)?.chart?.value;
  if (value === undefined || value.includes('.'))
    throw new Error(`setting ${key} has no top-level chart value`);
  return value;
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
  const name = chartValue(form.key);
  const check = (value: string): string[] => [
    `{{- $problem := include "acr.form.${form.key}" ${value} }}`,
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

/** The generated template, byte for byte. */
export function renderChartValidation(): string {
  const exec = execCredentialsWarning({ execCredentials: true, providers: [] });
  if (exec === undefined) throw new Error('core no longer warns about a lone exec gate');
  const providers = chartValue('providers');
  return `${[
    '{{/*',
    'Generated by packages/cli/src/chart-validation.ts from the checks the CLI runs at start-up: do',
    'not edit. REGISTRAR_UPDATE_CHART_VALIDATION=1 pnpm vitest run packages/cli/src/chart-validation.test.ts',
    'rewrites it. Each acr.form.<setting> prints the problem with a value, or nothing.',
    '*/}}',
    '',
    ...FORMS.map((f) => `${formTemplate(f.key, f.checks)}\n`),
    '{{/* Every setting the CLI checks at start-up, with its message; called by acr.validateForms. */}}',
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
