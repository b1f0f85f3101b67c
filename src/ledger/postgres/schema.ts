// The PostgreSQL ledger's schema and its versioned migrations, applied on open.
import type pg from 'pg';
import { GENESIS_HASH, registerHash } from '../chain.js';
import { LedgerTooNewError, NotALedgerError } from '../errors.js';
import { ledgerNotWritable } from './errors.js';
import { PG_ARCHIVE_MIGRATION, pgArchiveSealMigration } from '../archive/schema.js';
import { PG_VERSIONS_MIGRATION } from './pg-versions.js';

/** Schema version this navkernel writes, in `navkernel_meta.schema_version`. */
export const PG_SCHEMA_VERSION = 9;
/** `navkernel_meta.application`: tells our tables from another application's. */
export const PG_APPLICATION = 'navkernel-ledger';

// Every text column is COLLATE "C" (byte order of UTF-8 = code point order, as SQLite's BINARY), so listings and
// reports sort the same on both stores whatever the database's locale.
const T = 'text COLLATE "C"';

/**
 * Migrations: index i brings the schema from version i to i + 1. Each runs in the open's transaction, under an
 * advisory lock, so two kernels opening an empty database at once migrate it once.
 *
 * The tables mirror the SQLite ledger's (src/ledger/sql.ts); `routes.flows_hash` is stored inline (SQLite's
 * `flow_sets` indirection saves bytes there but would cost a round trip here). `runs` is the per-run head row:
 * every append locks it (INSERT … ON CONFLICT DO UPDATE … WHERE last_seq = seq - 1) in the statement that inserts
 * the route, which serialises a run's appends across processes and hosts; seq comes from it, not a SEQUENCE.
 */
