import { describe, expect, it } from 'vitest';
import { PROVIDER_ENTRY_FORM, durationForm } from './forms.js';
import { formProblem, type FormCheck } from './form-checks.js';

describe('formProblem', () => {
  const checks: readonly FormCheck[] = [
    { kind: 'accept', pattern: '^ok$', message: '' },
    { kind: 'accept', subject: '^x:(.*)$', pattern: '^fine$', message: '' },
    {
      kind: 'reject',
      subject: '^x:(.*)$',
      pattern: '^bad',
      message: '{subject} is bad in {value}',
    },
    { kind: 'require', pattern: '^[a-z:,]+$', message: '{raw}: lower-case only' },
    { kind: 'distinct', subject: '^list:(.*)$', separator: ',', message: 'twice' },
  ];

  it('takes the first failing check, in order, with its placeholders filled', () => {
    expect(formProblem(checks, 'x:badly')).toBe('"badly" is bad in "x:badly"');
    expect(formProblem(checks, 'UP')).toBe('UP: lower-case only');
    expect(formProblem(checks, 'list:a,b,a')).toBe('twice');
    expect(formProblem(checks, 'list:a,b')).toBeUndefined();
  });

  it('an accepted subject skips only the checks of that subject', () => {
    expect(formProblem(checks, 'ok')).toBeUndefined();
    // x:fine is accepted as a subject, yet the whole value must still be lower-case.
    expect(formProblem(checks, 'x:fine')).toBeUndefined();
    expect(formProblem([...checks.slice(0, 2), checks[3] as FormCheck], 'x:fine!')).toBe(
      'x:fine!: lower-case only',
    );
  });

  it('a subject that does not match skips its check', () => {
    expect(formProblem(checks, 'y:bad')).toBeUndefined();
  });

  it('durations: sign, form and Go range', () => {
    const form = durationForm();
    expect(formProblem(form, '-5s')).toMatch(/^must not be negative/);
    expect(formProblem(form, '5')).toMatch(/^must be a Go duration/);
    expect(formProblem(form, '2562047h')).toBeUndefined();
    expect(formProblem(form, '2562048h')).toMatch(/at most 2562047h$/);
  });

  it('provider entries: presets pass, custom ones are checked part by part', () => {
    expect(formProblem(PROVIDER_ENTRY_FORM, 'capa-eks')).toBeUndefined();
    expect(formProblem(PROVIDER_ENTRY_FORM, 'custom:k3k-[^x]*=a,b;exec')).toBeUndefined();
    expect(formProblem(PROVIDER_ENTRY_FORM, 'custom:k3k-[=a')).toContain('unterminated');
    expect(formProblem(PROVIDER_ENTRY_FORM, 'custom:k=a;exec;exec')).toMatch(/^lists ;exec twice/);
    expect(formProblem(PROVIDER_ENTRY_FORM, 'custom:k=a;eks')).toMatch(/^"eks" is not/);
    expect(formProblem(PROVIDER_ENTRY_FORM, 'custom:k=a,,b')).toMatch(/^"" is not a Secret/);
    expect(formProblem(PROVIDER_ENTRY_FORM, 'custom:k=a,b,a')).toMatch(/^lists a key twice/);
  });
});
