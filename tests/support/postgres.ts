// PostgreSQL for tests: the server the vitest global setup started (scripts/with-postgres.sh) or DATABASE_URL.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe } from 'vitest';

/** The test server's URL, or undefined when PostgreSQL tests were switched off (NAVKERNEL_TEST_POSTGRES=off). */
export const DATABASE_URL: string | undefined = process.env.DATABASE_URL || undefined;

/** `describe` for suites that need the server: skipped, with the reason in its name, only when it was switched off. */
export const describePostgres: typeof describe = DATABASE_URL
  ? describe
  : (describe.skip as unknown as typeof describe);

/** A URL for a schema of its own (`?schema=t_<random>`), so tests never see each other's tables. */
export function freshSchemaUrl(prefix = 't'): string {
  const u = new URL(DATABASE_URL!);
  u.searchParams.set('schema', `${prefix}_${randomBytes(6).toString('hex')}`);
  return u.toString();
}

/** Runs SQL as the server's admin role (the test server's superuser). */
export async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params: unknown[] = [], schema?: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: DATABASE_URL!, ...(schema ? { options: `-c search_path=${schema}` } : {}) });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** The schema named in a URL from freshSchemaUrl. */
export function schemaOf(url: string): string {
  return new URL(url).searchParams.get('schema') ?? 'public';
}
