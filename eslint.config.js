import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'tools/**',
      '.cache/**',
      'charts/**/templates/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      // One lint project covering sources, tests and benches (the build tsconfigs exclude tests).
      parserOptions: { project: ['./tsconfig.eslint.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // @kubernetes/client-node models are data-only classes (no behaviour, serialised by
      // attribute maps), so object literals and spreads of them are exactly how it is used.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      '@typescript-eslint/no-misused-spread': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: globals.node,
    },
  },
  {
    // The planning core is pure: no Node, no Kubernetes client, no clock, no randomness.
    files: ['packages/core/src/**/*.ts'],
    ignores: [
      'packages/core/src/**/*.test.ts',
      'packages/core/src/**/*.bench.ts',
      'packages/core/src/test-support/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'core is pure: inject I/O instead.' },
            {
              group: [
                'fs',
                'path',
                'os',
                'http',
                'https',
                'net',
                'child_process',
                'crypto',
                'buffer',
                'process',
              ],
              message: 'core is pure: inject I/O instead.',
            },
            {
              group: ['@kubernetes/*', '@argocd-cluster-registrar/k8s-adapter', 'pino', 'winston'],
              message: 'core must not depend on the client, the adapter or a logger.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'core reads no environment.' },
        { name: 'Buffer', message: "core's codecs are common/base64.ts." },
        { name: 'setTimeout', message: 'core has no clock.' },
        { name: 'fetch', message: 'core does no I/O.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'core has no clock: take `now` as an argument.',
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'core has no clock: take `now` as an argument.',
        },
        {
          selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
          message: 'core is deterministic.',
        },
      ],
    },
  },
);
