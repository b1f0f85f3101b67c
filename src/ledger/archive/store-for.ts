import type { ArchiveStore } from '../../contracts/archive-port.js';
import { PostgresLedger } from '../postgres/postgres-ledger.js';
import { SqliteLedger } from '../sqlite-ledger.js';
import { PostgresArchiveStore } from './postgres-archive.js';
import { SqliteArchiveStore } from './sqlite-archive.js';

const stores = new WeakMap<object, ArchiveStore>();

/** The archive operations of a SQLite or PostgreSQL ledger; undefined for other stores (memory, a bundle). */
export function archiveStoreFor(ledger: object): ArchiveStore | undefined {
  let s = stores.get(ledger);
  if (s) return s;
  if (ledger instanceof SqliteLedger) s = new SqliteArchiveStore(ledger);
  else if (ledger instanceof PostgresLedger) s = new PostgresArchiveStore(ledger);
  else return undefined;
  stores.set(ledger, s);
  return s;
}
