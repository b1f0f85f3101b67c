// The connection pool of a PostgreSQL ledger: timeouts, errors that name the server (never the password), and the
// open sequence (reach the server, check the schema is ours, migrate, check the role may write).
import type pg from 'pg';
import { StoreUnavailableError } from '../../contracts/store-errors.js';
import { PostgresUnavailableError, causeText, isConnectionError } from './errors.js';
import { checkWritable, migrateSchema, type SchemaCheck } from './schema.js';
import { FailoverPool } from './failover-pool.js';
import { type PostgresTarget, parsePostgresUrl } from './url.js';

/** The connection fields of a URL less its host and port (each host of a list gets its own). */
function connectionFields(target: PostgresTarget): pg.ClientConfig {
  const u = new URL(target.connectionString);
  const ssl = u.searchParams.get('sslmode');
  return {
    user: target.user,
    database: target.database,
    ...(u.password ? { password: decodeURIComponent(u.password) } : u.searchParams.get('password') ? { password: u.searchParams.get('password')! } : {}),
    ...(ssl && ssl !== 'disable' ? { ssl: ssl === 'no-verify' || ssl === 'require' ? { rejectUnauthorized: false } : true } : {}),
  };
}

export interface PostgresPoolOptions {
  /** Connections kept by this process (default 10). */
  poolSize?: number;
  /** A statement (a lock wait included) running longer is cancelled: `statement_timeout`, default 15 s. */
  statementTimeoutMs?: number;
  /** Giving up on reaching the server (default 10 s). */
  connectTimeoutMs?: number;
  /** Create the ledger's schema and tables when the schema is empty (default true; read-only commands pass false). */
  create?: boolean;
  /** Open for reading only: skips the write-privilege check (default false). */
  readOnly?: boolean;
  /** `application_name` of the connections (default `navkernel`): what `pg_stat_activity` shows. */
  applicationName?: string;
}

export interface OpenedPool {
  pool: pg.Pool;
  target: PostgresTarget;
  schema: SchemaCheck;
}

function passwordOf(target: PostgresTarget): string | undefined {
  try {
    const u = new URL(target.connectionString);
    return u.password ? decodeURIComponent(u.password) : (u.searchParams.get('password') ?? process.env.PGPASSWORD);
  } catch {
    return undefined;
  }
}

/** Wraps a client error: connection trouble becomes PostgresUnavailableError naming host and port; others pass. */
export function wrapError(target: PostgresTarget, err: unknown): unknown {
  if (err instanceof StoreUnavailableError) return err;
  if (isConnectionError(err)) return new PostgresUnavailableError(target, causeText(err, passwordOf(target)), { cause: err });
  return err;
}

/** Creates the pool and runs the open sequence; on any failure the pool is closed and a typed error thrown. */
export async function openPostgresPool(url: string, options: PostgresPoolOptions = {}): Promise<OpenedPool> {
  const target = parsePostgresUrl(url);
  // Loaded on first use: processes on a SQLite ledger never pay for the client.
  const { default: pgModule } = await import('pg');
  const config: pg.PoolConfig = {
    connectionString: target.connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    statement_timeout: options.statementTimeoutMs ?? 15_000,
    // A transaction left open by a stalled process must not hold a run's head row for ever.
    idle_in_transaction_session_timeout: 60_000,
    application_name: options.applicationName ?? 'navkernel',
    options: `-c search_path=${target.schema}`,
    // TCP keepalive: a half-open connection (a network partition) is noticed instead of waiting for ever.
    keepAlive: true,
  };
  // Several hosts (a primary and standbys): node-postgres knows one host only, FailoverPool goes down the list.
  const pool =
    target.hosts.length > 1 || target.targetSessionAttrs === 'read-write'
      ? (new FailoverPool(pgModule, target.hosts, { ...config, connectionString: undefined, ...connectionFields(target) }, target.targetSessionAttrs === 'read-write') as unknown as pg.Pool)
      : new pgModule.Pool(config);
  // An idle client whose server went away emits 'error' on the pool; without a listener it would crash the
  // process. The pool drops that client; the next query opens a new connection or reports PostgresUnavailableError.
  pool.on('error', () => {});
  let client: pg.PoolClient | undefined;
  try {
    try {
      client = await pool.connect();
    } catch (err) {
      throw new PostgresUnavailableError(target, causeText(err, passwordOf(target)), { cause: err });
    }
    const where = target.display;
    const schema = await migrateSchema(client, where, { create: options.create ?? true, schema: target.schema });
    if (!options.readOnly) await checkWritable(client, where);
    client.release();
    client = undefined;
    return { pool, target, schema };
  } catch (err) {
    client?.release(true);
    await pool.end().catch(() => {});
    throw wrapError(target, err);
  }
}
