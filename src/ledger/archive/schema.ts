// The archive's schema change, one migration per store (referenced from src/ledger/sql.ts and
// src/ledger/postgres/schema.ts, so renumbering it is a one-line change there): the run register's tombstone columns.
// An archived run keeps its register entry (its hash chain, and so every checkpoint taken over it, is unchanged);
// these columns say where it went. NULL for a run that is in the ledger.

const COLUMNS: [string, string][] = [
  ['archived_ts', 'TEXT'],
  ['archived_to', 'TEXT'],
  ['archived_seq', 'INTEGER'],
  ['archived_hash', 'BLOB'],
  ['bundle_sha256', 'TEXT'],
];

/** SQLite: the tombstone columns of run_register (each only when missing: SQLite has no ADD COLUMN IF NOT EXISTS). */
export function sqliteArchiveMigration(db: { prepare(sql: string): { all(): unknown[] }; exec(sql: string): unknown }): void {
  const have = new Set((db.prepare('PRAGMA table_info(run_register)').all() as { name: string }[]).map((c) => c.name));
  for (const [name, type] of COLUMNS) if (!have.has(name)) db.exec(`ALTER TABLE run_register ADD COLUMN ${name} ${type}`);
}

/** PostgreSQL: the same columns (text COLLATE "C" as every text column there). */
export const PG_ARCHIVE_MIGRATION = `
  ALTER TABLE run_register ADD COLUMN IF NOT EXISTS archived_ts text COLLATE "C", ADD COLUMN IF NOT EXISTS archived_to text COLLATE "C",
    ADD COLUMN IF NOT EXISTS archived_seq integer, ADD COLUMN IF NOT EXISTS archived_hash bytea, ADD COLUMN IF NOT EXISTS bundle_sha256 text COLLATE "C";
`;