const MIGRATIONS: readonly (string | ((client: pg.ClientBase) => Promise<void>))[] = [
  `
  CREATE TABLE navkernel_meta (
    singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    application    ${T} NOT NULL CHECK (application = '${PG_APPLICATION}'),
    schema_version integer NOT NULL
  );
  INSERT INTO navkernel_meta (application, schema_version) VALUES ('${PG_APPLICATION}', 0);
  CREATE TABLE runs (
    run_id        ${T} PRIMARY KEY,
    flow          ${T} NOT NULL,
    created_ts    ${T} NOT NULL,
    updated_ts    ${T} NOT NULL,
    last_seq      integer NOT NULL,
    head_hash     bytea NOT NULL,
    offroad       integer NOT NULL,
    llm_calls     integer NOT NULL,
    cost_usd      double precision NOT NULL,
    last_decision ${T} NOT NULL,
    last_step     ${T} NOT NULL
  );
  CREATE TABLE routes (
    run_id         ${T} NOT NULL,
    seq            integer NOT NULL,
    flow           ${T} NOT NULL,
    step           ${T} NOT NULL,
    request_id     ${T},
    decision       ${T} NOT NULL,
    next_step      ${T},
    tier           integer NOT NULL,
    rule           ${T} NOT NULL,
    request        ${T} NOT NULL,
    decision_json  ${T} NOT NULL,
    state          ${T} NOT NULL,
    latency_us     double precision NOT NULL,
    cost_usd       double precision NOT NULL,
    llm_calls      integer NOT NULL,
    kernel_version ${T} NOT NULL,
    flows_hash     ${T} NOT NULL,
    ts             ${T} NOT NULL,
    prev_hash      bytea NOT NULL,
    hash           bytea NOT NULL,
    PRIMARY KEY (run_id, seq)
  );
  CREATE UNIQUE INDEX routes_request_id ON routes (run_id, request_id) WHERE request_id IS NOT NULL;
  CREATE TABLE llm_calls (
    run_id        ${T} NOT NULL,
    seq           integer NOT NULL,
    idx           integer NOT NULL,
    provider      ${T} NOT NULL,
    model         ${T} NOT NULL,
    purpose       ${T} NOT NULL,
    attempt       integer NOT NULL,
    prompt_hash   ${T} NOT NULL,
    raw_answer    ${T},
    outcome       ${T} NOT NULL,
    input_tokens  integer NOT NULL,
    output_tokens integer NOT NULL,
    usd           double precision NOT NULL,
    latency_ms    double precision NOT NULL,
    record        ${T} NOT NULL,
    PRIMARY KEY (run_id, seq, idx)
  );
  CREATE TABLE escalations (
    escalation_id   ${T} PRIMARY KEY,
    run_id          ${T} NOT NULL,
    seq             integer NOT NULL,
    flow            ${T} NOT NULL,
    step            ${T} NOT NULL,
    reason          ${T} NOT NULL,
    opened_ts       ${T} NOT NULL,
    status          ${T} NOT NULL CHECK (status IN ('open', 'resolved')),
    resolution      ${T},
    resolved_by     ${T},
    resolved_ts     ${T},
    resolution_hash bytea
  );
  CREATE INDEX escalations_run ON escalations (run_id, status);
  `,
  // v2: per-field fingerprints of each route (verify names the edited field), as the SQLite ledger's v2. Routes
  // written before keep NULL (verify then reports an edit without naming the field).
  `ALTER TABLE routes ADD COLUMN field_sums ${T};`,
  // v3: the run register, as the SQLite ledger's v2: a ledger-wide chain with one entry per run (the hash of its
  // first route), so that verify notices a run deleted whole. Appends that create runs take REGISTER_LOCK_SQL and
  // add their entries in the transaction of their routes. Existing runs are entered in order of creation (their
  // routes' hashes are unchanged, so databases written before stay verifiable).
  async (client) => {
    await client.query(`
      CREATE TABLE run_register (
        ordinal    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        run_id     ${T} NOT NULL UNIQUE,
        first_hash bytea NOT NULL,
        prev_hash  bytea NOT NULL,
        hash       bytea NOT NULL
      )`);
    const runs = await client.query<{ run_id: string; hash: Buffer }>(
      'SELECT u.run_id, r.hash FROM runs u JOIN routes r ON r.run_id = u.run_id AND r.seq = 1 ORDER BY u.created_ts, u.run_id',
    );
    await insertRegisterEntries(client, GENESIS_HASH, runs.rows.map((r) => ({ run_id: r.run_id, first_hash: r.hash })));
  },
  // v4: the run listing's order as an index, as the SQLite ledger's v4: a page of runs (runPage) is a range scan that
  // stops after the page. created_ts never changes after a run's first route, so appends keep their HOT updates.
  'CREATE INDEX IF NOT EXISTS runs_created ON runs (created_ts, run_id);',
  // v5: the unit of routes.latency_us, as the SQLite ledger's v5: rows already there are marked 'ms' (a constant default
  // is stored in the catalog, no table rewrite), appends write 'us'. The hash chain covers the stored number, so old rows
  // are marked, never converted.
  `ALTER TABLE routes ADD COLUMN IF NOT EXISTS latency_unit ${T} NOT NULL DEFAULT 'ms' CHECK (latency_unit IN ('ms', 'us'));
   ALTER TABLE routes ALTER COLUMN latency_unit SET DEFAULT 'us';`,
  // v6: the run register's tombstones (src/ledger/archive/schema.ts).
  PG_ARCHIVE_MIGRATION,
  // v7: who sent each route, as the SQLite ledger's v7: nullable, no default (no table rewrite); rows already there read
  // NULL, which the hash chain does not frame, so their hashes are unchanged.
  `ALTER TABLE routes ADD COLUMN IF NOT EXISTS principal ${T};`,
  // v8: the tombstone's seal, as the SQLite ledger's v8.
  pgArchiveSealMigration,
  // v9: flow versions and run upgrades, as the SQLite ledger's v9 (src/ledger/postgres/pg-versions.ts).
  PG_VERSIONS_MIGRATION,
];

/**
 * Serialises the run register's writers (ledger-wide, per schema): taken, in the append's transaction, by every
 * append that creates a run, before it reads the register's head; released at commit.
 */
export const REGISTER_LOCK_SQL = 'SELECT pg_advisory_xact_lock(1314278226, hashtext(current_schema()))';

