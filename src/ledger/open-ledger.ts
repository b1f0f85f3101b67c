import { PostgresLedger, type PostgresLedgerOptions } from './postgres/postgres-ledger.js';
import { isPostgresUrl } from './postgres/url.js';
import { DEFAULT_LEDGER_FILE, type LedgerOptions, SqliteLedger } from './sqlite-ledger.js';

/**
 * Opens a ledger by location: a `postgres://` or `postgresql://` URL opens the PostgreSQL ledger (docs/ledger.md, "Many
 * runners, one ledger"); anything else is a SQLite file (created unless `create: false`).
 *
 * The PostgreSQL ledger is returned at once and opens in the background; `await ledger.ready()` reports its open
 * errors (unreachable server, not a ledger, newer schema, a role that cannot write) before the first call would.
 * For a location whose kind is known only at run time, type the result as `Ledger` (see `openLedgerAt`).
 */
export function openLedger(url: `postgres://${string}` | `postgresql://${string}`, options?: PostgresLedgerOptions): PostgresLedger;
export function openLedger(file?: string, options?: LedgerOptions): SqliteLedger;
export function openLedger(location: string = DEFAULT_LEDGER_FILE, options: LedgerOptions & PostgresLedgerOptions = {}): SqliteLedger | PostgresLedger {
  return openLedgerAt(location, options);
}

/** `openLedger` for a location of either kind known only at run time (a CLI flag, an environment variable). */
export function openLedgerAt(location: string, options: LedgerOptions & PostgresLedgerOptions = {}): SqliteLedger | PostgresLedger {
  return isPostgresUrl(location) ? new PostgresLedger(location, options) : new SqliteLedger(location, options);
}
