import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

let driver: typeof BetterSqlite3 | undefined;

/**
 * better-sqlite3's Database class, required when a database is first opened rather than when a module is imported:
 * importing navkernel does not load the native module (~20 ms) unless a SQLite ledger or index is opened.
 */
export function sqliteDriver(): typeof BetterSqlite3 {
  return (driver ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3);
}
