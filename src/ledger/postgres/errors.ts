import { NavkernelError } from '../../contracts/errors.js';
import { StoreUnavailableError } from '../../contracts/store-errors.js';
import type { PostgresTarget } from './url.js';

/**
 * The ledger's server cannot be reached or refused the connection: names host, port, database, user and the
 * cause, never the password. A StoreUnavailableError (code STORE_UNAVAILABLE, HTTP 503): retry later; nothing was
 * recorded by this call unless an idempotent retry with the same request_id says so.
 */
export class PostgresUnavailableError extends StoreUnavailableError {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  constructor(target: PostgresTarget, cause: string, options?: { cause?: unknown }) {
    super(
      `PostgreSQL ledger at ${target.host}:${target.port} (database ${JSON.stringify(target.database)}, user ${JSON.stringify(target.user)}) is unavailable: ${cause}`,
      options,
    );
    this.name = 'PostgresUnavailableError';
    this.host = target.host;
    this.port = target.port;
    this.database = target.database;
  }
}

/**
 * The role can read the ledger but not write it (or the server is a read-only standby); said at open, not at the first
 * route. A plain NavkernelError with code LEDGER_NOT_WRITABLE: it carries nothing beyond its code and words.
 */
export function ledgerNotWritable(where: string, why: string): NavkernelError {
  return new NavkernelError('LEDGER_NOT_WRITABLE', `${where} cannot be written: ${why}. Grant the role the privileges listed in the README ("Many runners, one ledger"), or open it read-only`);
}

/** PostgreSQL error codes (SQLSTATE) and socket errors that mean "the server is not there for us". */
const UNAVAILABLE_SQLSTATE = new Set([
  '08000', '08003', '08006', '08001', '08004', // connection exceptions
  '57P01', '57P02', '57P03', // admin shutdown, crash shutdown, cannot connect now
  '28000', '28P01', // invalid authorization, bad password
  '3D000', // database does not exist
  '53300', // too many connections
  '25006', // read-only transaction: the host is (again) a standby; with a host list, the primary is elsewhere
]);
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOENT']);

/** Whether an error from the client means the server or the connection is gone (as opposed to a bad statement). */
export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.has(code) || UNAVAILABLE_ERRNO.has(code))) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable|terminating connection/i.test(err.message);
}

/**
 * Whether a connection error means a pooled connection died under the statement (the server terminated it, or the
 * socket was reset) rather than that the server cannot be reached: a read that failed so is worth trying again at once
 * on another connection, since the pool replaces the dead one.
 */
export function isDeadConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (code === '57P01' || code === '57P02' || code === '08006' || code === '08003' || code === 'ECONNRESET' || code === 'EPIPE') return true;
  return typeof code !== 'string' && /Connection terminated unexpectedly|terminating connection|not queryable|Client has encountered a connection error/i.test(err.message);
}

/** The client error's message with any occurrence of the password removed. */
export function causeText(err: unknown, password: string | undefined): string {
  let text = err instanceof Error ? err.message || String((err as { code?: unknown }).code ?? err.name) : String(err);
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  if (typeof code === 'string' && !text.includes(code)) text += ` (${code})`;
  if (password) text = text.split(password).join('***');
  return text;
}
