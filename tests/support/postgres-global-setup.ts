// vitest global setup: a throwaway PostgreSQL server for the whole test run (scripts/with-postgres.sh, through
// scripts/postgres-server.ts). When DATABASE_URL is set, that server is used and nothing is started.
// NAVKERNEL_TEST_POSTGRES=off starts nothing either: the PostgreSQL tests then skip (never in CI, where the
// variable is not set). When vitest exits, even by SIGKILL, the script's stdin closes and it removes the server.
import { startThrowawayPostgres } from '../../scripts/postgres-server.js';

export default async function setup(): Promise<() => Promise<void>> {
  if (process.env.DATABASE_URL || process.env.NAVKERNEL_TEST_POSTGRES === 'off') return async () => {};
  const server = await startThrowawayPostgres();
  // The forked test workers inherit this process's environment.
  process.env.DATABASE_URL = server.url;
  return async () => {
    await server.stop();
    delete process.env.DATABASE_URL;
  };
}
