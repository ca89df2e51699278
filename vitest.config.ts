import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files run in parallel workers; each test file isolates its own queues and key prefix in Redis.
    pool: 'forks',
    // In CI also write a JSON report, from which .ci/run prints a plain "N passed, N failed" line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.ci/test-results.json' }]] : ['default'],
  },
});
