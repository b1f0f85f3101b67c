// Every SQL statement of the ledger lives in this module, so that a server database can take SQLite's place
// by reimplementing this one surface (see LedgerSql below). The explorer's session store, a port of its own
// (ExplorerSessionStore), keeps its statements in explorer-sessions.ts; its table is created here, by migration.
import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { sqliteDriver } from '../sqlite-driver.js';
import type { CostBucket, LedgerTotals, RunPageQuery, StoredEscalation, StoredLlmCall, StoredRoute, StoredRun, StoredRunEntry, StoredRunListing } from '../contracts/ports.js';
import { GENESIS_HASH, registerHash } from './chain.js';
import { LedgerNotFoundError, LedgerTooNewError, NotALedgerError } from './errors.js';
import { sqliteArchiveMigration, sqliteArchiveSealMigration } from './archive/schema.js';
import { SQLITE_VERSIONS_MIGRATION } from './versions-sql.js';

/** `PRAGMA application_id` of a navkernel ledger ("NVKL"): tells our files from any other SQLite database. */
export const LEDGER_APPLICATION_ID = 0x4e564b4c;
/** Schema version this navkernel writes (`PRAGMA user_version`). */
export const LEDGER_SCHEMA_VERSION = 9;

/**
 * Migrations, index i brings the schema from version i to i + 1. Applied in one IMMEDIATE transaction on open.
 *
 * Index choice: `routes` is a rowid table (inserts append to its rightmost leaf) with the primary key
 * (run_id, seq) as its one index; every per-route lookup (last snapshot of a run, a run's rows in order) is a
 * range on that key, so route latency stays flat as the ledger grows. request_id gets a partial unique index
 * that costs nothing for requests without one.
 */
