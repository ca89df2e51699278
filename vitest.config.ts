import { defineConfig } from 'vitest/config';

// Two projects, told apart by the file's name so no list has to be kept: `unit` (`*.unit.test.ts`)
// needs Node alone; `integration`, every other `*.test.ts`, needs a Redis, PostgreSQL and Chromium.
// `npm test` runs both; `npm run test:unit` runs on a bare machine. A unit file that imports a helper
// needing one of those fails test/architecture/unit-files.unit.test.ts.
const UNIT_FILES = 'test/**/*.unit.test.ts';
const shared = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // Files run in parallel workers; each test file isolates its own queues and key prefix in Redis.
  pool: 'forks',
  // After each file, what its tests created is removed (test/helpers/release.ts).
  setupFiles: 'test/setup/release.ts',
} as const;

/**
 * Where nothing answers: a unit test that reaches for a service fails at once, on every machine. No
 * database server either: a CLI a unit test runs gets the embedded one (test/helpers/test-database.ts).
 */
const NOWHERE = {
  REDIS_URL: 'redis://127.0.0.1:1',
  TEST_DATABASE_URL: '',
  CHROMIUM_PATH: '/nonexistent/chromium',
};

export default defineConfig({
  test: {
    // Every emulator answer in both projects is checked against the vendors' documents; this root setup
    // runs once per run whichever projects run.
    globalSetup: ['test/setup/conformance.ts'],
    // Two files at once on a 2-core machine: most files wait on emulators, subprocesses and Redis, so two
    // overlap well (one at a time took ~18 minutes). No test asserts a wall time against a fixed bound
    // that a second file beside it would break.
    maxWorkers: 2,
    // In CI also write a JSON report, from which .ci/run prints a plain "N passed, N failed" line.
    // A second run in the same CI job (the Redis Cluster suite) names its own report file.
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: process.env.VITEST_JSON_REPORT ?? '.ci/test-results.json' }]]
      : ['default'],
    projects: [
      {
        // Unit files share their worker's modules (not isolated): they hold no state between files, and
        // importing the source once per worker instead of once per file halves the project's time.
        test: { ...shared, name: 'unit', include: [UNIT_FILES], env: NOWHERE, isolate: false },
      },
      {
        test: {
          ...shared,
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [UNIT_FILES],
          // Files share their worker's modules too: each file already owns its queues, key prefix,
          // databases and servers and releases them after itself (test/setup/release.ts), and a fresh
          // module graph per file cost ~3 s of import and emulator data per file (the project took 790 s
          // with isolation, 507 s without, on 2 cores).
          isolate: false,
          // Before any integration file: a Redis (a private one when none answers at REDIS_URL) and
          // Chromium, or the run stops at once with one line naming what to install.
          globalSetup: ['test/setup/prerequisites.ts'],
        },
      },
    ],
  },
});
