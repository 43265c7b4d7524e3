import { configDefaults, defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

const src = (pkg: string, entry = 'index.ts'): string =>
  fileURLToPath(new URL(`./packages/${pkg}/src/${entry}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the sources, not dist/, so `pnpm test` needs no build step.
    // A sub-entry comes before its package, which would otherwise match it as a prefix.
    alias: {
      '@argocd-cluster-registrar/core/present': src('core', 'present/index.ts'),
      '@argocd-cluster-registrar/core': src('core'),
      '@argocd-cluster-registrar/k8s-adapter': src('k8s-adapter'),
      '@argocd-cluster-registrar/testkit': src('testkit'),
    },
  },
  test: {
    reporters: ['default', 'json'],
    outputFile: { json: '.cache/vitest-report.json' },
    projects: [
      {
        // Pure: no servers, fully parallel.
        extends: true,
        test: {
          name: 'unit',
          // docs/: the Markdown link check (reads files only); scripts/release/: the release's
          // version agreement and the workflows' lint (files and actionlint only).
          include: [
            'packages/core/**/*.test.ts',
            'docs/**/*.test.ts',
            'scripts/release/**/*.test.ts',
          ],
          testTimeout: 30_000,
        },
      },
      {
        // Against real etcd + kube-apiserver planes started once per run by the global setup
        // (the first run on a machine also builds the binaries, which takes minutes).
        extends: true,
        test: {
          name: 'integration',
          include: [
            'packages/k8s-adapter/**/*.test.ts',
            'packages/cli/**/*.test.ts',
            'packages/testkit/**/*.test.ts',
            'charts/**/*.test.ts',
            'scripts/**/*.test.ts',
          ],
          exclude: [...configDefaults.exclude, 'scripts/release/**'],
          globalSetup: ['./packages/testkit/src/global-setup.ts'],
          // Two cores run both planes already: one test file at a time.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