const MIGRATIONS: readonly (string | ((db: Database.Database) => void))[] = [
  `
  CREATE TABLE flow_sets (
    id         INTEGER PRIMARY KEY,
    flows_hash TEXT NOT NULL UNIQUE
  );
  CREATE TABLE runs (
    run_id        TEXT PRIMARY KEY,
    flow          TEXT NOT NULL,
    created_ts    TEXT NOT NULL,
    updated_ts    TEXT NOT NULL,
    last_seq      INTEGER NOT NULL,
    head_hash     BLOB NOT NULL,
    offroad       INTEGER NOT NULL,
    llm_calls     INTEGER NOT NULL,
    cost_usd      REAL NOT NULL,
    last_decision TEXT NOT NULL,
    last_step     TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE routes (
    run_id         TEXT NOT NULL,
    seq            INTEGER NOT NULL,
    flow           TEXT NOT NULL,
    step           TEXT NOT NULL,
    request_id     TEXT,
    decision       TEXT NOT NULL,
    next_step      TEXT,
    tier           INTEGER NOT NULL,
    rule           TEXT NOT NULL,
    request        TEXT NOT NULL,
    decision_json  TEXT NOT NULL,
    state          TEXT NOT NULL,
    latency_us     REAL NOT NULL,
    cost_usd       REAL NOT NULL,
    llm_calls      INTEGER NOT NULL,
    kernel_version TEXT NOT NULL,
    flow_set       INTEGER NOT NULL REFERENCES flow_sets(id),
    ts             TEXT NOT NULL,
    prev_hash      BLOB NOT NULL,
    hash           BLOB NOT NULL,
    PRIMARY KEY (run_id, seq)
  );
  CREATE UNIQUE INDEX routes_request_id ON routes (run_id, request_id) WHERE request_id IS NOT NULL;
  CREATE TABLE llm_calls (
    run_id        TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    idx           INTEGER NOT NULL,
    provider      TEXT NOT NULL,
    model         TEXT NOT NULL,
    purpose       TEXT NOT NULL,
    attempt       INTEGER NOT NULL,
    prompt_hash   TEXT NOT NULL,
    raw_answer    TEXT,
    outcome       TEXT NOT NULL,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    usd           REAL NOT NULL,
    latency_ms    REAL NOT NULL,
    record        TEXT NOT NULL,
    PRIMARY KEY (run_id, seq, idx)
  ) WITHOUT ROWID;
  CREATE TABLE escalations (
    escalation_id TEXT PRIMARY KEY,
    run_id        TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    flow          TEXT NOT NULL,
    step          TEXT NOT NULL,
    reason        TEXT NOT NULL,
    opened_ts     TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
    resolution    TEXT,
    resolved_by   TEXT,
    resolved_ts   TEXT,
    -- sha256 over the ESCALATE row's hash and the resolution: ties the resolution into the run's chain.
    resolution_hash BLOB
  );
  CREATE INDEX escalations_run ON escalations (run_id, status);
  -- The run actors' persisted snapshots are routes.state (the snapshot after each route, in the same row and
  -- the same hash chain); this view shows the latest one per run, which is what a restart restores.
  CREATE VIEW run_snapshots AS
    SELECT r.run_id, r.seq, r.state FROM runs u JOIN routes r ON r.run_id = u.run_id AND r.seq = u.last_seq;
  `,
  // v2: the run register (a ledger-wide chain with one entry per run, so that a run deleted whole is noticed)
  // and per-field fingerprints of each route (so that verify names the edited field). Existing runs are
  // entered in the register in order of creation; existing routes keep a NULL fingerprint (verify then
  // reports an edit without naming the field): their hashes are unchanged, so old ledgers stay verifiable.
  (db) => {
    db.exec(`
      CREATE TABLE run_register (
        ordinal    INTEGER PRIMARY KEY,
        run_id     TEXT NOT NULL UNIQUE,
        first_hash BLOB NOT NULL,
        prev_hash  BLOB NOT NULL,
        hash       BLOB NOT NULL
      );
      ALTER TABLE routes ADD COLUMN field_sums TEXT;
    `);
    const runs = db.prepare('SELECT u.run_id, r.hash FROM runs u JOIN routes r ON r.run_id = u.run_id AND r.seq = 1 ORDER BY u.created_ts, u.run_id').all() as { run_id: string; hash: Buffer }[];
    const insert = db.prepare('INSERT INTO run_register (run_id, first_hash, prev_hash, hash) VALUES (?, ?, ?, ?)');
    let prev = GENESIS_HASH;
    for (const r of runs) {
      const hash = registerHash(prev, r.run_id, r.hash.toString('hex'));
      insert.run(r.run_id, r.hash, Buffer.from(prev, 'hex'), Buffer.from(hash, 'hex'));
      prev = hash;
    }
  },
  // v3: the explorer's sessions (src/ledger/explorer-sessions.ts): one row per session, its NavigatorState
  // rewritten after every step; the sessions' model calls are rows of llm_calls (key `explore:<session>`).
  // IF NOT EXISTS: before v3 the explorer created this same table itself, outside the migrations, so a v2
  // ledger may already hold it, with its sessions.
  `
  CREATE TABLE IF NOT EXISTS explorer_sessions (
    session_id TEXT PRIMARY KEY,
    created_ts TEXT NOT NULL,
    updated_ts TEXT NOT NULL,
    steps      INTEGER NOT NULL,
    complete   INTEGER NOT NULL,
    config     TEXT NOT NULL,
    state      TEXT NOT NULL
  ) STRICT;
  `,
  // v4: the run listing's order (created_ts, then run_id) as an index, so that a page of runs (runPage) is a range
  // scan that stops after the page instead of a sort of every run. Written only when a run is created (an append
  // to an existing run does not change created_ts).
  `CREATE INDEX IF NOT EXISTS runs_created ON runs (created_ts, run_id);`,
  // v5: the unit of routes.latency_us. Routes written before v5 hold milliseconds (a unit error of navkernel 0.1.0);
  // the hash chain covers the stored number, so they are marked, not converted: every row already there gets 'ms'
  // (the column's default, no table rewrite), and every append from v5 on writes 'us' explicitly. Readers convert
  // with routeLatencyUs (src/ledger/stored-rows.ts).
  // (Skipped when the column is there already, as IF NOT EXISTS would: SQLite's ADD COLUMN has no such clause.)
  (db) => {
    const cols = db.prepare("SELECT name FROM pragma_table_info('routes')").pluck().all() as string[];
    if (!cols.includes('latency_unit')) db.exec(`ALTER TABLE routes ADD COLUMN latency_unit TEXT NOT NULL DEFAULT 'ms' CHECK (latency_unit IN ('ms', 'us'))`);
  },
  // v6: the run register's tombstones (src/ledger/archive/schema.ts).
  sqliteArchiveMigration,
  // v7: who sent each route (the authenticated principal of `navkernel serve`). Nullable, no default: every row already
  // there reads NULL, which the hash chain does not frame (src/ledger/chain.ts), so their hashes are unchanged; a route
  // with a principal hashes it. (Skipped when the column is there already, as v5.)
  (db) => {
    const cols = db.prepare("SELECT name FROM pragma_table_info('routes')").pluck().all() as string[];
    if (!cols.includes('principal')) db.exec('ALTER TABLE routes ADD COLUMN principal TEXT');
  },
  // v8: the tombstone's seal (src/ledger/archive/schema.ts): verify covers every column archiving writes.
  sqliteArchiveSealMigration,
  // v9: flow versions and run upgrades (src/ledger/versions-sql.ts, docs/changing-flows.md). Existing routes keep their
  // flows_hash with no stored definition (their runs take the current flows at their next route, then are pinned).
  SQLITE_VERSIONS_MIGRATION,
];

/** The synchronous setting a ledger runs with. */
export type Durability = 'full' | 'normal';

export interface OpenDatabaseOptions {
  /** Create the file (and its folder) when missing. Read-only commands pass false. */
  create: boolean;
  durability: Durability;
  /** ms to wait for another process's write lock before SQLITE_BUSY. */
  busyTimeoutMs: number;
}

const SQLITE_MAGIC = 'SQLite format 3\u0000';

