// The stores the conformance suite runs against. Every store in STORE_FACTORIES must pass every test in this
// folder unchanged (as LangGraph's checkpoint-validation package does for its savers). To add a store, push a
// factory here; a store that needs a server (PostgreSQL) adds itself only when its server is configured
// (DATABASE_URL), so `npm test` on a machine without one still runs the rest.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Ledger } from '../../src/contracts/index.js';
import { PostgresLedger, openLedger } from '../../src/ledger/index.js';
import { DATABASE_URL, adminQuery, freshSchemaUrl, schemaOf } from '../support/postgres.js';

/** One store location (a file, a database schema) that several handles ("processes") can open. */
export interface StoreLocation {
  /** Opens a new handle on the location, as a separate kernel process would. */
  open(): Promise<Ledger>;
  /** The `--ledger` value the CLI takes for this location (a path or a URL). */
  readonly cliArg: string;
  /** RUN_BASE of its decisions.jsonl files, when it writes them. */
  readonly runBase: string | undefined;
  /** Tampering, behind the ledger's back (as someone with write access to the database would): deletes every row of a run in every table, run register excepted. */
  deleteRunRows(run_id: string): Promise<void>;
  /** Tampering: runs one SQL statement on the location's tables, behind the ledger's back. */
  sql(statement: string): Promise<void>;
  /** Deletes the location. */
  cleanup(): Promise<void>;
}

export interface StoreFactory {
  name: string;
  /** A fresh, empty location. */
  create(): Promise<StoreLocation>;
}

/** The tables holding a run's rows (the run register apart). */
const RUN_TABLES = ['routes', 'runs', 'llm_calls', 'escalations'] as const;

export const sqliteFactory: StoreFactory = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(path.join(tmpdir(), 'navkernel-conformance-'));
    const file = path.join(dir, 'ledger.sqlite');
    return {
      cliArg: file,
      runBase: dir,
      open: async () => openLedger(file),
      deleteRunRows: async (run_id) => {
        const db = new Database(file);
        try {
          for (const t of RUN_TABLES) db.prepare(`DELETE FROM ${t} WHERE run_id = ?`).run(run_id);
        } finally {
          db.close();
        }
      },
      sql: async (statement) => {
        const db = new Database(file);
        try {
          db.exec(statement);
        } finally {
          db.close();
        }
      },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
};

/** PostgreSQL: a schema of its own per location, in the test server (scripts/with-postgres.sh or DATABASE_URL). */
export const postgresFactory: StoreFactory = {
  name: 'postgres',
  async create() {
    const url = freshSchemaUrl('conf');
    return {
      cliArg: url,
      runBase: undefined,
      open: () => PostgresLedger.open(url),
      deleteRunRows: async (run_id) => {
        for (const t of RUN_TABLES) await adminQuery(`DELETE FROM ${schemaOf(url)}.${t} WHERE run_id = $1`, [run_id]);
      },
      sql: async (statement) => void (await adminQuery(statement, [], schemaOf(url))),
      cleanup: async () => void (await adminQuery(`DROP SCHEMA IF EXISTS ${schemaOf(url)} CASCADE`)),
    };
  },
};

export const STORE_FACTORIES: StoreFactory[] = [sqliteFactory, ...(DATABASE_URL ? [postgresFactory] : [])];
