import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Before any test file: a Redis (a private one when none answers at REDIS_URL) and Chromium, or the run
    // stops at once with one line naming what to install.
    globalSetup: ['test/setup/prerequisites.ts', 'test/setup/conformance.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files run in parallel workers; each test file isolates its own queues and key prefix in Redis.
    // Two at once on a 2-core machine: most files wait on emulators, subprocesses and Redis, so two
    // overlap well (one at a time took ~18 minutes). No test asserts a wall time against a fixed
    // bound that a second file beside it would break.
    pool: 'forks',
    maxWorkers: 2,
    // In CI also write a JSON report, from which .ci/run prints a plain "N passed, N failed" line.
    // A second run in the same CI job (the Redis Cluster suite) names its own report file.
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: process.env.VITEST_JSON_REPORT ?? '.ci/test-results.json' }]]
      : ['default'],
  },
});