function readMagic(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(16);
    const n = readSync(fd, buf, 0, 16, 0);
    return buf.subarray(0, n).toString('latin1');
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens (or creates) a ledger database: checks it is ours and not newer than this version before writing
 * anything to it, then sets WAL, the durability and the busy timeout, and applies pending migrations.
 */
export function openDatabase(file: string, opts: OpenDatabaseOptions): Database.Database {
  const exists = existsSync(file);
  if (!exists) {
    if (!opts.create) throw new LedgerNotFoundError(file);
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  } else if (statSync(file).size > 0 && readMagic(file) !== SQLITE_MAGIC) {
    throw new NotALedgerError(file, 'not a SQLite file');
  }
  let db: Database.Database;
  try {
    db = new (sqliteDriver())(file, { fileMustExist: !opts.create });
  } catch (err) {
    throw new NotALedgerError(file, (err as Error).message, { cause: err });
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs))}`);
    checkOwnership(db, file);
    // A new file gives space back as it is freed (`PRAGMA incremental_vacuum` after an archive): auto_vacuum can only
    // be set before the file's first page is written (by WAL mode or the first table); an older file switches with one
    // VACUUM (`navkernel ledger archive --vacuum`).
    if (!exists) db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${opts.durability === 'full' ? 'FULL' : 'NORMAL'}`);
    // Fewer, larger checkpoints: each checkpoint fsyncs, and at 1000 pages (the default) they dominate
    // the cost of a NORMAL commit.
    db.pragma('wal_autocheckpoint = 8000');
    db.pragma('journal_size_limit = 67108864');
    db.pragma('cache_size = -32000');
    migrate(db, file);
    return db;
  } catch (err) {
    db.close();
    if (err instanceof Error && 'code' in err && (err as { code: unknown }).code === 'SQLITE_NOTADB') {
      throw new NotALedgerError(file, 'not a SQLite database', { cause: err });
    }
    throw err;
  }
}

/** Refuses foreign databases and newer schemas with reads only, so such a file is never modified. */
function checkOwnership(db: Database.Database, file: string): void {
  const appId = db.pragma('application_id', { simple: true }) as number;
  const version = db.pragma('user_version', { simple: true }) as number;
  if (appId === 0 && version === 0) {
    const tables = db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'").get() as { n: number };
    if (tables.n > 0) throw new NotALedgerError(file, 'a SQLite database of another application');
    return;
  }
  if (appId !== LEDGER_APPLICATION_ID) throw new NotALedgerError(file, `application_id is ${appId}`);
  if (version > LEDGER_SCHEMA_VERSION) throw new LedgerTooNewError(file, version, LEDGER_SCHEMA_VERSION);
}

function migrate(db: Database.Database, file: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current === LEDGER_SCHEMA_VERSION) return;
  db.transaction(() => {
    // Re-read inside the write lock: another process may have migrated meanwhile.
    const v = db.pragma('user_version', { simple: true }) as number;
    if (v > LEDGER_SCHEMA_VERSION) throw new LedgerTooNewError(file, v, LEDGER_SCHEMA_VERSION);
    for (let i = v; i < LEDGER_SCHEMA_VERSION; i++) {
      const m = MIGRATIONS[i]!;
      if (typeof m === 'string') {
        if (m) db.exec(m);
      }
      else m(db);
    }
    db.pragma(`application_id = ${LEDGER_APPLICATION_ID}`);
    db.pragma(`user_version = ${LEDGER_SCHEMA_VERSION}`);
  }).immediate();
}

/** A route row as written (hashes as raw sha256 bytes). */
export interface RouteWrite extends Omit<StoredRoute, 'prev_hash' | 'hash' | 'request_hash' | 'field_sums' | 'principal'> {
  prev_hash: Buffer;
  hash: Buffer;
  field_sums: string;
  /** Who sent the route (hashed when set); absent or null: nobody recorded. */
  principal?: string | null;
}

/** What one append writes, beyond the route row. */
export interface AppendWrite {
  route: RouteWrite;
  llmCalls: StoredLlmCall[];
  escalation: Omit<StoredEscalation, 'status' | 'resolution' | 'resolved_by' | 'resolved_ts' | 'resolution_hash'> | null;
  offroad: boolean;
}

const ROUTE_COLUMNS =
  "r.run_id, r.seq, r.flow, r.step, r.request_id, '' AS request_hash, r.field_sums, r.decision, r.next_step, r.tier, r.rule, r.request, r.decision_json, r.state, " +
  "r.latency_us, r.latency_unit, r.cost_usd, r.llm_calls, r.kernel_version, coalesce(f.flows_hash, '') AS flows_hash, r.ts, r.principal, lower(hex(r.prev_hash)) AS prev_hash, lower(hex(r.hash)) AS hash";
const RUN_COLUMNS =
  'run_id, flow, created_ts, updated_ts, last_seq, lower(hex(head_hash)) AS head_hash, offroad, llm_calls, cost_usd, last_decision, last_step';
const ESCALATION_COLUMNS =
  'escalation_id, run_id, seq, flow, step, reason, opened_ts, status, resolution, resolved_by, resolved_ts, CASE WHEN resolution_hash IS NULL THEN NULL ELSE lower(hex(resolution_hash)) END AS resolution_hash';

