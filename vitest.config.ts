import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

const src = (pkg: string): string =>
  fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the sources, not dist/, so `pnpm test` needs no build step.
    alias: {
      '@argocd-cluster-registrar/core': src('core'),
      '@argocd-cluster-registrar/k8s-adapter': src('k8s-adapter'),
    },
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'charts/**/*.test.ts', 'scripts/**/*.test.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: '.cache/vitest-report.json' },
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
