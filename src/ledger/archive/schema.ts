import { tombstoneSeal, type SealedTombstone } from '../chain.js';
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

/**
 * The tombstone's seal (src/ledger/chain.ts tombstoneSeal): one column more, and a seal for every tombstone already
 * there, so that `verify` covers every stored column of the run register. The seal is computed here in JS (SQLite
 * has no sha256), over the values as they are at migration time.
 */
export function sqliteArchiveSealMigration(db: {
  prepare(sql: string): { all(...p: unknown[]): unknown[]; run(...p: unknown[]): unknown };
  exec(sql: string): unknown;
}): void {
  const have = new Set((db.prepare('PRAGMA table_info(run_register)').all() as { name: string }[]).map((c) => c.name));
  if (!have.has('archived_seal')) db.exec('ALTER TABLE run_register ADD COLUMN archived_seal TEXT');
  const rows = db
    .prepare(
      'SELECT run_id, lower(hex(hash)) AS hash, archived_ts, archived_to, archived_seq AS last_seq, lower(hex(archived_hash)) AS head_hash, bundle_sha256 FROM run_register WHERE archived_ts IS NOT NULL AND archived_seal IS NULL',
    )
    .all() as (SealedTombstone & { run_id: string; hash: string })[];
  const seal = db.prepare('UPDATE run_register SET archived_seal = ? WHERE run_id = ?');
  for (const r of rows) seal.run(tombstoneSeal(r.hash, r.run_id, r), r.run_id);
}

/** PostgreSQL: the same column and seals. */
export async function pgArchiveSealMigration(client: { query<R>(sql: string, values?: unknown[]): Promise<{ rows: R[] }> }): Promise<void> {
  await client.query('ALTER TABLE run_register ADD COLUMN IF NOT EXISTS archived_seal text COLLATE "C"');
  const { rows } = await client.query<SealedTombstone & { run_id: string; hash: string }>(
    "SELECT run_id, encode(hash, 'hex') AS hash, archived_ts, archived_to, archived_seq AS last_seq, encode(archived_hash, 'hex') AS head_hash, bundle_sha256 FROM run_register WHERE archived_ts IS NOT NULL AND archived_seal IS NULL",
  );
  for (const r of rows) await client.query('UPDATE run_register SET archived_seal = $1 WHERE run_id = $2', [tombstoneSeal(r.hash, r.run_id, r), r.run_id]);
}