// The run listing (runPage): a run's open escalations, and its status as src/runs/audit.ts has always defined it:
// terminated when its last decision is TERMINATE, or an ESCALATE whose escalation at that seq was resolved with
// TERMINATE (ended by a person); else escalated while an escalation is open; else active.
const OPEN_ESCALATIONS = "(SELECT count(*) FROM escalations e WHERE e.run_id = u.run_id AND e.status = 'open')";
const RUN_STATUS =
  `CASE WHEN u.last_decision = 'TERMINATE' THEN 'terminated' WHEN ${OPEN_ESCALATIONS} > 0 THEN 'escalated' ` +
  "WHEN u.last_decision = 'ESCALATE' AND (SELECT CASE WHEN e.resolution IS NULL OR e.resolution = '' THEN NULL ELSE json_extract(e.resolution, '$.decision') END " +
  "FROM escalations e WHERE e.run_id = u.run_id AND e.seq = u.last_seq ORDER BY e.escalation_id LIMIT 1) = 'TERMINATE' THEN 'terminated' ELSE 'active' END";
// Routes whose decision needs a person (escalations, the iteration cap, a failure taking a branch default): the
// decision JSON is JSON.stringify's, so `"needs_human":true` appears exactly there (never inside an escaped string).
const NEEDS_HUMAN = "(SELECT count(*) FROM routes r WHERE r.run_id = u.run_id AND instr(r.decision_json, '\"needs_human\":true') > 0)";
const LISTING_COLUMNS =
  'u.run_id, u.flow, u.created_ts, u.updated_ts, u.last_seq, lower(hex(u.head_hash)) AS head_hash, u.offroad, u.llm_calls, u.cost_usd, ' +
  `u.last_decision, u.last_step, ${OPEN_ESCALATIONS} AS open_escalations, ${NEEDS_HUMAN} AS needs_human, ${RUN_STATUS} AS status, ` +
  '(SELECT json_group_array(flow ORDER BY flow) FROM (SELECT DISTINCT r.flow FROM routes r WHERE r.run_id = u.run_id)) AS flows';

/** The WHERE clause of a run listing's filters (named parameters @status, @flow), and the shape it has. */
function listingFilters(q: RunPageQuery): string[] {
  const where: string[] = [];
  if (q.status !== undefined) where.push(`(${RUN_STATUS}) = @status`);
  if (q.flow !== undefined) where.push('EXISTS (SELECT 1 FROM routes r WHERE r.run_id = u.run_id AND r.flow = @flow)');
  if (q.has_open_escalation !== undefined) where.push(`${q.has_open_escalation ? '' : 'NOT '}EXISTS (SELECT 1 FROM escalations e WHERE e.run_id = u.run_id AND e.status = 'open')`);
  return where;
}

/** A run's off-road rows in seq order: what its decisions.jsonl files hold (also read by the mirror's thread). */
export const OFFROAD_ROWS_SQL = "SELECT seq, flow, step, decision_json, ts FROM routes WHERE run_id = ? AND decision <> 'CONTINUE' ORDER BY seq";

/** The ledger's SQL surface: prepared once per connection, each method one statement or one transaction. */
export class LedgerSql {
  readonly db: Database.Database;
  private readonly flowSetIds = new Map<string, number>();
  /** Committed flow sets read back (id to flows_hash): a flow_sets row never changes once committed. */
  private readonly flowsHashes = new Map<number, string>();
  private readonly s;
  private readonly appendTx: (w: AppendWrite) => void;
  private readonly aloneTx: Database.Transaction<(make: () => AppendWrite) => AppendWrite>;
  private readonly batchTx: (fn: () => unknown) => unknown;
  /** The run listing's statements, one per shape (which filters, keyset or offset), prepared on first use. */
  private readonly listing = new Map<string, Database.Statement>();

