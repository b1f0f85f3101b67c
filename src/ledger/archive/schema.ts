// The archive's schema change, one migration per store (referenced from src/ledger/sql.ts and
// src/ledger/postgres/schema.ts, so renumbering it is a one-line change there): the run register's tombstone columns.
// An archived run keeps its register entry (its hash chain, and so every checkpoint taken over it, is unchanged);
// these columns say where it went. NULL for a run that is in the ledger.

/** SQLite: the tombstone columns of run_register. */
export const SQLITE_ARCHIVE_MIGRATION = `
  ALTER TABLE run_register ADD COLUMN archived_ts TEXT;
  ALTER TABLE run_register ADD COLUMN archived_to TEXT;
  ALTER TABLE run_register ADD COLUMN archived_seq INTEGER;
  ALTER TABLE run_register ADD COLUMN archived_hash BLOB;
  ALTER TABLE run_register ADD COLUMN bundle_sha256 TEXT;
`;

/** PostgreSQL: the same columns (text COLLATE "C" as every text column there). */
export const PG_ARCHIVE_MIGRATION = `
  ALTER TABLE run_register ADD COLUMN archived_ts text COLLATE "C", ADD COLUMN archived_to text COLLATE "C",
    ADD COLUMN archived_seq integer, ADD COLUMN archived_hash bytea, ADD COLUMN bundle_sha256 text COLLATE "C";
`;
