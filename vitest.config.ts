import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    exclude: ['dist/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A throwaway PostgreSQL server for the run (scripts/with-postgres.sh), unless DATABASE_URL names one.
    globalSetup: ['tests/support/postgres-global-setup.ts'],
  },
});