  constructor(db: Database.Database) {
    this.db = db;
    this.s = {
      insertRoute: db.prepare(
        'INSERT INTO routes (run_id, seq, flow, step, request_id, decision, next_step, tier, rule, request, decision_json, state, ' +
          'latency_us, cost_usd, llm_calls, kernel_version, flow_set, ts, prev_hash, hash, field_sums, latency_unit, principal) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
      ),
      // A run's first route inserts its head (a run already there: SQLITE_CONSTRAINT_PRIMARYKEY, a conflict).
      insertRun: db.prepare(
        'INSERT INTO runs (run_id, flow, created_ts, updated_ts, last_seq, head_hash, offroad, llm_calls, cost_usd, last_decision, last_step) ' +
          'VALUES (?,?,?,?,?,?,?,?,?,?,?)',
      ),
      // Every later route moves the head on, only from the seq it follows (another writer got there first: no row
      // changes, a conflict), and only if no upgrade at that seq moved the run to another flow version than the
      // route's (`runs upgrade`, maybe in another process): a route decided on the old version is stale too. The kernel
      // then reloads the run (upgraded) and routes again. One statement in the append's transaction does both checks.
      advanceRun: db.prepare(
        'UPDATE runs SET updated_ts = ?, last_seq = ?, head_hash = ?, offroad = offroad + ?, llm_calls = llm_calls + ?, cost_usd = cost_usd + ?, ' +
          'last_decision = ?, last_step = ? WHERE run_id = ? AND last_seq = ? ' +
          'AND coalesce((SELECT to_flows FROM run_upgrades WHERE run_id = ? AND seq = ? ORDER BY idx DESC LIMIT 1), ?) = ?',
      ),
      insertLlmCall: db.prepare(
        'INSERT INTO llm_calls (run_id, seq, idx, provider, model, purpose, attempt, prompt_hash, raw_answer, outcome, input_tokens, ' +
          'output_tokens, usd, latency_ms, record) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
      ),
      insertEscalation: db.prepare(
        "INSERT INTO escalations (escalation_id, run_id, seq, flow, step, reason, opened_ts, status) VALUES (?,?,?,?,?,?,?,'open')",
      ),
      selectFlowSet: db.prepare('SELECT id FROM flow_sets WHERE flows_hash = ?').pluck(),
      insertFlowSet: db.prepare('INSERT OR IGNORE INTO flow_sets (flows_hash) VALUES (?)'),
      lastState: db.prepare('SELECT state FROM routes WHERE run_id = ? ORDER BY seq DESC LIMIT 1').pluck(),
      byRequestId: db.prepare('SELECT decision_json, request FROM routes WHERE run_id = ? AND request_id = ?'),
      routesPage: db.prepare(
        `SELECT ${ROUTE_COLUMNS} FROM routes r LEFT JOIN flow_sets f ON f.id = r.flow_set WHERE r.run_id = ? AND r.seq > ? ORDER BY r.seq LIMIT ?`,
      ),
      replayPage: db.prepare('SELECT seq, request, decision_json, ts, llm_calls FROM routes WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?'),
      replayRaw: db.prepare('SELECT seq, request, decision_json, ts, llm_calls, flow_set FROM routes WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?').raw(),
      flowsHashById: db.prepare('SELECT flows_hash FROM flow_sets WHERE id = ?').pluck(),
      llmCallsRange: db.prepare('SELECT * FROM llm_calls WHERE run_id = ? AND seq >= ? AND seq <= ? ORDER BY seq, idx'),
      offroadRows: db.prepare(OFFROAD_ROWS_SQL),
      runFlowsHashes: db.prepare(
        'SELECT f.flows_hash FROM (SELECT flow_set, min(seq) AS first FROM routes WHERE run_id = ? GROUP BY flow_set) r JOIN flow_sets f ON f.id = r.flow_set ORDER BY r.first',
      ).pluck(),
      arbiterFootprint: db.prepare(
        "SELECT EXISTS (SELECT 1 FROM routes WHERE run_id = ? AND tier >= 3 AND (tier = 3 OR llm_calls > 0 OR (instr(decision_json, '\"tier\":3') > 0 AND instr(decision_json, 'navigator_unavailable') = 0 AND instr(decision_json, 'arbiter_unavailable') = 0)))",
      ).pluck(),
      runFlows: db.prepare('SELECT DISTINCT flow FROM routes WHERE run_id = ? ORDER BY flow').pluck(),
      run: db.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE run_id = ?`),
      runs: db.prepare(`SELECT ${RUN_COLUMNS} FROM runs ORDER BY created_ts, run_id`),
      headHash: db.prepare('SELECT head_hash FROM runs WHERE run_id = ?').pluck(),
      runIds: db.prepare('SELECT run_id FROM runs ORDER BY run_id').pluck(),
      routeRunIds: db.prepare('SELECT DISTINCT run_id FROM routes ORDER BY run_id').pluck(),
      openEscalationCount: db.prepare("SELECT count(*) FROM escalations WHERE run_id = ? AND status = 'open'").pluck(),
      escalation: db.prepare(`SELECT ${ESCALATION_COLUMNS} FROM escalations WHERE escalation_id = ?`),
      runEscalations: db.prepare(`SELECT ${ESCALATION_COLUMNS} FROM escalations WHERE run_id = ? ORDER BY seq`),
      resolveEscalation: db.prepare(
        "UPDATE escalations SET status = 'resolved', resolution = ?, resolved_by = ?, resolved_ts = ?, resolution_hash = ? WHERE escalation_id = ? AND status = 'open'",
      ),
      tierRuleCounts: db.prepare(
        'SELECT tier, rule, decision, count(*) AS count FROM routes WHERE run_id = ? GROUP BY tier, rule, decision ORDER BY tier, rule, decision',
      ),
      ledgerTierRuleCounts: db.prepare('SELECT tier, rule, decision, count(*) AS count FROM routes GROUP BY tier, rule, decision ORDER BY tier, rule, decision'),
      // unixepoch() is NULL for a time SQLite cannot read: such runs are left out of the span, such routes go to bucket 0.
      ledgerTotals: db.prepare(
        "SELECT count(*) AS runs, coalesce(sum(last_seq), 0) AS routes, min(round(unixepoch(created_ts, 'subsec') * 1000)) AS first_ms, " +
          "max(round(unixepoch(updated_ts, 'subsec') * 1000)) AS last_ms FROM runs",
      ),
      // Buckets are whole seconds wide, so whole seconds of ts decide the bucket (unixepoch() without 'subsec' floors).
      costBuckets: db.prepare(
        'SELECT b * 1000 AS bucket_ms, count(*) AS routes, sum(llm_calls) AS llm_calls, sum(cost_usd) AS usd ' +
          'FROM (SELECT coalesce(unixepoch(ts) / CAST(@w AS INTEGER) * CAST(@w AS INTEGER), 0) AS b, llm_calls, cost_usd FROM routes) GROUP BY b ORDER BY b',
      ),
      routeHash: db.prepare('SELECT lower(hex(hash)) FROM routes WHERE run_id = ? AND seq = ?').pluck(),
      runLlmCalls: db.prepare('SELECT * FROM llm_calls WHERE run_id = ? ORDER BY seq, idx'),
      countRoutes: db.prepare('SELECT count(*) FROM routes').pluck(),
      registerHead: db.prepare('SELECT hash FROM run_register ORDER BY ordinal DESC LIMIT 1').pluck(),
      insertRegister: db.prepare('INSERT INTO run_register (run_id, first_hash, prev_hash, hash) VALUES (?, ?, ?, ?)'),
      register: db.prepare('SELECT ordinal, run_id, lower(hex(first_hash)) AS first_hash, lower(hex(prev_hash)) AS prev_hash, lower(hex(hash)) AS hash FROM run_register ORDER BY ordinal'),
      registerRunIds: db.prepare('SELECT run_id FROM run_register').pluck(),
      pageCount: db.prepare('SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()').pluck(),
    };
    this.batchTx = db.transaction((fn: () => unknown) => fn());
    const writeRows = (w: AppendWrite) => {
      const r = w.route;
      const flowSet = this.flowSetId(r.flows_hash);
      this.s.insertRoute.run(
        r.run_id, r.seq, r.flow, r.step, r.request_id, r.decision, r.next_step, r.tier, r.rule, r.request, r.decision_json, r.state,
        r.latency_us, r.cost_usd, r.llm_calls, r.kernel_version, flowSet, r.ts, r.prev_hash, r.hash, r.field_sums, r.latency_unit, r.principal ?? null,
      );
      const offroad = w.offroad ? 1 : 0;
      if (r.seq === 1) {
        const prev = (this.s.registerHead.get() as Buffer | undefined)?.toString('hex') ?? GENESIS_HASH;
        const first = r.hash.toString('hex');
        this.s.insertRegister.run(r.run_id, r.hash, Buffer.from(prev, 'hex'), Buffer.from(registerHash(prev, r.run_id, first), 'hex'));
        this.s.insertRun.run(r.run_id, r.flow, r.ts, r.ts, r.seq, r.hash, offroad, r.llm_calls, r.cost_usd, r.decision, r.step);
      } else {
        const moved = this.s.advanceRun.run(
          r.ts, r.seq, r.hash, offroad, r.llm_calls, r.cost_usd, r.decision, r.step, r.run_id, r.seq - 1, r.run_id, r.seq - 1, r.flows_hash, r.flows_hash,
        );
        if (moved.changes !== 1) throw new SeqConflict();
      }
      for (const c of w.llmCalls) {
        this.s.insertLlmCall.run(
          c.run_id, c.seq, c.idx, c.provider, c.model, c.purpose, c.attempt, c.prompt_hash, c.raw_answer, c.outcome,
          c.input_tokens, c.output_tokens, c.usd, c.latency_ms, c.record,
        );
      }
      const e = w.escalation;
      if (e) this.s.insertEscalation.run(e.escalation_id, e.run_id, e.seq, e.flow, e.step, e.reason, e.opened_ts);
    };
    this.appendTx = db.transaction(writeRows);
    this.aloneTx = db.transaction((make: () => AppendWrite) => {
      const w = make();
      writeRows(w);
      return w;
    });
  }

  private flowSetId(hash: string): number {
    let id = this.flowSetIds.get(hash);
    if (id === undefined) {
      this.s.insertFlowSet.run(hash);
      id = this.s.selectFlowSet.get(hash) as number;
      this.flowSetIds.set(hash, id);
    }
    return id;
  }

  /**
   * Writes a route, its LLM calls, its escalation and the run head atomically: its own transaction, or a
   * savepoint when called inside `batch` (so one failing append leaves the others of the batch intact).
   * Throws SeqConflict when the seq is already taken or does not follow the run's head.
   */
  append(w: AppendWrite): void {
    this.guarded(() => this.appendTx(w));
  }

  /**
   * Writes one route as `append` does, in a transaction of its own (IMMEDIATE) rather than a savepoint of `batch`: a
   * group of one needs no savepoint, and two statements fewer per commit is what a lone writer pays most. `make`
   * builds the rows inside the transaction (so the run's head it chains to is read under the write lock).
   */
  appendAlone(make: () => AppendWrite): void {
    this.guarded(() => this.aloneTx.immediate(make));
  }

  /** Runs an append, mapping a taken or out-of-order seq to SeqConflict. */
  private guarded(write: () => void): void {
    try {
      write();
    } catch (err) {
      // A rolled-back write may have cached a flow set id that was never committed.
      this.flowSetIds.clear();
      if (err instanceof SeqConflict) throw err;
      if (err instanceof Error && 'code' in err && /^SQLITE_CONSTRAINT_(PRIMARYKEY|UNIQUE)$/.test(String((err as { code: unknown }).code))) {
        throw new SeqConflict(err);
      }
      throw err;
    }
  }

  /**
   * Runs `fn` in one IMMEDIATE transaction (taking the write lock up front, so a busy ledger waits for
   * busy_timeout instead of failing mid-way): the group commit of several appends.
   */
  batch<T>(fn: () => T): T {
    try {
      return (this.batchTx as unknown as { immediate: (f: () => T) => T }).immediate(fn);
    } catch (err) {
      this.flowSetIds.clear();
      throw err;
    }
  }

  lastState(runId: string): string | undefined {
    return this.s.lastState.get(runId) as string | undefined;
  }

  /** The recorded decision and request texts for an idempotency key. */
  byRequestId(runId: string, requestId: string): { decision_json: string; request: string } | undefined {
    return this.s.byRequestId.get(runId, requestId) as { decision_json: string; request: string } | undefined;
  }

  /** The run's head hash (raw bytes), or undefined for a run never seen. */
  headHash(runId: string): Buffer | undefined {
    return this.s.headHash.get(runId) as Buffer | undefined;
  }

  routesPage(runId: string, afterSeq: number, limit: number): StoredRoute[] {
    return this.s.routesPage.all(runId, afterSeq, limit) as StoredRoute[];
  }

  replayPage(runId: string, afterSeq: number, limit: number): { seq: number; request: string; decision_json: string; ts: string; llm_calls: number }[] {
    return this.s.replayPage.all(runId, afterSeq, limit) as { seq: number; request: string; decision_json: string; ts: string; llm_calls: number }[];
  }

  /**
   * The replayPage range as arrays (`.raw()`: no per-row objects), each with its flows_hash last: the row's flow set
   * id read with it and turned into its hash from a cache (one shared string per flow set, no join, no second scan).
   */
  replayRaw(runId: string, afterSeq: number, limit: number): [number, string, string, string, number, string][] {
    const rows = this.s.replayRaw.all(runId, afterSeq, limit) as [number, string, string, string, number, number | string][];
    let lastId = -1;
    let lastHash = '';
    for (const row of rows) {
      const id = row[5] as number;
      if (id !== lastId) {
        lastId = id;
        lastHash = this.flowsHashOf(id);
      }
      row[5] = lastHash;
    }
    return rows as [number, string, string, string, number, string][];
  }

  private flowsHashOf(id: number): string {
    let hash = this.flowsHashes.get(id);
    if (hash === undefined) {
      hash = this.s.flowsHashById.get(id) as string;
      this.flowsHashes.set(id, hash);
    }
    return hash;
  }

  llmCalls(runId: string, fromSeq: number, toSeq: number): StoredLlmCall[] {
    return this.s.llmCallsRange.all(runId, fromSeq, toSeq) as StoredLlmCall[];
  }

  runLlmCalls(runId: string): StoredLlmCall[] {
    return this.s.runLlmCalls.all(runId) as StoredLlmCall[];
  }

  offroadRows(runId: string): { seq: number; flow: string; step: string; decision_json: string; ts: string }[] {
    return this.s.offroadRows.all(runId) as { seq: number; flow: string; step: string; decision_json: string; ts: string }[];
  }

  /**
   * Whether tier 3 ever ran in a run (a tier-3 decision, an LLM call, or a tier-3 rejection or skip other than
   * `arbiter_unavailable`, or its former name `navigator_unavailable`). Tier 3 runs only when tiers 1-2 could not decide, so only routes decided at tier 3 or
   * later are looked into: the decision texts of the rest are never read (half the time of a 100,000-route run).
   */
  arbiterFootprint(runId: string): boolean {
    return (this.s.arbiterFootprint.get(runId) as number) === 1;
  }

  runFlows(runId: string): string[] {
    return this.s.runFlows.all(runId) as string[];
  }

  /** Distinct flow definitions (their hashes) a run was routed with, in order of first use in the run. */
  runFlowsHashes(runId: string): string[] {
    return this.s.runFlowsHashes.all(runId) as string[];
  }

  run(runId: string): StoredRun | undefined {
    return this.s.run.get(runId) as StoredRun | undefined;
  }

  runs(): StoredRun[] {
    return this.s.runs.all() as StoredRun[];
  }

  /** The run register in order. */
  runRegister(): StoredRunEntry[] {
    return this.s.register.all() as StoredRunEntry[];
  }

  /** Whether the run has a tombstone in the run register (archived, src/ledger/archive/). */
  archived(runId: string): boolean {
    return this.db.prepare('SELECT 1 FROM run_register WHERE run_id = ? AND archived_ts IS NOT NULL').get(runId) !== undefined;
  }

  /** Run ids known to the runs table, the routes table or the run register (they differ only in a tampered ledger). */
  allRunIds(): string[] {
    const ids = new Set([...(this.s.runIds.all() as string[]), ...(this.s.routeRunIds.all() as string[]), ...(this.s.registerRunIds.all() as string[])]);
    return [...ids].sort();
  }

  openEscalationCount(runId: string): number {
    return this.s.openEscalationCount.get(runId) as number;
  }

  escalation(id: string): StoredEscalation | undefined {
    return this.s.escalation.get(id) as StoredEscalation | undefined;
  }

  runEscalations(runId: string): StoredEscalation[] {
    return this.s.runEscalations.all(runId) as StoredEscalation[];
  }

  /** Marks an open escalation resolved; false when it was not open (resolved meanwhile by someone else). */
  resolveEscalation(id: string, resolutionJson: string, by: string, ts: string, hash: Buffer): boolean {
    return this.s.resolveEscalation.run(resolutionJson, by, ts, hash, id).changes === 1;
  }

  routeHash(runId: string, seq: number): string | undefined {
    return this.s.routeHash.get(runId, seq) as string | undefined;
  }

  tierRuleCounts(runId: string): { tier: number; rule: string; decision: string; count: number }[] {
    return this.s.tierRuleCounts.all(runId) as { tier: number; rule: string; decision: string; count: number }[];
  }

  /**
   * One page of the run listing and the number of runs matching its filters: two statements in one read
   * transaction (one snapshot). The page's statement walks index runs_created in order and stops after the page;
   * flows, open escalations and status are computed for the page's runs only (and, for a status or escalation
   * filter, evaluated per run as the walk goes).
   */
  runPage(q: RunPageQuery): { runs: StoredRunListing[]; total: number; more: boolean } {
    const where = listingFilters(q);
    const keyset = q.after !== undefined;
    const filters = `${q.status !== undefined ? 's' : ''}${q.flow !== undefined ? 'f' : ''}${q.has_open_escalation === undefined ? '' : q.has_open_escalation ? 'o' : 'n'}`;
    const params: Record<string, unknown> = { limit: q.limit + 1 };
    if (q.status !== undefined) params.status = q.status;
    if (q.flow !== undefined) params.flow = q.flow;
    if (keyset) Object.assign(params, { after_ts: q.after!.created_ts, after_id: q.after!.run_id });
    else if (q.offset) params.offset = q.offset;
    const page = this.listingStatement(`page:${filters}:${keyset ? 'after' : q.offset ? 'offset' : ''}`, () => {
      const w = keyset ? [...where, '(u.created_ts, u.run_id) > (@after_ts, @after_id)'] : where;
      return `SELECT ${LISTING_COLUMNS} FROM runs u${w.length ? ` WHERE ${w.join(' AND ')}` : ''} ORDER BY u.created_ts, u.run_id LIMIT @limit${!keyset && q.offset ? ' OFFSET @offset' : ''}`;
    });
    const countParams: Record<string, unknown> = {};
    if (q.status !== undefined) countParams.status = q.status;
    if (q.flow !== undefined) countParams.flow = q.flow;
    const count = this.listingStatement(`count:${filters}`, () => `SELECT count(*) FROM runs u${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`);
    return this.db.transaction(() => {
      const rows = page.all(params) as (Omit<StoredRunListing, 'flows'> & { flows: string })[];
      const total = count.pluck().get(countParams) as number;
      const more = rows.length > q.limit;
      if (more) rows.length = q.limit;
      return { runs: rows.map((r) => ({ ...r, flows: JSON.parse(r.flows) as string[] })), total, more };
    })();
  }

  private listingStatement(key: string, sql: () => string): Database.Statement {
    let st = this.listing.get(key);
    if (!st) this.listing.set(key, (st = this.db.prepare(sql())));
    return st;
  }

  /** Routes per (tier, rule, decision) over every run. */
  ledgerTierRuleCounts(): { tier: number; rule: string; decision: string; count: number }[] {
    return this.s.ledgerTierRuleCounts.all() as { tier: number; rule: string; decision: string; count: number }[];
  }

  ledgerTotals(): LedgerTotals {
    return this.s.ledgerTotals.get() as LedgerTotals;
  }

  /** Routes, LLM calls and USD per bucket of `widthMs` (a whole number of seconds) of route time. */
  costBuckets(widthMs: number): CostBucket[] {
    return this.s.costBuckets.all({ w: Math.max(1, Math.round(widthMs / 1000)) }) as CostBucket[];
  }

  routeCount(): number {
    return this.s.countRoutes.get() as number;
  }

  /** Bytes of the main database file's pages (WAL excluded; checkpoint first for a full figure). */
  databaseBytes(): number {
    return this.s.pageCount.get() as number;
  }

  checkpoint(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  close(): void {
    this.db.close();
  }
}

/** The seq was already recorded for this run (or does not follow its head): a second writer on the run. */
export class SeqConflict extends Error {
  constructor(cause?: unknown) {
    super('seq conflict', { cause });
    this.name = 'SeqConflict';
  }
}