/** Chains entries onto the register after `prevHex`: each entry's prev_hash and hash (hex). */
export function chainRegisterEntries(prevHex: string, entries: readonly { run_id: string; first_hash: Buffer }[]): { run_id: string; first_hash: Buffer; prev: string; hash: string }[] {
  let prev = prevHex;
  return entries.map((e) => {
    const hash = registerHash(prev, e.run_id, e.first_hash.toString('hex'));
    const row = { run_id: e.run_id, first_hash: e.first_hash, prev, hash };
    prev = hash;
    return row;
  });
}

/** Chains entries onto the register after `prevHex` (its head, read under REGISTER_LOCK_SQL) and inserts them in one statement. */
export async function insertRegisterEntries(client: pg.ClientBase, prevHex: string, entries: readonly { run_id: string; first_hash: Buffer }[]): Promise<void> {
  if (entries.length === 0) return;
  const rows = chainRegisterEntries(prevHex, entries);
  await client.query(
    'INSERT INTO run_register (run_id, first_hash, prev_hash, hash) SELECT run_id, first_hash, prev_hash, hash FROM unnest($1::text[], $2::bytea[], $3::bytea[], $4::bytea[]) WITH ORDINALITY AS t(run_id, first_hash, prev_hash, hash, k) ORDER BY k',
    [rows.map((e) => e.run_id), rows.map((e) => e.first_hash), rows.map((e) => Buffer.from(e.prev, 'hex')), rows.map((e) => Buffer.from(e.hash, 'hex'))],
  );
}

/**
 * The same insert as insertRegisterEntries as SQL text (values as literals: run ids through node-postgres's
 * escapeLiteral, hashes as hex digits), so it can go in one simple-protocol round trip with the COMMIT after it.
 */
export function registerEntriesSql(prevHex: string, entries: readonly { run_id: string; first_hash: Buffer }[], escapeLiteral: (s: string) => string): string {
  if (entries.length === 0) return '';
  const bytes = (hex: string) => {
    if (!/^[0-9a-f]+$/.test(hex)) throw new Error(`run register: ${JSON.stringify(hex)} is not a hex hash`);
    return `decode('${hex}', 'hex')`;
  };
  const values = chainRegisterEntries(prevHex, entries).map((e) => `(${escapeLiteral(e.run_id)}, ${bytes(e.first_hash.toString('hex'))}, ${bytes(e.prev)}, ${bytes(e.hash)})`);
  return `INSERT INTO run_register (run_id, first_hash, prev_hash, hash) VALUES ${values.join(', ')};`;
}

/** Reads the register's head hash as hex (no row when empty): run it in a statement after REGISTER_LOCK_SQL. */
export const REGISTER_HEAD_SQL = "SELECT encode(hash, 'hex') AS hash FROM run_register ORDER BY ordinal DESC LIMIT 1";

/** The register's head hash (GENESIS_HASH when empty); read it under REGISTER_LOCK_SQL, in a statement after the lock. */
export async function registerHead(client: pg.ClientBase): Promise<string> {
  const r = await client.query<{ hash: string }>(REGISTER_HEAD_SQL);
  return r.rows[0]?.hash ?? GENESIS_HASH;
}

/** The tables a writer needs, with the privileges it uses on each. */
const WRITE_PRIVILEGES: readonly [string, string][] = [
  ['runs', 'SELECT, INSERT, UPDATE'],
  ['routes', 'SELECT, INSERT'],
  ['run_register', 'SELECT, INSERT'],
  ['llm_calls', 'SELECT, INSERT'],
  ['escalations', 'SELECT, INSERT, UPDATE'],
  ['navkernel_meta', 'SELECT'],
];

/** Advisory lock key serialising migrations of one schema ("NVKL" and the schema's name hashed by the server). */
const LOCK_SQL = 'SELECT pg_advisory_xact_lock(1314278220, hashtext($1))';

export interface SchemaCheck {
  /** The version found before migrating (0 for an empty schema). */
  found: number;
  version: number;
}

