// The default each setting's help, the docs and the chart show (`defaultText`) is the one
// really applied, by the flag parser or by core's parseConfig: naming it explicitly ends in
// exactly what naming nothing does.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '@argocd-cluster-registrar/core';
import { parseFlags } from './flags.js';
import { FLAGS } from './settings.js';

const withoutSources = (argv: readonly string[]) => {
  const parsed = parseFlags(argv, {});
  if (!parsed.ok) throw new Error(parsed.errors.map((e) => e.message).join('; '));
  // Where a value came from differs by design (given or defaulted); what it is must not.
  const options: { -readonly [K in keyof typeof parsed.options]?: (typeof parsed.options)[K] } = {
    ...parsed.options,
  };
  delete options.sources;
  const configured = parseConfig(parsed.options.config);
  if (!configured.ok) throw new Error(JSON.stringify(configured));
  return { ...options, config: configured.config };
};

// Settings whose default is the absence of a value ('' shows as nothing).
const NO_EXPLICIT_FORM = new Set(
  FLAGS.filter((s) => s.defaultText === undefined || s.defaultText === '').map((s) => s.name),
);

// Their shown default is the k3k preset's; naming one makes a provider of the same pattern and
// key called `custom` in place of the preset.
const PRESET_FIELDS = new Set(['secret-name-pattern', 'secret-key']);
const unnamed = (options: ReturnType<typeof withoutSources>) => ({
  ...options,
  config: {
    ...options.config,
    // A legacy flag makes a provider that reads by name and key only: the preset's marks
    // (which Secrets its provisioner labels or owns) are not a glob or a key it could show.
    providers: options.config.providers.map((provider) => ({
      ...provider,
      name: '',
      marks: undefined,
    })),
  },
});

describe('setting defaults', () => {
  const cases = FLAGS.filter((s) => !NO_EXPLICIT_FORM.has(s.name));
  it('covers the settings that show a default', () => {
    expect(cases.map((s) => s.name)).toContain('resync-period');
    expect(cases.length).toBeGreaterThan(15);
  });

  it.each(cases.map((s) => [s.name, s.defaultText ?? ''] as const))(
    '--%s: its shown default %j is the default applied',
    (name, text) => {
      const given = withoutSources([`--${name}=${text}`]);
      const none = withoutSources([]);
      if (PRESET_FIELDS.has(name)) {
        expect(unnamed(given)).toEqual(unnamed(none));
        return;
      }
      expect(given).toEqual(none);
    },
  );
});
