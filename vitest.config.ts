import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    exclude: ['dist/**', 'node_modules/**'],
    // Safety nets, not measures: on a loaded machine (2 cores shared by many jobs) a slow test, a server's start in a
    // beforeAll or PostgreSQL's stop in the global teardown takes many times its usual time; none may fail for that.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    teardownTimeout: 300_000,
    pool: 'forks',
    // A throwaway PostgreSQL server for the run (scripts/with-postgres.sh), unless DATABASE_URL names one.
    // Then a temp directory of its own for the run, one per test file inside it; the run fails when a test leaves
    // anything there (tests/support/temp-dir-global-setup.ts).
    globalSetup: ['tests/support/postgres-global-setup.ts', 'tests/support/temp-dir-global-setup.ts'],
    setupFiles: ['tests/support/temp-dir-per-file.ts', 'tests/support/no-resident.ts'],
  },
});
