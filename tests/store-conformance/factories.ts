// The stores the conformance suite runs against. Every store in STORE_FACTORIES must pass every test in this
// folder unchanged (as LangGraph's checkpoint-validation package does for its savers). To add a store, push a
// factory here; a store that needs a server (PostgreSQL) adds itself only when its server is configured
// (DATABASE_URL), so `npm test` on a machine without one still runs the rest.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
  /** Deletes the location. */
  cleanup(): Promise<void>;
}

export interface StoreFactory {
  name: string;
  /** A fresh, empty location. */
  create(): Promise<StoreLocation>;
}

export const sqliteFactory: StoreFactory = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(path.join(tmpdir(), 'navkernel-conformance-'));
    const file = path.join(dir, 'ledger.sqlite');
    return {
      cliArg: file,
      runBase: dir,
      open: async () => openLedger(file),
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
      cleanup: async () => void (await adminQuery(`DROP SCHEMA IF EXISTS ${schemaOf(url)} CASCADE`)),
    };
  },
};

export const STORE_FACTORIES: StoreFactory[] = [sqliteFactory, ...(DATABASE_URL ? [postgresFactory] : [])];