/** The ledger schema version found, 0 when the schema holds no table at all; refuses foreign tables (reads only). */
async function inspect(client: pg.ClientBase, where: string, schema: string): Promise<number> {
  // From pg_class, not to_regclass(): a name lookup may answer from a cache that has not yet seen the tables
  // another session committed while we waited for the migration lock.
  const found = await client.query<{ n: number; meta: boolean }>(
    "SELECT count(*)::int AS n, coalesce(bool_or(c.relname = 'navkernel_meta'), false) AS meta " +
      'FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace ' +
      "WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')",
    [schema],
  );
  if (!found.rows[0]!.meta) {
    const n = found.rows[0]!.n;
    if (n > 0) throw new NotALedgerError(where, `schema has ${n} tables or views and no navkernel_meta`);
    return 0;
  }
  let row: { application: string; schema_version: number } | undefined;
  try {
    row = (await client.query<{ application: string; schema_version: number }>('SELECT application, schema_version FROM navkernel_meta LIMIT 1')).rows[0];
  } catch (err) {
    throw new NotALedgerError(where, `navkernel_meta is unreadable: ${(err as Error).message}`, { cause: err });
  }
  if (!row || row.application !== PG_APPLICATION) throw new NotALedgerError(where, 'navkernel_meta does not name a navkernel ledger');
  if (row.schema_version > PG_SCHEMA_VERSION) throw new LedgerTooNewError(where, row.schema_version, PG_SCHEMA_VERSION);
  return row.schema_version;
}

/**
 * Checks the schema is a navkernel ledger not newer than this code (reads only, so a refused database is never
 * touched), then applies pending migrations in one transaction under an advisory lock. `create: false` refuses to
 * create a ledger in an empty schema (read-only commands).
 */
export async function migrateSchema(client: pg.ClientBase, where: string, options: { create: boolean; schema: string }): Promise<SchemaCheck> {
  const schemaExists = (await client.query('SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1', [options.schema])).rowCount === 1;
  if (!schemaExists && !options.create) throw new NotALedgerError(where, `schema ${options.schema} does not exist`);
  const found = schemaExists ? await inspect(client, where, options.schema) : 0;
  if (found === PG_SCHEMA_VERSION) return { found, version: found };
  if (found === 0 && !options.create) throw new NotALedgerError(where, 'no ledger tables in this schema yet (route something first, or run navkernel ledger migrate)');
  await client.query('BEGIN');
  try {
    await client.query(LOCK_SQL, [options.schema]);
    // Under the lock: another kernel may have created or migrated the schema meanwhile.
    // (only when missing: CREATE SCHEMA checks the database's CREATE privilege even when the schema exists)
    if (!schemaExists) await client.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`);
    const v = await inspect(client, where, options.schema);
    for (let i = v; i < PG_SCHEMA_VERSION; i++) {
      const m = MIGRATIONS[i]!;
      if (typeof m === 'string') await client.query(m);
      else await m(client);
    }
    if (v < PG_SCHEMA_VERSION) await client.query('UPDATE navkernel_meta SET schema_version = $1', [PG_SCHEMA_VERSION]);
    await client.query('COMMIT');
    return { found, version: PG_SCHEMA_VERSION };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    if ((err as { code?: string }).code === '42501') {
      throw ledgerNotWritable(where, `the role may not create the ledger's tables in schema ${options.schema} (${(err as Error).message})`);
    }
    throw err;
  }
}

/** Refuses, at open, a role that could not record a route (missing privileges) or a read-only server (a standby). */
export async function checkWritable(client: pg.ClientBase, where: string): Promise<void> {
  const ro = await client.query<{ ro: string }>("SELECT current_setting('transaction_read_only') AS ro");
  if (ro.rows[0]!.ro === 'on') throw ledgerNotWritable(where, 'the server is read-only (a standby, or default_transaction_read_only is on)');
  const missing: string[] = [];
  // One privilege per call: has_table_privilege with a list is true when ANY of them is held.
  for (const [table, privileges] of WRITE_PRIVILEGES) {
    for (const privilege of privileges.split(', ')) {
      const r = await client.query<{ ok: boolean }>('SELECT has_table_privilege(current_user, $1::regclass, $2) AS ok', [table, privilege]);
      if (!r.rows[0]!.ok) missing.push(`${privilege} on ${table}`);
    }
  }
  if (missing.length > 0) throw ledgerNotWritable(where, `role lacks ${missing.join('; ')}`);
}
